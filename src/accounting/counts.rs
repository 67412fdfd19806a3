//! The count (docs/accounting.md, "The count"): after a gaming day the count team counts each
//! table's drop box, the banknotes by denomination (one cash total where the currency has no
//! banknotes listed, `rules::accounting::banknotes`) and the markers and chip vouchers, signed by
//! two counters, two different people of the `count` role who had no hand in that table's day
//! (recorded or voided a buy-in, signed a slip or a step of a fill or credit, dealt there). The
//! count is compared with the buy-ins the table recorded: each kind's difference, counted −
//! recorded, flagged when not zero. A count is never changed: a wrong one is voided with a
//! reason (by an administrator, or a counter who signed none of it) and counted again. A count
//! may come after the day's close.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::signatures::{self, Capacity, Document, SecondPerson, Signature};
use crate::accounting::slips::{Me, Person};
use crate::accounting::{save, AccountingError, Saved};
use crate::db::accounting::names_of;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::counts::{self as rows, CountRow, CountTable, CountVoidRow, NewCount};
use crate::db::days;
use crate::db::handle::Db;
use crate::db::ids::{DropCountId, TableId, UserId};
use crate::db::users::Role;
use crate::password::Secrets;
use crate::rules::accounting::{
    banknotes, compare_drop, Denominations, DropByKind, DropComparison, Inventory, InventoryError,
};
use crate::rules::money::Money;

/// The form field of a banknote denomination's count: `notes-<minor units>`.
pub fn note_field(denomination: Money) -> String {
    format!("notes-{}", denomination.minor_units())
}

/// A signed count as pages show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    pub id: DropCountId,
    pub gaming_day: NaiveDate,
    pub currency: String,
    /// The banknotes by denomination (`None`: the cash was counted as one total).
    pub notes: Option<Inventory>,
    pub counted: DropByKind,
    pub total: Money,
    pub first: Person,
    pub second: Person,
    pub signed_at: DateTime<Utc>,
    pub void: Option<(String, Person, DateTime<Utc>)>,
}

/// Where a table's count of a day stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountState {
    /// No count yet.
    NotCounted,
    /// One count, standing.
    Counted,
    /// Every count void: it is to be counted again.
    Void,
    /// Counted again after a void: the newest count stands.
    Recounted,
}

impl CountState {
    pub fn as_str(self) -> &'static str {
        match self {
            CountState::NotCounted => "not counted",
            CountState::Counted => "counted",
            CountState::Void => "void: count again",
            CountState::Recounted => "void and recounted",
        }
    }

    fn of(counts: &[Count]) -> CountState {
        let standing = counts.iter().any(|c| c.void.is_none());
        let voided = counts.iter().any(|c| c.void.is_some());
        match (standing, voided) {
            (false, false) => CountState::NotCounted,
            (true, false) => CountState::Counted,
            (false, true) => CountState::Void,
            (true, true) => CountState::Recounted,
        }
    }
}

/// One table's count of one gaming day: what the table recorded, every count signed (void ones
/// included), where it stands, and the standing count against the buy-ins.
#[derive(Debug, Clone, PartialEq)]
pub struct TableCount {
    pub table: CountTable,
    /// Whether the table had business that day (buy-ins, slips, fills or credits, shifts, rounds).
    pub business: bool,
    pub recorded: DropByKind,
    pub counts: Vec<Count>,
    pub state: CountState,
    pub comparison: Option<DropComparison>,
}

impl TableCount {
    /// The count that stands (not void), if any.
    pub fn standing(&self) -> Option<&Count> {
        self.counts.iter().rev().find(|c| c.void.is_none())
    }
}

/// The count team's day: every table, those with business first, each with its count.
#[derive(Debug, Clone, PartialEq)]
pub struct CountDay {
    pub day: NaiveDate,
    pub closed: bool,
    pub tables: Vec<TableCount>,
}

/// A table's count page: its count of the day, and what a new count is entered against.
#[derive(Debug, Clone, PartialEq)]
pub struct CountSheet {
    pub day: NaiveDate,
    pub closed: bool,
    /// Whether the day has begun (a future day takes no count).
    pub begun: bool,
    pub count: TableCount,
    /// The banknotes a new count lists (`None`: one cash total).
    pub banknotes: Option<Denominations>,
}

/// The count form as typed: `notes-<minor units>` per banknote (or `cash` as one total),
/// `markers`, `chip_vouchers` (major units; a blank is none), and the second counter.
#[derive(Debug)]
pub struct CountForm {
    pub typed: HashMap<String, String>,
    pub second: SecondPerson,
}

