//! Verifying the audit trail: every chain re-hashed from its first event (or from the first in
//! a time range), each link, sequence numbers without gaps, each chain's head; every day
//! seal, as stored in the database and as copied to the seal file, against the chains it names;
//! and every checkpoint of the chain heads in the seal file and its copy (which must agree).
//!
//! Chains are read row by row in keyset chunks on `(chain, seq)` ([`CHUNK`] events a query),
//! so memory stays flat however long a chain is. The checking itself ([`ChainChecker`]) holds no
//! connection: it is fed events and told the head at the end.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_copy::{self, CopyError};
use crate::db::audit_log::{AuditEvent, ChainHead, ChainedEvent, HashBuffers, GENESIS_HASH};
use crate::db::days::{self, DAY_CHAIN, DAY_CLOSED};
use crate::db::schema::{audit_chain_heads, audit_events};
use crate::db::seal_file::{self, Line, SealCopy, SealFileError, SealFiles, SealedHeads};
use crate::reports::recheck::RecordProblem;

/// Events read per query: a check that stops early (a broken chain, the end of a range) drops
/// the rest of its query's rows, which libpq still receives.
pub const CHUNK: i64 = 10_000;

/// Events checked between two reports of progress.
const TICK: u64 = 2_000;

/// What to verify: some chains or all, and optionally only the events in a time range.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The chains to check; empty means every chain.
    pub chains: Vec<String>,
    /// Check from the first event at or after this instant (trusting its link to the one
    /// before, which is outside the range).
    pub from: Option<DateTime<Utc>>,
    /// Check up to the last event before this instant (the chain's head is then not compared).
    pub to: Option<DateTime<Utc>>,
}

/// The first thing wrong on a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    pub seq: i64,
    /// The stored row at fault or found in the missing one's place (none past the chain's end).
    pub id: Option<i64>,
    pub what: String,
}

/// The verdict on one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainVerdict {
    pub chain: String,
    /// Events checked.
    pub rows: u64,
    /// The sequence number and hash of the last event that verified (none if none did).
    pub last: Option<(i64, Vec<u8>)>,
    pub bad: Option<BadRow>,
}

impl ChainVerdict {
    pub fn is_intact(&self) -> bool {
        self.bad.is_none()
    }

    /// One line: the chain, its events, its last hash, or its first bad row.
    pub fn line(&self) -> String {
        let last = match &self.last {
            Some((seq, hash)) => format!("last seq {seq} hash {}", hex::encode(hash)),
            None => "no events".to_owned(),
        };
        match &self.bad {
            None => format!("{}: ok, {} events, {last}", self.chain, self.rows),
            Some(bad) => format!(
                "{}: BROKEN at seq {} (id {}): {} ({} events verified before it)",
                self.chain,
                bad.seq,
                bad.id
                    .map_or_else(|| "none".to_owned(), |id| id.to_string()),
                bad.what,
                self.rows
            ),
        }
    }
}

/// What a check found wrong with a day seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealProblem {
    pub day: NaiveDate,
    pub what: String,
}

/// The whole verdict.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verification {
    pub chains: Vec<ChainVerdict>,
    /// How many day seals were checked (from the database and the seal file).
    pub seals_checked: usize,
    /// How many checkpoints were checked (from the seal file and its copy).
    pub checkpoints_checked: usize,
    pub seal_problems: Vec<SealProblem>,
    /// Stored rounds, voids and approvals that differ from the events that recorded them
    /// (checked when the whole trail is: [`crate::reports::recheck::records_against_events`]).
    pub record_problems: Vec<RecordProblem>,
}

impl Verification {
    pub fn is_intact(&self) -> bool {
        self.seal_problems.is_empty()
            && self.record_problems.is_empty()
            && self.chains.iter().all(ChainVerdict::is_intact)
    }

    pub fn events(&self) -> u64 {
        self.chains.iter().map(|c| c.rows).sum()
    }
}

/// The action of the event that records a verification's verdict (on the `system` chain).
pub const VERIFIED: AuditAction = AuditAction::AuditVerified;

