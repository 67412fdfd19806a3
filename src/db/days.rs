//! Gaming days and their close: a closed gaming day records nothing more (rounds, shifts,
//! approvals, voids, re-entries, buy-ins, fees and their voids). The database refuses such an
//! insert with a trigger (its message starts [`CLOSED_DAY_MESSAGE`]); callers check first with
//! [`find_close`], and recognise the trigger's refusal with [`is_closed_day_refusal`]; the words
//! staff read are [`crate::rules::gaming_day::closed_day_message`].

use chrono::{DateTime, NaiveDate, Utc};
use diesel::pg::PgConnection;
use diesel::prelude::*;
use serde_json::json;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::checkpoints;
use crate::db::ids::UserId;
use crate::db::schema::{
    audit_events, dealer_shifts, gaming_day_closes, gaming_tables, round_drafts, users,
};
use crate::db::seal_file::{SealCopy, SealFileError, SealFiles};

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

/// The chain of the day seals: one `day.closed` event per closed gaming day.
pub const DAY_CHAIN: &str = "day";

/// The action of a day seal's event.
pub const DAY_CLOSED: AuditAction = AuditAction::DayClosed;

/// The day a refusal by the database's closed-day trigger names, if `err` is one.
pub fn closed_day_refused(err: &diesel::result::Error) -> Option<NaiveDate> {
    match err {
        diesel::result::Error::DatabaseError(_, info) => {
            let rest = info.message().strip_prefix(CLOSED_DAY_MESSAGE)?;
            let day = rest.split_whitespace().next()?;
            day.parse().ok()
        }
        _ => None,
    }
}

/// A dealer still on a shift of a gaming day (or an earlier one): they could still record
/// rounds on it.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct OpenShift {
    pub table_code: String,
    pub dealer_name: String,
    pub dealer_username: String,
    pub signed_on_at: DateTime<Utc>,
}

/// The shifts of `day` or earlier still open, table by table in code order.
pub fn open_shifts(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<OpenShift>> {
    dealer_shifts::table
        .inner_join(gaming_tables::table)
        .inner_join(users::table)
        .filter(dealer_shifts::signed_off_at.is_null())
        .filter(dealer_shifts::gaming_day.le(day))
        .order((gaming_tables::code, dealer_shifts::signed_on_at))
        .select((
            gaming_tables::code,
            users::display_name,
            users::username,
            dealer_shifts::signed_on_at,
        ))
        .load(conn)
}

/// A round being entered on a shift of a gaming day: saved, neither confirmed nor abandoned.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct OpenDraft {
    pub table_code: String,
    pub revision: i32,
    pub updated_at: DateTime<Utc>,
}

