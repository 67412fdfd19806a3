//! Whole rounds written many tables at a time: one statement and one commit for the rounds that
//! arrive together, instead of one each.
//!
//! A whole round at a table this process wrote the last round of is made from what it remembers
//! ([`rounds::record_remembered`](crate::db::rounds::record_remembered)) and handed to the
//! [`RoundWriter`]. Its threads take every round waiting (one per table) and write them in one
//! statement, [`WRITE_WHOLE_ROUNDS`], which checks each round against the database under lock
//! and writes the ones still good: a round whose table moved, or whose caller's API token was
//! revoked, since it was made is left out and its caller records it the long way, reading
//! first. Each round still commits whole and durably before its caller hears of it; rounds of
//! different tables share a commit, never a lock, and one table's rounds are never in two
//! batches at once.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bytea, Date, Integer, Jsonb, Nullable, Text, Timestamptz};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::db::audit_log::SealedEvent;
use crate::db::prepared::Sql;
use crate::db::rounds::{PlaceRow, RoundRow, SettledRound, TableMemos};
use crate::db::users::Role;
use crate::db::PgPool;

/// An API token the request came with that was not checked on this request: the write checks
/// it is still good and still its writer's, with the writer's role.
#[derive(Debug, Clone)]
pub struct TokenToCheck {
    pub hash: Vec<u8>,
    pub role: Role,
}

/// A whole round ready to write: its row, its places and its sealed `round.settled` event, with
/// the table's settings it was validated under (currency in `round`, the bet limits and the
/// rule profile) and the caller's token to check, if any.
#[derive(Debug, Clone)]
pub struct RoundWrite {
    pub round: RoundRow,
    pub places: Vec<PlaceRow>,
    pub places_json: String,
    pub event: SealedEvent,
    pub min_bet: i64,
    pub max_bet: i64,
    pub rule_profile_id: i64,
    pub token: Option<TokenToCheck>,
}

impl RoundWrite {
    pub fn settled(&self) -> SettledRound {
        SettledRound {
            round: self.round.clone(),
            places: self.places.clone(),
        }
    }
}

/// Writes whole rounds, one row per round of `$1`..`$27` (arrays of equal length, one per
/// column). A round is written only if, under lock, its shift is still open (the shift is
/// locked, so a sign-off or other change to it in progress is waited for), its table still has
/// the currency, limits and rule profile it was validated under and no newer profile version,
/// its key is used by no draft and no round, the caller's token (if one is to be checked) is
/// still good and its account still has the role, and its table's audit chain is still where
/// its event was sealed. An unmoved chain also means the round number is still the next one:
/// every round moves its table's chain. Each table's shift is locked before its chain head, as
/// every other writer takes them (shifts in order of table id; no two batches being written have
/// a table in common). Returns the ids of the rounds written.
///
/// Columns: event `$1` chain, `$2` seq, `$3` at (also the round's settled_at), `$4` actor id,
/// `$5` actor name, `$6` action, `$7` target, `$8` details, `$9` client address, `$10` gaming
/// day and `$11` table (also the round's), `$12` previous hash, `$13` hash; round `$14` id,
/// `$15` number, `$16` key, `$17` shift, `$18` dealer, `$19` profile version, `$20` currency,
/// `$21` dealer's result, `$22` places; checks `$23` and `$24` the bet limits, `$25` the rule
/// profile, `$26` the token's hash (null: nothing to check) and `$27` the writer's role.
pub const WRITE_WHOLE_ROUNDS: &str = "\
    WITH i AS ( \
        SELECT * FROM unnest($1::text[], $2::int8[], $3::timestamptz[], $4::int8[], $5::text[], \
            $6::text[], $7::text[], $8::jsonb[], $9::text[], $10::date[], $11::int8[], \
            $12::bytea[], $13::bytea[], $14::int8[], $15::int4[], $16::text[], $17::int8[], \
            $18::int8[], $19::int8[], $20::text[], $21::int8[], $22::jsonb[], $23::int8[], \
            $24::int8[], $25::int8[], $26::bytea[], $27::text[]) \
        AS i(chain, seq, at, actor_user_id, actor_name, action, target, details, client_addr, \
             gaming_day, table_id, prev_hash, hash, round_id, round_no, draft_key, shift_id, \
             dealer_id, profile_version_id, currency, dealer_result, places, min_bet, max_bet, \
             rule_profile_id, token_hash, writer_role) \
    ), ready AS ( \
        SELECT i.* FROM i \
        JOIN dealer_shifts s ON s.id = i.shift_id AND s.signed_off_at IS NULL \
        JOIN gaming_tables t ON t.id = i.table_id AND t.currency = i.currency \
            AND t.min_bet = i.min_bet AND t.max_bet = i.max_bet \
            AND t.rule_profile_id = i.rule_profile_id \
        WHERE NOT EXISTS (SELECT 1 FROM rule_profile_versions v \
                          WHERE v.profile_id = t.rule_profile_id AND v.id > i.profile_version_id) \
          AND NOT EXISTS (SELECT 1 FROM round_drafts d WHERE d.draft_key = i.draft_key) \
          AND NOT EXISTS (SELECT 1 FROM rounds r WHERE r.draft_key = i.draft_key) \
          AND (i.token_hash IS NULL OR EXISTS ( \
              SELECT 1 FROM api_tokens k JOIN users u ON u.id = k.user_id \
              WHERE k.token_hash = i.token_hash AND k.revoked_at IS NULL \
                AND u.disabled_at IS NULL AND u.id = i.actor_user_id AND u.role = i.writer_role)) \
        ORDER BY i.table_id \
        FOR NO KEY UPDATE OF s \
    ), go AS ( \
        UPDATE audit_chain_heads h SET last_seq = r.seq, last_hash = r.hash \
        FROM ready r \
        WHERE h.chain = r.chain AND h.last_seq = r.seq - 1 \
        RETURNING r.* \
    ), settled AS ( \
        INSERT INTO rounds (id, table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
                            rule_profile_version_id, currency, dealer_result, settled_at, places) \
        SELECT round_id, table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
               profile_version_id, currency, dealer_result, at, places FROM go \
    ), event AS ( \
        INSERT INTO audit_events (chain, seq, at, actor_user_id, actor_name, action, target, \
                                  details, client_addr, gaming_day, table_id, prev_hash, hash) \
        SELECT chain, seq, at, actor_user_id, actor_name, action, target, details, client_addr, \
               gaming_day, table_id, prev_hash, hash FROM go \
    ) SELECT round_id AS id FROM go";

