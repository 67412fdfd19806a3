//! The events export: every column of every audit event of the range (each chain's events from
//! the first to the last written in the range, unbroken), with the position before and after
//! each chain's part in the manifest; and its check, which recomputes every hash and link.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;

use crate::db::audit_copy::{self, EventRef};
use crate::db::audit_log::{self, Details, HashBuffers, HashedFields, GENESIS_HASH};
use crate::db::canonical_json;
use crate::db::export as db;
use crate::db::ids::{TableId, UserId};

use super::check::{Checker, Problem, Problems, Row};
use super::seals::{Range, Seals};
use super::table::{ColumnKind, ColumnSums, Format, Numbering, RowText, Shape, Sink, SUMS};
use super::{
    heads, last_sealed, ChainRecord, Clock, ExportError, Manifest, Position, Query, SealRecord,
    Written,
};

use ColumnKind::{Int, Json, Text};

/// The events export's own columns (between `row` and the row's sum): every column of
/// `audit_events`, and the time in local time too.
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("id", Int),
    ("chain", Text),
    ("seq", Int),
    ("at_utc", Text),
    ("at_local", Text),
    ("actor_user_id", Int),
    ("actor_name", Text),
    ("action", Text),
    ("target", Text),
    ("details", Json),
    ("client_addr", Text),
    ("gaming_day", Text),
    ("table_id", Int),
    ("prev_hash", Text),
    ("hash", Text),
];

mod at {
    pub const ID: usize = 1;
    pub const CHAIN: usize = 2;
    pub const SEQ: usize = 3;
    pub const AT_UTC: usize = 4;
    pub const AT_LOCAL: usize = 5;
    pub const ACTOR_USER_ID: usize = 6;
    pub const ACTOR_NAME: usize = 7;
    pub const ACTION: usize = 8;
    pub const TARGET: usize = 9;
    pub const DETAILS: usize = 10;
    pub const CLIENT_ADDR: usize = 11;
    pub const GAMING_DAY: usize = 12;
    pub const TABLE_ID: usize = 13;
    pub const PREV_HASH: usize = 14;
    pub const HASH: usize = 15;
}

/// The chain an export of table `code` covers (`table:<id>`), when there is such a table.
fn table_chain(conn: &mut PgConnection, code: &str) -> Result<String, ExportError> {
    let tables = db::tables(conn, Some(code))?;
    let (id, _) = tables
        .first()
        .ok_or_else(|| ExportError::BadQuery(format!("there is no table {code}")))?;
    Ok(audit_log::table_chain(TableId(*id)))
}

/// Where the export stands on one chain's part: the events `first_seq` to `last_seq`, the
/// next one to write and the last one written (its seq and hash).
struct Part {
    first_seq: i64,
    last_seq: i64,
    next_seq: i64,
    last: Option<(i64, Vec<u8>)>,
    /// An event of the chain came out of sequence order in the pass by id: the rest of the
    /// part is read on its own, in sequence order, after that pass.
    on_its_own: bool,
}

impl Part {
    fn holds(&self, seq: i64) -> bool {
        (self.first_seq..=self.last_seq).contains(&seq)
    }
}

/// The last event of `chain` the range's last close sealed: on the `day` chain the seal event
/// itself, on any other the head it sealed.
fn sealed_end(seals: &[SealRecord], chain: &str) -> Option<i64> {
    if chain == crate::db::days::DAY_CHAIN {
        seals.last().map(|seal| seal.seal_seq)
    } else {
        last_sealed(seals, chain).map(|head| head.seq)
    }
}

/// Rows to a batch handed from reading to writing, and the batches reading may be ahead.
const BATCH_ROWS: usize = 256;
const QUEUED_BATCHES: usize = 8;

