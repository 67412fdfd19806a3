//! Server-side sessions. The browser holds a random key; the table holds only its SHA-256, the
//! signed-in user and the session state. Time-outs are enforced here, from the row's
//! timestamps: absolute (from sign-in) and idle (per role), so a session ends even if the
//! browser keeps its cookie.

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::config::Timeouts;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::UserId;
use crate::db::schema::{sessions, users};
use crate::db::users::Role;

/// The session-state key under which the signed-in user's id is kept.
pub const USER_ID_KEY: &str = "user_id";

/// The idle limit of a session of an account of `role`.
pub fn idle_limit(timeouts: &Timeouts, role: Role) -> TimeDelta {
    match role {
        Role::Dealer => timeouts.dealer_idle,
        Role::Supervisor
        | Role::Auditor
        | Role::Admin
        | Role::Cashier
        | Role::Count
        | Role::Host
        | Role::Compliance => timeouts.staff_idle,
    }
}

/// Session state as actix-session keeps it: values are JSON texts.
pub type State = HashMap<String, String>;

/// The SHA-256 of a session key: what the table stores and looks up.
pub fn key_hash(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

fn user_of(state: &State) -> Option<i64> {
    state.get(USER_ID_KEY).and_then(|v| v.parse().ok())
}

/// Stores a new session under `key`. Expired sessions are swept at the same time.
pub fn insert(
    conn: &mut PgConnection,
    key: &str,
    state: &State,
    timeouts: &Timeouts,
) -> QueryResult<()> {
    let now = Utc::now();
    let user_id = user_of(state);
    let lifetime = if user_id.is_some() {
        timeouts.absolute
    } else {
        timeouts.anonymous
    };
    conn.transaction(|conn| {
        diesel::delete(sessions::table.filter(sessions::expires_at.lt(now))).execute(conn)?;
        diesel::insert_into(sessions::table)
            .values((
                sessions::key_hash.eq(key_hash(key)),
                sessions::user_id.eq(user_id),
                sessions::state.eq(json!(state)),
                sessions::created_at.eq(now),
                sessions::last_seen_at.eq(now),
                sessions::expires_at.eq(now + lifetime),
            ))
            .execute(conn)?;
        Ok(())
    })
}

/// Replaces the state of the session under `key`. Returns whether it still existed.
pub fn update_state(conn: &mut PgConnection, key: &str, state: &State) -> QueryResult<bool> {
    let updated = diesel::update(sessions::table.filter(sessions::key_hash.eq(key_hash(key))))
        .set((
            sessions::state.eq(json!(state)),
            sessions::user_id.eq(user_of(state)),
        ))
        .execute(conn)?;
    Ok(updated > 0)
}

pub fn delete(conn: &mut PgConnection, key: &str) -> QueryResult<()> {
    diesel::delete(sessions::table.filter(sessions::key_hash.eq(key_hash(key)))).execute(conn)?;
    Ok(())
}

/// Ends every session of a user; returns how many there were.
pub fn delete_for_user(conn: &mut PgConnection, user: UserId) -> QueryResult<usize> {
    diesel::delete(sessions::table.filter(sessions::user_id.eq(user.0))).execute(conn)
}

#[derive(Queryable)]
struct Row {
    state: serde_json::Value,
    last_seen_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    user_id: Option<UserId>,
    username: Option<String>,
    role: Option<String>,
    disabled_at: Option<DateTime<Utc>>,
}

/// How stale a session's `last_seen_at` may be before a request moves it: marking every request
/// would make each page a signed-in person opens a durable write. A session therefore ends
/// between its idle limit less this and its idle limit after its last request (never later).
pub const SEEN_EVERY: TimeDelta = TimeDelta::seconds(30);

/// Loads the live session under `key` and marks it seen at `now` (when it was last marked
/// [`SEEN_EVERY`] or more before). A session past a time-out,
/// or whose user is disabled, is deleted instead (with a `session.expired` event) and `None`
/// returned, exactly as if it had never existed.
pub fn load_live(
    conn: &mut PgConnection,
    key: &str,
    timeouts: &Timeouts,
    now: DateTime<Utc>,
) -> QueryResult<Option<State>> {
    let hash = key_hash(key);
    conn.transaction(|conn| {
        let row: Option<Row> = sessions::table
            .left_join(users::table)
            .filter(sessions::key_hash.eq(&hash))
            .select((
                sessions::state,
                sessions::last_seen_at,
                sessions::expires_at,
                sessions::user_id,
                users::username.nullable(),
                users::role.nullable(),
                users::disabled_at.nullable(),
            ))
            .first(conn)
            .optional()?;
        let Some(row) = row else {
            return Ok(None);
        };
        let idle_limit = row
            .role
            .as_deref()
            .and_then(|r| r.parse::<Role>().ok())
            .map(|role| idle_limit(timeouts, role));
        let ended = if now >= row.expires_at {
            Some("absolute time-out")
        } else if row.disabled_at.is_some() {
            Some("user disabled")
        } else if idle_limit.is_some_and(|limit| now - row.last_seen_at > limit) {
            Some("idle time-out")
        } else {
            None
        };
        if let Some(reason) = ended {
            diesel::delete(sessions::table.filter(sessions::key_hash.eq(&hash))).execute(conn)?;
            if let (Some(id), Some(username)) = (row.user_id, row.username) {
                let actor = Actor::system("system");
                audit_log::append(
                    conn,
                    &NewAuditEvent::system(
                        &actor,
                        AuditAction::SessionExpired,
                        format!("user:{username}"),
                    )
                    .details(json!({ "reason": reason, "user_id": id })),
                )?;
            }
            return Ok(None);
        }
        if now - row.last_seen_at >= SEEN_EVERY {
            diesel::update(sessions::table.filter(sessions::key_hash.eq(&hash)))
                .set(sessions::last_seen_at.eq(now))
                .execute(conn)?;
        }
        Ok(serde_json::from_value(row.state).ok())
    })
}
