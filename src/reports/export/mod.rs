//! Exports that verify offline: settled rounds (one row per place), audit events, the
//! gaming-day report's lines, table accounting's documents, the compliance records and players'
//! ratings (each with the rounds it was computed from), as CSV or JSON Lines, streamed from one database snapshot and
//! ended by a manifest (the file's last line) that states the query, the row count, the
//! SHA-256 of the data, the CRC-32 of each column, the chain heads and day seals that cover the
//! range, and where a read replica stood.
//!
//! Every data row starts with its number (`row`, from 1) and ends with `row_crc32`, the CRC-32
//! of its fields: a changed field shows as its row's sum and its column's sum disagreeing,
//! which names both (the data's SHA-256 finds any change). [`verify`] checks a file with no
//! database.
//!
//! The file:
//! - CSV: a header line of the column names, one line per row, and the trailer record
//!   `#manifest,"{...}"` (the manifest as JSON in the second field).
//! - JSON Lines: one object per row (column name to value), then `{"manifest": {...}}`.
//!
//! `data_sha256` is the SHA-256 of every byte before the trailer line.

mod accounting;
mod check;
mod compliance;
mod events;
mod ratings;
mod report;
mod rounds;
mod seals;
mod table;
pub mod verify;

use std::collections::BTreeMap;
use std::io::Write;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeDelta, Utc};
use diesel::PgConnection;
use serde::{Deserialize, Serialize};

use crate::db::export as db;
use crate::db::ids::TableId;

pub use check::Problem;
pub use table::Format;
pub use verify::{verify, verify_against, Verified, VerifyError};

/// What an export holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Rounds,
    Events,
    /// The gaming-day report's lines (the whole range, each day, table, dealer and shift).
    Report,
    /// Table accounting's documents, a row per line, and each table-day's reconciliation.
    Accounting,
    /// The cage's cash and the compliance cases with their transactions and decisions.
    Compliance,
    /// Players' ratings begun in the range, each with its pauses and the rounds it counts.
    Ratings,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rounds => "rounds",
            Kind::Events => "events",
            Kind::Report => "report",
            Kind::Accounting => "accounting",
            Kind::Compliance => "compliance",
            Kind::Ratings => "ratings",
        }
    }
}

/// An export's query: gaming days `from` to `to` (both included), one table or all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub kind: Kind,
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// A table code; `None`: every table (and, for events, the `system` and `day` chains).
    pub table: Option<String>,
}

/// The casino's clock: how gaming days map to UTC and how local times are written.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub utc_offset: FixedOffset,
    pub gaming_day_start: NaiveTime,
}

impl Clock {
    /// When gaming day `day` starts, in UTC.
    pub fn day_start(&self, day: NaiveDate) -> DateTime<Utc> {
        let local = day.and_time(self.gaming_day_start);
        (local - TimeDelta::seconds(i64::from(self.utc_offset.local_minus_utc()))).and_utc()
    }

    /// `at` in local time with its offset, `2026-03-01 22:05:03.123456 +08:00`.
    pub fn local(&self, at: DateTime<Utc>) -> String {
        let mut out = String::with_capacity(33);
        self.write_local(at, &mut out);
        out
    }

    /// Appends [`Clock::local`]'s text to `out`: written field by field, as a format string
    /// is parsed again on every call (a test holds the two the same).
    pub fn write_local(&self, at: DateTime<Utc>, out: &mut String) {
        use crate::db::audit_log::{push_digits, write_date, write_time_of_day};
        use chrono::{Datelike, Timelike};
        use std::fmt::Write as _;
        let local = at.with_timezone(&self.utc_offset);
        let offset = self.utc_offset.local_minus_utc();
        let nanos = local.nanosecond();
        if !(0..=9999).contains(&local.year()) || nanos >= 1_000_000_000 || offset % 60 != 0 {
            let _ = write!(out, "{}", local.format("%Y-%m-%d %H:%M:%S%.6f %:z"));
            return;
        }
        let (sign, minutes) = if offset < 0 {
            ('-', offset.unsigned_abs() / 60)
        } else {
            ('+', offset.unsigned_abs() / 60)
        };
        write_date(local.date_naive(), out);
        out.push(' ');
        write_time_of_day(&local, out);
        out.push(' ');
        out.push(sign);
        push_digits(minutes / 60, 2, out);
        out.push(':');
        push_digits(minutes % 60, 2, out);
    }
}

/// The exact text times are exported in (UTC, microseconds, as the audit hash covers them).
pub(crate) fn utc_text(at: DateTime<Utc>) -> String {
    let mut out = String::with_capacity(27);
    crate::db::audit_log::write_utc(at, &mut out);
    out
}