fn person(names: &HashMap<UserId, String>, id: UserId) -> Person {
    Person {
        id,
        name: names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("user {id}")),
    }
}

fn count_of(
    row: CountRow,
    names: &HashMap<UserId, String>,
    voids: &HashMap<DropCountId, CountVoidRow>,
) -> Result<Count, AccountingError> {
    let bad = || AccountingError::BadStored(format!("count {}", row.id));
    let denominations: Vec<Money> = row
        .note_denominations
        .iter()
        .map(|d| d.map(Money::from_minor_units))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let counts: Vec<i64> = row
        .note_counts
        .iter()
        .copied()
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let notes = if denominations.is_empty() {
        None
    } else {
        let set = Denominations::new(denominations).map_err(|_| bad())?;
        let notes = Inventory::new(set, counts).map_err(|_| bad())?;
        if notes.total() != row.cash {
            return Err(bad());
        }
        Some(notes)
    };
    let counted = DropByKind {
        cash: row.cash,
        markers: row.markers,
        chip_vouchers: row.chip_vouchers,
    };
    if counted.total() != Some(row.total) {
        return Err(bad());
    }
    Ok(Count {
        id: row.id,
        gaming_day: row.gaming_day,
        currency: row.currency,
        notes,
        counted,
        total: row.total,
        first: person(names, row.first_counter),
        second: person(names, row.second_counter),
        signed_at: row.created_at,
        void: voids
            .get(&row.id)
            .map(|v| (v.reason.clone(), person(names, v.voided_by), v.voided_at)),
    })
}

/// The buy-ins recorded (not void) in `currency` by kind, from `rows::buy_in_totals` rows.
fn recorded_of(
    totals: &[(TableId, String, String, i64)],
    table: TableId,
    currency: &str,
) -> Result<DropByKind, AccountingError> {
    let mut recorded = DropByKind::default();
    for (_, kind, _, sum) in totals
        .iter()
        .filter(|(t, _, c, _)| *t == table && c == currency)
    {
        let slot = match kind.as_str() {
            "cash" => &mut recorded.cash,
            "marker" => &mut recorded.markers,
            "chip_voucher" => &mut recorded.chip_vouchers,
            other => return Err(AccountingError::BadStored(format!("buy-in kind {other}"))),
        };
        *slot = Money::from_minor_units(*sum);
    }
    Ok(recorded)
}

/// The counts of `day` (of one table if given) with their voids, signers' names and the buy-ins
/// recorded, as each table's [`TableCount`].
fn table_counts(
    conn: &mut PgConnection,
    day: NaiveDate,
    tables: Vec<CountTable>,
    one: Option<TableId>,
) -> Result<Vec<TableCount>, AccountingError> {
    let stored = rows::counts_of_day(conn, day, one)?;
    let ids: Vec<DropCountId> = stored.iter().map(|c| c.id).collect();
    let voids: HashMap<_, _> = rows::voids_of(conn, &ids)?
        .into_iter()
        .map(|v| (v.count_id, v))
        .collect();
    let mut people: Vec<UserId> = stored
        .iter()
        .flat_map(|c| [c.first_counter, c.second_counter])
        .chain(voids.values().map(|v| v.voided_by))
        .collect();
    people.sort();
    people.dedup();
    let names: HashMap<_, _> = names_of(conn, &people)?.into_iter().collect();
    let totals = rows::buy_in_totals(conn, day, one)?;
    let business = rows::tables_with_business(conn, day)?;
    let mut counts: Vec<Count> = Vec::with_capacity(stored.len());
    let mut of_table: Vec<TableId> = Vec::with_capacity(stored.len());
    for row in stored {
        of_table.push(row.table_id);
        counts.push(count_of(row, &names, &voids)?);
    }
    let mut out = Vec::with_capacity(tables.len());
    for table in tables {
        let mine: Vec<Count> = counts
            .iter()
            .zip(&of_table)
            .filter(|(_, t)| **t == table.id)
            .map(|(c, _)| c.clone())
            .collect();
        let recorded = recorded_of(&totals, table.id, &table.currency)?;
        let state = CountState::of(&mine);
        let comparison = match mine.iter().rev().find(|c| c.void.is_none()) {
            Some(count) => Some(compare_drop(recorded, count.counted).ok_or_else(|| {
                AccountingError::BadStored(format!("count {} against its buy-ins", count.id))
            })?),
            None => None,
        };
        out.push(TableCount {
            business: business.contains(&table.id) || !mine.is_empty(),
            table,
            recorded,
            counts: mine,
            state,
            comparison,
        });
    }
    Ok(out)
}