/// A verdict as recorded in the trail: what the auditor's page shows of the last check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictRecord {
    pub intact: bool,
    pub events: u64,
    pub seals_checked: usize,
    /// Absent from verdicts recorded before checkpoints.
    #[serde(default)]
    pub checkpoints_checked: usize,
    pub seconds: f64,
    pub chains: Vec<ChainRecord>,
    pub seal_problems: Vec<SealProblemRecord>,
    /// Absent from verdicts recorded before records were compared with their events.
    #[serde(default)]
    pub record_problems: Vec<RecordProblem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainRecord {
    pub chain: String,
    pub rows: u64,
    pub last_seq: Option<i64>,
    pub last_hash: Option<String>,
    pub bad: Option<BadRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadRecord {
    pub seq: i64,
    pub id: Option<i64>,
    pub what: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealProblemRecord {
    pub day: NaiveDate,
    pub what: String,
}

impl Verification {
    /// The verdict as recorded, `seconds` the check took.
    pub fn record(&self, seconds: f64) -> VerdictRecord {
        VerdictRecord {
            intact: self.is_intact(),
            events: self.events(),
            seals_checked: self.seals_checked,
            checkpoints_checked: self.checkpoints_checked,
            seconds,
            chains: self
                .chains
                .iter()
                .map(|c| ChainRecord {
                    chain: c.chain.clone(),
                    rows: c.rows,
                    last_seq: c.last.as_ref().map(|(seq, _)| *seq),
                    last_hash: c.last.as_ref().map(|(_, hash)| hex::encode(hash)),
                    bad: c.bad.as_ref().map(|b| BadRecord {
                        seq: b.seq,
                        id: b.id,
                        what: b.what.clone(),
                    }),
                })
                .collect(),
            seal_problems: self
                .seal_problems
                .iter()
                .map(|p| SealProblemRecord {
                    day: p.day,
                    what: p.what.clone(),
                })
                .collect(),
            record_problems: self.record_problems.clone(),
        }
    }
}

/// Where a check stands, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    pub chains_done: usize,
    pub chains_total: usize,
    pub events_checked: u64,
    /// The events on every chain, as their heads say (a check of a range reads fewer).
    pub events_total: u64,
}

impl Progress {
    /// 0 to 100: by events when the heads give their number, else by chains done.
    pub fn percent(&self) -> u64 {
        let share = |done: u64, total: u64| (done.min(total) * 100).checked_div(total);
        share(self.events_checked, self.events_total)
            .or_else(|| share(self.chains_done as u64, self.chains_total as u64))
            .unwrap_or(0)
    }
}

/// Each chain's checkpoints, by chain.
type Checkpoints = BTreeMap<String, Vec<Checkpoint>>;

/// A hash that a day seal or a checkpoint says a chain's event has: checked when the chain
/// passes that event.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Checkpoint {
    seq: i64,
    hash: Vec<u8>,
    /// Which line says so, in words ("the seal of 2026-11-20 in the seal file"), shared by the
    /// heads of one line.
    source: Rc<str>,
}

/// A row whose hash does not match its content, waiting for the next row (or the head) to tell
/// whether its content or its hash was changed.
#[derive(Debug, Clone)]
struct Suspect {
    seq: i64,
    id: i64,
    recomputed: [u8; 32],
}

/// Checks one chain, event by event, in sequence order. Pure: no connection.
#[derive(Debug)]
pub struct ChainChecker {
    chain: String,
    /// Trust the first event's link (a range that does not start at the genesis).
    anchored_on_first: bool,
    next_seq: i64,
    prev_hash: Vec<u8>,
    rows: u64,
    last: Option<(i64, Vec<u8>)>,
    suspect: Option<Suspect>,
    bad: Option<BadRow>,
    /// Seal checkpoints on this chain, by sequence number.
    checkpoints: BTreeMap<i64, Vec<Checkpoint>>,
    buffers: HashBuffers,
}

impl ChainChecker {
    /// A check of `chain` from its genesis.
    pub fn new(chain: &str) -> Self {
        ChainChecker {
            chain: chain.to_owned(),
            anchored_on_first: false,
            next_seq: 1,
            prev_hash: GENESIS_HASH.to_vec(),
            rows: 0,
            last: None,
            suspect: None,
            bad: None,
            checkpoints: BTreeMap::new(),
            buffers: HashBuffers::default(),
        }
    }

    /// A check of `chain` from whatever event comes first, trusting its link.
    pub fn from_first_given(chain: &str) -> Self {
        ChainChecker {
            anchored_on_first: true,
            ..ChainChecker::new(chain)
        }
    }

    /// Expects the hashes `marks` name of the events after `after` (those before are not read).
    fn expect_after(&mut self, marks: &[Checkpoint], after: i64) {
        for mark in marks.iter().filter(|mark| mark.seq > after) {
            self.expect_at(mark.seq, mark.hash.clone(), mark.source.clone());
        }
    }

    fn expect_at(&mut self, seq: i64, hash: Vec<u8>, source: Rc<str>) {
        let marks = self.checkpoints.entry(seq).or_default();
        // Seals and checkpoints (from several app instances) repeat heads: one is enough.
        if !marks.iter().any(|mark| mark.hash == hash) {
            marks.push(Checkpoint { seq, hash, source });
        }
    }

    fn fail(&mut self, seq: i64, id: Option<i64>, what: impl Into<String>) {
        if self.bad.is_none() {
            self.bad = Some(BadRow {
                seq,
                id,
                what: what.into(),
            });
        }
    }

    /// Whether the chain is still worth reading (nothing found wrong yet).
    pub fn wants_more(&self) -> bool {
        self.bad.is_none()
    }

