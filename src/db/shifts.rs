//! Dealer shifts: which dealer is signed on at which table. One dealer per table and one table
//! per dealer at a time (the database enforces both with partial unique indexes; the use-cases
//! check first, under the table's row lock, to give the clear message). Sign-on and sign-off are
//! recorded on the table's audit chain.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::{json, Value};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::days;
use crate::db::ids::{ProfileVersionId, ShiftId, TableId, UserId};
use crate::db::rounds::drafts;
use crate::db::schema::{dealer_shifts, gaming_tables, round_voids, rounds, users};
use crate::db::tables::{self, GamingTable, TableError, TableListing};
use crate::db::users as accounts;
use crate::rules::money::Money;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = dealer_shifts)]
pub struct Shift {
    pub id: ShiftId,
    pub table_id: TableId,
    pub dealer_id: UserId,
    pub gaming_day: NaiveDate,
    pub signed_on_at: DateTime<Utc>,
    pub signed_off_at: Option<DateTime<Utc>>,
}

/// An open shift with the dealer's name.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentShift {
    pub shift: Shift,
    pub dealer_username: String,
    pub dealer_name: String,
}

/// Why a shift was not started or ended, as the database found it (the use-cases say it in
/// words).
#[derive(Debug, thiserror::Error)]
pub enum ShiftError {
    #[error("no such table")]
    NoSuchTable,
    /// The actor is not a staff account (only one can deal).
    #[error("the actor is not a staff account")]
    NotAUser,
    /// The database's one open shift per dealer refused a second one.
    #[error("the dealer already has an open shift")]
    DealerOnShift,
    /// The database's closed-day trigger refused it.
    #[error("gaming day {day} is closed")]
    DayClosed { day: NaiveDate },
    #[error(transparent)]
    Query(DieselError),
}

impl From<DieselError> for ShiftError {
    /// The database's refusal of a shift on a closed gaming day is that refusal.
    fn from(err: DieselError) -> Self {
        match days::closed_day_refused(&err) {
            Some(day) => ShiftError::DayClosed { day },
            None => ShiftError::Query(err),
        }
    }
}

/// The open shift at a table, if any.
pub fn current_shift(
    conn: &mut PgConnection,
    table_id: TableId,
) -> QueryResult<Option<CurrentShift>> {
    let row: Option<(Shift, String, String)> = dealer_shifts::table
        .inner_join(users::table)
        .filter(dealer_shifts::table_id.eq(table_id))
        .filter(dealer_shifts::signed_off_at.is_null())
        .select((Shift::as_select(), users::username, users::display_name))
        .first(conn)
        .optional()?;
    Ok(
        row.map(|(shift, dealer_username, dealer_name)| CurrentShift {
            shift,
            dealer_username,
            dealer_name,
        }),
    )
}

/// The table a dealer is signed on at, if any.
pub fn dealer_table(
    conn: &mut PgConnection,
    dealer: UserId,
) -> QueryResult<Option<(Shift, GamingTable)>> {
    dealer_shifts::table
        .inner_join(gaming_tables::table)
        .filter(dealer_shifts::dealer_id.eq(dealer))
        .filter(dealer_shifts::signed_off_at.is_null())
        .select((Shift::as_select(), GamingTable::as_select()))
        .first(conn)
        .optional()
}

/// Locks the table row against other sign-ons and sign-offs ([`tables::lock`]).
pub fn lock_table(conn: &mut PgConnection, table_id: TableId) -> Result<GamingTable, ShiftError> {
    tables::lock(conn, table_id)?.ok_or(ShiftError::NoSuchTable)
}

/// Every table by code, with its current profile version and the dealer signed on, if any.
pub fn tables_with_dealers(
    conn: &mut PgConnection,
) -> Result<Vec<(TableListing, Option<CurrentShift>)>, TableError> {
    let listings = tables::list_tables(conn)?;
    let mut out = Vec::with_capacity(listings.len());
    for listing in listings {
        let shift = current_shift(conn, listing.table.id)?;
        out.push((listing, shift));
    }
    Ok(out)
}

/// What a shift has done so far, as shown before signing off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShiftSummary {
    /// Rounds settled in the shift, voided ones included.
    pub rounds: i64,
    pub voided: i64,
    /// The house's result over the shift's rounds that are not void.
    pub house_result: Money,
    /// Whether the table has a round entered but not confirmed.
    pub unfinished_round: bool,
}

/// The summary of `shift` at its table.
pub fn summary(conn: &mut PgConnection, shift: &Shift) -> QueryResult<ShiftSummary> {
    let (rounds, voided, house_result): (i64, i64, Option<i64>) = rounds::table
        .left_join(round_voids::table)
        .filter(rounds::shift_id.eq(shift.id))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::count(round_voids::round_id.nullable()),
            diesel::dsl::sql::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>(
                "(SUM(rounds.dealer_result) FILTER (WHERE round_voids.round_id IS NULL))::bigint",
            ),
        ))
        .first(conn)?;
    let unfinished_round =
        drafts::open_draft_of(conn, shift.table_id)?.is_some_and(|draft| draft.revision > 0);
    Ok(ShiftSummary {
        rounds,
        voided,
        house_result: Money::from_minor_units(house_result.unwrap_or(0)),
        unfinished_round,
    })
}