/// The rounds being entered on shifts of `day`, table by table in code order.
pub fn open_drafts(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<OpenDraft>> {
    round_drafts::table
        .inner_join(gaming_tables::table)
        .inner_join(dealer_shifts::table)
        .filter(round_drafts::settled_round_id.is_null())
        .filter(round_drafts::abandoned_at.is_null())
        .filter(round_drafts::revision.gt(0))
        .filter(dealer_shifts::gaming_day.eq(day))
        .order((gaming_tables::code, round_drafts::id))
        .select((
            gaming_tables::code,
            round_drafts::revision,
            round_drafts::updated_at,
        ))
        .load(conn)
}

/// The tables that record a gaming day's work. The close holds them in SHARE mode: it waits for
/// every transaction already writing one of them to end, and every write that comes after
/// waits for the close to commit and then meets the closed-day trigger. So no round, shift,
/// approval, void, re-entry, buy-in or fee (or void of one) of the day can slip in between the
/// close's checks and its seal, and the sums the close writes of the day's rounds, buy-ins and
/// fees (`closed_day_round_sums`, `closed_day_drop_sums`) stay true. (No transaction writes a
/// buy-in or fee together with a round, so the order of the list makes no deadlock.) The lock is
/// taken by the database function `lock_gaming_day_tables`, as the schema's owner: the app's own
/// role may not take SHARE mode on the buy-in and fee tables, which it may not update.
const LOCK_DAY_TABLES: &str = "SELECT lock_gaming_day_tables()";

/// Holds the tables of a gaming day's work until the caller's transaction ends
/// ([`LOCK_DAY_TABLES`]).
pub fn lock_day_tables(conn: &mut PgConnection) -> QueryResult<()> {
    diesel::sql_query(LOCK_DAY_TABLES).execute(conn)?;
    Ok(())
}

/// Why a seal was not written.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("the seal could not be copied outside the database: {0}")]
    Copy(#[from] SealFileError),
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

/// Seals gaming day `day` as `by` (the user `closed_by`), in the caller's transaction: appends
/// the `day.closed` event on the [`DAY_CHAIN`] with every other chain's head, records the close,
/// and appends the seal to `seals` (outside the database). Whether the day may close is the
/// caller's decision ([`crate::db::days`] only writes); if the copy fails, the caller's
/// transaction rolls back and the day stays open.
pub fn seal_day(
    conn: &mut PgConnection,
    day: NaiveDate,
    closed_by: UserId,
    by: &Actor,
    seals: &SealFiles,
) -> Result<(DayClose, SealCopy), SealError> {
    let mut heads = checkpoints::heads(conn)?;
    // The seal's event links to the day chain's head.
    heads.remove(DAY_CHAIN);
    let seal_seq = audit_log::append(
        conn,
        &NewAuditEvent {
            chain: DAY_CHAIN,
            actor: by,
            action: DAY_CLOSED,
            target: format!("day:{day}"),
            details: json!({ "format": 1, "gaming_day": day, "heads": heads }),
            gaming_day: Some(day),
            table_id: None,
        },
    )?;
    let (closed_at, seal_hash): (DateTime<Utc>, Vec<u8>) = audit_events::table
        .filter(audit_events::chain.eq(DAY_CHAIN))
        .filter(audit_events::seq.eq(seal_seq))
        .select((audit_events::at, audit_events::hash))
        .first(conn)?;
    let close: DayClose = diesel::insert_into(gaming_day_closes::table)
        .values((
            gaming_day_closes::gaming_day.eq(day),
            gaming_day_closes::closed_by.eq(closed_by),
            gaming_day_closes::closed_at.eq(closed_at),
            gaming_day_closes::seal_seq.eq(seal_seq),
            gaming_day_closes::seal_hash.eq(&seal_hash),
        ))
        .returning(DayClose::as_returning())
        .get_result(conn)?;
    let copy = SealCopy {
        gaming_day: day,
        seal_seq,
        seal_hash: hex::encode(&seal_hash),
        closed_at,
        closed_by: by.name.clone(),
        heads,
    };
    seals.append_seal(&copy)?;
    Ok((close, copy))
}

/// The closes of gaming days, newest first.
pub fn recent_closes(conn: &mut PgConnection, limit: i64) -> QueryResult<Vec<DayClose>> {
    gaming_day_closes::table
        .order(gaming_day_closes::gaming_day.desc())
        .limit(limit)
        .select(DayClose::as_select())
        .load(conn)
}

/// Every close, oldest first.
pub fn all_closes(conn: &mut PgConnection) -> QueryResult<Vec<DayClose>> {
    gaming_day_closes::table
        .order(gaming_day_closes::gaming_day.asc())
        .select(DayClose::as_select())
        .load(conn)
}

/// The gaming days before `before` with a dealer shift at any of `tables`, not closed, oldest
/// first.
pub fn unclosed_days(
    conn: &mut PgConnection,
    tables: &[crate::db::ids::TableId],
    before: NaiveDate,
) -> QueryResult<Vec<NaiveDate>> {
    dealer_shifts::table
        .filter(dealer_shifts::table_id.eq_any(tables))
        .filter(dealer_shifts::gaming_day.lt(before))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            gaming_day_closes::table
                .filter(gaming_day_closes::gaming_day.eq(dealer_shifts::gaming_day)),
        )))
        .select(dealer_shifts::gaming_day)
        .distinct()
        .order(dealer_shifts::gaming_day)
        .load(conn)
}
