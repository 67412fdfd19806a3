//! The events export: every column of every audit event of the range (each chain's events from
//! the first to the last written in the range, unbroken), with the position before and after
//! each chain's part in the manifest; and its check, which recomputes every hash and link.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;

use crate::db::audit_copy::{self, EventRef};
use crate::db::audit_log::{self, Details, HashBuffers, HashedFields, GENESIS_HASH};
use crate::db::canonical_json;
use crate::db::export as db;
use crate::db::ids::{TableId, UserId};

use super::table::{ColumnKind, Field, Format, TableWriter};
use super::verify::{Checker, Problem, Problems, Row};
use super::{heads, utc_text, ChainRecord, Clock, ExportError, Manifest, Position, Query, Written};

use ColumnKind::{Int, Json, Text};

/// The events export's own columns (between `row` and `row_sha256`): every column of
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
    let spans = db::chain_spans(conn, window.0, window.1, chain.as_deref())?;
    for span in spans {
        let before_seq = span.first_seq - 1;
        let before_hash = if before_seq == 0 {
            GENESIS_HASH.to_vec()
        } else {
            db::event_hash_at(conn, &span.chain, before_seq)?
        };
        let head = heads.get(&span.chain).cloned().ok_or_else(|| {
            ExportError::Stored(format!("chain {} has events but no head", span.chain))
        })?;
        manifest.chains.push(ChainRecord {
            chain: span.chain,
            before: Some(Position {
                seq: before_seq,
                hash: hex::encode(before_hash),
            }),
            last: None,
            head,
        });
    }
    let mut writer = TableWriter::new(format, COLUMNS, out)?;
    let mut lasts: BTreeMap<String, Position> = BTreeMap::new();
    let mut fields = Vec::with_capacity(COLUMNS.len());
    let mut json = canonical_json::Buffers::default();
    let mut hashing = HashBuffers::default();
    let mut failed = None;
    audit_copy::each_in_window(
        conn,
        window.0,
        window.1,
        chain.as_deref(),
        &mut |e: &EventRef<'_>| match write_event(
            e,
            clock,
            &mut writer,
            &mut fields,
            (&mut json, &mut hashing),
            &mut lasts,
        ) {
            Ok(()) => true,
            Err(error) => {
                failed = Some(error);
                false
            }
        },
    )?;
    if let Some(error) = failed {
        return Err(error);
    }
    for record in &mut manifest.chains {
        record.last = lasts.remove(&record.chain);
    }
    let rows = writer.finish(manifest)?;
    Ok(Written { rows })
}

/// Writes one event's row and notes it as its chain's last.
fn write_event<W: Write>(
    e: &EventRef<'_>,
    clock: Clock,
    writer: &mut TableWriter<W>,
    fields: &mut Vec<Field>,
    (json, hashing): (&mut canonical_json::Buffers, &mut HashBuffers),
    lasts: &mut BTreeMap<String, Position>,
) -> Result<(), ExportError> {
    let details = canonical_details(e, json, hashing)?;
    let hash = hex::encode(e.hash);
    fields.clear();
    fields.extend([
        Field::Int(e.id),
        Field::text(e.chain),
        Field::Int(e.seq),
        Field::Text(utc_text(e.at)),
        Field::Text(clock.local(e.at)),
        Field::opt_int(e.actor_user_id.map(|id| id.0)),
        Field::text(e.actor_name),
        Field::text(e.action),
        Field::text(e.target),
        Field::Json(details),
        Field::opt_text(e.client_addr),
        Field::opt_text(e.gaming_day.map(|d| d.to_string())),
        Field::opt_int(e.table_id.map(|id| id.0)),
        Field::Text(hex::encode(e.prev_hash)),
        Field::Text(hash.clone()),
    ]);
    writer.write(fields)?;
    match lasts.get_mut(e.chain) {
        Some(last) => *last = Position { seq: e.seq, hash },
        None => {
            lasts.insert(e.chain.to_owned(), Position { seq: e.seq, hash });
        }
    }
    Ok(())
}

/// An event's details in their canonical form: the stored text when its hash proves it that
/// form (`HashBuffers::stored_as_hashed`: one hash of the event instead of reading and writing
/// its details again), else written canonically from the text.
fn canonical_details(
    e: &EventRef<'_>,
    json: &mut canonical_json::Buffers,
    hashing: &mut HashBuffers,
) -> Result<String, ExportError> {
    if hashing.stored_as_hashed(e.prev_hash, &e.fields(Details::Text(e.details)), e.hash) {
        return Ok(e.details.to_owned());
    }
    let mut details = String::with_capacity(e.details.len());
    json.write_text(e.details, &mut details)
        .map_err(|not_json| ExportError::Stored(format!("event {}: details {not_json}", e.id)))?;
    Ok(details)
}

/// Where the check is on the chain it is reading.
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

/// Checks an events export: each chain's events are unbroken from the manifest's `before` to
/// its `last`, each hash matches the event's content and each link the event before; a day
/// seal in the export matches the manifest's.
pub(super) struct EventsCheck {
    clock: Clock,
    chains: BTreeMap<String, ChainRecord>,
    seals: BTreeMap<i64, String>,
    seen: BTreeSet<String>,
    current: Option<OnChain>,
    buffers: HashBuffers,
    /// A time written as the export writes it, to compare with the row's.
    text: String,
}

impl EventsCheck {
    pub(super) fn new(manifest: &Manifest, clock: Clock) -> EventsCheck {
        EventsCheck {
            clock,
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
            seen: BTreeSet::new(),
            current: None,
            buffers: HashBuffers::default(),
            text: String::new(),
        }
    }

    fn end_chain(&mut self, problems: &mut Problems) {
        let Some(mut on) = self.current.take() else {
            return;
        };
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

    fn start_chain(&mut self, row: &Row, problems: &mut Problems) -> bool {
        let chain = row.text(at::CHAIN).to_owned();
        if !self.seen.insert(chain.clone()) {
            problems.at(
                row,
                at::CHAIN,
                format!("chain {chain} appears again after another chain: rows out of order"),
            );
        }
        let Some(before) = self.chains.get(&chain).and_then(|c| c.before.clone()) else {
            problems.at(
                row,
                at::CHAIN,
                format!("chain {chain} is not in the manifest"),
            );
            return false;
        };
        self.current = Some(OnChain {
            chain,
            next_seq: before.seq + 1,
            next_prev: before.hash,
            last: None,
            unsound: None,
        });
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
        if self
            .current
            .as_ref()
            .is_none_or(|on| on.chain != row.text(at::CHAIN))
        {
            self.end_chain(problems);
            if !self.start_chain(&row, problems) {
                return;
            }
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
        let Some(on) = self.current.as_mut() else {
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
        self.end_chain(problems);
        for chain in self.chains.keys() {
            if !self.seen.contains(chain) {
                problems.file(format!(
                    "chain {chain} is in the manifest but has no rows in the file"
                ));
            }
        }
    }
}