    /// The sequence number the next event should have.
    pub fn next_seq(&self) -> i64 {
        self.next_seq
    }

    /// Checks the next event of the chain.
    pub fn push(&mut self, event: &impl ChainedEvent) {
        if self.bad.is_some() {
            return;
        }
        if let Some(suspect) = self.suspect.take() {
            // A changed hash leaves the next link pointing at the hash the content still gives.
            let what = if event.prev_hash() == suspect.recomputed {
                "hash changed"
            } else {
                "content changed"
            };
            self.fail(suspect.seq, Some(suspect.id), what);
            return;
        }
        if self.anchored_on_first && self.rows == 0 {
            self.next_seq = event.seq();
            self.prev_hash = event.prev_hash().to_vec();
        }
        if event.seq() != self.next_seq {
            let what = if event.seq() > self.next_seq {
                if event.seq() == self.next_seq + 1 {
                    format!("seq {} missing", self.next_seq)
                } else {
                    format!("seq {} to {} missing", self.next_seq, event.seq() - 1)
                }
            } else {
                format!("seq {} out of order", event.seq())
            };
            self.fail(self.next_seq, Some(event.id()), what);
            return;
        }
        if event.prev_hash() != self.prev_hash {
            self.fail(event.seq(), Some(event.id()), "link broken");
            return;
        }
        let recomputed = event.expected_hash(&self.prev_hash, &mut self.buffers);
        if recomputed.as_slice() != event.hash() {
            self.suspect = Some(Suspect {
                seq: event.seq(),
                id: event.id(),
                recomputed,
            });
            return;
        }
        if let Some(expected) = self.checkpoints.remove(&event.seq()) {
            if let Some(differs) = expected.iter().find(|c| c.hash != event.hash()) {
                let what = format!("hash differs from {}", differs.source);
                self.fail(event.seq(), Some(event.id()), what);
                return;
            }
        }
        self.rows += 1;
        self.next_seq += 1;
        self.prev_hash.clear();
        self.prev_hash.extend_from_slice(event.hash());
        self.last = Some((event.seq(), event.hash().to_vec()));
    }

    /// The verdict, given the chain's head as stored (`None`: no head row), or `None` for the
    /// head when the check stopped at the end of a range (the head is then not compared).
    pub fn finish(mut self, head: Option<Option<ChainHead>>) -> ChainVerdict {
        if let Some(suspect) = self.suspect.take() {
            let head_hash = head.as_ref().and_then(|h| h.as_ref()).map(|h| &h.last_hash);
            let what = if head_hash.is_some_and(|h| h.as_slice() == suspect.recomputed) {
                "hash changed"
            } else {
                "content changed"
            };
            self.fail(suspect.seq, Some(suspect.id), what);
        }
        let last_seq = self.next_seq - 1;
        if self.bad.is_none() {
            if let Some(head) = head {
                match head {
                    None if self.rows > 0 => {
                        self.fail(last_seq, None, "the chain has no head row");
                    }
                    None => {}
                    Some(head) if head.last_seq > last_seq => {
                        let what = format!(
                            "seq {} missing (the chain's head is at seq {}: its tail is gone)",
                            last_seq + 1,
                            head.last_seq
                        );
                        self.fail(last_seq + 1, None, what);
                    }
                    Some(head) if head.last_seq < last_seq => {
                        let what = format!("events after the chain's head (seq {})", head.last_seq);
                        self.fail(head.last_seq + 1, None, what);
                    }
                    Some(head) if head.last_hash != self.prev_hash => {
                        self.fail(
                            last_seq,
                            None,
                            "the chain's head hash differs from its last event",
                        );
                    }
                    Some(_) => {}
                }
                if let Some((seq, expected)) = self.checkpoints.iter().next() {
                    let what = format!(
                        "seq {seq} missing (named by {}; the chain ends at seq {last_seq})",
                        expected[0].source
                    );
                    let seq = *seq;
                    self.fail(seq, None, what);
                }
            }
        }
        ChainVerdict {
            chain: self.chain,
            rows: self.rows,
            last: self.last,
            bad: self.bad,
        }
    }
}

/// Every chain that has events or a head, in name order (a skip scan of the `(chain, seq)`
/// index: one probe per chain, however many events).
const ALL_CHAINS: &str = "\
    WITH RECURSIVE c AS ( \
        SELECT min(chain) AS chain FROM audit_events \
        UNION ALL \
        SELECT (SELECT min(chain) FROM audit_events WHERE chain > c.chain) FROM c \
        WHERE c.chain IS NOT NULL \
    ) \
    SELECT chain AS name FROM c WHERE chain IS NOT NULL \
    UNION SELECT chain FROM audit_chain_heads ORDER BY 1";

/// Every chain's name.
pub fn chain_names(conn: &mut PgConnection) -> QueryResult<Vec<String>> {
    super::names(conn, ALL_CHAINS)
}