/// Why an export could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    BadQuery(String),
    #[error("{0}")]
    NotReplayed(String),
    #[error("database query failed: {0}")]
    Db(#[from] diesel::result::Error),
    #[error("writing the export: {0}")]
    Io(#[from] std::io::Error),
    #[error("writing the export: {0}")]
    Csv(#[from] csv::Error),
    #[error("stored data does not read: {0}")]
    Stored(String),
    #[error(transparent)]
    Copy(#[from] crate::db::audit_copy::CopyError),
}

impl Query {
    /// Checks the range: `from` not after `to`, and at most `max_days` days.
    pub fn checked(self, max_days: i64) -> Result<Query, ExportError> {
        if self.from > self.to {
            return Err(ExportError::BadQuery(format!(
                "the range starts ({}) after it ends ({})",
                self.from, self.to
            )));
        }
        let days = (self.to - self.from).num_days() + 1;
        if days > max_days {
            return Err(ExportError::BadQuery(format!(
                "the range is {days} gaming days; at most {max_days} per export"
            )));
        }
        Ok(self)
    }
}

/// Where the rows were read: the primary, or a standby and the WAL position it had replayed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// `primary` or `replica`.
    pub database: String,
    /// The standby's replayed WAL position when the export began (everything committed on the
    /// primary up to it is in the export).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_lsn: Option<String>,
    /// When the last transaction it had replayed was committed on the primary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_commit_at: Option<String>,
    /// The primary's WAL position the standby was found to have reached, when it was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_lsn: Option<String>,
    /// Why the range counts as replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<String>,
}

impl Source {
    pub fn primary() -> Source {
        Source {
            database: "primary".to_owned(),
            replay_lsn: None,
            replayed_commit_at: None,
            primary_lsn: None,
            covers: None,
        }
    }
}

/// Decides whether `read` may serve `query`, and what the manifest says of it. On a primary:
/// yes. On a standby: when every gaming day of the range is closed there (nothing more can be
/// recorded for it), or when it has replayed the primary's WAL position as it was when the
/// export began (waiting up to `wait` for it); otherwise the range is not yet replayed and the
/// export is refused. `primary` is `None` when the primary cannot be reached.
pub fn replay_check(
    read: &mut PgConnection,
    primary: Option<&mut PgConnection>,
    query: &Query,
    wait: std::time::Duration,
) -> Result<Source, ExportError> {
    let Some(replay) = db::replay_position(read)? else {
        return Ok(Source::primary());
    };
    let mut source = Source {
        database: "replica".to_owned(),
        replay_lsn: Some(replay.lsn.clone()),
        replayed_commit_at: replay.last_commit_at.map(utc_text),
        primary_lsn: None,
        covers: None,
    };
    let days = (query.to - query.from).num_days() + 1;
    let closed = db::day_seals(read, query.from, query.to)?.len();
    if i64::try_from(closed).unwrap_or(0) == days {
        source.covers = Some("every gaming day of the range is closed".to_owned());
        return Ok(source);
    }
    let Some(primary) = primary else {
        return Err(ExportError::NotReplayed(format!(
            "gaming days {} to {} are not all closed and the primary cannot be asked how far \
             the replica must replay: export from the primary",
            query.from, query.to
        )));
    };
    let (target, target_bytes) = db::primary_position(primary)?;
    let started = std::time::Instant::now();
    let mut replay = replay;
    while replay.lsn_bytes < target_bytes && started.elapsed() < wait {
        std::thread::sleep(std::time::Duration::from_millis(50));
        replay = db::replay_position(read)?.unwrap_or(replay);
    }
    if replay.lsn_bytes < target_bytes {
        return Err(ExportError::NotReplayed(format!(
            "the range {} to {} is not yet replayed on the read replica: it has replayed to \
             LSN {} (last transaction committed {}), the primary is at LSN {}; wait, or export \
             from the primary",
            query.from,
            query.to,
            replay.lsn,
            replay
                .last_commit_at
                .map_or_else(|| "never".to_owned(), utc_text),
            target
        )));
    }
    source.replay_lsn = Some(replay.lsn);
    source.replayed_commit_at = replay.last_commit_at.map(utc_text);
    source.primary_lsn = Some(target);
    source.covers = Some("the replica had replayed the primary's position".to_owned());
    Ok(source)
}

/// The last line of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// `pusoy-pit export 1`.
    pub format: String,
    pub kind: Kind,
    pub query: QueryRecord,
    pub utc_offset: String,
    pub gaming_day_start: String,
    pub exported_at: String,
    pub source: Source,
    pub columns: Vec<String>,
    pub rows: u64,
    pub data_sha256: String,
    /// Each column's SHA-256, in the order of `columns` (formats 1 and 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_sha256: Vec<String>,
    /// Each column's CRC-32, in the order of `columns` (format 3, which writes no
    /// `column_sha256`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_crc32: Vec<String>,
    /// The chains covering the range: for events, each chain's part in the export (the event
    /// before it, its last event) and its head; for rounds, the heads of the tables' chains.
    pub chains: Vec<ChainRecord>,
    /// The closes of the range's gaming days.
    pub day_seals: Vec<SealRecord>,
    /// The profile versions the rounds were settled under, by id (rounds only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, ProfileRecord>,
    /// The unit of every amount in the rows: [`AMOUNTS`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub amounts: String,
    /// Each table's chain (`table:4`) and the table's code (`PUSOY-04`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tables: BTreeMap<String, String>,
}

/// What every amount of an export is: an integer in minor units of its row's currency.
pub const AMOUNTS: &str =
    "integers in minor units of the row's currency (cents: 150000 is PHP 1,500.00)";

/// The format written now.
/// - Format 2 writes an events export's rows in the order of the events' ids (each chain's in
///   sequence order) where format 1 wrote them chain after chain; the rounds and report
///   exports are the same in both.
/// - Format 3 sums each row and each column with a CRC-32 (`row_crc32`, `column_crc32`)
///   where formats 1 and 2 took SHA-256s (`row_sha256`, `column_sha256`): the sums only point
///   at the row and field that changed, which the data's SHA-256 finds (`table::Sums`). The
///   rows are in the order of format 2.
/// - Format 4 ties the rows to the sealed chain heads: the manifest's day seals carry the heads
///   each close sealed; an events export's parts run on to the heads the range's last close
///   sealed; a rounds export carries each round's `round.settled` event (`event_chain`,
///   `event_seq`, `event_hash`) and every event of its table's chain from the one before its
///   first round to that sealed head (`chain_events` on each round's first row, the rest in
///   the manifest's `tail`), so that `verify-export --seals` can walk the chain to the seals.
pub const FORMAT: &str = "pusoy-pit export 4";

/// The format before the rows were tied to the seals.
pub(crate) const FORMAT_3: &str = "pusoy-pit export 3";

/// The formats `verify-export` reads.
pub const FORMATS_READ: &[&str] = &["pusoy-pit export 1", "pusoy-pit export 2", FORMAT_3, FORMAT];

/// How the rows and columns of a file in format `format` (one of [`FORMATS_READ`]) are summed.
pub(crate) fn sums(format: &str) -> table::Sums {
    if format == FORMAT || format == FORMAT_3 {
        table::SUMS
    } else {
        table::Sums::Sha256
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryRecord {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub table: Option<String>,
    /// The range in UTC: from the start of gaming day `from` to the start of the day after `to`.
    pub window_from: String,
    pub window_to: String,
}

/// A position on a chain: a sequence number and the hash of that event (hex; seq 0 is the
/// chain's start, hash all zeros).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub seq: i64,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainRecord {
    pub chain: String,
    /// The event just before the export's first event of this chain (events; rounds since
    /// format 4: before the first event its rounds carry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Position>,
    /// The export's last event of this chain (events; rounds since format 4: the last event
    /// its rounds or `tail` carry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Position>,
    /// The chain's head when the export was read.
    pub head: Position,
    /// Rounds since format 4: the chain's events after its last exported round's event, up to
    /// the head sealed by the close of the range's last closed gaming day, each in its hashed
    /// (canonical) form, so that the rounds' events lead to that sealed head.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tail: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealRecord {
    pub gaming_day: NaiveDate,
    pub closed_at: String,
    /// The `day.closed` event on chain `day`.
    pub seal_seq: i64,
    pub seal_hash: String,
    /// The head of every chain the close sealed (format 4).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub heads: BTreeMap<String, Position>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileRecord {
    pub profile: String,
    pub version: i32,
    pub options: serde_json::Value,
}

/// How many rows an export wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub rows: u64,
}

/// Writes the export of `query` to `out`, read from `conn` in one snapshot, and its manifest.
pub fn export(
    conn: &mut PgConnection,
    query: &Query,
    clock: Clock,
    source: Source,
    format: Format,
    out: impl Write,
) -> Result<Written, ExportError> {
    let window = (
        clock.day_start(query.from),
        clock.day_start(query.to + TimeDelta::days(1)),
    );
    db::in_snapshot(conn, |conn| {
        if let Some(code) = &query.table {
            if db::tables(conn, Some(code))?.is_empty() {
                return Err(ExportError::BadQuery(format!("there is no table {code}")));
            }
        }
        let manifest = Manifest {
            format: FORMAT.to_owned(),
            kind: query.kind,
            query: QueryRecord {
                from: query.from,
                to: query.to,
                table: query.table.clone(),
                window_from: utc_text(window.0),
                window_to: utc_text(window.1),
            },
            utc_offset: clock.utc_offset.to_string(),
            gaming_day_start: clock.gaming_day_start.format("%H:%M").to_string(),
            exported_at: utc_text(Utc::now()),
            source,
            columns: Vec::new(),
            rows: 0,
            data_sha256: String::new(),
            column_sha256: Vec::new(),
            column_crc32: Vec::new(),
            chains: Vec::new(),
            day_seals: day_seals(conn, query)?,
            profiles: BTreeMap::new(),
            amounts: AMOUNTS.to_owned(),
            tables: db::tables(conn, None)?
                .into_iter()
                .map(|(id, code)| (crate::db::audit_log::table_chain(TableId(id)), code))
                .collect(),
        };
        match query.kind {
            Kind::Rounds => rounds::export(conn, query, clock, format, out, manifest),
            Kind::Events => events::export(conn, query, clock, window, format, out, manifest),
            Kind::Report => report::export(conn, query, clock, format, out, manifest),
            Kind::Accounting => accounting::export(conn, query, clock, format, out, manifest),
            Kind::Compliance => compliance::export(conn, query, clock, format, out, manifest),
            Kind::Ratings => ratings::export(conn, query, clock, format, out, manifest),
        }
    })
}

/// The seals of the closed gaming days of `query`'s range, each with the heads it sealed (read
/// from its `day.closed` event).
fn day_seals(conn: &mut PgConnection, query: &Query) -> Result<Vec<SealRecord>, ExportError> {
    let closes = db::day_seals(conn, query.from, query.to)?;
    let seqs: Vec<i64> = closes.iter().map(|close| close.seal_seq).collect();
    let details: BTreeMap<i64, String> = db::seal_heads(conn, &seqs)?.into_iter().collect();
    #[derive(Deserialize)]
    struct Sealed {
        #[serde(default)]
        heads: BTreeMap<String, Position>,
    }
    closes
        .into_iter()
        .map(|close| {
            let heads = match details.get(&close.seal_seq) {
                Some(text) => {
                    serde_json::from_str::<Sealed>(text)
                        .map_err(|e| {
                            ExportError::Stored(format!(
                                "the seal of {} (day seq {}): its heads do not read: {e}",
                                close.gaming_day, close.seal_seq
                            ))
                        })?
                        .heads
                }
                None => BTreeMap::new(),
            };
            Ok(SealRecord {
                gaming_day: close.gaming_day,
                closed_at: utc_text(close.closed_at),
                seal_seq: close.seal_seq,
                seal_hash: hex::encode(close.seal_hash),
                heads,
            })
        })
        .collect()
}

/// The head the range's last close (of `seals`, in day order) sealed on `chain`, if any.
fn last_sealed(seals: &[SealRecord], chain: &str) -> Option<Position> {
    seals
        .iter()
        .rev()
        .find_map(|seal| seal.heads.get(chain).cloned())
}

/// The head of every chain, by name.
fn heads(conn: &mut PgConnection) -> Result<BTreeMap<String, Position>, ExportError> {
    Ok(db::chain_heads(conn)?
        .into_iter()
        .map(|(chain, seq, hash)| {
            (
                chain,
                Position {
                    seq,
                    hash: hex::encode(hash),
                },
            )
        })
        .collect())
}

/// The heads of the chains of table `table` (a code), or of every table.
fn table_chains(
    conn: &mut PgConnection,
    table: Option<&str>,
) -> Result<Vec<ChainRecord>, ExportError> {
    let heads = heads(conn)?;
    Ok(db::tables(conn, table)?
        .into_iter()
        .filter_map(|(id, _)| {
            let chain = crate::db::audit_log::table_chain(crate::db::ids::TableId(id));
            let head = heads.get(&chain)?.clone();
            Some(ChainRecord {
                chain,
                before: None,
                last: None,
                head,
                tail: Vec::new(),
            })
        })
        .collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn local_times_are_written_as_the_format_string_writes_them() {
        let times = [
            Utc.with_ymd_and_hms(2026, 3, 1, 14, 5, 3).unwrap()
                + chrono::Duration::microseconds(123_456),
            Utc.with_ymd_and_hms(2026, 12, 31, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(1, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(9999, 12, 31, 20, 0, 0).unwrap(),
        ];
        for offset in [
            8 * 3600,
            -10 * 3600,
            0,
            5 * 3600 + 45 * 60,
            -(3600 + 30 * 60),
            17,
        ] {
            let clock = Clock {
                utc_offset: FixedOffset::east_opt(offset).unwrap(),
                gaming_day_start: NaiveTime::from_hms_opt(6, 0, 0).unwrap(),
            };
            for at in times {
                let expected = at
                    .with_timezone(&clock.utc_offset)
                    .format("%Y-%m-%d %H:%M:%S%.6f %:z")
                    .to_string();
                assert_eq!(clock.local(at), expected, "{at} at {offset}");
            }
        }
    }
}
