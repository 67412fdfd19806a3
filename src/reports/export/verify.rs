//! `audit verify-export`: checks an export file with no database. It reads the manifest (the
//! file's last line) first, then streams the rows once: their numbering, each row's sum,
//! each column's sum, the SHA-256 of all the data and the row count, and what the kind of
//! export can prove of itself (events: every hash and link against the manifest's chain
//! positions; rounds: every round settled again by the engine; report: every line's shares
//! follow from its figures and each section adds up to the total; accounting: every
//! document's lines add up to its total and each table-day's win, variance and hold follow
//! from its documents; ratings: every rating's figures follow from its rounds and pauses).
//! Every problem names its row and field.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use csv::StringRecord;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::db::seal_file::SealCopy;

use super::accounting::AccountingCheck;
use super::check::{Checker, Problem, Problems, Row};
use super::compliance::ComplianceCheck;
use super::events::EventsCheck;
use super::ratings::RatingsCheck;
use super::report::ReportCheck;
use super::rounds::RoundsCheck;
use super::seals::{check_manifest, Sealed, Seals};
use super::table::{ColumnKind, ColumnSums, Sums, MANIFEST_MARK, ROW};
use super::{
    accounting, compliance, events, ratings, report, rounds, Clock, Kind, Manifest, FORMATS_READ,
};

/// A file that could be read to its end.
#[derive(Debug)]
pub struct Verified {
    pub manifest: Manifest,
    /// Data rows read.
    pub rows: u64,
    /// Empty when the export is intact.
    pub problems: Vec<Problem>,
    /// What could not be checked (no seal file given, events after the last seal, a format
    /// before the rows were tied to the seals).
    pub notes: Vec<String>,
}

/// Why a file could not be checked at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Manifest(String),
}

/// How far from the end the manifest line is looked for.
const MANIFEST_MOST_BYTES: u64 = 64 << 20;

/// Checks the export in `path` without seals (its chains are not checked against any).
pub fn verify(path: &Path) -> Result<Verified, VerifyError> {
    verify_against(path, None)
}