/// The count team's day `day`: every table (those with business or a count first, by code),
/// each with its count state and its comparison with the buy-ins.
pub async fn day(db: &Db, day: NaiveDate) -> Result<CountDay, AccountingError> {
    db.run(move |conn| {
        let tables = rows::tables(conn)?;
        let mut tables = table_counts(conn, day, tables, None)?;
        // Stable: by code within each group.
        tables.sort_by_key(|t| !t.business);
        Ok(CountDay {
            day,
            closed: days::find_close(conn, day)?.is_some(),
            tables,
        })
    })
    .await
}

fn sheet(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    today: NaiveDate,
) -> Result<CountSheet, AccountingError> {
    let table = rows::table_by_code(conn, code)?.ok_or(AccountingError::NotFound("table"))?;
    let banknotes = banknotes(&table.currency);
    let id = table.id;
    let count = table_counts(conn, day, vec![table], Some(id))?
        .pop()
        .ok_or(AccountingError::NotFound("table"))?;
    Ok(CountSheet {
        day,
        closed: days::find_close(conn, day)?.is_some(),
        begun: day <= today,
        count,
        banknotes,
    })
}

/// Table `code`'s count page for gaming day `day` (`today`: the gaming day now).
pub async fn show(
    db: &Db,
    code: String,
    day: NaiveDate,
    today: NaiveDate,
) -> Result<CountSheet, AccountingError> {
    db.run(move |conn| sheet(conn, &code, day, today)).await
}

/// A count form read: the banknotes (if listed), the drop by kind.
struct Counted {
    notes: Option<Inventory>,
    drop: DropByKind,
    total: Money,
}

/// An amount field of the form (major units; a blank is none), refused in words naming it.
fn amount(typed: &HashMap<String, String>, field: &str, what: &str) -> Result<Money, String> {
    let text = typed.get(field).map_or("", |t| t.trim());
    if text.is_empty() {
        return Ok(Money::ZERO);
    }
    Money::parse_major(text).ok_or_else(|| {
        format!("{what}: {text:?} is not an amount; enter one such as 1,500 or 1,500.50.")
    })
}

/// Reads the count as typed: each banknote's count (a whole number, not below zero), or the
/// cash as one amount where the currency has no banknotes listed, and the non-cash items.
fn read_form(currency: &str, typed: &HashMap<String, String>) -> Result<Counted, String> {
    let (notes, cash) = match banknotes(currency) {
        Some(set) => {
            let texts: Vec<&str> = set
                .as_slice()
                .iter()
                .map(|&d| typed.get(&note_field(d)).map_or("", String::as_str))
                .collect();
            let notes = Inventory::typed(set, &texts).map_err(|err| match err {
                InventoryError::Negative(d) => {
                    format!("The count of {} notes is below zero.", d.major_text())
                }
                InventoryError::NotACount(d, text) => format!(
                    "The count of {} notes is not a whole number of notes: {text:?}.",
                    d.major_text()
                ),
                InventoryError::WrongLength { .. } | InventoryError::Overflow => {
                    "The count is too large to hold.".to_owned()
                }
            })?;
            let cash = notes.total();
            (Some(notes), cash)
        }
        None => (None, amount(typed, "cash", "Cash")?),
    };
    let drop = DropByKind {
        cash,
        markers: amount(typed, "markers", "Markers")?,
        chip_vouchers: amount(typed, "chip_vouchers", "Chip vouchers")?,
    };
    let total = drop
        .total()
        .ok_or_else(|| "The count is too large to hold.".to_owned())?;
    Ok(Counted { notes, drop, total })
}

/// The document two counters sign: the table's count of `day`, on the table's chain.
fn document(table: &CountTable, day: NaiveDate) -> Document {
    Document {
        chain: audit_log::table_chain(table.id),
        target: format!("table:{}/count/{day}", table.code),
        title: format!("the count of {} for {day}", table.code),
        table_id: Some(table.id),
        gaming_day: Some(day),
    }
}

