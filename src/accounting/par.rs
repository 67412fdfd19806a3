//! A table's par (imprest) inventory: how many chips of each denomination of its currency's
//! chip set it holds when it opens. Set by an administrator; every change is a new version
//! (never an edit), recorded on the table's audit chain, so a slip can show the par in force.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::chips::{self, ChipSetVersion};
use crate::accounting::{save, AccountingError, Saved};
use crate::db::accounting::{self as rows, ParRow, ParTable};
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::{ChipSetVersionId, ParId, TableId};
use crate::rules::accounting::Inventory;

/// One par version with its inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct Par {
    pub id: ParId,
    pub version: i32,
    /// The chip set version it was counted against.
    pub chip_set_version: i32,
    pub inventory: Inventory,
    pub created_at: DateTime<Utc>,
}

/// A table's par page: the table, the chip set a new par is counted against (its currency's
/// newest; `None` while the currency has no chip set), and every par version, oldest first
/// (the last is in force).
#[derive(Debug, Clone, PartialEq)]
pub struct ParSheet {
    pub table: ParTable,
    pub chip_set: Option<ChipSetVersion>,
    pub versions: Vec<Par>,
}

impl ParSheet {
    pub fn in_force(&self) -> Option<&Par> {
        self.versions.last()
    }
}

/// The form field of a denomination's count: `count-` and the denomination in minor units.
pub fn count_field(denomination: crate::rules::money::Money) -> String {
    format!("count-{}", denomination.minor_units())
}

fn par_of(conn: &mut PgConnection, row: ParRow) -> Result<Par, AccountingError> {
    let bad = || AccountingError::BadStored(format!("par {}", row.id));
    let set = rows::chip_set_version(conn, row.chip_set_version_id)?.ok_or_else(bad)?;
    let set = chips::stored(set)?;
    let counts: Vec<i64> = row
        .counts
        .iter()
        .copied()
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(bad)?;
    let inventory = Inventory::new(set.denominations, counts).map_err(|_| bad())?;
    if inventory.total() != row.total {
        return Err(bad());
    }
    Ok(Par {
        id: row.id,
        version: row.version,
        chip_set_version: set.version,
        inventory,
        created_at: row.created_at,
    })
}

fn sheet(conn: &mut PgConnection, table: ParTable) -> Result<ParSheet, AccountingError> {
    let chip_set = rows::latest_chip_set_version_of(conn, &table.currency)?
        .map(chips::stored)
        .transpose()?;
    let versions = rows::pars(conn, table.id)?
        .into_iter()
        .map(|row| par_of(conn, row))
        .collect::<Result<_, _>>()?;
    Ok(ParSheet {
        table,
        chip_set,
        versions,
    })
}

/// The par page of a table.
pub async fn show(db: &Db, table: TableId) -> Result<ParSheet, AccountingError> {
    db.run(move |conn| {
        let table = rows::par_table(conn, table)?.ok_or(AccountingError::NotFound("table"))?;
        sheet(conn, table)
    })
    .await
}

/// Saves the next par version of a table from the counts typed for each denomination of its
/// currency's chip set (`count-<minor units>`; a blank is none), and records `table.par` on the
/// table's chain. Refused: a currency without a chip set, a form counted against a chip set
/// version that is no longer the newest, a count that is not a whole number of chips, a par the
/// same as the one in force. Answers the table's code and the new version, or the refusal with
/// the page as it is.
pub async fn set(
    db: &Db,
    table_id: TableId,
    counted_against: ChipSetVersionId,
    typed: HashMap<String, String>,
    actor: Actor,
) -> Result<Saved<(String, i32), ParSheet>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let table =
                rows::lock_par_table(conn, table_id)?.ok_or(AccountingError::NotFound("table"))?;
            let Some(chip_set) = rows::latest_chip_set_version_of(conn, &table.currency)? else {
                return Err(AccountingError::Refused(format!(
                    "{} has no chip set: an administrator adds one under Chip sets first.",
                    table.currency
                )));
            };
            let chip_set = chips::stored(chip_set)?;
            if chip_set.id != counted_against {
                return Err(AccountingError::Refused(format!(
                    "The {} chip set changed to v{} while this form was open: count again.",
                    table.currency, chip_set.version
                )));
            }
            let texts: Vec<&str> = chip_set
                .denominations
                .as_slice()
                .iter()
                .map(|&d| typed.get(&count_field(d)).map_or("", String::as_str))
                .collect();
            let inventory = Inventory::typed(chip_set.denominations.clone(), &texts)
                .map_err(|err| AccountingError::Refused(err.to_string()))?;
            let before = rows::latest_par(conn, table.id)?
                .map(|row| par_of(conn, row))
                .transpose()?;
            if let Some(before) = before.as_ref() {
                if before.inventory == inventory {
                    return Err(AccountingError::Refused(format!(
                        "This is par v{} already: nothing to save.",
                        before.version
                    )));
                }
            }
            let next = before.as_ref().map_or(1, |p| p.version + 1);
            rows::insert_par(
                conn,
                table.id,
                next,
                chip_set.id,
                inventory.counts(),
                inventory.total(),
                actor.user_id,
            )?;
            let lines: Vec<serde_json::Value> = inventory
                .lines()
                .map(|l| json!({"denomination": l.denomination, "count": l.count}))
                .collect();
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &audit_log::table_chain(table.id),
                    actor: &actor,
                    action: AuditAction::TablePar,
                    target: format!("table:{}", table.code),
                    details: json!({
                        "version": next,
                        "currency": table.currency,
                        "chip_set_version": chip_set.version,
                        "chip_set_version_id": chip_set.id,
                        "lines": lines,
                        "total": inventory.total(),
                        "before_total": before.map(|p| p.inventory.total()),
                    }),
                    gaming_day: None,
                    table_id: Some(table.id),
                },
            )?;
            Ok((table.code, next))
        };
        let page = |conn: &mut PgConnection| {
            let table =
                rows::par_table(conn, table_id)?.ok_or(AccountingError::NotFound("table"))?;
            sheet(conn, table)
        };
        save(conn, change, page)
    })
    .await
}
