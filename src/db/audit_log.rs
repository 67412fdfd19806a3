//! The audit trail: append-only, hash-chained events.
//!
//! Events live on named chains: `system` for sign-in, session and staff-account events, and one
//! chain per table ([`table_chain`]) for its settings, shifts and rounds, so unrelated tables
//! never wait on one lock. Each event stores the hash of the
//! previous event on its chain and its own hash, `sha256(prev_hash || canonical(event))`, so a
//! changed, removed or reordered row is detected by [`verify_chain`]. A trigger refuses UPDATE,
//! DELETE and TRUNCATE on `audit_events`.

use chrono::{DateTime, NaiveDate, SecondsFormat, SubsecRound, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Date, Json, Jsonb, Nullable, Text, Timestamptz};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::db::audit_actions::AuditAction;
use crate::db::canonical_json::{self, write_canonical, write_json_string, NotJson};
use crate::db::ids::{TableId, UserId};
use crate::db::prepared::{column, Sql};
use crate::db::schema::{audit_chain_heads, audit_events};

/// The hashed fields of an event row (whose details are given as a value or as text).
macro_rules! hashed_fields {
    ($event:expr, $details:expr) => {
        HashedFields {
            chain: &$event.chain,
            seq: $event.seq,
            at: $event.at,
            actor_user_id: $event.actor_user_id,
            actor_name: &$event.actor_name,
            action: &$event.action,
            target: &$event.target,
            details: $details,
            client_addr: $event.client_addr.as_deref(),
            gaming_day: $event.gaming_day,
            table_id: $event.table_id,
        }
    };
}

/// The chain for sign-in, session and staff-account events.
pub const SYSTEM_CHAIN: &str = "system";

/// The chain of a table's events (its settings, shifts and rounds).
pub fn table_chain(table: TableId) -> String {
    format!("table:{table}")
}

/// The columns of `audit_events` every insert fills, in the order of [`SealedEvent::bind`].
macro_rules! audit_event_columns {
    () => {
        "chain, seq, at, actor_user_id, actor_name, action, target, details, client_addr, \
         gaming_day, table_id, prev_hash, hash"
    };
}
pub(crate) use audit_event_columns;
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
    pub action: AuditAction,
    pub target: String,
    pub details: Value,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<TableId>,
}