fn head_of(conn: &mut PgConnection, chain: &str) -> QueryResult<Option<ChainHead>> {
    let head: Option<(i64, Vec<u8>)> = audit_chain_heads::table
        .filter(audit_chain_heads::chain.eq(chain))
        .select((audit_chain_heads::last_seq, audit_chain_heads::last_hash))
        .first(conn)
        .optional()?;
    Ok(head.map(|(last_seq, last_hash)| ChainHead {
        last_seq,
        last_hash,
    }))
}

fn at_of(conn: &mut PgConnection, chain: &str, seq: i64) -> QueryResult<Option<DateTime<Utc>>> {
    audit_events::table
        .filter(audit_events::chain.eq(chain))
        .filter(audit_events::seq.eq(seq))
        .select(audit_events::at)
        .first(conn)
        .optional()
}

/// The sequence number before the first event of `chain` at or after `from`: a binary search on
/// sequence numbers (events are appended in time order, each under its chain's lock), one
/// indexed probe per step.
fn seq_before(conn: &mut PgConnection, chain: &str, from: DateTime<Utc>) -> QueryResult<i64> {
    let top: Option<i64> = audit_events::table
        .filter(audit_events::chain.eq(chain))
        .select(diesel::dsl::max(audit_events::seq))
        .first(conn)?;
    let (mut low, mut high) = (0_i64, top.unwrap_or(0));
    // Invariant: events up to `low` are before `from`; the event at `high` + 1 is not.
    while low < high {
        let mid = low + (high - low + 1) / 2;
        match at_of(conn, chain, mid)? {
            Some(at) if at < from => low = mid,
            Some(_) => high = mid - 1,
            // A missing event: look lower, the check will find the gap.
            None => high = mid - 1,
        }
    }
    Ok(low)
}

/// Checks one chain against its head (and `checkpoints`); `tick` every [`TICK`] events.
fn verify_one(
    conn: &mut PgConnection,
    chain: &str,
    scope: &Scope,
    checkpoints: &[Checkpoint],
    report: &mut Report<'_>,
) -> Result<ChainVerdict, VerifyError> {
    let (mut checker, mut after) = match scope.from {
        Some(from) => {
            let before = seq_before(conn, chain, from)?;
            let checker = if before == 0 {
                ChainChecker::new(chain)
            } else {
                ChainChecker::from_first_given(chain)
            };
            (checker, before)
        }
        None => (ChainChecker::new(chain), 0),
    };
    checker.expect_after(checkpoints, after);
    let mut ended_by_range = false;
    loop {
        let mut stopped = false;
        let read = audit_copy::each_after(conn, chain, after, CHUNK, &mut |event| {
            after = event.seq;
            if scope.to.is_some_and(|to| event.at >= to) {
                ended_by_range = true;
                stopped = true;
                return false;
            }
            checker.push(event);
            report.event();
            stopped = !checker.wants_more();
            !stopped
        })?;
        if stopped || read < CHUNK {
            break;
        }
    }
    Ok(finish_one(conn, chain, scope, checker, ended_by_range)?)
}

/// Checks every chain from its genesis in one pass over the trail in id order (each chain's
/// events come in sequence order: `audit_copy::each_by_id`), and returns each chain's checker
/// to be finished against its head. A chain with an event out of that order is left out, to
/// be checked on its own in sequence order, which names what is wrong with it as a check of
/// that chain alone does.
fn check_by_id(
    conn: &mut PgConnection,
    chains: &[String],
    checkpoints: &Checkpoints,
    report: &mut Report<'_>,
) -> Result<HashMap<String, ChainChecker>, VerifyError> {
    let mut checkers: HashMap<String, Option<ChainChecker>> = chains
        .iter()
        .map(|chain| {
            let mut checker = ChainChecker::new(chain);
            checker.expect_after(checkpoints.get(chain).map_or(&[], Vec::as_slice), 0);
            (chain.clone(), Some(checker))
        })
        .collect();
    audit_copy::each_by_id(conn, i64::MIN..=i64::MAX, &mut |event| {
        // A chain not named (none, in the snapshot the names were read in) is not checked.
        let Some(slot) = checkers.get_mut(event.chain) else {
            return true;
        };
        if let Some(checker) = slot {
            if !checker.wants_more() {
                // Found broken: the rest of its events change nothing.
            } else if event.seq != checker.next_seq() {
                *slot = None;
            } else {
                checker.push(event);
                report.event();
            }
        }
        true
    })?;
    report.flush();
    Ok(checkers
        .into_iter()
        .filter_map(|(chain, checker)| Some((chain, checker?)))
        .collect())
}

/// Tells `progress` how a check stands: every [`TICK`] events checked, and after each chain.
struct Report<'p> {
    state: Progress,
    /// Events checked since the last report.
    pending: u64,
    progress: &'p mut dyn FnMut(Progress),
}