/// Checks the export in `path`, and, given the day seals kept outside the database (`seals`,
/// read from the seal file or a copy of it), its manifest's seals and every chain position it
/// holds against them.
pub fn verify_against(path: &Path, seals: Option<&[SealCopy]>) -> Result<Verified, VerifyError> {
    let io = |source| VerifyError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let (data_len, last_line) = last_line(&mut file).map_err(io)?;
    let (manifest, csv) = read_manifest(&last_line)?;
    if !FORMATS_READ.contains(&manifest.format.as_str()) {
        return Err(VerifyError::Manifest(format!(
            "the manifest's format is {:?}; this program reads {}",
            manifest.format,
            FORMATS_READ.join(", ")
        )));
    }
    let clock = Clock {
        utc_offset: manifest.utc_offset.parse().map_err(|e| {
            VerifyError::Manifest(format!("the manifest's utc_offset does not read: {e}"))
        })?,
        gaming_day_start: chrono::NaiveTime::parse_from_str(&manifest.gaming_day_start, "%H:%M")
            .map_err(|e| {
                VerifyError::Manifest(format!(
                    "the manifest's gaming_day_start does not read: {e}"
                ))
            })?,
    };
    let own = match manifest.kind {
        // A rounds export written before the points game has every column but its own.
        Kind::Rounds if manifest.columns.len() == rounds::BEFORE_POINTS + 2 => {
            &rounds::COLUMNS[..rounds::BEFORE_POINTS]
        }
        // One written before format 4, all but the round's event and its chain's events.
        Kind::Rounds if manifest.format != super::FORMAT => {
            &rounds::COLUMNS[..rounds::BEFORE_EVENTS]
        }
        Kind::Rounds => rounds::COLUMNS,
        Kind::Events => events::COLUMNS,
        Kind::Report => report::COLUMNS,
        // An accounting export written before openers' differences and slips' prints.
        Kind::Accounting if manifest.columns.len() == accounting::BEFORE_REFERENCE + 2 => {
            &accounting::COLUMNS[..accounting::BEFORE_REFERENCE]
        }
        Kind::Accounting => accounting::COLUMNS,
        Kind::Compliance => compliance::COLUMNS,
        Kind::Ratings => ratings::COLUMNS,
    };
    let sum = super::sums(&manifest.format);
    let mut kinds = vec![(ROW, ColumnKind::Int)];
    kinds.extend_from_slice(own);
    kinds.push((sum.row_column(), ColumnKind::Text));
    let names: Vec<String> = kinds.iter().map(|c| c.0.to_owned()).collect();
    if manifest.columns != names {
        return Err(VerifyError::Manifest(format!(
            "the manifest names the columns {:?}; a {} export has {:?}",
            manifest.columns,
            manifest.kind.name(),
            names
        )));
    }
    let sums = match sum {
        Sums::Sha256 => &manifest.column_sha256,
        Sums::Crc32 => &manifest.column_crc32,
    };
    if sums.len() != names.len() {
        return Err(VerifyError::Manifest(format!(
            "the manifest's {} has {} sums for {} columns",
            sum.columns_member(),
            sums.len(),
            names.len()
        )));
    }
    let mut problems = Problems::new(names.clone());
    let sealed = match seals {
        Some(copies) => {
            check_manifest(&manifest, copies, &mut problems);
            Seals::Given(Sealed::of(copies))
        }
        None => {
            // A report, accounting, compliance or ratings export holds no events: nothing of
            // it is sealed.
            if !matches!(
                manifest.kind,
                Kind::Report | Kind::Accounting | Kind::Compliance | Kind::Ratings
            ) {
                problems.note(
                    "not checked against the seals: no seal file given (--seals FILE)".to_owned(),
                );
            }
            Seals::NotGiven
        }
    };
    let mut checker: Box<dyn Checker> = match manifest.kind {
        Kind::Rounds => Box::new(RoundsCheck::new(&manifest, clock, sealed)),
        Kind::Events => Box::new(EventsCheck::new(&manifest, clock, sealed)),
        Kind::Report => Box::new(ReportCheck::new(&manifest)),
        Kind::Accounting => Box::new(AccountingCheck::new(&manifest)),
        Kind::Compliance => Box::new(ComplianceCheck::new(&manifest)),
        Kind::Ratings => Box::new(RatingsCheck::new(&manifest)),
    };
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut data = HashingReader {
        inner: BufReader::with_capacity(1 << 16, file.take(data_len)),
        hash: Sha256::new(),
    };
    let mut walk = Walk {
        problems,
        column_sums: ColumnSums::new(names.len(), sum),
        sum,
        numbering: Numbering::default(),
        changed_rows: Vec::new(),
        rows: 0,
    };
    // Two stages on two threads: one reads the file (its digest, and each line into fields),
    // the other checks the rows (their sums and what the kind of export proves), in file
    // order, a batch at a time through a short queue (memory stays constant).
    let (send, batches) = std::sync::mpsc::sync_channel::<Vec<Line>>(QUEUED_BATCHES);
    let data_hash = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut feed = Feed::new(send);
            if csv {
                read_csv(&mut data, &names, &mut feed)?;
            } else {
                read_jsonl(&mut data, &kinds, &mut feed)?;
            }
            feed.flush();
            drop(feed);
            // What the reader buffered but no row took (a cut last line) is data all the same.
            std::io::copy(&mut data, &mut std::io::sink())?;
            Ok(data.hash.finalize())
        });
        for batch in batches {
            for read in batch {
                walk.take(read, &mut *checker);
            }
        }
        match reader.join() {
            Ok(hash) => hash,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
    .map_err(io)?;
    checker.finish(&mut walk.problems);
    let rows = walk.rows;
    let mut problems = walk.problems;
    walk.numbering.finish(&mut problems);
    let columns = walk.column_sums.finish();
    let changed_columns: Vec<&str> = names
        .iter()
        .zip(columns.iter().zip(sums))
        .filter(|(_, (ours, theirs))| ours != theirs)
        .map(|(name, _)| name.as_str())
        .collect();
    let row_sum = sum.row_column();
    for &row in &walk.changed_rows {
        let (field, message) = match changed_columns.as_slice() {
            [] => (
                None,
                format!("changed: its {row_sum} does not match its fields"),
            ),
            [one] => (
                Some((*one).to_owned()),
                format!(
                    "changed: its {row_sum} does not match its fields, and this column's sum \
                     does not match the manifest"
                ),
            ),
            many => (
                None,
                format!(
                    "changed: its {row_sum} does not match its fields; the columns whose sums \
                     do not match the manifest: {}",
                    many.join(", ")
                ),
            ),
        };
        problems.found.push(Problem {
            row: Some(row),
            field,
            message,
        });
    }
    if walk.changed_rows.is_empty() && !changed_columns.is_empty() {
        problems.file(format!(
            "the sums of columns {} do not match the manifest",
            changed_columns.join(", ")
        ));
    }
    if rows != manifest.rows {
        problems.file(format!(
            "the manifest says {} rows, the file holds {rows}",
            manifest.rows
        ));
    }
    let data_sha256 = hex::encode(data_hash);
    if data_sha256 != manifest.data_sha256 {
        problems.file(format!(
            "the SHA-256 of the data is {data_sha256}, the manifest says {}",
            manifest.data_sha256
        ));
    }
    Ok(Verified {
        manifest,
        rows,
        problems: problems.found,
        notes: problems.notes,
    })
}

