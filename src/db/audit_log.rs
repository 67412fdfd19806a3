//! The audit trail: append-only, hash-chained events.
//!
//! Events live on named chains (`system` for sign-in and staff-account events; later one chain
//! per table, so unrelated tables never wait on one lock). Each event stores the hash of the
//! previous event on its chain and its own hash, `sha256(prev_hash || canonical(event))`, so a
//! changed, removed or reordered row is detected by [`verify_chain`]. A trigger refuses UPDATE,
//! DELETE and TRUNCATE on `audit_events`.

use chrono::{DateTime, NaiveDate, SecondsFormat, SubsecRound, Utc};
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::db::schema::{audit_chain_heads, audit_events};
use crate::db::users::UserId;

/// The chain for sign-in, session and staff-account events.
pub const SYSTEM_CHAIN: &str = "system";
/// The `prev_hash` of the first event on every chain.
pub const GENESIS_HASH: [u8; 32] = [0; 32];

/// Who did something, and from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub user_id: Option<UserId>,
    pub name: String,
    pub client_addr: Option<String>,
}

impl Actor {
    pub fn user(id: UserId, username: &str, client_addr: Option<String>) -> Actor {
        Actor {
            user_id: Some(id),
            name: username.to_owned(),
            client_addr,
        }
    }

    /// Someone not signed in (a sign-in attempt, a refused form).
    pub fn anonymous(client_addr: Option<String>) -> Actor {
        Actor {
            user_id: None,
            name: "anonymous".to_owned(),
            client_addr,
        }
    }

    /// The application itself (time-outs) or an operator at the command line.
    pub fn system(name: &str) -> Actor {
        Actor {
            user_id: None,
            name: name.to_owned(),
            client_addr: None,
        }
    }
}

/// An event to append.
#[derive(Debug, Clone)]
pub struct NewAuditEvent<'a> {
    pub chain: &'a str,
    pub actor: &'a Actor,
    pub action: &'a str,
    pub target: String,
    pub details: Value,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<i64>,
}

impl<'a> NewAuditEvent<'a> {
    /// An event on the `system` chain.
    pub fn system(actor: &'a Actor, action: &'a str, target: impl Into<String>) -> Self {
        NewAuditEvent {
            chain: SYSTEM_CHAIN,
            actor,
            action,
            target: target.into(),
            details: Value::Object(serde_json::Map::new()),
            gaming_day: None,
            table_id: None,
        }
    }

    pub fn details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = audit_events)]
