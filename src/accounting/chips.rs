//! Chip sets: the denominations in play for a currency, set by an administrator. A chip set's
//! denominations live in numbered versions that are only ever inserted (like rule profiles), so
//! a par or a slip counted against a version keeps its meaning after the set changes.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::json;

use crate::accounting::{save, AccountingError, Saved};
use crate::db::accounting::{self as rows, ChipSet, ChipSetVersionRow};
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::{ChipSetId, ChipSetVersionId};
use crate::rules::accounting::Denominations;
use crate::rules::money::Money;

/// One stored chip set version with its denominations checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipSetVersion {
    pub id: ChipSetVersionId,
    pub version: i32,
    pub denominations: Denominations,
    pub created_at: DateTime<Utc>,
}

/// A chip set with every version, oldest first (the last is the one in force).
#[derive(Debug, Clone, PartialEq)]
pub struct ChipSetHistory {
    pub id: ChipSetId,
    pub currency: String,
    pub versions: Vec<ChipSetVersion>,
}

impl ChipSetHistory {
    pub fn latest(&self) -> Option<&ChipSetVersion> {
        self.versions.last()
    }
}

/// A stored version whose denominations do not hold (a row the database checks should have
/// refused): an internal error, not the reader's.
pub(crate) fn stored(row: ChipSetVersionRow) -> Result<ChipSetVersion, AccountingError> {
    let amounts: Option<Vec<Money>> = row
        .denominations
        .iter()
        .map(|d| d.map(Money::from_minor_units))
        .collect::<Option<Vec<Money>>>();
    let denominations = amounts
        .and_then(|amounts| Denominations::new(amounts).ok())
        .ok_or_else(|| AccountingError::BadStored(format!("chip set version {}", row.id)))?;
    Ok(ChipSetVersion {
        id: row.id,
        version: row.version,
        denominations,
        created_at: row.created_at,
    })
}

fn histories(conn: &mut PgConnection) -> Result<Vec<ChipSetHistory>, AccountingError> {
    let sets = rows::chip_sets(conn)?;
    let mut versions = rows::chip_set_versions(conn)?;
    sets.into_iter()
        .map(|set: ChipSet| {
            let (mine, rest): (Vec<_>, Vec<_>) = versions
                .drain(..)
                .partition(|v: &ChipSetVersionRow| v.chip_set_id == set.id);
            versions = rest;
            Ok(ChipSetHistory {
                id: set.id,
                currency: set.currency,
                versions: mine.into_iter().map(stored).collect::<Result<_, _>>()?,
            })
        })
        .collect()
}

/// Every chip set with its versions, by currency.
pub async fn list(db: &Db) -> Result<Vec<ChipSetHistory>, AccountingError> {
    db.run(histories).await
}

fn currency_of(typed: &str) -> Result<String, AccountingError> {
    let currency = typed.trim().to_ascii_uppercase();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(AccountingError::Refused(
            "Enter a 3-letter currency code such as PHP.".to_owned(),
        ));
    }
    Ok(currency)
}

fn denominations_of(typed: &str) -> Result<Denominations, AccountingError> {
    Denominations::parse(typed).map_err(|err| AccountingError::Refused(err.to_string()))
}

fn amounts_json(denominations: &Denominations) -> serde_json::Value {
    json!(denominations.as_slice())
}

/// Creates the chip set of a currency with version 1 and records `chips.create` on the system
/// chain. Refused: a currency that is not three letters, denominations that do not read, a
/// currency that has a chip set already. Answers the new chip set, or the refusal with every
/// chip set.
pub async fn create(
    db: &Db,
    currency: String,
    denominations: String,
    actor: Actor,
) -> Result<Saved<ChipSetHistory, Vec<ChipSetHistory>>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let currency = currency_of(&currency)?;
            let denominations = denominations_of(&denominations)?;
            let set = rows::insert_chip_set(conn, &currency).map_err(|err| match err {
                DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
                    AccountingError::Refused(format!(
                        "{currency} has a chip set already: save a new version of it instead."
                    ))
                }
                other => other.into(),
            })?;
            let row = rows::insert_chip_set_version(
                conn,
                set.id,
                1,
                denominations.as_slice(),
                actor.user_id,
            )?;
            audit_log::append(
                conn,
                &NewAuditEvent::system(
                    &actor,
                    AuditAction::ChipsCreate,
                    format!("chip_set:{}", set.id),
                )
                .details(json!({
                    "currency": set.currency,
                    "version": 1,
                    "denominations": amounts_json(&denominations),
                })),
            )?;
            Ok(ChipSetHistory {
                id: set.id,
                currency: set.currency,
                versions: vec![stored(row)?],
            })
        };
        save(conn, change, histories)
    })
    .await
}

/// Inserts the next version of a chip set (older versions are never touched) and records
/// `chips.new_version` with the denominations before and after. Refused: denominations that do
/// not read, or the same as the version in force. Answers the new version, or the refusal with
/// every chip set.
pub async fn new_version(
    db: &Db,
    id: ChipSetId,
    denominations: String,
    actor: Actor,
) -> Result<Saved<(String, ChipSetVersion), Vec<ChipSetHistory>>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let set =
                rows::lock_chip_set(conn, id)?.ok_or(AccountingError::NotFound("chip set"))?;
            let denominations = denominations_of(&denominations)?;
            let before = rows::latest_chip_set_version(conn, id)?
                .map(stored)
                .transpose()?;
            if let Some(before) = before.as_ref() {
                if before.denominations == denominations {
                    return Err(AccountingError::Refused(format!(
                        "These are the denominations of v{} already: nothing to save.",
                        before.version
                    )));
                }
            }
            let next = before.as_ref().map_or(1, |v| v.version + 1);
            let row = rows::insert_chip_set_version(
                conn,
                set.id,
                next,
                denominations.as_slice(),
                actor.user_id,
            )?;
            audit_log::append(
                conn,
                &NewAuditEvent::system(
                    &actor,
                    AuditAction::ChipsNewVersion,
                    format!("chip_set:{}", set.id),
                )
                .details(json!({
                    "currency": set.currency,
                    "version": next,
                    "before": before.map(|v| amounts_json(&v.denominations)),
                    "after": amounts_json(&denominations),
                })),
            )?;
            Ok((set.currency, stored(row)?))
        };
        save(conn, change, histories)
    })
    .await
}