/// The file's length without its last line, and the last line (without its line end).
fn last_line(file: &mut File) -> std::io::Result<(u64, String)> {
    let len = file.metadata()?.len();
    let mut end = len;
    // A final line end ends the manifest; it is not an empty last line.
    if end > 0 {
        file.seek(SeekFrom::Start(end - 1))?;
        let mut byte = [0_u8];
        file.read_exact(&mut byte)?;
        if byte[0] == b'\n' {
            end -= 1;
        }
    }
    let mut tail = Vec::new();
    let mut start = end;
    const STEP: u64 = 64 * 1024;
    loop {
        let from = start.saturating_sub(STEP);
        let mut chunk = vec![0_u8; usize::try_from(start - from).unwrap_or(0)];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        let within = usize::try_from(end - from)
            .unwrap_or(tail.len())
            .min(tail.len());
        if let Some(at) = tail[..within].iter().rposition(|&b| b == b'\n') {
            let line = String::from_utf8_lossy(&tail[at + 1..within]).into_owned();
            return Ok((from + at as u64 + 1, line));
        }
        if from == 0 || end - from > MANIFEST_MOST_BYTES {
            let line = String::from_utf8_lossy(&tail[..within]).into_owned();
            return Ok((from, line));
        }
        start = from;
    }
}

/// The manifest of the trailer line, and whether the file is CSV.
fn read_manifest(line: &str) -> Result<(Manifest, bool), VerifyError> {
    let not_found = || {
        VerifyError::Manifest(
            "the last line is not a manifest (`#manifest,...` or `{\"manifest\": ...}`): the \
             file is cut short or is not an export"
                .to_owned(),
        )
    };
    let bad =
        |e: serde_json::Error| VerifyError::Manifest(format!("the manifest does not read: {e}"));
    if line.starts_with(MANIFEST_MARK) {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let record = reader
            .records()
            .next()
            .and_then(Result::ok)
            .ok_or_else(not_found)?;
        let json = record.get(1).ok_or_else(not_found)?;
        return Ok((serde_json::from_str(json).map_err(bad)?, true));
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Trailer {
        manifest: Manifest,
    }
    if line.starts_with("{\"manifest\"") {
        let trailer: Trailer = serde_json::from_str(line).map_err(bad)?;
        return Ok((trailer.manifest, false));
    }
    Err(not_found())
}

struct HashingReader<R> {
    inner: R,
    hash: Sha256,
}

impl<R: BufRead> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for HashingReader<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            self.hash.update(&buf[..amount.min(buf.len())]);
        }
        self.inner.consume(amount);
    }
}

/// Row numbers: each row's `row` should be one more than the last. A row whose number is
/// missing and later turns up out of place was moved (a swap); one that never turns up was
/// deleted.
#[derive(Default)]
struct Numbering {
    expected: u64,
    /// Numbers skipped so far, with the row read where each was expected.
    skipped: Vec<(u64, u64)>,
}