pub struct AuditEvent {
    pub id: i64,
    pub chain: String,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub actor_user_id: Option<i64>,
    pub actor_name: String,
    pub action: String,
    pub target: String,
    pub details: Value,
    pub client_addr: Option<String>,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<i64>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

/// Appends `event` to its chain and returns its sequence number. Call it inside the
/// transaction that makes the change it records: it locks the chain's head row until that
/// transaction ends. (Called outside one, it opens its own.) Two statements, whatever the
/// chain's length: this runs inside every confirmed round.
pub fn append(conn: &mut PgConnection, event: &NewAuditEvent<'_>) -> QueryResult<i64> {
    use diesel::connection::TransactionManager;
    let in_transaction =
        <PgConnection as Connection>::TransactionManager::transaction_manager_status_mut(conn)
            .transaction_depth()?
            .is_some();
    if in_transaction {
        append_locked(conn, event)
    } else {
        conn.transaction(|conn| append_locked(conn, event))
    }
}

/// Locks the chain's head row (creating it on the chain's first event) and returns it, so
/// appenders to one chain take turns. The usual case is one prepared, cached statement.
fn lock_head(conn: &mut PgConnection, chain: &str) -> QueryResult<(i64, Vec<u8>)> {
    let head = || {
        audit_chain_heads::table
            .filter(audit_chain_heads::chain.eq(chain))
            .select((audit_chain_heads::last_seq, audit_chain_heads::last_hash))
            .for_update()
    };
    if let Some(head) = head().first(conn).optional()? {
        return Ok(head);
    }
    diesel::insert_into(audit_chain_heads::table)
        .values((
            audit_chain_heads::chain.eq(chain),
            audit_chain_heads::last_seq.eq(0_i64),
            audit_chain_heads::last_hash.eq(GENESIS_HASH.as_slice()),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    head().first(conn)
}

fn append_locked(conn: &mut PgConnection, event: &NewAuditEvent<'_>) -> QueryResult<i64> {
    use diesel::sql_types::{Bytea, Date, Jsonb, Nullable, Text, Timestamptz};
    let (last_seq, prev_hash) = lock_head(conn, event.chain)?;
    let seq = last_seq + 1;
    // PostgreSQL keeps microseconds: hash exactly what is stored.
    let at = Utc::now().trunc_subsecs(6);
    let fields = HashedFields {
        chain: event.chain,
        seq,
        at,
        actor_user_id: event.actor.user_id.map(|id| id.0),
        actor_name: &event.actor.name,
        action: event.action,
        target: &event.target,
        details: &event.details,
        client_addr: event.actor.client_addr.as_deref(),
        gaming_day: event.gaming_day,
        table_id: event.table_id,
    };
    let hash = event_hash(&prev_hash, &fields);
    // The event and the moved head in one statement.
    diesel::sql_query(
        "WITH event AS (INSERT INTO audit_events (chain, seq, at, actor_user_id, actor_name, \
         action, target, details, client_addr, gaming_day, table_id, prev_hash, hash) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)) \
         UPDATE audit_chain_heads SET last_seq = $2, last_hash = $13 WHERE chain = $1",
    )
    .bind::<Text, _>(event.chain)
    .bind::<BigInt, _>(seq)
    .bind::<Timestamptz, _>(at)
    .bind::<Nullable<BigInt>, _>(fields.actor_user_id)
    .bind::<Text, _>(&event.actor.name)
    .bind::<Text, _>(event.action)
    .bind::<Text, _>(&event.target)
    .bind::<Jsonb, _>(&event.details)
    .bind::<Nullable<Text>, _>(fields.client_addr)
    .bind::<Nullable<Date>, _>(event.gaming_day)
    .bind::<Nullable<BigInt>, _>(event.table_id)
    .bind::<Bytea, _>(&prev_hash)
    .bind::<Bytea, _>(hash.as_slice())
    .execute(conn)?;
    Ok(seq)
}

/// The outcome of re-computing a chain's hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainCheck {
    Intact { events: u64 },
    Broken { seq: i64, problem: String },
}

/// Recomputes every hash on `chain` and compares it with the stored rows and chain head.
pub fn verify_chain(conn: &mut PgConnection, chain: &str) -> QueryResult<ChainCheck> {
    let events: Vec<AuditEvent> = audit_events::table
        .filter(audit_events::chain.eq(chain))
        .order(audit_events::seq.asc())
        .select(AuditEvent::as_select())
        .load(conn)?;
    let mut prev = GENESIS_HASH.to_vec();
    for (index, event) in (1_i64..).zip(&events) {
        let broken = |problem: String| {
            Ok(ChainCheck::Broken {
                seq: event.seq,
                problem,
            })
        };
        if event.seq != index {
            return broken(format!("expected sequence number {index}"));
        }
        if event.prev_hash != prev {
            return broken("previous-hash link does not match the event before".to_owned());
        }
        if event_hash(&prev, &HashedFields::of(event)).as_slice() != event.hash.as_slice() {
            return broken("contents do not match the stored hash".to_owned());
        }
        prev.clone_from(&event.hash);
    }
    let head: Option<(i64, Vec<u8>)> = audit_chain_heads::table
        .filter(audit_chain_heads::chain.eq(chain))
        .select((audit_chain_heads::last_seq, audit_chain_heads::last_hash))
        .first(conn)
        .optional()?;
    let count = i64::try_from(events.len()).unwrap_or(i64::MAX);
    match head {
        Some((seq, hash)) if seq != count || hash != prev => Ok(ChainCheck::Broken {
            seq,
            problem: format!("chain head says {seq} events, {count} found"),
        }),
        None if count > 0 => Ok(ChainCheck::Broken {
            seq: count,
            problem: "events without a chain head".to_owned(),
        }),
        _ => Ok(ChainCheck::Intact {
            events: events.len() as u64,
        }),
    }
}

/// The latest events on any chain, newest first.
pub fn recent(conn: &mut PgConnection, limit: i64) -> QueryResult<Vec<AuditEvent>> {
    audit_events::table
        .order(audit_events::id.desc())
        .limit(limit)
        .select(AuditEvent::as_select())
        .load(conn)
}

/// The latest events done by one user, newest first.
pub fn recent_by_actor(
    conn: &mut PgConnection,
    user: UserId,
    limit: i64,
) -> QueryResult<Vec<AuditEvent>> {
    audit_events::table
        .filter(audit_events::actor_user_id.eq(user.0))
        .order(audit_events::id.desc())
        .limit(limit)
        .select(AuditEvent::as_select())
        .load(conn)
}

/// The event fields covered by the hash.
struct HashedFields<'a> {
    chain: &'a str,
    seq: i64,
    at: DateTime<Utc>,
    actor_user_id: Option<i64>,
    actor_name: &'a str,
    action: &'a str,
    target: &'a str,
    details: &'a Value,
    client_addr: Option<&'a str>,
    gaming_day: Option<NaiveDate>,
    table_id: Option<i64>,
}

impl<'a> HashedFields<'a> {
    fn of(event: &'a AuditEvent) -> Self {
        HashedFields {
            chain: &event.chain,
            seq: event.seq,
            at: event.at,
            actor_user_id: event.actor_user_id,
            actor_name: &event.actor_name,
            action: &event.action,
            target: &event.target,
            details: &event.details,
            client_addr: event.client_addr.as_deref(),
            gaming_day: event.gaming_day,
            table_id: event.table_id,
        }
    }
}

fn event_hash(prev_hash: &[u8], fields: &HashedFields<'_>) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(prev_hash);
    hasher.update(canonical(fields).as_bytes());
    hasher.finalize().into()
}

/// A JSON array of the fields in a fixed order, with object keys sorted, so the bytes do not
/// depend on how PostgreSQL's `jsonb` or serde orders keys. Version 1 of the format.
fn canonical(fields: &HashedFields<'_>) -> String {
    let mut out = String::from("[1,");
    let items: [Value; 11] = [
        Value::from(fields.chain),
        Value::from(fields.seq),
        Value::from(fields.at.to_rfc3339_opts(SecondsFormat::Micros, true)),
        fields.actor_user_id.map_or(Value::Null, Value::from),
        Value::from(fields.actor_name),
        Value::from(fields.action),
        Value::from(fields.target),
        fields.details.clone(),
        fields.client_addr.map_or(Value::Null, Value::from),
        fields.gaming_day.map_or(Value::Null, |d| {
            Value::from(d.format("%Y-%m-%d").to_string())
        }),
        fields.table_id.map_or(Value::Null, Value::from),
    ];
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_canonical(item, &mut out);
    }
    out.push(']');
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                if let Some(inner) = map.get(key) {
                    write_canonical(inner, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_sorts_object_keys_at_every_depth() {
        let mut a = String::new();
        let mut b = String::new();
        write_canonical(
            &serde_json::json!({"b": 1, "a": {"z": [1, {"y": 2, "x": 3}]}}),
            &mut a,
        );
        write_canonical(
            &serde_json::json!({"a": {"z": [1, {"x": 3, "y": 2}]}, "b": 1}),
            &mut b,
        );
        assert_eq!(a, b);
        assert_eq!(a, r#"{"a":{"z":[1,{"x":3,"y":2}]},"b":1}"#);
    }
}