/// Why `user` may not count table `table`'s drop of `day`, if they had a hand in its day.
fn not_independent(
    conn: &mut PgConnection,
    table: &CountTable,
    day: NaiveDate,
    user: UserId,
) -> Result<Option<String>, AccountingError> {
    if !rows::hands_in_day(conn, table.id, day)?.contains(&user) {
        return Ok(None);
    }
    let name = names_of(conn, &[user])?
        .pop()
        .map_or_else(|| format!("user {user}"), |(_, n)| n);
    Ok(Some(format!(
        "{name} had a hand in {}'s gaming day {day} (recorded a buy-in, signed a slip or dealt \
         there) and cannot count its drop: the count is independent of the pit.",
        table.code
    )))
}

/// Appends `signature.refused` on the count's chain (the same event as a second signature
/// refused), in its own transaction: the refusal is kept though nothing else is.
fn audit_refusal(
    conn: &mut PgConnection,
    document: &Document,
    actor: &Actor,
    as_name: &str,
    reason: &str,
) -> Result<(), AccountingError> {
    conn.transaction(|conn| {
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &document.chain,
                actor,
                action: AuditAction::SignatureRefused,
                target: document.target.clone(),
                details: json!({ "as": as_name, "reason": reason }),
                gaming_day: document.gaming_day,
                table_id: document.table_id,
            },
        )?;
        Ok(())
    })
}

/// The checks on the signed-in counter and the form before any password: the role, the day
/// begun, no count standing, the counter's independence (a refusal audited), the amounts.
fn check_form(
    conn: &mut PgConnection,
    table: &CountTable,
    day: NaiveDate,
    today: NaiveDate,
    typed: &HashMap<String, String>,
    me: &Me,
) -> Result<Result<Counted, String>, AccountingError> {
    if me.role != Role::Count {
        return Ok(Err(format!(
            "A count is signed by two counters of the count team, not by {}.",
            me.role.title().to_lowercase()
        )));
    }
    if day > today {
        return Ok(Err(format!(
            "Gaming day {day} has not begun: its drop is counted after the day."
        )));
    }
    if let Some(count) = rows::standing_count(conn, table.id, day)? {
        return Ok(Err(format!(
            "{} has a count for {day} already (count {}): void it first to count again.",
            table.code, count.id
        )));
    }
    if let Some(why) = not_independent(conn, table, day, me.id)? {
        audit_refusal(
            conn,
            &document(table, day),
            &me.actor,
            &me.username,
            "not independent",
        )?;
        return Ok(Err(why));
    }
    Ok(read_form(&table.currency, typed))
}

/// Signs a count of table `code`'s drop for gaming day `day` (`today`: the gaming day now): the
/// signed-in counter `me` first, the second counter on the same tablet by their own password.
/// Records the count, both signatures and `count.signed` (lines, cash, markers, chip vouchers,
/// total, the buy-ins recorded and the difference) on the table's chain, in one transaction,
/// with the day's reconciliation (an investigation opened if it is now final and flagged).
/// Answers the new count's id, or the refusal in words with the page.
#[allow(clippy::too_many_arguments)]
pub async fn sign(
    db: &Db,
    secrets: Secrets,
    code: String,
    day: NaiveDate,
    today: NaiveDate,
    settings: crate::accounting::reconcile::Settings,
    form: CountForm,
    me: Me,
) -> Result<Saved<DropCountId, CountSheet>, AccountingError> {
    let refuse = |reason: String| {
        let code = code.clone();
        async move {
            let page = show(db, code, day, today).await?;
            Ok::<_, AccountingError>(Saved::Refused { reason, page })
        }
    };
    let CountForm { typed, second } = form;
    let (table, checked) = {
        let code = code.clone();
        let me = me.clone();
        db.run(move |conn| -> Result<_, AccountingError> {
            let table =
                rows::table_by_code(conn, &code)?.ok_or(AccountingError::NotFound("table"))?;
            let checked = check_form(conn, &table, day, today, &typed, &me)?;
            Ok((table, checked))
        })
        .await?
    };
    let counted = match checked {
        Ok(counted) => counted,
        Err(reason) => return refuse(reason).await,
    };
    let document = document(&table, day);
    let second = signatures::second(
        db,
        secrets,
        second,
        me.id,
        Capacity::COUNTER,
        &document,
        &me.actor,
    )
    .await?;
    let second = match second {
        Ok(second) => second,
        Err(reason) => return refuse(reason).await,
    };
    let independent = {
        let (table, document, actor) = (table.clone(), document.clone(), me.actor.clone());
        let second = second.clone();
        db.run(move |conn| -> Result<_, AccountingError> {
            let why = not_independent(conn, &table, day, second.user())?;
            if why.is_some() {
                let name = names_of(conn, &[second.user()])?
                    .pop()
                    .map_or_else(String::new, |(_, n)| n);
                audit_refusal(conn, &document, &actor, &name, "not independent")?;
            }
            Ok(why)
        })
        .await?
    };
    if let Some(why) = independent {
        return refuse(why).await;
    }
    let first = Signature::signed_in(me.id, &me.username, Capacity::COUNTER);
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let id = record(conn, &code, day, counted, document, [first, second], &me)?;
            // The count may make the day's figures final: reconciled in the same transaction.
            let table =
                rows::table_by_code(conn, &code)?.ok_or(AccountingError::NotFound("table"))?;
            crate::accounting::reconcile::open_if_flagged(
                conn, table.id, day, settings, &me.actor,
            )?;
            Ok(id)
        };
        let page = |conn: &mut PgConnection| sheet(conn, &code, day, today);
        save(conn, change, page)
    })
    .await
}

