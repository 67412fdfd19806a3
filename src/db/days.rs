//! Gaming days and their close: a closed gaming day records nothing more (rounds, shifts,
//! approvals, voids, re-entries). The database refuses such an insert with a trigger (its message
//! starts [`CLOSED_DAY_MESSAGE`]); callers check first with [`find_close`] to answer with a clear
//! message, and recognise the trigger's refusal with [`is_closed_day_refusal`].

use chrono::{DateTime, NaiveDate, Utc};
use diesel::pg::PgConnection;
use diesel::prelude::*;
use diesel::sql_types::{Date, Text};
use serde_json::json;

use crate::config::Zone;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::checkpoints::{self, CheckpointError, Disagreement};
use crate::db::ids::UserId;
use crate::db::schema::{audit_events, gaming_day_closes};
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

/// What a refusal on a closed gaming day says, in the app's words.
pub fn closed_day_message(day: NaiveDate) -> String {
    format!("The gaming day {day} is closed: nothing more can be recorded for it.")
}

/// Whether a failed query is the database refusing an insert on a closed gaming day.
pub fn is_closed_day_refusal(err: &diesel::result::Error) -> bool {
    matches!(err, diesel::result::Error::DatabaseError(_, info)
        if info.message().starts_with(CLOSED_DAY_MESSAGE))
}

/// The chain of the day seals: one `day.closed` event per closed gaming day.
pub const DAY_CHAIN: &str = "day";

/// The action of a day seal's event.
pub const DAY_CLOSED: &str = "day.closed";

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

/// Why a table keeps a gaming day from closing (a time in it is in the casino's local time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocker {
    pub table_code: String,
    pub reason: String,
}

impl std::fmt::Display for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.table_code, self.reason)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CloseError {
    #[error("The gaming day {day} is already closed.")]
    AlreadyClosed { day: NaiveDate },
    #[error("The gaming day {day} has not begun yet (today is {today}); only a day that has begun can be closed.")]
    NotBegun { day: NaiveDate, today: NaiveDate },
    #[error("The gaming day {day} cannot be closed yet: {}.", list(.blockers))]
    Blocked {
        day: NaiveDate,
        blockers: Vec<Blocker>,
    },
    #[error("Only a signed-in user can close a gaming day.")]
    NotAUser,
    #[error("the seal could not be copied outside the database, so the day was not closed: {0}")]
    SealCopy(#[from] SealFileError),
    #[error(
        "The gaming day {day} was not closed: its audit trail disagrees with the checkpoints \
         written outside the database ({}). Nothing was sealed; run `pusoy-pit audit verify` and \
         call the auditor.",
        list(.rewritten)
    )]
    Rewritten {
        day: NaiveDate,
        rewritten: Vec<Disagreement>,
    },
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

impl CloseError {
    /// The close's error for a failed check of the checkpoints of `day`.
    fn checkpoints(day: NaiveDate) -> impl FnOnce(CheckpointError) -> CloseError {
        move |err| match err {
            CheckpointError::Rewritten(rewritten) => CloseError::Rewritten { day, rewritten },
            CheckpointError::File(err) => CloseError::SealCopy(err),
            CheckpointError::Query(err) => CloseError::Query(err),
        }
    }
}

fn list(items: &[impl ToString]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// What keeps `day` from closing: each table with a dealer still on a shift of that day or an
/// earlier one (they could still record rounds on it), and each table with a round being
/// entered (saved but not confirmed) on a shift of that day. Table by table, in code order.
const BLOCKERS: &str = "\
    SELECT t.code AS table_code, \
           'dealer ' || u.display_name || ' (' || u.username || ') is on shift' AS reason, \
           s.signed_on_at AS since \
    FROM dealer_shifts s JOIN gaming_tables t ON t.id = s.table_id JOIN users u ON u.id = s.dealer_id \
    WHERE s.signed_off_at IS NULL AND s.gaming_day <= $1 \
    UNION ALL \
    SELECT t.code, 'a round is being entered and is not confirmed (saved ' || d.revision || ' time(s))', \
           NULL::timestamptz \
    FROM round_drafts d JOIN gaming_tables t ON t.id = d.table_id \
    JOIN dealer_shifts s ON s.id = d.shift_id \
    WHERE d.settled_round_id IS NULL AND d.abandoned_at IS NULL AND d.revision > 0 \
      AND s.gaming_day = $1 \
    ORDER BY 1, 2";

#[derive(QueryableByName)]
struct BlockerRow {
    #[diesel(sql_type = Text)]
    table_code: String,
    #[diesel(sql_type = Text)]
    reason: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    since: Option<DateTime<Utc>>,
}

/// What keeps `day` from closing now (nothing: it may close), its times in `zone`.
pub fn blockers(conn: &mut PgConnection, day: NaiveDate, zone: Zone) -> QueryResult<Vec<Blocker>> {
    let rows: Vec<BlockerRow> = diesel::sql_query(BLOCKERS)
        .bind::<Date, _>(day)
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|r| Blocker {
            table_code: r.table_code,
            reason: match r.since {
                Some(since) => format!("{} since {}", r.reason, zone.time(since)),
                None => r.reason,
            },
        })
        .collect())
}

/// The tables that record a gaming day's work. The close holds them in SHARE mode: it waits for
/// every transaction already writing one of them to end, and every write that comes after
/// waits for the close to commit and then meets the closed-day trigger. So no round, shift,
/// approval, void or re-entry of the day can slip in between the check and the seal.
const LOCK_DAY_TABLES: &str = "LOCK TABLE dealer_shifts, round_drafts, rounds, round_approvals, \
     round_voids, round_reentries IN SHARE MODE";

/// Closes gaming day `day` (`today` is the current gaming day) as `by`: in one transaction,
/// holding the day's tables ([`LOCK_DAY_TABLES`]), checks nothing keeps it open ([`blockers`])
/// and every chain agrees with its last checkpoint in `seals` ([`checkpoints::check_last`]),
/// appends the `day.closed` event on the [`DAY_CHAIN`] with every chain's head, records the
/// close, and appends the seal to `seals` (outside the database) before committing: if that
/// fails, the day stays open.
pub fn close_day(
    conn: &mut PgConnection,
    day: NaiveDate,
    today: NaiveDate,
    by: &Actor,
    seals: &SealFiles,
    zone: Zone,
) -> Result<(DayClose, SealCopy), CloseError> {
    let closed_by = by.user_id.ok_or(CloseError::NotAUser)?;
    if day > today {
        return Err(CloseError::NotBegun { day, today });
    }
    conn.transaction(|conn| {
        diesel::sql_query(LOCK_DAY_TABLES).execute(conn)?;
        if find_close(conn, day)?.is_some() {
            return Err(CloseError::AlreadyClosed { day });
        }
        let blockers = blockers(conn, day, zone)?;
        if !blockers.is_empty() {
            return Err(CloseError::Blocked { day, blockers });
        }
        checkpoints::check_last(conn, seals).map_err(CloseError::checkpoints(day))?;
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
    })
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