impl Report<'_> {
    fn event(&mut self) {
        self.pending += 1;
        if self.pending == TICK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.state.events_checked += self.pending;
        self.pending = 0;
        (self.progress)(self.state);
    }

    fn chain_done(&mut self) {
        self.state.chains_done += 1;
        self.flush();
    }
}

fn finish_one(
    conn: &mut PgConnection,
    chain: &str,
    scope: &Scope,
    mut checker: ChainChecker,
    ended_by_range: bool,
) -> QueryResult<ChainVerdict> {
    if ended_by_range {
        // Sealed events past the range are not this check's business.
        checker.checkpoints.clear();
        return Ok(checker.finish(None));
    }
    let head = if scope.to.is_some() {
        None
    } else {
        Some(head_of(conn, chain)?)
    };
    if head.is_none() {
        checker.checkpoints.clear();
    }
    Ok(checker.finish(head))
}

/// A day seal as the database holds it: the close's row, and the `day.closed` event it names.
struct StoredSeal {
    day: NaiveDate,
    seal_seq: i64,
    seal_hash: Vec<u8>,
    event: Option<AuditEvent>,
}

fn stored_seals(conn: &mut PgConnection) -> QueryResult<Vec<StoredSeal>> {
    let closes = days::all_closes(conn)?;
    let mut seals = Vec::with_capacity(closes.len());
    for close in closes {
        let event = audit_events::table
            .filter(audit_events::chain.eq(DAY_CHAIN))
            .filter(audit_events::seq.eq(close.seal_seq))
            .select(AuditEvent::as_select())
            .first(conn)
            .optional()?;
        seals.push(StoredSeal {
            day: close.gaming_day,
            seal_seq: close.seal_seq,
            seal_hash: close.seal_hash,
            event,
        });
    }
    Ok(seals)
}

/// The checkpoints a set of sealed heads puts on the chains.
fn add_heads(
    into: &mut Checkpoints,
    heads: &SealedHeads,
    source: &Rc<str>,
    problems: &mut Vec<SealProblem>,
    day: NaiveDate,
) {
    for (chain, head) in heads {
        match hex::decode(&head.hash) {
            Ok(hash) => into.entry(chain.clone()).or_default().push(Checkpoint {
                seq: head.seq,
                hash,
                source: source.clone(),
            }),
            Err(_) => problems.push(SealProblem {
                day,
                what: format!("{source} names {chain} with a malformed hash"),
            }),
        }
    }
}

/// Compares the seals in the database with each other and with the seal file, and returns the
/// checkpoints they put on the chains.
fn check_seals(
    stored: &[StoredSeal],
    copies: &[SealCopy],
    problems: &mut Vec<SealProblem>,
) -> Checkpoints {
    let mut checkpoints = Checkpoints::new();
    for seal in stored {
        let source: Rc<str> = format!("the seal of {}", seal.day).into();
        let mut problem = |what: String| {
            problems.push(SealProblem {
                day: seal.day,
                what,
            });
        };
        // The close's row names the seal event: the day chain's own check covers that event's
        // content; this pins the event to the close.
        checkpoints
            .entry(DAY_CHAIN.to_owned())
            .or_default()
            .push(Checkpoint {
                seq: seal.seal_seq,
                hash: seal.seal_hash.clone(),
                source: format!("the close of {}", seal.day).into(),
            });
        let Some(event) = &seal.event else {
            problem(format!(
                "its seal event (day seq {}) is missing",
                seal.seal_seq
            ));
            continue;
        };
        if event.action != DAY_CLOSED
            || event.details.get("gaming_day").and_then(|d| d.as_str())
                != Some(seal.day.to_string().as_str())
        {
            problem(format!(
                "day seq {} is not the seal of this day ({} {})",
                seal.seal_seq, event.action, event.target
            ));
            continue;
        }
        match serde_json::from_value::<SealedHeads>(
            event.details.get("heads").cloned().unwrap_or_default(),
        ) {
            Ok(heads) => add_heads(&mut checkpoints, &heads, &source, problems, seal.day),
            Err(err) => problems.push(SealProblem {
                day: seal.day,
                what: format!("its seal event's heads cannot be read: {err}"),
            }),
        }
    }
    let mut copied = BTreeSet::new();
    for copy in copies {
        let day = copy.gaming_day;
        let source: Rc<str> = format!("the seal of {day} in the seal file").into();
        copied.insert(day);
        match stored.iter().find(|s| s.day == day) {
            None => problems.push(SealProblem {
                day,
                what: "the seal file has a seal for this day, the database has no close".to_owned(),
            }),
            Some(seal) if hex::encode(&seal.seal_hash) != copy.seal_hash => {
                problems.push(SealProblem {
                    day,
                    what: format!(
                        "the seal hash in the database ({}) differs from the seal file's ({})",
                        hex::encode(&seal.seal_hash),
                        copy.seal_hash
                    ),
                });
            }
            Some(_) => {}
        }
        if let Ok(hash) = hex::decode(&copy.seal_hash) {
            checkpoints
                .entry(DAY_CHAIN.to_owned())
                .or_default()
                .push(Checkpoint {
                    seq: copy.seal_seq,
                    hash,
                    source: source.clone(),
                });
        }
        add_heads(&mut checkpoints, &copy.heads, &source, problems, day);
    }
    if !copies.is_empty() || stored.is_empty() {
        for seal in stored.iter().filter(|s| !copied.contains(&s.day)) {
            problems.push(SealProblem {
                day: seal.day,
                what: "the seal is not in the seal file".to_owned(),
            });
        }
    } else {
        for seal in stored {
            problems.push(SealProblem {
                day: seal.day,
                what: "the seal file is missing or empty".to_owned(),
            });
        }
    }
    checkpoints
}