#[derive(QueryableByName)]
struct Written {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// Writes `rounds` (at most one per table) in one statement, a transaction of its own or part
/// of the caller's; returns the ids of those written (see [`WRITE_WHOLE_ROUNDS`]).
pub fn write_whole_rounds(conn: &mut PgConnection, rounds: &[RoundWrite]) -> QueryResult<Vec<i64>> {
    fn column<'r, T>(rounds: &'r [RoundWrite], of: impl Fn(&'r RoundWrite) -> T) -> Vec<T> {
        rounds.iter().map(of).collect()
    }
    let written: Vec<Written> = Sql::new(WRITE_WHOLE_ROUNDS)
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.chain.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.event.seq))
        .bind::<Array<Timestamptz>, _>(column::<DateTime<Utc>>(rounds, |r| r.event.at))
        .bind::<Array<Nullable<BigInt>>, _>(column(rounds, |r| r.event.actor_user_id))
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.actor_name.as_str()))
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.action.as_str()))
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.target.as_str()))
        .bind::<Array<Jsonb>, _>(column::<&Value>(rounds, |r| &r.event.details))
        .bind::<Array<Nullable<Text>>, _>(column(rounds, |r| r.event.client_addr.as_deref()))
        .bind::<Array<Date>, _>(column::<NaiveDate>(rounds, |r| r.round.gaming_day))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.table_id))
        .bind::<Array<Bytea>, _>(column(rounds, |r| r.event.prev_hash.as_slice()))
        .bind::<Array<Bytea>, _>(column(rounds, |r| r.event.hash.as_slice()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.id))
        .bind::<Array<Integer>, _>(column(rounds, |r| r.round.round_no))
        .bind::<Array<Text>, _>(column(rounds, |r| r.round.draft_key.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.shift_id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.dealer_id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.rule_profile_version_id))
        .bind::<Array<Text>, _>(column(rounds, |r| r.round.currency.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.dealer_result))
        .bind::<Array<Text>, _>(column(rounds, |r| r.places_json.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.min_bet))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.max_bet))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.rule_profile_id))
        .bind::<Array<Nullable<Bytea>>, _>(column(rounds, |r| {
            r.token.as_ref().map(|t| t.hash.as_slice())
        }))
        .bind::<Array<Text>, _>(column(rounds, |r| {
            r.token.as_ref().map_or("", |t| t.role.as_str())
        }))
        .load(conn)?;
    Ok(written.into_iter().map(|w| w.id).collect())
}

/// Threads that write whole rounds as they arrive, every round waiting in one statement.
/// Threads start when rounds arrive and end after a few idle seconds.
#[derive(Debug)]
pub struct RoundWriter {
    shared: Arc<Shared>,
    pool: PgPool,
    memos: Arc<TableMemos>,
    threads: usize,
}

#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct Queue {
    waiting: VecDeque<Job>,
    /// Tables with a round in a batch being written.
    writing: HashSet<i64>,
    threads: usize,
}