/// The count's transaction: the table locked, no count standing and both counters independent
/// (again, under the lock), the count, its signatures, its comparison and `count.signed`.
fn record(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    counted: Counted,
    document: Document,
    signed: [Signature; 2],
    me: &Me,
) -> Result<DropCountId, AccountingError> {
    let table = rows::lock_table_by_code(conn, code)?.ok_or(AccountingError::NotFound("table"))?;
    if let Some(count) = rows::standing_count(conn, table.id, day)? {
        return Err(AccountingError::Refused(format!(
            "{} has a count for {day} already (count {}): void it first to count again.",
            table.code, count.id
        )));
    }
    for signature in &signed {
        if let Some(why) = not_independent(conn, &table, day, signature.user())? {
            return Err(AccountingError::Refused(why));
        }
    }
    let Counted { notes, drop, total } = counted;
    let (denominations, counts): (Vec<i64>, Vec<i64>) = match &notes {
        Some(notes) => notes
            .lines()
            .map(|l| (l.denomination.minor_units(), l.count))
            .unzip(),
        None => (Vec::new(), Vec::new()),
    };
    let row = rows::insert_count(
        conn,
        &NewCount {
            table_id: table.id,
            gaming_day: day,
            currency: &table.currency,
            note_denominations: &denominations,
            note_counts: &counts,
            cash: drop.cash.minor_units(),
            markers: drop.markers.minor_units(),
            chip_vouchers: drop.chip_vouchers.minor_units(),
            total: total.minor_units(),
            first_counter: signed[0].user(),
            second_counter: signed[1].user(),
        },
    )?;
    let document = Document {
        target: format!("count:{}", row.id),
        ..document
    };
    signatures::record(conn, &document, &signed, me.actor.client_addr.clone())?;
    let totals = rows::buy_in_totals(conn, day, Some(table.id))?;
    let recorded = recorded_of(&totals, table.id, &table.currency)?;
    let compared = compare_drop(recorded, drop)
        .ok_or_else(|| AccountingError::Refused("The count is too large to hold.".to_owned()))?;
    let recorded_total = recorded
        .total()
        .ok_or_else(|| AccountingError::Refused("The buy-ins are too large to hold.".to_owned()))?;
    let lines: Vec<serde_json::Value> = notes
        .iter()
        .flat_map(|n| n.lines())
        .map(|l| json!({"denomination": l.denomination, "count": l.count}))
        .collect();
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: &document.chain,
            actor: &me.actor,
            action: AuditAction::CountSigned,
            target: document.target.clone(),
            details: json!({
                "count": row.id,
                "table": table.code,
                "currency": table.currency,
                "lines": lines,
                "cash": drop.cash,
                "markers": drop.markers,
                "chip_vouchers": drop.chip_vouchers,
                "total": total,
                "first_counter": signed[0].user(),
                "second_counter": signed[1].user(),
                "recorded": {
                    "cash": recorded.cash,
                    "markers": recorded.markers,
                    "chip_vouchers": recorded.chip_vouchers,
                    "total": recorded_total,
                },
                "difference": {
                    "cash": compared.cash,
                    "markers": compared.markers,
                    "chip_vouchers": compared.chip_vouchers,
                    "total": compared.total,
                },
                "flagged": compared.flagged(),
            }),
            gaming_day: Some(day),
            table_id: Some(table.id),
        },
    )?;
    Ok(row.id)
}

