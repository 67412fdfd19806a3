//! Gaming days and their close: a closed gaming day records nothing more (rounds, shifts,
//! approvals, voids, re-entries). The database refuses such an insert with a trigger (its message
//! starts [`CLOSED_DAY_MESSAGE`]); callers check first with [`find_close`] to answer with a clear
//! message, and recognise the trigger's refusal with [`is_closed_day_refusal`].

use chrono::{DateTime, NaiveDate, Utc};
use diesel::pg::PgConnection;
use diesel::prelude::*;

use crate::db::ids::UserId;
use crate::db::schema::gaming_day_closes;

/// How the database's refusal of an insert on a closed gaming day begins.
pub const CLOSED_DAY_MESSAGE: &str = "gaming day closed:";

/// The close of a gaming day: who closed it, when, and its seal (the `day.closed` event on the
/// `day` chain, whose details carry every chain's head at that moment).
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = gaming_day_closes)]
#[diesel(check_for_backend(diesel::pg::Pg))]
pub struct DayClose {
    pub gaming_day: NaiveDate,
    pub closed_by: UserId,
    pub closed_at: DateTime<Utc>,
    pub seal_seq: i64,
    pub seal_hash: Vec<u8>,
}

/// The close of `day`, if it is closed.
pub fn find_close(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Option<DayClose>> {
    gaming_day_closes::table
        .find(day)
        .select(DayClose::as_select())
        .first(conn)
        .optional()
}

/// Whether a failed query is the database refusing an insert on a closed gaming day.
pub fn is_closed_day_refusal(err: &diesel::result::Error) -> bool {
    matches!(err, diesel::result::Error::DatabaseError(_, info)
        if info.message().starts_with(CLOSED_DAY_MESSAGE))
}