#[derive(Debug)]
struct Job {
    round: RoundWrite,
    done: oneshot::Sender<bool>,
}

/// Rounds written in one statement at most.
const MOST_AT_ONCE: usize = 64;

/// How long a writer thread waits for rounds before it ends.
const IDLE: Duration = Duration::from_secs(5);

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing is left half-changed while the lock is held; a panic elsewhere does not
        // make the queue unusable.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Queue {
    /// The rounds waiting whose tables are not being written, one per table, oldest first.
    fn take_batch(&mut self) -> Vec<Job> {
        let mut batch = Vec::new();
        let mut left = VecDeque::with_capacity(self.waiting.len());
        for job in self.waiting.drain(..) {
            let table = job.round.round.table_id;
            if batch.len() < MOST_AT_ONCE && self.writing.insert(table) {
                batch.push(job);
            } else {
                left.push_back(job);
            }
        }
        self.waiting = left;
        batch
    }
}

impl RoundWriter {
    /// A writer with up to `threads` threads, each using a connection from `pool` while it
    /// writes; after each batch it tops up `memos`' round ids.
    pub fn new(pool: PgPool, memos: Arc<TableMemos>, threads: usize) -> Self {
        RoundWriter {
            shared: Arc::default(),
            pool,
            memos,
            threads: threads.max(1),
        }
    }

    /// Writes `round` with the others waiting; whether it was written. It is not when
    /// something it was made from has moved (see [`WRITE_WHOLE_ROUNDS`]), or when the batch
    /// could not be written (the database is out of reach, or two rounds in it used one key):
    /// the caller then records it on its own, which says why if it fails again.
    pub async fn write(&self, round: RoundWrite) -> bool {
        let (done, answer) = oneshot::channel();
        {
            let mut queue = self.shared.lock();
            queue.waiting.push_back(Job { round, done });
            if queue.threads < self.threads {
                let (shared, pool, memos) =
                    (self.shared.clone(), self.pool.clone(), self.memos.clone());
                let started = std::thread::Builder::new()
                    .name("round-writer".to_owned())
                    .spawn(move || write_as_they_come(&shared, &pool, &memos));
                match started {
                    Ok(_) => queue.threads += 1,
                    Err(err) => tracing::error!(error = %err, "cannot start a round writer"),
                }
            }
        }
        self.shared.wake.notify_one();
        // A writer that ended without answering (it cannot: it answers every round it takes)
        // leaves the round unwritten; the caller then records it the long way.
        answer.await.unwrap_or(false)
    }
}

/// A writer thread: writes batches until none come for [`IDLE`].
fn write_as_they_come(shared: &Shared, pool: &PgPool, memos: &TableMemos) {
    while let Some(batch) = next_batch(shared) {
        let (rounds, answers): (Vec<RoundWrite>, Vec<_>) =
            batch.into_iter().map(|job| (job.round, job.done)).unzip();
        let write = || -> Result<Vec<i64>, String> {
            let mut conn = pool.get().map_err(|err| format!("no connection: {err}"))?;
            let written = write_whole_rounds(&mut conn, &rounds).map_err(|err| err.to_string())?;
            if let Err(err) = memos.top_up_round_ids(&mut conn) {
                tracing::warn!(error = %err, "cannot take round ids");
            }
            Ok(written)
        };
        // A panic is a failed batch too: the thread lets go of the batch's tables, answers its
        // callers and carries on.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write))
            .unwrap_or_else(|_| Err("the round writer panicked".to_owned()));
        {
            let mut queue = shared.lock();
            for round in &rounds {
                queue.writing.remove(&round.round.table_id);
            }
        }
        // Rounds of the tables just written may be waiting.
        shared.wake.notify_all();
        // The batch as a whole failed (a key sent twice at once, say): each round is then
        // recorded on its own, which finds out which.
        if let Err(err) = &outcome {
            tracing::warn!(error = %err, rounds = rounds.len(), "a batch of rounds failed");
        }
        for (round, done) in rounds.iter().zip(answers) {
            let written = outcome
                .as_ref()
                .is_ok_and(|written| written.contains(&round.round.id));
            // The caller may have gone; its round is written (or not) all the same.
            let _ = done.send(written);
        }
    }
}

/// The next batch to write; `None` when the thread has waited [`IDLE`] for one (it has then
/// counted itself out).
fn next_batch(shared: &Shared) -> Option<Vec<Job>> {
    let mut queue = shared.lock();
    loop {
        let batch = queue.take_batch();
        if !batch.is_empty() {
            return Some(batch);
        }
        let (relocked, waited) = shared
            .wake
            .wait_timeout(queue, IDLE)
            .unwrap_or_else(PoisonError::into_inner);
        queue = relocked;
        if waited.timed_out() && queue.waiting.is_empty() {
            queue.threads -= 1;
            return None;
        }
    }
}