/// Adds the checkpoints of the seal files' checkpoint lines to `into` (and of the copy's seals:
/// the seal file's are checked with the database's), and names each line that one file has and
/// the other has not. Returns how many checkpoint lines there are.
fn check_lines(
    files: &[(&'static str, Vec<Line>)],
    zone: crate::config::Zone,
    into: &mut Checkpoints,
    problems: &mut Vec<SealProblem>,
) -> usize {
    let mut checkpoints = 0;
    for (index, (file, lines)) in files.iter().enumerate() {
        // A head the file's previous line already fixed adds nothing to check.
        let mut last: HashMap<&str, &str> = HashMap::new();
        for line in lines {
            match line {
                Line::Checkpoint(_) => checkpoints += 1,
                Line::Seal(_) if index == 0 => continue,
                Line::Seal(_) => {}
            }
            let source: Rc<str> = format!("{} in {file}", line.name(zone)).into();
            let mut fresh = SealedHeads::new();
            for (chain, head) in line.heads() {
                if last.insert(chain, &head.hash) != Some(head.hash.as_str()) {
                    fresh.insert(chain.clone(), head.clone());
                }
            }
            add_heads(into, &fresh, &source, problems, line.day());
        }
    }
    if let [(file, lines), (copy, copied)] = files {
        let in_file: HashSet<&Line> = lines.iter().collect();
        let in_copy: HashSet<&Line> = copied.iter().collect();
        let only = |lines: &[Line], other: &HashSet<&Line>, has: &str, lacks: &str| {
            lines
                .iter()
                .filter(|line| !other.contains(line))
                .map(|line| SealProblem {
                    day: line.day(),
                    what: format!("{} is in {has} but not in {lacks}", line.name(zone)),
                })
                .collect::<Vec<_>>()
        };
        problems.extend(only(lines, &in_copy, file, copy));
        problems.extend(only(copied, &in_file, copy, file));
    }
    checkpoints
}

/// Verifies the chains in `scope`, every day seal and every checkpoint, with the seal files
/// `seals`; `progress` is told every [`TICK`] events. Everything is read in one snapshot (a
/// read-only `REPEATABLE READ` transaction), so events appended while the check runs neither
/// show up after a head read before them nor leave a head ahead of the events read.
pub fn verify(
    conn: &mut PgConnection,
    scope: &Scope,
    seals: &SealFiles,
    progress: &mut dyn FnMut(Progress),
) -> Result<Verification, VerifyError> {
    crate::db::export::in_snapshot(conn, |conn| verify_in(conn, scope, seals, progress))
}

fn verify_in(
    conn: &mut PgConnection,
    scope: &Scope,
    seals: &SealFiles,
    progress: &mut dyn FnMut(Progress),
) -> Result<Verification, VerifyError> {
    let files = seals
        .paths()
        .map(|(path, name)| Ok((name, seal_file::read_lines(path)?)))
        .collect::<Result<Vec<_>, SealFileError>>()?;
    let copies: Vec<SealCopy> = files
        .first()
        .into_iter()
        .flat_map(|(_, lines)| lines)
        .filter_map(|line| match line {
            Line::Seal(seal) => Some(seal.clone()),
            Line::Checkpoint(_) => None,
        })
        .collect();
    let stored = stored_seals(conn)?;
    let mut seal_problems = Vec::new();
    let mut checkpoints = check_seals(&stored, &copies, &mut seal_problems);
    let checkpoints_checked = check_lines(&files, seals.zone, &mut checkpoints, &mut seal_problems);
    let chains = if scope.chains.is_empty() {
        chain_names(conn)?
    } else {
        scope.chains.clone()
    };
    let heads: Vec<i64> = audit_chain_heads::table
        .select(audit_chain_heads::last_seq)
        .load(conn)?;
    let mut report = Report {
        state: Progress {
            chains_done: 0,
            chains_total: chains.len(),
            events_checked: 0,
            events_total: heads
                .iter()
                .map(|&seq| u64::try_from(seq).unwrap_or(0))
                .sum(),
        },
        pending: 0,
        progress,
    };
    report.flush();
    let whole = scope.chains.is_empty() && scope.from.is_none() && scope.to.is_none();
    let mut by_id = if whole {
        Some(check_by_id(conn, &chains, &checkpoints, &mut report)?)
    } else {
        None
    };
    let mut verdicts = Vec::with_capacity(chains.len());
    for chain in &chains {
        let marks = checkpoints.get(chain).map_or(&[][..], Vec::as_slice);
        let checked = by_id.as_mut().and_then(|checked| checked.remove(chain));
        let verdict = match checked {
            Some(checker) => finish_one(conn, chain, scope, checker, false)?,
            None => verify_one(conn, chain, scope, marks, &mut report)?,
        };
        verdicts.push(verdict);
        report.chain_done();
    }
    // The records against the events that recorded them: only when the whole trail is read
    // (a scope's events do not cover every round).
    let record_problems = if whole {
        crate::reports::recheck::records_against_events(conn, &mut |_| {})?
    } else {
        Vec::new()
    };
    Ok(Verification {
        chains: verdicts,
        seals_checked: stored.len() + copies.len(),
        checkpoints_checked,
        seal_problems,
        record_problems,
    })
}

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    #[error(transparent)]
    Records(#[from] crate::reports::recheck::RecheckError),
    #[error(transparent)]
    Copy(#[from] CopyError),
    #[error(transparent)]
    SealFile(#[from] SealFileError),
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::TimeZone;
    use serde_json::json;

    use super::*;
    use crate::db::audit_copy::EventRef;
    use crate::db::audit_log::{Actor, NewAuditEvent, SealedEvent};

    /// A chain of `n` events as the database would hold them.
    fn chain(n: i64) -> Vec<AuditEvent> {
        let actor = Actor::system("test");
        let mut head = ChainHead::genesis();
        let mut out = Vec::new();
        for i in 1..=n {
            let sealed = SealedEvent::after(
                head.clone(),
                NewAuditEvent {
                    chain: "table:1",
                    actor: &actor,
                    action: AuditAction::SessionExpired,
                    target: format!("n:{i}"),
                    details: json!({ "n": i }),
                    gaming_day: None,
                    table_id: None,
                },
            );
            out.push(AuditEvent {
                id: i * 10,
                chain: sealed.chain,
                seq: sealed.seq,
                at: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
                    + chrono::Duration::seconds(i),
                actor_user_id: None,
                actor_name: sealed.actor_name,
                action: sealed.action,
                target: sealed.target,
                details: serde_json::from_str(sealed.details.as_str()).unwrap(),
                client_addr: None,
                gaming_day: None,
                table_id: None,
                prev_hash: sealed.prev_hash,
                hash: Vec::new(),
            });
            // Hash what is stored (the time above, not the sealing time).
            let prev = out.last().unwrap().prev_hash.clone();
            let hash = crate::db::audit_log::expected_hash(&prev, out.last().unwrap());
            out.last_mut().unwrap().hash = hash.to_vec();
            head = ChainHead {
                last_seq: i,
                last_hash: hash.to_vec(),
            };
        }
        out
    }

    fn run(events: &[AuditEvent], head: Option<ChainHead>) -> ChainVerdict {
        let mut checker = ChainChecker::new("table:1");
        for e in events {
            checker.push(e);
        }
        checker.finish(Some(head))
    }

    fn head_of(events: &[AuditEvent]) -> Option<ChainHead> {
        events.last().map(|e| ChainHead {
            last_seq: e.seq,
            last_hash: e.hash.clone(),
        })
    }

    fn bad(verdict: &ChainVerdict) -> (i64, Option<i64>, &str) {
        let bad = verdict.bad.as_ref().expect("a broken chain");
        (bad.seq, bad.id, bad.what.as_str())
    }

    #[test]
    fn an_untouched_chain_verifies_to_its_head() {
        let events = chain(5);
        let verdict = run(&events, head_of(&events));
        assert!(verdict.is_intact(), "{verdict:?}");
        assert_eq!(verdict.rows, 5);
        assert_eq!(verdict.last, Some((5, events[4].hash.clone())));
    }

    #[test]
    fn each_kind_of_damage_is_named_at_its_row() {
        let good = chain(6);
        let head = head_of(&good);

        let mut changed = good.clone();
        changed[2].details = json!({ "n": 99 });
        assert_eq!(
            bad(&run(&changed, head.clone())),
            (3, Some(30), "content changed")
        );

        let mut rehashed = good.clone();
        rehashed[2].hash = vec![7; 32];
        assert_eq!(
            bad(&run(&rehashed, head.clone())),
            (3, Some(30), "hash changed")
        );

        let mut gone = good.clone();
        gone.remove(3);
        assert_eq!(
            bad(&run(&gone, head.clone())),
            (4, Some(50), "seq 4 missing")
        );

        let mut relinked = good.clone();
        relinked[4].prev_hash = vec![1; 32];
        assert_eq!(
            bad(&run(&relinked, head.clone())),
            (5, Some(50), "link broken")
        );

        let cut = &good[..4];
        let verdict = run(cut, head.clone());
        assert_eq!(verdict.bad.as_ref().unwrap().seq, 5);
        assert!(verdict.bad.unwrap().what.starts_with("seq 5 missing"));

        let mut tail_changed = good.clone();
        tail_changed[5].target = "n:other".to_owned();
        assert_eq!(
            bad(&run(&tail_changed, head.clone())),
            (6, Some(60), "content changed")
        );
    }

    /// An event as the copy hands it to the check, with its details stored as `details`.
    fn stored<'a>(e: &'a AuditEvent, details: &'a str) -> EventRef<'a> {
        EventRef {
            id: e.id,
            chain: &e.chain,
            seq: e.seq,
            at: e.at,
            actor_user_id: e.actor_user_id,
            actor_name: &e.actor_name,
            action: &e.action,
            target: &e.target,
            details,
            client_addr: e.client_addr.as_deref(),
            gaming_day: e.gaming_day,
            table_id: e.table_id,
            prev_hash: &e.prev_hash,
            hash: &e.hash,
        }
    }

    fn check_stored(events: &[AuditEvent], details: &[String]) -> ChainVerdict {
        let mut checker = ChainChecker::new("table:1");
        for (e, text) in events.iter().zip(details) {
            checker.push(&stored(e, text));
        }
        checker.finish(Some(head_of(events)))
    }

    /// Details stored in the canonical form are hashed as they are; stored as `jsonb` printed
    /// them (keys by length, spaced: events from before details were kept as hashed), through
    /// their canonical form. Either way a change is found.
    #[test]
    fn stored_details_verify_as_their_values_do() {
        let mut good = chain(4);
        // Rehash with the details the texts will hold.
        let mut prev = GENESIS_HASH.to_vec();
        for e in &mut good {
            e.details = json!({ "n": e.details["n"], "z": [1.5, "é"] });
            e.prev_hash.clone_from(&prev);
            e.hash = crate::db::audit_log::expected_hash(&prev, e).to_vec();
            prev.clone_from(&e.hash);
        }
        let canonical: Vec<String> = good.iter().map(|e| e.details.to_string()).collect();
        assert_eq!(canonical[0], r#"{"n":1,"z":[1.5,"é"]}"#);
        let spaced: Vec<String> = good
            .iter()
            .map(|e| {
                serde_json::to_string_pretty(&json!({ "z": [1.5, "é"], "n": e.details["n"] }))
                    .unwrap()
            })
            .collect();
        for texts in [&canonical, &spaced] {
            assert!(check_stored(&good, texts).is_intact());

            let mut changed = texts.clone();
            changed[1] = changed[1].replace("1.5", "2.5");
            assert_eq!(
                bad(&check_stored(&good, &changed)),
                (2, Some(20), "content changed")
            );

            let mut repeated = texts.clone();
            repeated[3] = repeated[3].replacen('{', "{\"n\": 0, ", 1);
            assert_eq!(
                bad(&check_stored(&good, &repeated)),
                (4, Some(40), "content changed"),
                "a key named twice is not read as its last value"
            );
        }
    }

    #[test]
    fn a_sealed_hash_that_differs_is_named() {
        let good = chain(4);
        let mut checker = ChainChecker::new("table:1");
        checker.expect_at(2, vec![9; 32], "the seal of 2026-01-01".into());
        for e in &good {
            checker.push(e);
        }
        let verdict = checker.finish(Some(head_of(&good)));
        assert_eq!(
            bad(&verdict),
            (2, Some(20), "hash differs from the seal of 2026-01-01")
        );

        let mut checker = ChainChecker::new("table:1");
        checker.expect_at(9, good[0].hash.clone(), "the seal of 2026-01-01".into());
        for e in &good {
            checker.push(e);
        }
        let verdict = checker.finish(Some(head_of(&good)));
        assert_eq!(verdict.bad.unwrap().seq, 9);
    }

    #[test]
    fn progress_is_counted_in_events_when_the_heads_give_their_number() {
        let mut progress = Progress {
            chains_done: 1,
            chains_total: 4,
            events_checked: 150,
            events_total: 200,
        };
        assert_eq!(progress.percent(), 75);
        progress.events_checked = 300;
        assert_eq!(progress.percent(), 100, "a range never shows more than all");
        progress.events_total = 0;
        assert_eq!(progress.percent(), 25, "by chains when there are no heads");
    }

    #[test]
    fn a_range_starts_from_its_first_event() {
        let good = chain(5);
        let mut checker = ChainChecker::from_first_given("table:1");
        for e in &good[2..] {
            checker.push(e);
        }
        let verdict = checker.finish(Some(head_of(&good)));
        assert!(verdict.is_intact(), "{verdict:?}");
        assert_eq!(verdict.rows, 3);
    }
}