/// Writes the events of the window: every chain's part in one pass in the order of the
/// events' ids (one read of the table, in the order it was written), each chain's events in
/// sequence order in it. A chain found out of that order (its ids changed) is left there and
/// the rest of its part written after the pass, read on its own in sequence order: every
/// chain's events are in sequence order in the file either way. An export of one table reads
/// its chain's part on its own.
///
/// Stages on threads of their own, a batch of rows at a time through a short queue (memory
/// stays constant): one reads the events and makes each row (its fields as text, its sum
/// and its share of the column sums), the other writes the rows as CSV or JSON Lines (the
/// file's SHA-256 on a thread of its own, `table::HashThread`) and hands each batch back to be
/// filled again. (Column sums took a stage of their own while they were SHA-256: BENCHMARKS.md,
/// "The events export by id, on two threads"; as CRC-32 they cost the reading little.)
pub(super) fn export(
    conn: &mut PgConnection,
    query: &Query,
    clock: Clock,
    window: (DateTime<Utc>, DateTime<Utc>),
    format: Format,
    out: impl Write,
    mut manifest: Manifest,
) -> Result<Written, ExportError> {
    let chain = match &query.table {
        Some(code) => Some(table_chain(conn, code)?),
        None => None,
    };
    let heads = heads(conn)?;
    let mut parts: HashMap<String, Part> = HashMap::new();
    let mut ids: Option<(i64, i64)> = None;
    for mut span in db::chain_spans(conn, window.0, window.1, chain.as_deref())? {
        // On to the head the range's last close sealed, so that the part can be checked
        // against that seal (the close comes after the day it seals).
        if let Some(sealed) = sealed_end(&manifest.day_seals, &span.chain) {
            span.last_seq = span.last_seq.max(sealed);
        }
        let before_seq = span.first_seq - 1;
        let ends = db::event_ids_and_hashes(
            conn,
            &span.chain,
            &[before_seq, span.first_seq, span.last_seq],
        )?;
        let at = |seq: i64| ends.iter().find(|e| e.0 == seq);
        let missing = |seq: i64| {
            ExportError::Stored(format!("chain {}: event seq {seq} is missing", span.chain))
        };
        let before_hash = match before_seq {
            0 => GENESIS_HASH.to_vec(),
            seq => at(seq).ok_or_else(|| missing(seq))?.2.clone(),
        };
        let first_id = at(span.first_seq).ok_or_else(|| missing(span.first_seq))?.1;
        let last_id = at(span.last_seq).ok_or_else(|| missing(span.last_seq))?.1;
        ids = Some(ids.map_or((first_id, last_id), |(lo, hi)| {
            (lo.min(first_id), hi.max(last_id))
        }));
        let head = heads.get(&span.chain).cloned().ok_or_else(|| {
            ExportError::Stored(format!("chain {} has events but no head", span.chain))
        })?;
        manifest.chains.push(ChainRecord {
            chain: span.chain.clone(),
            before: Some(Position {
                seq: before_seq,
                hash: hex::encode(before_hash),
            }),
            last: None,
            head,
            tail: Vec::new(),
        });
        parts.insert(
            span.chain,
            Part {
                first_seq: span.first_seq,
                last_seq: span.last_seq,
                next_seq: span.first_seq,
                last: None,
                on_its_own: chain.is_some(),
            },
        );
    }
    let by_id = if chain.is_none() { ids } else { None };
    let order: Vec<String> = manifest.chains.iter().map(|c| c.chain.clone()).collect();
    let mut sink = Sink::new(format, COLUMNS, out)?;
    let (send, batches) = std::sync::mpsc::sync_channel::<Vec<RowText>>(QUEUED_BATCHES);
    let (give_back, reuse) = std::sync::mpsc::channel::<Vec<RowText>>();
    let (mut parts, column_sums) = std::thread::scope(|scope| {
        let reading = scope.spawn(move || {
            let mut rows = Rows {
                clock,
                numbering: Numbering::default(),
                column_sums: ColumnSums::new(COLUMNS.len() + 2, SUMS),
                json: canonical_json::Buffers::default(),
                batch: Vec::with_capacity(BATCH_ROWS),
                filled: 0,
                send,
                reuse,
                failed: None,
            };
            read_parts(conn, by_id, &order, &mut parts, &mut rows)?;
            rows.flush();
            Ok::<_, ExportError>((parts, rows.column_sums))
        });
        let mut written = Ok(());
        for batch in batches {
            written = batch.iter().try_for_each(|row| sink.write(row));
            if written.is_err() {
                // Dropping the queue stops the reading at its next batch.
                break;
            }
            let _ = give_back.send(batch);
        }
        drop(give_back);
        let read = match reading.join() {
            Ok(read) => read,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        written.and(read)
    })?;
    for record in &mut manifest.chains {
        record.last = parts
            .get_mut(&record.chain)
            .and_then(|p| p.last.take())
            .map(|(seq, hash)| Position {
                seq,
                hash: hex::encode(hash),
            });
    }
    let rows = sink.finish(column_sums, manifest)?;
    Ok(Written { rows })
}

/// Reads the parts: those of every chain in one pass over the ids `by_id`, then each part (or
/// its rest) that pass did not write, in the chains' `order`.
fn read_parts(
    conn: &mut PgConnection,
    by_id: Option<(i64, i64)>,
    order: &[String],
    parts: &mut HashMap<String, Part>,
    rows: &mut Rows,
) -> Result<(), ExportError> {
    if let Some((first_id, last_id)) = by_id {
        audit_copy::each_by_id(conn, first_id..=last_id, &mut |e| {
            let Some(part) = parts.get_mut(e.chain) else {
                return true;
            };
            if part.on_its_own || !part.holds(e.seq) {
                return true;
            }
            if e.seq != part.next_seq {
                part.on_its_own = true;
                return true;
            }
            rows.write(e, part)
        })?;
        rows.check()?;
    }
    for chain in order {
        let Some(part) = parts.get_mut(chain) else {
            continue;
        };
        if part.next_seq > part.last_seq {
            continue;
        }
        let after = part.next_seq - 1;
        let count = part.last_seq - after;
        audit_copy::each_after(conn, chain, after, count, &mut |e| rows.write(e, part))?;
        rows.check()?;
    }
    Ok(())
}

/// The making of the rows on the reading side, handed on in batches; and the first error it
/// met (which stops the copy).
struct Rows {
    clock: Clock,
    numbering: Numbering,
    column_sums: ColumnSums,
    json: canonical_json::Buffers,
    /// The batch being filled: its first `filled` rows (the rest are rows to reuse).
    batch: Vec<RowText>,
    filled: usize,
    send: std::sync::mpsc::SyncSender<Vec<RowText>>,
    /// Batches the writing is done with.
    reuse: std::sync::mpsc::Receiver<Vec<RowText>>,
    failed: Option<ExportError>,
}

impl Rows {
    /// Makes the row of `e`, the next event of `part`; whether the copy should go on.
    fn write(&mut self, e: &EventRef<'_>, part: &mut Part) -> bool {
        if self.filled == self.batch.len() {
            self.batch.push(RowText::default());
        }
        let row = &mut self.batch[self.filled];
        self.numbering.begin(row);
        if let Err(error) = event_row(e, self.clock, row, &mut self.json) {
            self.failed = Some(error);
            return false;
        }
        self.numbering.end(row);
        self.column_sums.add_row(row);
        self.filled += 1;
        part.next_seq = e.seq + 1;
        let (seq, hash) = part.last.get_or_insert_with(|| (0, Vec::new()));
        *seq = e.seq;
        hash.clear();
        hash.extend_from_slice(e.hash);
        self.filled < BATCH_ROWS || self.flush()
    }

    /// Hands the rows made to the writing; false when it has stopped.
    fn flush(&mut self) -> bool {
        if self.filled == 0 {
            return true;
        }
        let mut full = self.reuse.try_recv().unwrap_or_default();
        std::mem::swap(&mut full, &mut self.batch);
        full.truncate(self.filled);
        self.filled = 0;
        if self.send.send(full).is_ok() {
            return true;
        }
        self.failed = Some(ExportError::Io(std::io::Error::other(
            "the export's writing stopped",
        )));
        false
    }

    /// The error that stopped a copy, if one did.
    fn check(&mut self) -> Result<(), ExportError> {
        self.failed.take().map_or(Ok(()), Err)
    }
}

/// Adds one event's fields to `row`.
fn event_row(
    e: &EventRef<'_>,
    clock: Clock,
    row: &mut RowText,
    json: &mut canonical_json::Buffers,
) -> Result<(), ExportError> {
    row.int(e.id);
    row.text(e.chain);
    row.int(e.seq);
    row.push_with(Shape::Text, |text| audit_log::write_utc(e.at, text));
    row.push_with(Shape::Text, |text| clock.write_local(e.at, text));
    row.opt_int(e.actor_user_id.map(|id| id.0));
    row.text(e.actor_name);
    row.text(e.action);
    row.text(e.target);
    // The stored text when it is shaped as the canonical writer writes (every event stored
    // since details are kept as hashed), else written canonically (events stored as `jsonb`
    // before that). A text changed since it was stored is exported as it is, and the check
    // of its hash over the file's text finds it.
    if canonical_json::shaped_as_written(e.details) {
        row.raw(e.details);
    } else {
        row.push_with(Shape::Raw, |text| json.write_text(e.details, text))
            .map_err(|not_json| {
                ExportError::Stored(format!("event {}: details {not_json}", e.id))
            })?;
    }
    row.opt_text(e.client_addr);
    match e.gaming_day {
        Some(day) => row.push_with(Shape::Text, |text| audit_log::write_date(day, text)),
        None => row.null(),
    }
    row.opt_int(e.table_id.map(|id| id.0));
    row.hex(e.prev_hash);
    row.hex(e.hash);
    Ok(())
}

/// Where the check is on one chain.
struct OnChain {
    chain: String,
    /// The sequence number and `prev_hash` the next event should have.
    next_seq: i64,
    next_prev: String,
    /// The last event read: its row and seq (its hash is `next_prev`).
    last: Option<(u64, i64)>,
    /// A row whose hash does not match its content, with the hash it should have: if the next
    /// event links to that, the `hash` field was what changed.
    unsound: Option<(u64, String)>,
}

/// Checks an events export: each chain's events, in sequence order wherever they are in the
/// file (by id: every chain's rows in one stream; or chain after chain, as exports before
/// format 2 hold them), are unbroken from the manifest's `before` to its `last`, each hash
/// matches the event's content and each link the event before; a day seal in the export
/// matches the manifest's.
pub(super) struct EventsCheck {
    clock: Clock,
    /// The seals to check each chain's positions against, and when the export was read.
    sealed: Seals,
    range: Range,
    chains: BTreeMap<String, ChainRecord>,
    seals: BTreeMap<i64, String>,
    /// The chains met so far, where the check is on each.
    on: BTreeMap<String, OnChain>,
    /// Chains met that the manifest does not name.
    unknown: BTreeSet<String>,
    buffers: HashBuffers,
    /// A time written as the export writes it, to compare with the row's.
    text: String,
}

impl EventsCheck {
    pub(super) fn new(manifest: &Manifest, clock: Clock, sealed: Seals) -> EventsCheck {
        EventsCheck {
            clock,
            sealed,
            range: Range::of(manifest),
            chains: manifest
                .chains
                .iter()
                .map(|c| (c.chain.clone(), c.clone()))
                .collect(),
            seals: manifest
                .day_seals
                .iter()
                .map(|s| (s.seal_seq, s.seal_hash.clone()))
                .collect(),
            on: BTreeMap::new(),
            unknown: BTreeSet::new(),
            buffers: HashBuffers::default(),
            text: String::new(),
        }
    }

    /// Checks that chain `on` ends where the manifest says its part ends.
    fn end_chain(&self, mut on: OnChain, problems: &mut Problems) {
        let Some(record) = self.chains.get(&on.chain) else {
            return;
        };
        let last_hash = record.last.as_ref().map(|last| last.hash.as_str());
        if settle_unsound(&mut on, last_hash, problems) {
            return;
        }
        let Some((row, seq)) = on.last else {
            return;
        };
        let hash = &on.next_prev;
        match &record.last {
            Some(last) if last.seq != seq => problems.file(format!(
                "chain {}: ends at seq {seq} (row {row}), the manifest says it ends at seq {}: \
                 events missing at the end",
                on.chain, last.seq
            )),
            Some(last) if last.hash != *hash => problems.file(format!(
                "chain {}: its last event (row {row}, seq {seq}) has hash {hash}, the manifest's \
                 last hash is {}",
                on.chain, last.hash
            )),
            None => problems.file(format!(
                "chain {}: the manifest gives no last event for it",
                on.chain
            )),
            _ => {}
        }
    }

    /// Starts the check of the row's chain at the manifest's `before`; false when the manifest
    /// does not name the chain (said once).
    fn start_chain(&mut self, row: &Row, problems: &mut Problems) -> bool {
        let chain = row.text(at::CHAIN);
        let Some(before) = self.chains.get(chain).and_then(|c| c.before.clone()) else {
            if self.unknown.insert(chain.to_owned()) {
                problems.at(
                    row,
                    at::CHAIN,
                    format!("chain {chain} is not in the manifest"),
                );
            }
            return false;
        };
        if let Some(fixed) = self.sealed.at(chain, before.seq) {
            if fixed.hash != before.hash {
                problems.file(format!(
                    "chain {chain}: the manifest's position before its first event (seq {}, \
                     hash {}) is not what {} fixes there ({})",
                    before.seq, before.hash, fixed.by, fixed.hash
                ));
            }
        }
        self.on.insert(
            chain.to_owned(),
            OnChain {
                chain: chain.to_owned(),
                next_seq: before.seq + 1,
                next_prev: before.hash,
                last: None,
                unsound: None,
            },
        );
        true
    }
}

/// Reports the event whose hash did not match its content, if there is one, now that the next
/// link (`next_prev`: the next event's `prev_hash`, or the manifest's last hash) is known: when
/// that link agrees with the content, the `hash` field is what was changed. Returns whether it
/// was.
fn settle_unsound(on: &mut OnChain, next_prev: Option<&str>, problems: &mut Problems) -> bool {
    let Some((row, should)) = on.unsound.take() else {
        return false;
    };
    let chain = &on.chain;
    let hash_changed = next_prev == Some(should.as_str());
    problems.found.push(Problem {
        row: Some(row),
        field: hash_changed.then(|| "hash".to_owned()),
        message: if hash_changed {
            format!(
                "chain {chain}: the hash was changed: the event's content hashes to {should}, \
                 which the next link also names"
            )
        } else {
            format!("chain {chain}: content changed: the event's fields do not hash to its hash")
        },
    });
    hash_changed
}

/// The hashed fields of a row's event and its `prev_hash` (as bytes), or the column that does
/// not read. The texts are borrowed from the row.
fn event_of(row: &Row) -> Result<(HashedFields<'_>, Vec<u8>), (usize, String)> {
    fn int(row: &Row, column: usize) -> Result<Option<i64>, (usize, String)> {
        let text = row.text(column);
        if text.is_empty() {
            return Ok(None);
        }
        text.parse()
            .map(Some)
            .map_err(|_| (column, format!("{text:?} is not a whole number")))
    }
    fn required(row: &Row, column: usize) -> Result<i64, (usize, String)> {
        int(row, column)?.ok_or((column, "is empty".to_owned()))
    }
    fn hash(row: &Row, column: usize) -> Result<Vec<u8>, (usize, String)> {
        hex::decode(row.text(column)).map_err(|e| (column, format!("not hex: {e}")))
    }
    /// Checks the text decodes as `hash` would, without keeping the bytes.
    fn hex_text(row: &Row, column: usize) -> Result<(), (usize, String)> {
        let text = row.text(column);
        if text.len().is_multiple_of(2) && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(())
        } else {
            hash(row, column).map(drop)
        }
    }
    let at = DateTime::parse_from_rfc3339(row.text(at::AT_UTC))
        .map_err(|e| (at::AT_UTC, format!("not a time: {e}")))?
        .with_timezone(&Utc);
    let gaming_day = match row.text(at::GAMING_DAY) {
        "" => None,
        text => Some(
            text.parse::<NaiveDate>()
                .map_err(|e| (at::GAMING_DAY, format!("not a date: {e}")))?,
        ),
    };
    let client_addr = match row.text(at::CLIENT_ADDR) {
        "" => None,
        text => Some(text),
    };
    required(row, at::ID)?;
    let fields = HashedFields {
        chain: row.text(at::CHAIN),
        seq: required(row, at::SEQ)?,
        at,
        actor_user_id: int(row, at::ACTOR_USER_ID)?.map(UserId),
        actor_name: row.text(at::ACTOR_NAME),
        action: row.text(at::ACTION),
        target: row.text(at::TARGET),
        details: Details::Text(row.text(at::DETAILS)),
        client_addr,
        gaming_day,
        table_id: int(row, at::TABLE_ID)?.map(TableId),
    };
    let prev_hash = hash(row, at::PREV_HASH)?;
    hex_text(row, at::HASH)?;
    Ok((fields, prev_hash))
}

