//! Dealer shifts: which dealer is signed on at which table. One dealer per table and one table
//! per dealer at a time (the database enforces both with partial unique indexes; the checks here
//! give the clear message). Sign-on and sign-off are recorded on the table's audit chain.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::json;

use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::schema::{dealer_shifts, gaming_tables, users};
use crate::db::tables::{self, GamingTable, TableId};
use crate::db::users::UserId;

/// The gaming day `now` belongs to: the local date (at `utc_offset`), minus one day before
/// `start` (so 02:00 after a busy night still counts toward the day that began at 06:00).
pub fn gaming_day(now: DateTime<Utc>, utc_offset: FixedOffset, start: NaiveTime) -> NaiveDate {
    let local = now.with_timezone(&utc_offset).naive_local();
    (local - (start - NaiveTime::MIN)).date()
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = dealer_shifts)]
pub struct Shift {
    pub id: i64,
    pub table_id: i64,
    pub dealer_id: i64,
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
        .filter(dealer_shifts::table_id.eq(table_id.0))
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
        .filter(dealer_shifts::dealer_id.eq(dealer.0))
        .filter(dealer_shifts::signed_off_at.is_null())
        .select((Shift::as_select(), GamingTable::as_select()))
        .first(conn)
        .optional()
}

/// Locks the table row against other sign-ons and sign-offs. `FOR NO KEY UPDATE`, not
/// `FOR UPDATE`: a confirm holding the table's open shift inserts rows whose foreign keys take
/// key-share locks on the table row, and must not wait for a sign-off that waits for it.
fn lock_table(conn: &mut PgConnection, table_id: TableId) -> Result<GamingTable, ShiftError> {
    gaming_tables::table
        .find(table_id.0)
        .select(GamingTable::as_select())
        .for_no_key_update()
        .first(conn)
        .optional()?
        .ok_or(ShiftError::NoSuchTable)
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
                dealer_shifts::table_id.eq(table_id.0),
                dealer_shifts::dealer_id.eq(dealer_id.0),
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
        let chain = tables::chain(table_id);
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &chain,
                actor: dealer,
                action: "table.sign_on",
                target: format!("table:{}", table.code),
                details: json!({ "shift_id": shift.id, "dealer_id": dealer_id.0 }),
                gaming_day: Some(gaming_day),
                table_id: Some(table_id.0),
            },
        )?;
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
        let shift: Shift = diesel::update(
            dealer_shifts::table
                .filter(dealer_shifts::table_id.eq(table_id.0))
                .filter(dealer_shifts::dealer_id.eq(dealer_id.0))
                .filter(dealer_shifts::signed_off_at.is_null()),
        )
        .set(dealer_shifts::signed_off_at.eq(diesel::dsl::now))
        .returning(Shift::as_returning())
        .get_result(conn)
        .optional()?
        .ok_or_else(|| ShiftError::NotSignedOn {
            code: table.code.clone(),
        })?;
        let chain = tables::chain(table_id);
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &chain,
                actor: dealer,
                action: "table.sign_off",
                target: format!("table:{}", table.code),
                details: json!({ "shift_id": shift.id, "dealer_id": dealer_id.0 }),
                gaming_day: Some(shift.gaming_day),
                table_id: Some(table_id.0),
            },
        )?;
        Ok(shift)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn gaming_day_follows_local_time_and_the_start_hour() {
        let manila = FixedOffset::east_opt(8 * 3600).unwrap();
        let six = NaiveTime::from_hms_opt(6, 0, 0).unwrap();
        let cases = [
            // (UTC time, gaming day)
            ((2026, 3, 1, 22, 0), day(2026, 3, 2)), // 06:00 local: a new day starts
            ((2026, 3, 1, 21, 59), day(2026, 3, 1)), // 05:59 local: still the day before
            ((2026, 3, 1, 16, 0), day(2026, 3, 1)), // local midnight belongs to the day before
            ((2026, 3, 2, 3, 0), day(2026, 3, 2)),  // 11:00 local
            ((2026, 12, 31, 21, 0), day(2026, 12, 31)), // 05:00 on 1 January local
        ];
        for ((y, mo, d, h, mi), expected) in cases {
            let now = Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap();
            assert_eq!(gaming_day(now, manila, six), expected, "{now}");
        }
    }

    #[test]
    fn a_midnight_start_is_the_local_date() {
        let utc = FixedOffset::east_opt(0).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 5, 5, 0, 0, 0).unwrap();
        assert_eq!(gaming_day(now, utc, NaiveTime::MIN), day(2026, 5, 5));
    }
}