impl Numbering {
    fn see(&mut self, row: &Row, problems: &mut Problems) {
        self.expected = self.expected.max(1);
        let Ok(number) = row.text(0).parse::<u64>() else {
            problems.at(row, 0, format!("{:?} is not a row number", row.text(0)));
            self.expected += 1;
            return;
        };
        if number == self.expected {
            self.expected += 1;
        } else if number > self.expected {
            for missing in self.expected..number.min(self.expected + 1000) {
                self.skipped.push((missing, row.number));
            }
            self.expected = number + 1;
        } else if let Some(at) = self.skipped.iter().position(|s| s.0 == number) {
            let (_, where_expected) = self.skipped.remove(at);
            problems.at(
                row,
                0,
                format!(
                    "row {number} is out of order: it belongs before the row at line {where_expected} \
                     (rows swapped or moved)"
                ),
            );
        } else {
            problems.at(
                row,
                0,
                format!(
                    "row {number} appears again or out of order (expected {})",
                    self.expected
                ),
            );
        }
    }

    fn finish(&mut self, problems: &mut Problems) {
        for (missing, found_at) in self.skipped.drain(..) {
            problems.found.push(Problem {
                row: Some(missing),
                field: None,
                message: format!(
                    "row {missing} is missing (deleted): the rows jump past it at data line \
                     {found_at}"
                ),
            });
        }
    }
}

/// The checks every export gets, row by row.
struct Walk {
    problems: Problems,
    column_sums: ColumnSums,
    numbering: Numbering,
    /// How the file sums its rows and columns.
    sum: Sums,
    /// Rows whose sum does not match their fields.
    changed_rows: Vec<u64>,
    rows: u64,
}

/// Whether a row's last field, its sum, is the sum of the others.
fn sum_matches(fields: &StringRecord, sum: Sums) -> bool {
    let last = fields.len().saturating_sub(1);
    fields
        .get(last)
        .is_some_and(|text| sum.row(fields.iter().take(last)) == text)
}

/// What reading the file hands to the checks, in file order.
enum Line {
    /// A data row's fields as text. (Its sum is checked on the checks' side: reading,
    /// which hashes all the data, is the longer stage.)
    Row(StringRecord),
    /// A data line that could not be read as a row (it counts as one): why.
    Unreadable(String),
    /// A problem of the whole file.
    File(String),
    /// A problem with a field of the row that comes next.
    Field(Problem),
}

/// Rows to a batch, and batches the reader may be ahead of the checks.
const BATCH_ROWS: usize = 128;
const QUEUED_BATCHES: usize = 4;

/// The reading side of the queue: what is read, in batches.
struct Feed {
    batch: Vec<Line>,
    send: std::sync::mpsc::SyncSender<Vec<Line>>,
    /// Data lines read so far (rows and unreadable lines), for the messages that name one.
    lines: u64,
}

impl Feed {
    fn new(send: std::sync::mpsc::SyncSender<Vec<Line>>) -> Feed {
        Feed {
            batch: Vec::with_capacity(BATCH_ROWS),
            send,
            lines: 0,
        }
    }

    fn push(&mut self, read: Line) {
        if matches!(read, Line::Row(_) | Line::Unreadable(_)) {
            self.lines += 1;
        }
        self.batch.push(read);
        if self.batch.len() >= BATCH_ROWS {
            self.flush();
        }
    }

    fn row(&mut self, fields: StringRecord) {
        self.push(Line::Row(fields));
    }

    fn flush(&mut self) {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_ROWS));
        // The checks only stop taking batches once the reader is done.
        let _ = self.send.send(batch);
    }
}

impl Walk {
    fn take(&mut self, read: Line, checker: &mut dyn Checker) {
        match read {
            Line::Row(fields) => self.row(fields, checker),
            Line::Unreadable(why) => {
                self.problems.file(why);
                self.rows += 1;
            }
            Line::File(problem) => self.problems.file(problem),
            Line::Field(problem) => self.problems.found.push(problem),
        }
    }

    fn row(&mut self, fields: StringRecord, checker: &mut dyn Checker) {
        self.rows += 1;
        let row = Row::new(self.rows, fields);
        self.column_sums.add(row.fields().iter());
        if !sum_matches(row.fields(), self.sum) {
            self.changed_rows.push(row.number);
        }
        self.numbering.see(&row, &mut self.problems);
        checker.row(row, &mut self.problems);
    }
}