impl<'a> NewAuditEvent<'a> {
    /// An event on the `system` chain. Its target is cut to [`TARGET_MOST_BYTES`]: it may hold
    /// what a request sent (a path), which must not grow the trail at the sender's will.
    pub fn system(actor: &'a Actor, action: AuditAction, target: impl Into<String>) -> Self {
        NewAuditEvent {
            chain: SYSTEM_CHAIN,
            actor,
            action,
            target: capped(target.into()),
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

/// The longest target a `system` event stores, in bytes (a cut one ends with `…`).
pub const TARGET_MOST_BYTES: usize = 256;

fn capped(mut text: String) -> String {
    if text.len() > TARGET_MOST_BYTES {
        let mut end = TARGET_MOST_BYTES - '…'.len_utf8();
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = audit_events)]
pub struct AuditEvent {
    pub id: i64,
    pub chain: String,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub actor_user_id: Option<UserId>,
    pub actor_name: String,
    pub action: String,
    pub target: String,
    pub details: Value,
    pub client_addr: Option<String>,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<TableId>,
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

/// A chain's head: the sequence number and hash of its last event (0 and [`GENESIS_HASH`]
/// before the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainHead {
    pub last_seq: i64,
    pub last_hash: Vec<u8>,
}

impl ChainHead {
    /// The head of a chain with no event yet.
    pub fn genesis() -> ChainHead {
        ChainHead {
            last_seq: 0,
            last_hash: GENESIS_HASH.to_vec(),
        }
    }
}

/// Locks the chain's head row (creating it on the chain's first event) and returns it, so
/// appenders to one chain take turns. The usual case is one prepared, cached statement.
fn lock_head(conn: &mut PgConnection, chain: &str) -> QueryResult<ChainHead> {
    let head = || {
        audit_chain_heads::table
            .filter(audit_chain_heads::chain.eq(chain))
            .select((audit_chain_heads::last_seq, audit_chain_heads::last_hash))
            .for_update()
    };
    let locked = match head().first(conn).optional()? {
        Some(locked) => locked,
        None => {
            create_head(conn, chain)?;
            head().first(conn)?
        }
    };
    let (last_seq, last_hash) = locked;
    Ok(ChainHead {
        last_seq,
        last_hash,
    })
}

/// Creates the chain's head row if the chain has none yet (its first event is about to be
/// appended).
pub fn create_head(conn: &mut PgConnection, chain: &str) -> QueryResult<()> {
    diesel::insert_into(audit_chain_heads::table)
        .values((
            audit_chain_heads::chain.eq(chain),
            audit_chain_heads::last_seq.eq(0_i64),
            audit_chain_heads::last_hash.eq(GENESIS_HASH.as_slice()),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// An event given its place on its chain, after `head`: its sequence number, time, and hash,
/// with every column it is stored with (owned, so that it can be written by another thread).
/// Insert it with the SQL of `sealed_event_ctes!`, in a statement that first checks the chain
/// has not moved (`chain_head_unmoved!`).
#[derive(Debug, Clone)]
pub struct SealedEvent {
    pub chain: String,
    pub seq: i64,
    /// When it happened, to the microsecond PostgreSQL keeps, so the hash covers what is stored.
    pub at: DateTime<Utc>,
    pub actor_user_id: Option<UserId>,
    pub actor_name: String,
    pub action: String,
    pub target: String,
    /// The details as they are stored and hashed.
    pub details: CanonicalJson,
    pub client_addr: Option<String>,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<TableId>,
    pub prev_hash: Vec<u8>,
    pub hash: [u8; 32],
}

impl SealedEvent {
    pub fn after(head: ChainHead, event: NewAuditEvent<'_>) -> Self {
        SealedEvent::after_at(head, event, Utc::now())
    }

    /// The event after `head` as having happened at `at`: history written after the fact (the
    /// generated history of `pusoy-pit db generate`), whose times are in the past.
    pub fn after_at(head: ChainHead, event: NewAuditEvent<'_>, at: DateTime<Utc>) -> Self {
        let seq = head.last_seq + 1;
        let at = at.trunc_subsecs(6);
        let actor_user_id = event.actor.user_id;
        let details = CanonicalJson::of(&event.details);
        let hash = event_hash(
            &head.last_hash,
            &HashedFields {
                chain: event.chain,
                seq,
                at,
                actor_user_id,
                actor_name: &event.actor.name,
                action: event.action.as_str(),
                target: &event.target,
                details: Details::Canonical(details.as_str()),
                client_addr: event.actor.client_addr.as_deref(),
                gaming_day: event.gaming_day,
                table_id: event.table_id,
            },
        );
        SealedEvent {
            chain: event.chain.to_owned(),
            seq,
            at,
            actor_user_id,
            actor_name: event.actor.name.clone(),
            action: event.action.as_str().to_owned(),
            target: event.target,
            details,
            client_addr: event.actor.client_addr.clone(),
            gaming_day: event.gaming_day,
            table_id: event.table_id,
            prev_hash: head.last_hash,
            hash,
        }
    }

    /// The same event, at the same place on its chain, as having happened at `at` instead:
    /// sealed again, since the time is part of what the hash covers.
    pub fn moved_to(mut self, at: DateTime<Utc>) -> Self {
        self.at = at.trunc_subsecs(6);
        self.hash = event_hash(
            &self.prev_hash,
            &HashedFields {
                chain: &self.chain,
                seq: self.seq,
                at: self.at,
                actor_user_id: self.actor_user_id,
                actor_name: &self.actor_name,
                action: &self.action,
                target: &self.target,
                details: Details::Canonical(self.details.as_str()),
                client_addr: self.client_addr.as_deref(),
                gaming_day: self.gaming_day,
                table_id: self.table_id,
            },
        );
        self
    }

    /// The chain's head once this event is appended.
    pub fn head_after(&self) -> ChainHead {
        ChainHead {
            last_seq: self.seq,
            last_hash: self.hash.to_vec(),
        }
    }

    /// Binds `$1` to `$13` as `sealed_event_ctes!` and `chain_head_unmoved!` expect them.
    pub fn bind<'q>(&'q self, sql: Sql<'q>) -> Sql<'q> {
        sql.bind::<Text, _>(self.chain.as_str())
            .bind::<BigInt, _>(self.seq)
            .bind::<Timestamptz, _>(self.at)
            .bind::<Nullable<BigInt>, _>(self.actor_user_id)
            .bind::<Text, _>(self.actor_name.as_str())
            .bind::<Text, _>(self.action.as_str())
            .bind::<Text, _>(self.target.as_str())
            .bind::<Json, _>(&self.details)
            .bind::<Nullable<Text>, _>(self.client_addr.as_deref())
            .bind::<Nullable<Date>, _>(self.gaming_day)
            .bind::<Nullable<BigInt>, _>(self.table_id)
            .bind::<Bytea, _>(self.prev_hash.as_slice())
            .bind::<Bytea, _>(self.hash.as_slice())
    }
}

/// A CTE `head` that locks the chain's head row (`$1`) once the statement's other locks are
/// held (the CTE `ready`, which must have a row), and has a row only if the chain is still
/// where the event was sealed (its last event is number `$2 - 1` with hash `$12`: after a
/// failover that lost the last events, a number comes again with another hash). After waiting
/// for a lock PostgreSQL re-checks the condition on the row as it is now.
macro_rules! chain_head_unmoved {
    () => {
        "head AS ( \
            SELECT 1 FROM audit_chain_heads, ready \
            WHERE chain = $1 AND last_seq = $2 - 1 AND last_hash = $12 \
            FOR UPDATE OF audit_chain_heads \
        )"
    };
}
pub(crate) use chain_head_unmoved;

/// CTEs that insert the sealed event (`$1` to `$13`) and move its chain's head, if the CTE
/// `go` has a row (the statement's condition that everything it writes goes ahead).
macro_rules! sealed_event_ctes {
    () => {
        concat!(
            "event AS (INSERT INTO audit_events (",
            $crate::db::audit_log::audit_event_columns!(),
            ") SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 FROM go \
            ), moved AS ( \
                UPDATE audit_chain_heads SET last_seq = $2, last_hash = $13 \
                WHERE chain = $1 AND EXISTS (SELECT 1 FROM go) \
            )"
        )
    };
}
pub(crate) use sealed_event_ctes;

/// Inserts sealed events, one per row of the arrays `$1` to `$13` (the columns of
/// [`audit_event_columns!`], in order, bound by [`bind_sealed`]).
macro_rules! insert_sealed {
    () => {
        concat!(
            "INSERT INTO audit_events (",
            audit_event_columns!(),
            ") SELECT * FROM unnest($1::text[], $2::int8[], $3::timestamptz[], $4::int8[], \
                $5::text[], $6::text[], $7::text[], $8::json[], $9::text[], $10::date[], \
                $11::int8[], $12::bytea[], $13::bytea[])"
        )
    };
}
const INSERT_SEALED: &str = insert_sealed!();

/// Binds `$1` to `$13` of [`insert_sealed!`]: one array per column, one element per event.
fn bind_sealed<'q>(sql: Sql<'q>, events: &'q [SealedEvent]) -> Sql<'q> {
    use diesel::sql_types::Array;
    sql.bind::<Array<Text>, _>(column(events, |e| e.chain.as_str()))
        .bind::<Array<BigInt>, _>(column(events, |e| e.seq))
        .bind::<Array<Timestamptz>, _>(column::<_, DateTime<Utc>>(events, |e| e.at))
        .bind::<Array<Nullable<BigInt>>, _>(column(events, |e| e.actor_user_id))
        .bind::<Array<Text>, _>(column(events, |e| e.actor_name.as_str()))
        .bind::<Array<Text>, _>(column(events, |e| e.action.as_str()))
        .bind::<Array<Text>, _>(column(events, |e| e.target.as_str()))
        .bind::<Array<Json>, _>(column(events, |e| &e.details))
        .bind::<Array<Nullable<Text>>, _>(column(events, |e| e.client_addr.as_deref()))
        .bind::<Array<Nullable<Date>>, _>(column(events, |e| e.gaming_day))
        .bind::<Array<Nullable<BigInt>>, _>(column(events, |e| e.table_id))
        .bind::<Array<Bytea>, _>(column(events, |e| e.prev_hash.as_slice()))
        .bind::<Array<Bytea>, _>(column(events, |e| e.hash.as_slice()))
}

/// Locks the chain's head row (creating it on the chain's first event) until the transaction
/// ends, and returns it: for a caller that seals several events of the chain itself and appends
/// them with [`append_sealed`].
pub fn lock_chain(conn: &mut PgConnection, chain: &str) -> QueryResult<ChainHead> {
    lock_head(conn, chain)
}

/// Appends `events`, sealed one after another on `chain` after its head `head` (which this
/// transaction has locked with [`lock_chain`]), in one statement, and moves the head to the
/// last. Refuses (`NotFound`, writing nothing once the caller's transaction rolls back) events
/// that are not that chain's next ones in order.
pub fn append_sealed(
    conn: &mut PgConnection,
    chain: &str,
    head: &ChainHead,
    events: &[SealedEvent],
) -> QueryResult<()> {
    let Some(last) = events.last() else {
        return Ok(());
    };
    let mut before = head.clone();
    for event in events {
        if event.chain != chain
            || event.seq != before.last_seq + 1
            || event.prev_hash != before.last_hash
        {
            return Err(diesel::result::Error::NotFound);
        }
        before = event.head_after();
    }
    bind_sealed(Sql::new(INSERT_SEALED), events).execute(conn)?;
    let moved = diesel::update(
        audit_chain_heads::table
            .filter(audit_chain_heads::chain.eq(chain))
            .filter(audit_chain_heads::last_seq.eq(head.last_seq)),
    )
    .set((
        audit_chain_heads::last_seq.eq(last.seq),
        audit_chain_heads::last_hash.eq(last.hash.as_slice()),
    ))
    .execute(conn)?;
    if moved == 1 {
        Ok(())
    } else {
        Err(diesel::result::Error::NotFound)
    }
}

/// Locks the heads of the chains `$1` (an array) in the array's order, and reads them.
const LOCK_HEADS: &str = "SELECT chain, last_seq, last_hash FROM audit_chain_heads \
    WHERE chain = ANY($1) ORDER BY array_position($1, chain) FOR UPDATE";

/// Inserts sealed events (`$1` to `$13`, [`insert_sealed!`]) and moves each of their chains'
/// heads (`$14` chain, `$15` its last number as locked, `$16` and `$17` its new last number and
/// hash); answers how many heads moved.
const APPEND_ALL: &str = concat!(
    "WITH event AS (",
    insert_sealed!(),
    "), moved AS ( \
        UPDATE audit_chain_heads h SET last_seq = m.seq, last_hash = m.hash \
        FROM unnest($14::text[], $15::int8[], $16::int8[], $17::bytea[]) AS m(chain, was, seq, hash) \
        WHERE h.chain = m.chain AND h.last_seq = m.was \
        RETURNING 1 \
    ) SELECT count(*) AS n FROM moved"
);

#[derive(QueryableByName)]
struct HeadRow {
    #[diesel(sql_type = Text)]
    chain: String,
    #[diesel(sql_type = BigInt)]
    last_seq: i64,
    #[diesel(sql_type = Bytea)]
    last_hash: Vec<u8>,
}

#[derive(QueryableByName)]
struct Moved {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn lock_heads(conn: &mut PgConnection, chains: &[&str]) -> QueryResult<Vec<HeadRow>> {
    use diesel::sql_types::Array;
    Sql::new(LOCK_HEADS)
        .bind::<Array<Text>, _>(chains)
        .load(conn)
}

/// Appends `events` in their order, each to its own chain, as [`append`] would one after
/// another, in two statements: one locks the heads of their chains (in the order the events
/// first name them, which is the order appending them one by one takes the locks in), the
/// other inserts every event and moves every head. Call it inside the transaction that makes
/// the change they record (called outside one, it opens its own).
pub fn append_all(conn: &mut PgConnection, events: &[NewAuditEvent<'_>]) -> QueryResult<()> {
    use diesel::connection::TransactionManager;
    if events.is_empty() {
        return Ok(());
    }
    let in_transaction =
        <PgConnection as Connection>::TransactionManager::transaction_manager_status_mut(conn)
            .transaction_depth()?
            .is_some();
    if in_transaction {
        append_all_locked(conn, events)
    } else {
        conn.transaction(|conn| append_all_locked(conn, events))
    }
}

fn append_all_locked(conn: &mut PgConnection, events: &[NewAuditEvent<'_>]) -> QueryResult<()> {
    use diesel::sql_types::Array;
    let mut chains: Vec<&str> = Vec::new();
    for event in events {
        if !chains.contains(&event.chain) {
            chains.push(event.chain);
        }
    }
    let mut locked = lock_heads(conn, &chains)?;
    if locked.len() < chains.len() {
        // A chain's first event: its head is made, then every head is locked again in order.
        for chain in &chains {
            if !locked.iter().any(|head| head.chain == *chain) {
                create_head(conn, chain)?;
            }
        }
        locked = lock_heads(conn, &chains)?;
    }
    let mut heads = Vec::with_capacity(chains.len());
    for chain in &chains {
        let head = locked
            .iter()
            .find(|head| head.chain == *chain)
            .ok_or(diesel::result::Error::NotFound)?;
        heads.push(ChainHead {
            last_seq: head.last_seq,
            last_hash: head.last_hash.clone(),
        });
    }
    let was: Vec<i64> = heads.iter().map(|head| head.last_seq).collect();
    let mut sealed = Vec::with_capacity(events.len());
    for event in events {
        let at = chains
            .iter()
            .position(|chain| *chain == event.chain)
            .ok_or(diesel::result::Error::NotFound)?;
        let next = SealedEvent::after(heads[at].clone(), event.clone());
        heads[at] = next.head_after();
        sealed.push(next);
    }
    let moved: Moved = bind_sealed(Sql::new(APPEND_ALL), &sealed)
        .bind::<Array<Text>, _>(&chains)
        .bind::<Array<BigInt>, _>(was)
        .bind::<Array<BigInt>, _>(column(&heads, |head| head.last_seq))
        .bind::<Array<Bytea>, _>(column(&heads, |head| head.last_hash.as_slice()))
        .get_result(conn)?;
    if usize::try_from(moved.n).ok() == Some(chains.len()) {
        Ok(())
    } else {
        Err(diesel::result::Error::NotFound)
    }
}

/// Appends an event to a chain whose head this transaction has locked.
const APPEND_LOCKED: &str = concat!("WITH go AS (SELECT 1), ", sealed_event_ctes!(), " SELECT 1");

fn append_locked(conn: &mut PgConnection, event: &NewAuditEvent<'_>) -> QueryResult<i64> {
    let head = lock_head(conn, event.chain)?;
    let sealed = SealedEvent::after(head, event.clone());
    sealed.bind(Sql::new(APPEND_LOCKED)).execute(conn)?;
    Ok(sealed.seq)
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

/// The hash `event` must have if it follows an event whose hash is `prev_hash` (the stored
/// `prev_hash` of `event` is not read: callers compare it with what they saw before). Pure, so
/// that an export can be checked without the database.
pub fn expected_hash(prev_hash: &[u8], event: &AuditEvent) -> [u8; 32] {
    event_hash(prev_hash, &HashedFields::of(event))
}

/// A `jsonb` column (a round's places) read as the text PostgreSQL sends, without parsing it
/// (its binary form is a version byte and that text).
#[derive(Debug, Clone, PartialEq, Eq, diesel::deserialize::FromSqlRow)]
pub struct JsonText(pub String);

impl diesel::deserialize::FromSql<Jsonb, Pg> for JsonText {
    fn from_sql(value: diesel::pg::PgValue<'_>) -> diesel::deserialize::Result<Self> {
        match value.as_bytes().split_first() {
            Some((1, text)) => Ok(JsonText(std::str::from_utf8(text)?.to_owned())),
            _ => Err("jsonb in an unknown binary format".into()),
        }
    }
}

/// An event's details in the canonical form its hash covers (`canonical_json`: keys sorted, no
/// white space), which is also the text stored: a `json` column keeps the text it is given, so
/// what a check reads back is what was hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalJson(String);

impl CanonicalJson {
    pub fn of(value: &Value) -> CanonicalJson {
        let mut text = String::new();
        write_canonical(value, &mut text);
        CanonicalJson(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl diesel::serialize::ToSql<Json, Pg> for CanonicalJson {
    fn to_sql<'b>(
        &'b self,
        out: &mut diesel::serialize::Output<'b, '_, Pg>,
    ) -> diesel::serialize::Result {
        use std::io::Write as _;
        out.write_all(self.0.as_bytes())?;
        Ok(diesel::serialize::IsNull::No)
    }
}

impl From<JsonText> for String {
    fn from(text: JsonText) -> String {
        text.0
    }
}

/// What a chain's check reads of each event, whichever way it was loaded.
pub trait ChainedEvent {
    fn id(&self) -> i64;
    fn seq(&self) -> i64;
    fn prev_hash(&self) -> &[u8];
    fn hash(&self) -> &[u8];
    /// The hash the event must have after one whose hash is `prev_hash` (none matches when
    /// its details are not JSON), written through `buffers`.
    fn expected_hash(&self, prev_hash: &[u8], buffers: &mut HashBuffers) -> [u8; 32];
}

impl ChainedEvent for AuditEvent {
    fn id(&self) -> i64 {
        self.id
    }
    fn seq(&self) -> i64 {
        self.seq
    }
    fn prev_hash(&self) -> &[u8] {
        &self.prev_hash
    }
    fn hash(&self) -> &[u8] {
        &self.hash
    }
    fn expected_hash(&self, prev_hash: &[u8], buffers: &mut HashBuffers) -> [u8; 32] {
        buffers
            .hash(prev_hash, &HashedFields::of(self))
            .unwrap_or([0; 32])
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
        .filter(audit_events::actor_user_id.eq(user))
        .order(audit_events::id.desc())
        .limit(limit)
        .select(AuditEvent::as_select())
        .load(conn)
}

/// The event fields covered by the hash.
#[derive(Clone, Copy)]
pub struct HashedFields<'a> {
    pub chain: &'a str,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub actor_user_id: Option<UserId>,
    pub actor_name: &'a str,
    pub action: &'a str,
    pub target: &'a str,
    pub details: Details<'a>,
    pub client_addr: Option<&'a str>,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<TableId>,
}

impl<'a> HashedFields<'a> {
    fn of(event: &'a AuditEvent) -> Self {
        hashed_fields!(event, Details::Value(&event.details))
    }
}

/// An event's details: a value, JSON text in any form, or text already in the canonical form
/// (hashed as it is).
#[derive(Clone, Copy)]
pub enum Details<'a> {
    Value(&'a Value),
    Text(&'a str),
    Canonical(&'a str),
}

fn event_hash(prev_hash: &[u8], fields: &HashedFields<'_>) -> [u8; 32] {
    HashBuffers::default()
        .hash(prev_hash, fields)
        .unwrap_or([0; 32])
}

/// What hashing an event writes into, reusable from one event to the next so that checking a
/// long chain allocates nothing per event.
#[derive(Debug, Default)]
pub struct HashBuffers {
    text: String,
    json: canonical_json::Buffers,
}

impl HashBuffers {
    /// `sha256(prev_hash || canonical(fields))`, or where the details stop being JSON.
    pub fn hash(
        &mut self,
        prev_hash: &[u8],
        fields: &HashedFields<'_>,
    ) -> Result<[u8; 32], NotJson> {
        self.text.clear();
        canonical_into(fields, &mut self.json, &mut self.text)?;
        Ok(hash_after(prev_hash, &self.text))
    }

    /// Appends the canonical form of `fields` to `out`: the text an event's hash covers after
    /// its `prev_hash` (`sha256(prev_hash || text)`).
    pub fn canonical(
        &mut self,
        fields: &HashedFields<'_>,
        out: &mut String,
    ) -> Result<(), NotJson> {
        canonical_into(fields, &mut self.json, out)
    }

    /// Whether details given as text are stored as they were hashed: hashed as they are, they
    /// give `stored`, the event's stored hash, so the text is the canonical form that was hashed
    /// (SHA-256 has no known collisions). True of every event stored since details are kept as
    /// hashed; false of details stored as `jsonb` text before that, or changed since.
    fn stored_as_hashed(
        &mut self,
        prev_hash: &[u8],
        fields: &HashedFields<'_>,
        stored: &[u8],
    ) -> bool {
        let Details::Text(text) = fields.details else {
            return false;
        };
        let as_stored = HashedFields {
            details: Details::Canonical(text),
            ..*fields
        };
        self.hash(prev_hash, &as_stored)
            .is_ok_and(|hash| hash.as_slice() == stored)
    }

    /// The hash of `fields` after `prev_hash`, for an event stored with the hash `stored`:
    /// `stored` itself when the details are [`stored_as_hashed`](Self::stored_as_hashed) (the
    /// canonical writer is spared), else the hash of their canonical form.
    pub fn hash_against(
        &mut self,
        prev_hash: &[u8],
        fields: &HashedFields<'_>,
        stored: &[u8],
    ) -> Result<[u8; 32], NotJson> {
        if self.stored_as_hashed(prev_hash, fields, stored) {
            if let Ok(hash) = <[u8; 32]>::try_from(stored) {
                return Ok(hash);
            }
        }
        self.hash(prev_hash, fields)
    }
}

fn hash_after(prev_hash: &[u8], canonical: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(prev_hash);
    hasher.update(canonical.as_bytes());
    hasher.finalize().into()
}

/// A JSON array of the fields in a fixed order, with object keys sorted, so the bytes do not
/// depend on how PostgreSQL's `jsonb` or serde orders keys. Version 1 of the format.
#[cfg(test)]
fn canonical(fields: &HashedFields<'_>) -> Result<String, NotJson> {
    let mut out = String::new();
    canonical_into(fields, &mut canonical_json::Buffers::default(), &mut out)?;
    Ok(out)
}

/// Appends the canonical form of `fields` (see `canonical`) to `out`, each field written as
/// serde_json writes it (the unit test `the_hashed_form_of_an_event_is_fixed` pins the bytes).
fn canonical_into(
    fields: &HashedFields<'_>,
    json: &mut canonical_json::Buffers,
    out: &mut String,
) -> Result<(), NotJson> {
    use std::fmt::Write as _;
    fn int(n: Option<i64>, out: &mut String) {
        match n {
            // Writing to a String cannot fail.
            Some(n) => {
                let _ = write!(out, "{n}");
            }
            None => out.push_str("null"),
        }
    }
    fn text(t: Option<&str>, out: &mut String) {
        match t {
            Some(t) => write_json_string(t, out),
            None => out.push_str("null"),
        }
    }
    out.push_str("[1,");
    text(Some(fields.chain), out);
    out.push(',');
    int(Some(fields.seq), out);
    out.push(',');
    out.push('"');
    write_utc(fields.at, out);
    out.push_str("\",");
    int(fields.actor_user_id.map(|id| id.0), out);
    out.push(',');
    text(Some(fields.actor_name), out);
    out.push(',');
    text(Some(fields.action), out);
    out.push(',');
    text(Some(fields.target), out);
    out.push(',');
    // The details (a settled round's are about 1.5 KB) go eighth, written in place, not copied.
    match fields.details {
        Details::Value(value) => write_canonical(value, out),
        Details::Text(details) => json.write_text(details, out)?,
        Details::Canonical(details) => out.push_str(details),
    }
    out.push(',');
    text(fields.client_addr, out);
    out.push(',');
    match fields.gaming_day {
        Some(day) => {
            out.push('"');
            write_date(day, out);
            out.push('"');
        }
        None => out.push_str("null"),
    }
    out.push(',');
    int(fields.table_id.map(|id| id.0), out);
    out.push(']');
    Ok(())
}

/// `at` as `to_rfc3339_opts(SecondsFormat::Micros, true)` writes it, without building a string
/// (a test compares the two).
pub(crate) fn write_utc(at: DateTime<Utc>, out: &mut String) {
    use chrono::{Datelike, Timelike};
    let year = at.year();
    let nanos = at.nanosecond();
    if !(0..=9999).contains(&year) || nanos >= 1_000_000_000 {
        // Far years and leap seconds: chrono's own way.
        out.push_str(&at.to_rfc3339_opts(SecondsFormat::Micros, true));
        return;
    }
    write_date(at.date_naive(), out);
    out.push('T');
    write_time_of_day(&at, out);
    out.push('Z');
}

/// `HH:MM:SS.ffffff`: a time of day to the microsecond (truncated), for a time whose
/// nanoseconds are under a second (no leap second).
pub(crate) fn write_time_of_day(at: &impl chrono::Timelike, out: &mut String) {
    push_digits(at.hour(), 2, out);
    out.push(':');
    push_digits(at.minute(), 2, out);
    out.push(':');
    push_digits(at.second(), 2, out);
    out.push('.');
    push_digits(at.nanosecond() / 1000, 6, out);
}

/// `n` in decimal, zero-padded to `width` digits (`n` has at most `width` digits).
pub(crate) fn push_digits(n: u32, width: u32, out: &mut String) {
    let mut scale = 10_u32.pow(width - 1);
    while scale > 0 {
        out.push(char::from(b'0' + u8::try_from(n / scale % 10).unwrap_or(0)));
        scale /= 10;
    }
}

/// `day` as `format("%Y-%m-%d")` writes it (a test compares the two).
pub(crate) fn write_date(day: NaiveDate, out: &mut String) {
    use chrono::Datelike;
    match u32::try_from(day.year()) {
        Ok(year) if year <= 9999 => {
            push_digits(year, 4, out);
            out.push('-');
            push_digits(day.month(), 2, out);
            out.push('-');
            push_digits(day.day(), 2, out);
        }
        _ => out.push_str(&day.format("%Y-%m-%d").to_string()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::db::canonical_json::write_json_string;

    /// Version 1 of the hashed form, byte for byte: chains already written must still verify.
    #[test]
    fn the_hashed_form_of_an_event_is_fixed() {
        let details = serde_json::json!({"b": [true, null], "a": "x\"y"});
        let fields = HashedFields {
            chain: "table:3",
            seq: 5,
            at: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
                + chrono::Duration::microseconds(123_456),
            actor_user_id: Some(UserId(7)),
            actor_name: "ann",
            action: "round.settled",
            target: "round:9",
            details: Details::Value(&details),
            client_addr: None,
            gaming_day: NaiveDate::from_ymd_opt(2026, 1, 1),
            table_id: Some(TableId(3)),
        };
        assert_eq!(
            canonical(&fields).unwrap(),
            r#"[1,"table:3",5,"2026-01-02T03:04:05.123456Z",7,"ann","round.settled","round:9",{"a":"x\"y","b":[true,null]},null,"2026-01-01",3]"#
        );
        assert_eq!(
            hex::encode(event_hash(&GENESIS_HASH, &fields)),
            hex::encode(Sha256::digest(
                [
                    GENESIS_HASH.as_slice(),
                    canonical(&fields).unwrap().as_bytes()
                ]
                .concat()
            ))
        );
    }

    #[test]
    fn times_and_days_are_written_as_chrono_writes_them() {
        let times = [
            Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
            Utc.with_ymd_and_hms(2026, 12, 31, 23, 59, 59).unwrap()
                + chrono::Duration::microseconds(999_999),
            Utc.with_ymd_and_hms(1, 1, 1, 0, 0, 0).unwrap() + chrono::Duration::microseconds(7),
            Utc.with_ymd_and_hms(9999, 6, 30, 12, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(-5, 3, 1, 0, 0, 0).unwrap(),
        ];
        for at in times {
            let mut ours = String::new();
            write_utc(at, &mut ours);
            assert_eq!(ours, at.to_rfc3339_opts(SecondsFormat::Micros, true));
            let day = at.date_naive();
            let mut ours = String::new();
            write_date(day, &mut ours);
            assert_eq!(ours, day.format("%Y-%m-%d").to_string());
        }
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut samples: Vec<String> = (0_u32..0x80)
            .filter_map(char::from_u32)
            .map(String::from)
            .collect();
        samples.extend(
            [
                "",
                "plain",
                "a\"b\\c",
                "\u{7f}\u{80}é\u{2028}🂡",
                "\u{1}x\u{1f}",
            ]
            .map(String::from),
        );
        for text in samples {
            let mut ours = String::new();
            write_json_string(&text, &mut ours);
            assert_eq!(ours, serde_json::to_string(&text).unwrap(), "{text:?}");
        }
    }

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
