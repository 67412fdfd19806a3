//! The auditor's event search: events newest first, filtered by chain, actor, action, gaming
//! day and time, a page at a time by keyset (the id of the last event shown), each filter served
//! by its own index (migration `2026-11-25-000004_audit_search`).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;

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

/// The events matching `filter` with ids below `before` (all if `None`), newest first, at most
/// `size`.
pub fn search(
    conn: &mut PgConnection,
    filter: &EventFilter,
    before: Option<i64>,
    size: i64,
) -> QueryResult<EventPage> {
    let mut query = audit_events::table
        .select(AuditEvent::as_select())
        .order(audit_events::id.desc())
        .limit(size + 1)
        .into_boxed();
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
    if let Some(before) = before {
        query = query.filter(audit_events::id.lt(before));
    }
    let mut events = query.load(conn)?;
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