fn read_csv(data: &mut impl Read, names: &[String], feed: &mut Feed) -> std::io::Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 16)
        .from_reader(data);
    let mut record = StringRecord::new();
    let mut header = true;
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(error) => {
                feed.push(Line::File(format!(
                    "data line {}: not CSV: {error}",
                    feed.lines + 1
                )));
                return Ok(());
            }
        }
        if header {
            header = false;
            if record.iter().ne(names.iter().map(String::as_str)) {
                feed.push(Line::File(format!(
                    "the header line is not the manifest's columns: {:?}",
                    record.iter().collect::<Vec<_>>()
                )));
            }
            continue;
        }
        if record.len() != names.len() {
            feed.push(Line::File(format!(
                "data line {}: {} fields, not {}",
                feed.lines + 1,
                record.len(),
                names.len()
            )));
            continue;
        }
        // The next row is read into a record of this one's size.
        let next = StringRecord::with_capacity(record.as_slice().len(), record.len());
        feed.row(std::mem::replace(&mut record, next));
    }
}

fn read_jsonl(
    data: &mut impl BufRead,
    kinds: &[(&str, ColumnKind)],
    feed: &mut Feed,
) -> std::io::Result<()> {
    let mut line = String::new();
    loop {
        line.clear();
        if data.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let number = feed.lines + 1;
        // Each member's value is read as the text it is in the line and turned into the
        // field's text by itself: no value is built for an event's 1.7 KB of details.
        let object: Members<'_> = match serde_json::from_str(line.trim_end_matches('\n')) {
            Ok(object) => object,
            Err(error) => {
                feed.push(Line::Unreadable(format!(
                    "data line {number}: not a JSON object: {error}"
                )));
                continue;
            }
        };
        let mut fields = StringRecord::with_capacity(line.len(), kinds.len());
        let mut wrong = Vec::new();
        for (at, (name, kind)) in kinds.iter().enumerate() {
            let raw = object.get(at, name).map_or("null", RawValue::get);
            match text_of(raw, *kind) {
                Some(text) => fields.push_field(&text),
                None => {
                    wrong.push(*name);
                    fields.push_field(raw);
                }
            }
        }
        let extra: Vec<&str> = object
            .0
            .iter()
            .map(|(k, _)| k.as_ref())
            .filter(|k| !kinds.iter().any(|(name, _)| name == k))
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .collect();
        if !extra.is_empty() {
            feed.push(Line::File(format!(
                "data line {number}: unknown fields {extra:?}"
            )));
        }
        for name in wrong {
            feed.push(Line::Field(Problem {
                row: Some(number),
                field: Some(name.to_owned()),
                message: "a value of the wrong type".to_owned(),
            }));
        }
        feed.row(fields);
    }
}

/// A JSON Lines row's members in the order the line has them, each value as its text there
/// (read into a map, each row cost a key allocated and a tree node per member).
struct Members<'a>(Vec<(Key<'a>, &'a RawValue)>);

impl<'a> Members<'a> {
    /// The value of member `name`, expected `at` that place (the export writes the columns in
    /// order); a key named twice is read as its last value.
    fn get(&self, at: usize, name: &str) -> Option<&'a RawValue> {
        match self.0.get(at) {
            Some((key, value))
                if key.as_ref() == name
                    && self.0[at + 1..].iter().all(|(k, _)| k.as_ref() != name) =>
            {
                Some(value)
            }
            _ => self
                .0
                .iter()
                .rev()
                .find(|(k, _)| k.as_ref() == name)
                .map(|(_, v)| *v),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(20));
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        reader.deserialize_map(Visit)
    }
}

/// A member's name: borrowed from the line unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl AsRef<str> for Key<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member's name")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        reader.deserialize_str(Visit)
    }
}