impl Checker for EventsCheck {
    fn row(&mut self, row: Row, problems: &mut Problems) {
        if !self.on.contains_key(row.text(at::CHAIN)) && !self.start_chain(&row, problems) {
            return;
        }
        let (event, prev_hash) = match event_of(&row) {
            Ok(event) => event,
            Err((column, message)) => {
                problems.at(&row, column, message);
                return;
            }
        };
        let text = &mut self.text;
        text.clear();
        audit_log::write_utc(event.at, text);
        if text != row.text(at::AT_UTC) {
            problems.at(
                &row,
                at::AT_UTC,
                "not written as the export writes times (RFC 3339, UTC, microseconds)".to_owned(),
            );
        }
        text.clear();
        self.clock.write_local(event.at, text);
        if row.text(at::AT_LOCAL) != text {
            problems.at(
                &row,
                at::AT_LOCAL,
                format!("is not at_utc in local time ({text})"),
            );
        }
        let Some(on) = self.on.get_mut(row.text(at::CHAIN)) else {
            return;
        };
        let seq = event.seq;
        if seq > on.next_seq {
            let chain = &on.chain;
            problems.at(
                &row,
                at::SEQ,
                match seq - on.next_seq {
                    1 => format!("chain {chain}: seq {} missing before this row", on.next_seq),
                    _ => format!(
                        "chain {chain}: seq {} to {} missing before this row",
                        on.next_seq,
                        seq - 1
                    ),
                },
            );
        } else if seq < on.next_seq {
            problems.at(
                &row,
                at::SEQ,
                format!(
                    "chain {}: seq {seq} out of order (seq {} expected)",
                    on.chain, on.next_seq
                ),
            );
        }
        let prev = row.text(at::PREV_HASH);
        let hash_changed = settle_unsound(on, Some(prev), problems);
        if !hash_changed && prev != on.next_prev {
            problems.at(
                &row,
                at::PREV_HASH,
                format!(
                    "chain {} seq {seq}: link broken: prev_hash is not the hash of the \
                     event before ({})",
                    on.chain, on.next_prev
                ),
            );
        }
        // The details as the file has them are hashed first: the export wrote their
        // canonical form, which then gives the row's hash without writing them again.
        let mut stored = [0_u8; 32];
        let stored = match hex::decode_to_slice(row.text(at::HASH), &mut stored) {
            Ok(()) => &stored[..],
            Err(_) => &[],
        };
        let expected = match self.buffers.hash_against(&prev_hash, &event, stored) {
            Ok(hash) => hash,
            Err(not_json) => {
                problems.at(&row, at::DETAILS, not_json.to_string());
                return;
            }
        };
        let mut expected_hex = [0_u8; 64];
        // 32 bytes always fit 64 hex digits.
        let _ = hex::encode_to_slice(expected, &mut expected_hex);
        if expected_hex.as_slice() != row.text(at::HASH).as_bytes() {
            on.unsound = Some((row.number, hex::encode(expected)));
        }
        if let Some(fixed) = self.sealed.at(&on.chain, seq) {
            if fixed.hash != row.text(at::HASH) {
                problems.at(
                    &row,
                    at::HASH,
                    format!(
                        "chain {} seq {seq}: {} fixes hash {}: the chain was changed at or \
                         before this event",
                        on.chain, fixed.by, fixed.hash
                    ),
                );
            }
        }
        if on.chain == "day" {
            if let Some(seal) = self.seals.get(&seq) {
                if seal != row.text(at::HASH) {
                    problems.at(
                        &row,
                        at::HASH,
                        format!("day seal seq {seq}: the manifest's seal hash is {seal}"),
                    );
                }
            }
        }
        on.next_seq = seq + 1;
        on.next_prev.clear();
        on.next_prev.push_str(row.text(at::HASH));
        on.last = Some((row.number, seq));
    }

    fn finish(&mut self, problems: &mut Problems) {
        let on = std::mem::take(&mut self.on);
        for chain in self.chains.keys() {
            if !on.contains_key(chain) {
                problems.file(format!(
                    "chain {chain} is in the manifest but has no rows in the file"
                ));
            }
        }
        for (_, on) in on {
            if let Some((_, seq)) = on.last {
                self.sealed.coverage(&on.chain, seq, &self.range, problems);
            }
            self.end_chain(on, problems);
        }
    }
}