/// Starts `dealer`'s shift at `table` for `gaming_day`, under the profile version waiting for
/// the next shift if there is one, and records `table.sign_on` (with that version) on the table
/// chain; in the caller's transaction, which holds the table's row lock ([`tables::lock`]).
/// Whether the dealer may sign on there is the caller's decision: this only writes.
pub fn start(
    conn: &mut PgConnection,
    table: &GamingTable,
    dealer_id: UserId,
    dealer: &Actor,
    gaming_day: NaiveDate,
) -> Result<Shift, ShiftError> {
    let shift = diesel::insert_into(dealer_shifts::table)
        .values((
            dealer_shifts::table_id.eq(table.id),
            dealer_shifts::dealer_id.eq(dealer_id),
            dealer_shifts::gaming_day.eq(gaming_day),
        ))
        .returning(Shift::as_returning())
        .get_result(conn)
        .map_err(|err| match err {
            // The dealer's shift at another table, inserted in the same instant.
            DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
                ShiftError::DealerOnShift
            }
            other => other.into(),
        })?;
    // A profile version waiting for the next shift starts with this one.
    let version = tables::start_shift_version(conn, table.id)?;
    let chain = audit_log::table_chain(table.id);
    audit_log::append(
        conn,
        &sign_on_event(&chain, &table.code, &shift, dealer, version),
    )?;
    Ok(shift)
}

/// Disables an account (ending its sessions, as [`accounts::set_disabled`]) and ends its open
/// shift, if it has one, in one transaction: a disabled dealer must not keep a table. Returns
/// whether the account exists.
pub fn disable_user(conn: &mut PgConnection, id: UserId, by: &Actor) -> Result<bool, ShiftError> {
    conn.transaction(|conn| {
        if !accounts::set_disabled(conn, id, true, by)? {
            return Ok(false);
        }
        if let Some((_, table)) = dealer_table(conn, id)? {
            let table = lock_table(conn, table.id)?;
            // Looked up again under the table's lock.
            if let Some((shift, _)) = dealer_table(conn, id)? {
                close(conn, &table, &shift, by, "account disabled")?;
            }
        }
        Ok(true)
    })
}

/// Closes `shift` at `table` (whose row the caller's transaction has locked) and records it
/// with `reason`.
pub fn close(
    conn: &mut PgConnection,
    table: &GamingTable,
    shift: &Shift,
    by: &Actor,
    reason: &str,
) -> Result<Shift, ShiftError> {
    let shift: Shift = diesel::update(dealer_shifts::table.find(shift.id))
        .set(dealer_shifts::signed_off_at.eq(diesel::dsl::now))
        .returning(Shift::as_returning())
        .get_result(conn)?;
    let chain = audit_log::table_chain(table.id);
    audit_log::append(
        conn,
        &sign_off_event(&chain, &table.code, &shift, by, reason),
    )?;
    Ok(shift)
}

/// The `table.sign_on` event of `shift` at the table `code`, on the table's `chain`, which
/// deals under rule-profile `version`.
pub fn sign_on_event<'a>(
    chain: &'a str,
    code: &str,
    shift: &Shift,
    dealer: &'a Actor,
    version: ProfileVersionId,
) -> NewAuditEvent<'a> {
    let details = json!({
        "shift_id": shift.id,
        "dealer_id": shift.dealer_id,
        "rule_profile_version_id": version,
    });
    shift_event(
        chain,
        code,
        shift,
        dealer,
        AuditAction::TableSignOn,
        details,
    )
}

/// The `table.sign_off` event of `shift` at the table `code`, on the table's `chain`.
pub fn sign_off_event<'a>(
    chain: &'a str,
    code: &str,
    shift: &Shift,
    by: &'a Actor,
    reason: &str,
) -> NewAuditEvent<'a> {
    let details = json!({ "shift_id": shift.id, "dealer_id": shift.dealer_id, "reason": reason });
    shift_event(chain, code, shift, by, AuditAction::TableSignOff, details)
}

/// An event of `shift` at the table `code`, on the table's `chain`, with the shift's gaming day.
fn shift_event<'a>(
    chain: &'a str,
    code: &str,
    shift: &Shift,
    actor: &'a Actor,
    action: AuditAction,
    details: Value,
) -> NewAuditEvent<'a> {
    NewAuditEvent {
        chain,
        actor,
        action,
        target: format!("table:{code}"),
        details,
        gaming_day: Some(shift.gaming_day),
        table_id: Some(shift.table_id),
    }
}

/// A shift of the past, already over (generated history), written without its events: the
/// caller seals [`sign_on_event`] and [`sign_off_event`] on the table's chain at its times.
pub fn insert_past_shift(
    conn: &mut PgConnection,
    table_id: TableId,
    dealer_id: UserId,
    gaming_day: NaiveDate,
    signed_on_at: DateTime<Utc>,
    signed_off_at: DateTime<Utc>,
) -> QueryResult<Shift> {
    diesel::insert_into(dealer_shifts::table)
        .values((
            dealer_shifts::table_id.eq(table_id),
            dealer_shifts::dealer_id.eq(dealer_id),
            dealer_shifts::gaming_day.eq(gaming_day),
            dealer_shifts::signed_on_at.eq(signed_on_at),
            dealer_shifts::signed_off_at.eq(signed_off_at),
        ))
        .returning(Shift::as_returning())
        .get_result(conn)
}