/// The text the sums cover of a member's JSON value `raw` (as it is in the line), if it is
/// of the column's kind: empty for null, a string's text, a whole number or a boolean as
/// written, and a JSON value as it is (the export writes its canonical form: keys sorted, no
/// white space, the bytes serde_json writes a value in).
fn text_of(raw: &str, kind: ColumnKind) -> Option<String> {
    match (raw.as_bytes().first(), kind) {
        (Some(b'n'), _) if raw == "null" => Some(String::new()),
        // A string without escapes is its text between the quotes.
        (Some(b'"'), ColumnKind::Text) => match raw.get(1..raw.len() - 1) {
            Some(text) if raw.ends_with('"') && !text.contains(['\\', '"']) => {
                Some(text.to_owned())
            }
            _ => serde_json::from_str(raw).ok(),
        },
        // A whole number already written as serde_json writes it is itself.
        (Some(b'-' | b'0'..=b'9'), ColumnKind::Int) => match raw.parse::<i64>() {
            Ok(n) if n.to_string() == raw => Some(raw.to_owned()),
            _ => match serde_json::from_str(raw).ok()? {
                serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
                _ => None,
            },
        },
        (Some(b't' | b'f'), ColumnKind::Bool) => match raw {
            "true" | "false" => Some(raw.to_owned()),
            _ => None,
        },
        // Any other spelling of the same value is a change to the file, found by the row's and
        // the column's sums. (The line was read as JSON, so this is JSON.)
        (_, ColumnKind::Json) => Some(raw.to_owned()),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A member is found at its column's place or anywhere else; named twice, its last value
    /// is read (as a map would); a name with escapes is read too.
    #[test]
    fn a_lines_members_are_found_wherever_they_are() {
        let line = r#"{"row":1,"b":2,"a":3,"a":4,"\u0063":5}"#;
        let members: Members<'_> = serde_json::from_str(line).unwrap();
        let get = |at, name| members.get(at, name).map(RawValue::get);
        assert_eq!(get(0, "row"), Some("1"));
        assert_eq!(get(1, "b"), Some("2"));
        assert_eq!(get(0, "b"), Some("2"));
        assert_eq!(get(2, "a"), Some("4"));
        assert_eq!(get(3, "a"), Some("4"));
        assert_eq!(get(4, "c"), Some("5"));
        assert_eq!(get(1, "d"), None);
        assert!(serde_json::from_str::<Members<'_>>("[1]").is_err());
    }

    /// A JSON Lines member's text is the text serde_json writes its value in, for the
    /// column's kind (a JSON value's, as it is); a value of another kind has none.
    #[test]
    fn a_members_text_is_its_value_as_written_and_a_wrong_kind_has_none() {
        let text = text_of;
        for kind in [
            ColumnKind::Int,
            ColumnKind::Text,
            ColumnKind::Bool,
            ColumnKind::Json,
        ] {
            assert_eq!(text("null", kind).as_deref(), Some(""));
        }
        assert_eq!(text("-42", ColumnKind::Int).as_deref(), Some("-42"));
        assert_eq!(
            text("18446744073709551615", ColumnKind::Int).as_deref(),
            Some("18446744073709551615")
        );
        for not_whole in ["1.5", "1e3", "\"7\"", "true", "nul", "[1]"] {
            assert_eq!(text(not_whole, ColumnKind::Int), None, "{not_whole}");
        }
        assert_eq!(
            text(r#""tab\t \"q\" \u00e9""#, ColumnKind::Text).as_deref(),
            Some("tab\t \"q\" é")
        );
        assert_eq!(text("12", ColumnKind::Text), None);
        assert_eq!(text("\"unterminated", ColumnKind::Text), None);
        assert_eq!(text("false", ColumnKind::Bool).as_deref(), Some("false"));
        for not_bool in ["1", "\"true\"", "truth"] {
            assert_eq!(text(not_bool, ColumnKind::Bool), None, "{not_bool}");
        }
        // Spelled otherwise than the export writes it (spaced, keys out of order, a key named
        // twice, which serde_json would read as its last value): kept as it is, so the row's
        // and the column's sums find the change.
        for details in [
            r#"{"a":[true,"xA"],"b":1.5}"#,
            r#"{ "b": 1.50, "a": [true, "x\u0041"] }"#,
            r#"{"a": 1, "a": 2}"#,
        ] {
            assert_eq!(text(details, ColumnKind::Json).as_deref(), Some(details));
        }
        assert_eq!(text("\"a\"", ColumnKind::Json).as_deref(), Some("\"a\""));
    }
}