/// Voids count `id` of table `code`'s gaming day `day` with `reason`: by an administrator, or a
/// counter who signed none of it; records `count.void` on the table's chain. The count stays on
/// its page marked void; a new count may then be signed.
#[allow(clippy::too_many_arguments)]
pub async fn void(
    db: &Db,
    code: String,
    day: NaiveDate,
    id: DropCountId,
    reason: String,
    today: NaiveDate,
    me: Me,
) -> Result<Saved<DropCountId, CountSheet>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let table =
                rows::lock_table_by_code(conn, &code)?.ok_or(AccountingError::NotFound("table"))?;
            let count = rows::count(conn, id)?
                .filter(|c| c.table_id == table.id && c.gaming_day == day)
                .ok_or(AccountingError::NotFound("count"))?;
            let reason = reason.trim();
            if !matches!(me.role, Role::Count | Role::Admin) {
                return Err(AccountingError::Refused(
                    "Only an administrator or a counter voids a count.".to_owned(),
                ));
            }
            if me.id == count.first_counter || me.id == count.second_counter {
                return Err(AccountingError::Refused(format!(
                    "You signed count {id}: another counter or an administrator voids it."
                )));
            }
            if !rows::voids_of(conn, &[id])?.is_empty() {
                return Err(AccountingError::Refused(format!(
                    "Count {id} is void already."
                )));
            }
            if reason.is_empty() {
                return Err(AccountingError::Refused(
                    "Say why the count is void.".to_owned(),
                ));
            }
            rows::insert_void(conn, id, reason, me.id)?;
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &audit_log::table_chain(table.id),
                    actor: &me.actor,
                    action: AuditAction::CountVoid,
                    target: format!("count:{id}"),
                    details: json!({
                        "count": id,
                        "table": table.code,
                        "total": count.total,
                        "reason": reason,
                    }),
                    gaming_day: Some(count.gaming_day),
                    table_id: Some(table.id),
                },
            )?;
            Ok(id)
        };
        let page = |conn: &mut PgConnection| sheet(conn, &code, day, today);
        save(conn, change, page)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_follows_the_counts_and_their_voids() {
        let count = |void: bool| Count {
            id: DropCountId(1),
            gaming_day: NaiveDate::MIN,
            currency: "PHP".to_owned(),
            notes: None,
            counted: DropByKind::default(),
            total: Money::ZERO,
            first: Person {
                id: UserId(1),
                name: "a".to_owned(),
            },
            second: Person {
                id: UserId(2),
                name: "b".to_owned(),
            },
            signed_at: DateTime::<Utc>::MIN_UTC,
            void: void.then(|| {
                (
                    "miscounted".to_owned(),
                    Person {
                        id: UserId(3),
                        name: "c".to_owned(),
                    },
                    DateTime::<Utc>::MIN_UTC,
                )
            }),
        };
        assert_eq!(CountState::of(&[]), CountState::NotCounted);
        assert_eq!(CountState::of(&[count(false)]), CountState::Counted);
        assert_eq!(CountState::of(&[count(true)]), CountState::Void);
        assert_eq!(
            CountState::of(&[count(true), count(false)]),
            CountState::Recounted
        );
    }

    #[test]
    fn a_count_form_reads_banknotes_or_one_cash_total() {
        let typed = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let php = read_form(
            "PHP",
            &typed(&[
                ("notes-100000", "3"),
                ("notes-5000", "2"),
                ("markers", "1,000"),
                ("cash", "999"),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // 3,000 + 100; a `cash` field is not read where banknotes are listed.
        assert_eq!(php.drop.cash, Money::from_minor_units(310_000));
        assert_eq!(php.drop.markers, Money::from_minor_units(100_000));
        assert_eq!(php.total, Money::from_minor_units(410_000));
        let eur = read_form("EUR", &typed(&[("cash", "250.50"), ("chip_vouchers", "")]))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(eur.notes.is_none());
        assert_eq!(eur.total, Money::from_minor_units(25_050));
        for (currency, fields, words) in [
            (
                "PHP",
                vec![("notes-2000", "-1")],
                "20.00 notes is below zero",
            ),
            ("PHP", vec![("notes-2000", "1.5")], "not a whole number"),
            ("PHP", vec![("markers", "ten")], "Markers: \"ten\""),
            ("EUR", vec![("cash", "-5")], "Cash: \"-5\""),
        ] {
            let refused = read_form(currency, &typed(&fields))
                .err()
                .unwrap_or_default();
            assert!(refused.contains(words), "{refused}");
        }
    }
}
