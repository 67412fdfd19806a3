//! The auditor's event search: events newest first, filtered by chain, actor, action, gaming
//! day and time, a page at a time by keyset (the id of the last event shown), each filter served
//! by its own index (migration `2026-11-25-000004_audit_search`).
//!
//! A search with a time range is read in time order from the `at` index, so that a range far
//! back in the history costs what the range holds, not every event after it (issue 37).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool};

use crate::db::audit_log::AuditEvent;
use crate::db::schema::audit_events;

/// What to look for; `None` leaves a column unfiltered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    pub chain: Option<String>,
    pub actor: Option<String>,
    pub action: Option<String>,
    pub gaming_day: Option<NaiveDate>,
    /// At or after this instant.
    pub from: Option<DateTime<Utc>>,
    /// Before this instant.
    pub to: Option<DateTime<Utc>>,
}

/// A page of events, newest first, and where the next page starts (if there is one).
#[derive(Debug, Clone, PartialEq)]
pub struct EventPage {
    pub events: Vec<AuditEvent>,
    /// The `before` of the next (older) page.
    pub next_before: Option<i64>,
}

/// The events matching `filter` after the event `before` (all if `None`), newest first, at
/// most `size`: by id, or by time (then id) when the filter has a time range.
pub fn search(
    conn: &mut PgConnection,
    filter: &EventFilter,
    before: Option<i64>,
    size: i64,
) -> QueryResult<EventPage> {
    let by_time = filter.from.is_some() || filter.to.is_some();
    let mut query = audit_events::table
        .select(AuditEvent::as_select())
        .limit(size + 1)
        .into_boxed();
    query = if by_time {
        query.order((audit_events::at.desc(), audit_events::id.desc()))
    } else {
        query.order(audit_events::id.desc())
    };
    if let Some(chain) = &filter.chain {
        query = query.filter(audit_events::chain.eq(chain.clone()));
    }
    if let Some(actor) = &filter.actor {
        query = query.filter(audit_events::actor_name.eq(actor.clone()));
    }
    if let Some(action) = &filter.action {
        query = query.filter(audit_events::action.eq(action.clone()));
    }
    if let Some(day) = filter.gaming_day {
        query = query.filter(audit_events::gaming_day.eq(day));
    }
    if let Some(from) = filter.from {
        query = query.filter(audit_events::at.ge(from));
    }
    if let Some(to) = filter.to {
        query = query.filter(audit_events::at.lt(to));
    }
    query = match before {
        // The page after the event `before`, in time order: events at an earlier instant, or
        // at the same instant with a lower id.
        Some(before) if by_time => query.filter(
            sql::<Bool>("(audit_events.at, audit_events.id) < ((SELECT e.at FROM audit_events e WHERE e.id = ")
                .bind::<BigInt, _>(before)
                .sql("), ")
                .bind::<BigInt, _>(before)
                .sql(")"),
        ),
        Some(before) => query.filter(audit_events::id.lt(before)),
        None => query,
    };
    let mut events = crate::db::with_custom_plans(conn, |conn| query.load(conn))?;
    let more = events.len() as i64 > size;
    events.truncate(usize::try_from(size).unwrap_or(0));
    Ok(EventPage {
        next_before: if more {
            events.last().map(|e| e.id)
        } else {
            None
        },
        events,
    })
}

/// Every action in the trail, in name order (a skip scan of the action index: one probe per
/// action, however many events).
const ALL_ACTIONS: &str = "\
    WITH RECURSIVE a AS ( \
        SELECT min(action) AS action FROM audit_events \
        UNION ALL \
        SELECT (SELECT min(action) FROM audit_events WHERE action > a.action) FROM a \
        WHERE a.action IS NOT NULL \
    ) \
    SELECT action AS name FROM a WHERE action IS NOT NULL";

/// Every action that occurs in the trail.
pub fn actions(conn: &mut PgConnection) -> QueryResult<Vec<String>> {
    super::names(conn, ALL_ACTIONS)
}

/// The latest event with `action`, if any.
pub fn latest(conn: &mut PgConnection, action: &str) -> QueryResult<Option<AuditEvent>> {
    audit_events::table
        .filter(audit_events::action.eq(action))
        .order(audit_events::id.desc())
        .select(AuditEvent::as_select())
        .first(conn)
        .optional()
}
