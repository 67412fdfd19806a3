//! Dealer shifts: which dealer is signed on at which table. One dealer per table and one table
//! per dealer at a time (the database enforces both with partial unique indexes; the checks here
//! give the clear message). Sign-on and sign-off are recorded on the table's audit chain.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::json;

use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::{ShiftId, TableId, UserId};
use crate::db::schema::{dealer_shifts, gaming_tables, users};
use crate::db::tables::{self, GamingTable, TableError, TableListing};
use crate::db::users as accounts;

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

#[derive(Debug, thiserror::Error)]
pub enum ShiftError {
    #[error("No such table.")]
    NoSuchTable,
    #[error("Only a signed-in dealer can sign on or off.")]
    NotAUser,
    #[error("{code} already has {dealer_name} signed on since {since}.")]
    TableTaken {
        code: String,
        dealer_name: String,
        since: String,
    },
    #[error("You are already signed on at {code}; sign off there first.")]
    DealerBusy { code: String },
    #[error("You are not signed on at {code}.")]
    NotSignedOn { code: String },
    #[error("Nobody is signed on at {code}.")]
    NobodySignedOn { code: String },
    #[error(transparent)]
    Query(#[from] DieselError),
}

fn since(at: DateTime<Utc>) -> String {
    at.format("%H:%M UTC").to_string()
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
fn lock_table(conn: &mut PgConnection, table_id: TableId) -> Result<GamingTable, ShiftError> {
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

/// Signs `dealer` on at a table for `gaming_day`; records `table.sign_on` on the table chain.
pub fn sign_on(
    conn: &mut PgConnection,
    table_id: TableId,
    dealer: &Actor,
    gaming_day: NaiveDate,
) -> Result<Shift, ShiftError> {
    let dealer_id = dealer.user_id.ok_or(ShiftError::NotAUser)?;
    conn.transaction(|conn| {
        // The row lock makes concurrent sign-ons at one table wait, so the second sees the first.
        let table = lock_table(conn, table_id)?;
        if let Some(current) = current_shift(conn, table_id)? {
            return Err(ShiftError::TableTaken {
                code: table.code,
                dealer_name: current.dealer_name,
                since: since(current.shift.signed_on_at),
            });
        }
        if let Some((_, other)) = dealer_table(conn, dealer_id)? {
            return Err(ShiftError::DealerBusy { code: other.code });
        }
        let shift = diesel::insert_into(dealer_shifts::table)
            .values((
                dealer_shifts::table_id.eq(table_id),
                dealer_shifts::dealer_id.eq(dealer_id),
                dealer_shifts::gaming_day.eq(gaming_day),
            ))
            .returning(Shift::as_returning())
            .get_result(conn)
            .map_err(|err| match err {
                // A sign-on at another table in the same instant.
                DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
                    ShiftError::DealerBusy {
                        code: "another table".to_owned(),
                    }
                }
                other => ShiftError::Query(other),
            })?;
        let chain = audit_log::table_chain(table_id);
        audit_log::append(conn, &sign_on_event(&chain, &table.code, &shift, dealer))?;
        Ok(shift)
    })
}

/// Ends `dealer`'s open shift at a table; records `table.sign_off` on the table chain.
pub fn sign_off(
    conn: &mut PgConnection,
    table_id: TableId,
    dealer: &Actor,
) -> Result<Shift, ShiftError> {
    let dealer_id = dealer.user_id.ok_or(ShiftError::NotAUser)?;
    conn.transaction(|conn| {
        let table = lock_table(conn, table_id)?;
        match current_shift(conn, table_id)? {
            Some(open) if open.shift.dealer_id == dealer_id => {
                close(conn, &table, &open.shift, dealer, "signed off")
            }
            _ => Err(ShiftError::NotSignedOn { code: table.code }),
        }
    })
}

/// Ends whoever's shift is open at a table, as a pit manager may (a dealer who left, or whose
/// account is about to be disabled); records `table.sign_off` with `by` as the actor.
pub fn sign_off_anyone(
    conn: &mut PgConnection,
    table_id: TableId,
    by: &Actor,
) -> Result<Shift, ShiftError> {
    conn.transaction(|conn| {
        let table = lock_table(conn, table_id)?;
        match current_shift(conn, table_id)? {
            Some(open) => close(conn, &table, &open.shift, by, "signed off by a pit manager"),
            None => Err(ShiftError::NobodySignedOn { code: table.code }),
        }
    })
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

/// Closes `shift` at `table` (whose row this transaction has locked) and records it.
fn close(
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

/// The `table.sign_on` event of `shift` at the table `code`, on the table's `chain`.
pub fn sign_on_event<'a>(
    chain: &'a str,
    code: &str,
    shift: &Shift,
    dealer: &'a Actor,
) -> NewAuditEvent<'a> {
    NewAuditEvent {
        chain,
        actor: dealer,
        action: "table.sign_on",
        target: format!("table:{code}"),
        details: json!({ "shift_id": shift.id, "dealer_id": shift.dealer_id }),
        gaming_day: Some(shift.gaming_day),
        table_id: Some(shift.table_id),
    }
}

/// The `table.sign_off` event of `shift` at the table `code`, on the table's `chain`.
pub fn sign_off_event<'a>(
    chain: &'a str,
    code: &str,
    shift: &Shift,
    by: &'a Actor,
    reason: &str,
) -> NewAuditEvent<'a> {
    NewAuditEvent {
        chain,
        actor: by,
        action: "table.sign_off",
        target: format!("table:{code}"),
        details: json!({ "shift_id": shift.id, "dealer_id": shift.dealer_id, "reason": reason }),
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
