//! The round writer: threads that write whole rounds many tables at a time, one statement and
//! one commit for the rounds that arrive together, instead of one each.
//!
//! A whole round at a table this process wrote the last round of is made from what it remembers
//! ([`record_remembered`](crate::recording::whole::record_remembered)) and handed to the
//! [`RoundWriter`]. Its threads take every round waiting (one per table) and write them in one
//! statement ([`confirm::write_whole_rounds`]), which checks each round against the database
//! under lock and writes the ones still good: a round whose table moved, or whose caller's API
//! token was revoked, since it was made is left out and its caller records it the long way,
//! reading first. Each round still commits whole and durably before its caller hears of it;
//! rounds of different tables share a commit, never a lock, and one table's rounds are never in
//! two batches at once.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::db::ids::{RoundId, TableId};
use crate::db::rounds::confirm::{self, RoundWrite};
use crate::db::PgPool;
use crate::recording::memory::TableMemos;

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
    writing: HashSet<TableId>,
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
    /// something it was made from has moved (see [`confirm::write_whole_rounds`]), or when the batch
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
        let write = || -> Result<Vec<RoundId>, String> {
            let mut conn = pool.get().map_err(|err| format!("no connection: {err}"))?;
            let written = crate::db::with_generic_plans(&mut conn, |conn| {
                confirm::write_whole_rounds(conn, &rounds)
            })
            .map_err(|err| {
                crate::db::drop_if_cut(&mut conn, &err);
                err.to_string()
            })?;
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
