//! Reading a chain's events in bulk for its check: `COPY (SELECT ...) TO STDOUT (FORMAT
//! binary)`, each row parsed where libpq put it. Read row by row as query results, every event
//! cost a result of its own, the row built field by field and eight strings and byte vectors
//! allocated, about as much CPU as hashing it (BENCHMARKS.md, "Details stored as hashed; chains
//! read through `COPY`").
//!
//! `COPY` takes no parameters, so the chain and the range are given as settings of the
//! transaction (`set_config(..., true)`, with bound values) which the statement reads; call it
//! inside a transaction (the check runs in one snapshot).

use std::io::BufRead;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::connection::SimpleConnection;
use diesel::pg::{CopyFormat, CopyTarget, Pg};
use diesel::prelude::*;
use diesel::query_builder::AstPass;
use diesel::sql_types::Text;

use crate::db::audit_log::{audit_event_columns, ChainedEvent, Details, HashBuffers, HashedFields};
use crate::db::ids::{TableId, UserId};
use crate::db::prepared::Sql;
use crate::db::schema::audit_events;

/// One event as the copy holds it, its texts and hashes borrowed from the row.
#[derive(Debug, Clone, Copy)]
pub struct EventRef<'a> {
    pub id: i64,
    pub chain: &'a str,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub actor_user_id: Option<UserId>,
    pub actor_name: &'a str,
    pub action: &'a str,
    pub target: &'a str,
    /// The stored text.
    pub details: &'a str,
    pub client_addr: Option<&'a str>,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<TableId>,
    pub prev_hash: &'a [u8],
    pub hash: &'a [u8],
}

impl ChainedEvent for EventRef<'_> {
    fn id(&self) -> i64 {
        self.id
    }
    fn seq(&self) -> i64 {
        self.seq
    }
    fn prev_hash(&self) -> &[u8] {
        self.prev_hash
    }
    fn hash(&self) -> &[u8] {
        self.hash
    }
    fn expected_hash(&self, prev_hash: &[u8], buffers: &mut HashBuffers) -> [u8; 32] {
        // Stored details are always JSON (PostgreSQL checks); a hash of nothing matches none.
        buffers
            .hash_against(prev_hash, &self.fields(), self.hash)
            .unwrap_or([0; 32])
    }
}

impl<'a> EventRef<'a> {
    /// The fields its hash covers, its details as stored.
    pub fn fields(&self) -> HashedFields<'a> {
        HashedFields {
            chain: self.chain,
            seq: self.seq,
            at: self.at,
            actor_user_id: self.actor_user_id,
            actor_name: self.actor_name,
            action: self.action,
            target: self.target,
            details: Details::Text(self.details),
            client_addr: self.client_addr,
            gaming_day: self.gaming_day,
            table_id: self.table_id,
        }
    }
}

/// Names the chain, the sequence number to read after and how many events at most, for the
/// statement of [`ChainAfter`] in this transaction. And turns sorting off for the transaction:
/// given a limit above a chain's length, the planner chose to read the chain's rows through a
/// bitmap and sort them (spilling to disk, with parallel workers: 35 ms for a chain of 5,077
/// events) over reading them in order from the `(chain, seq)` index (3.6 ms).
const SET_RANGE: &str = "SELECT set_config('pusoy.copy_chain', $1, true), \
                                set_config('pusoy.copy_after', $2, true), \
                                set_config('pusoy.copy_limit', $3, true), \
                                set_config('enable_sort', 'off', true)";

/// A statement whose rows are events (`id` and [`audit_event_columns!`], in order), to copy.
macro_rules! events_statement {
    ($(#[$doc:meta])* $name:ident, $select:expr) => {
        $(#[$doc])*
        struct $name;

        impl CopyTarget for $name {
            type Table = audit_events::table;
            type SqlType = diesel::sql_types::BigInt;

            fn walk_target(mut pass: AstPass<'_, '_, Pg>) -> QueryResult<()> {
                pass.push_sql($select);
                Ok(())
            }
        }
    };
}

events_statement!(
    /// The events of the chain named by the transaction's settings, after the sequence number
    /// it names, in order, at most as many as it names (read from the `(chain, seq)` index: the
    /// settings are stable within the statement, so the planner uses them as index keys).
    ChainAfter,
    concat!(
        "(SELECT id, ",
        audit_event_columns!(),
        " FROM audit_events \
          WHERE chain = current_setting('pusoy.copy_chain') \
            AND seq > current_setting('pusoy.copy_after')::int8 \
          ORDER BY seq \
          LIMIT current_setting('pusoy.copy_limit')::int8)"
    )
);

/// Why a copy could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    #[error("reading the copy of the audit events: {0}")]
    Io(#[from] std::io::Error),
    #[error("the copy of the audit events does not read: {0}")]
    Format(String),
}

/// Up to `limit` events of `chain` after `after_seq`, in order, to `each` until it says stop
/// (the rest of the copy is then read and dropped: a connection cannot leave a copy half
/// read). Returns how many rows the copy held.
pub fn each_after(
    conn: &mut PgConnection,
    chain: &str,
    after_seq: i64,
    limit: i64,
    each: &mut dyn FnMut(&EventRef<'_>) -> bool,
) -> Result<i64, CopyError> {
    Sql::new(SET_RANGE)
        .bind::<Text, _>(chain)
        .bind::<Text, _>(after_seq.to_string())
        .bind::<Text, _>(limit.to_string())
        .execute(conn)?;
    copy_events(conn, ChainAfter, each)
}

events_statement!(
    /// The events whose ids are in the range the transaction's settings name, in the order of
    /// their ids. Appended under its chain's lock, each event takes its id after the one before
    /// it on its chain, so each chain's events come in sequence order (a reader finding one out
    /// of order has found its ids changed, and reads that chain on its own). Read from the
    /// primary key's index, which follows the table as it was written: one pass over the heap,
    /// where reading chain after chain visits every page once per chain with an event on it
    /// (BENCHMARKS.md).
    IdRange,
    concat!(
        "(SELECT id, ",
        audit_event_columns!(),
        " FROM audit_events \
          WHERE id BETWEEN current_setting('pusoy.copy_first_id')::int8 \
                       AND current_setting('pusoy.copy_last_id')::int8 \
          ORDER BY id)"
    )
);

/// Names the range of ids for the statement of [`IdRange`] in this transaction, and turns
/// sorting off for the transaction as [`SET_RANGE`] does.
const SET_IDS: &str = "SELECT set_config('pusoy.copy_first_id', $1, true), \
                              set_config('pusoy.copy_last_id', $2, true), \
                              set_config('enable_sort', 'off', true)";

/// The events with ids in `ids`, in id order, to `each` until it says stop; returns how many
/// rows the copy held.
pub fn each_by_id(
    conn: &mut PgConnection,
    ids: std::ops::RangeInclusive<i64>,
    each: &mut dyn FnMut(&EventRef<'_>) -> bool,
) -> Result<i64, CopyError> {
    Sql::new(SET_IDS)
        .bind::<Text, _>(ids.start().to_string())
        .bind::<Text, _>(ids.end().to_string())
        .execute(conn)?;
    copy_events(conn, IdRange, each)
}

/// Runs the copy of `target` (whose rows are events) and hands each row to `each` until it
/// says stop; returns how many rows the copy held.
fn copy_events<T: CopyTarget>(
    conn: &mut PgConnection,
    target: T,
    each: &mut dyn FnMut(&EventRef<'_>) -> bool,
) -> Result<i64, CopyError> {
    let mut copy = diesel::copy_to(target)
        .with_format(CopyFormat::Binary)
        .load_raw(conn)?;
    read_header(&mut copy)?;
    let mut rows = 0;
    let mut wanted = true;
    // A row split across libpq's messages (PostgreSQL sends one a row) is put together here.
    let mut carry = Vec::new();
    'rows: loop {
        let buffer = copy.fill_buf()?;
        if buffer.is_empty() {
            return Err(CopyError::Format(
                "the copy ends without its trailer".to_owned(),
            ));
        }
        if carry.is_empty() {
            if let Some(len) = tuple_len(buffer) {
                let ended = take_row(&buffer[..len], &mut rows, &mut wanted, each)?;
                copy.consume(len);
                if ended {
                    break;
                }
                continue;
            }
        }
        let len = buffer.len();
        carry.extend_from_slice(buffer);
        copy.consume(len);
        while let Some(len) = tuple_len(&carry) {
            let ended = take_row(&carry[..len], &mut rows, &mut wanted, each)?;
            carry.drain(..len);
            if ended {
                break 'rows;
            }
        }
    }
    // What follows the trailer: nothing, read to the copy's end.
    while !copy.fill_buf()?.is_empty() {
        let len = copy.fill_buf()?.len();
        copy.consume(len);
    }
    drop(copy);
    // Diesel leaves the copy's closing result unread, and refuses the next statement until it is
    // ("another command is already in progress"); a simple query takes it first. A copy that
    // failed part-way has no trailer, found above.
    conn.batch_execute("SELECT 1")?;
    Ok(rows)
}

/// Hands one tuple to `each` (while it wants more); whether it was the trailer.
fn take_row(
    tuple: &[u8],
    rows: &mut i64,
    wanted: &mut bool,
    each: &mut dyn FnMut(&EventRef<'_>) -> bool,
) -> Result<bool, CopyError> {
    if tuple == TRAILER {
        return Ok(true);
    }
    *rows += 1;
    if *wanted {
        let event = parse_event(tuple)?;
        *wanted = each(&event);
    }
    Ok(false)
}

/// The binary copy's signature.
const SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";
/// The field count that ends the copy.
const TRAILER: &[u8] = &[0xff, 0xff];
/// Columns a row has.
const COLUMNS: i16 = 14;

fn read_header(copy: &mut impl BufRead) -> Result<(), CopyError> {
    let mut fixed = [0_u8; 19];
    copy.read_exact(&mut fixed)?;
    if &fixed[..11] != SIGNATURE {
        return Err(CopyError::Format("not a binary copy".to_owned()));
    }
    let flags = u32::from_be_bytes([fixed[11], fixed[12], fixed[13], fixed[14]]);
    // Bit 16 (rows with OIDs) and above are flags a reader must understand; none is asked for.
    if flags >> 16 != 0 {
        return Err(CopyError::Format(format!(
            "unknown header flags {flags:#x}"
        )));
    }
    let extension = u32::from_be_bytes([fixed[15], fixed[16], fixed[17], fixed[18]]);
    std::io::copy(
        &mut std::io::Read::take(&mut *copy, u64::from(extension)),
        &mut std::io::sink(),
    )?;
    Ok(())
}

/// The length of the tuple (or trailer) at the start of `buffer`, if all of it is there.
fn tuple_len(buffer: &[u8]) -> Option<usize> {
    let count = i16::from_be_bytes(buffer.first_chunk::<2>().copied()?);
    let mut at = 2;
    for _ in 0..count.max(0) {
        let len = i32::from_be_bytes(buffer.get(at..at + 4)?.try_into().ok()?);
        at += 4;
        if let Ok(len) = usize::try_from(len) {
            at += len;
        }
    }
    (at <= buffer.len()).then_some(at)
}

/// PostgreSQL's epoch (2000-01-01) in Unix microseconds, and in days from the Common Era.
const PG_EPOCH_UNIX_MICROS: i64 = 946_684_800_000_000;
const PG_EPOCH_DAYS_FROM_CE: i32 = 730_120;

/// The fields of one tuple, in order.
struct Fields<'a> {
    tuple: &'a [u8],
    at: usize,
    column: usize,
}

impl<'a> Fields<'a> {
    fn bad(&self, what: &str) -> CopyError {
        CopyError::Format(format!("column {} {what}", self.column))
    }

    /// The next field's bytes, or `None` for NULL.
    fn next(&mut self) -> Result<Option<&'a [u8]>, CopyError> {
        self.column += 1;
        let len = self
            .tuple
            .get(self.at..self.at + 4)
            .and_then(|b| b.try_into().ok())
            .map(i32::from_be_bytes)
            .ok_or_else(|| self.bad("is cut short"))?;
        self.at += 4;
        let Ok(len) = usize::try_from(len) else {
            return Ok(None);
        };
        let bytes = self
            .tuple
            .get(self.at..self.at + len)
            .ok_or_else(|| self.bad("is cut short"))?;
        self.at += len;
        Ok(Some(bytes))
    }

    fn required(&mut self) -> Result<&'a [u8], CopyError> {
        self.next()?.ok_or_else(|| self.bad("is NULL"))
    }

    fn int8(&mut self) -> Result<Option<i64>, CopyError> {
        match self.next()? {
            None => Ok(None),
            Some(bytes) => bytes
                .try_into()
                .map(|b| Some(i64::from_be_bytes(b)))
                .map_err(|_| self.bad("is not an int8")),
        }
    }

    fn required_int8(&mut self) -> Result<i64, CopyError> {
        self.int8()?.ok_or_else(|| self.bad("is NULL"))
    }

    fn text(&mut self) -> Result<Option<&'a str>, CopyError> {
        match self.next()? {
            None => Ok(None),
            Some(bytes) => std::str::from_utf8(bytes)
                .map(Some)
                .map_err(|_| self.bad("is not UTF-8")),
        }
    }

    fn required_text(&mut self) -> Result<&'a str, CopyError> {
        self.text()?.ok_or_else(|| self.bad("is NULL"))
    }

    fn timestamptz(&mut self) -> Result<DateTime<Utc>, CopyError> {
        let micros = self.required_int8()?;
        micros
            .checked_add(PG_EPOCH_UNIX_MICROS)
            .and_then(DateTime::from_timestamp_micros)
            .ok_or_else(|| self.bad("is a time out of range"))
    }

    fn date(&mut self) -> Result<Option<NaiveDate>, CopyError> {
        let Some(bytes) = self.next()? else {
            return Ok(None);
        };
        let days = bytes
            .try_into()
            .map(i32::from_be_bytes)
            .map_err(|_| self.bad("is not a date"))?;
        days.checked_add(PG_EPOCH_DAYS_FROM_CE)
            .and_then(NaiveDate::from_num_days_from_ce_opt)
            .map(Some)
            .ok_or_else(|| self.bad("is a date out of range"))
    }
}

/// The event of one tuple of the copies' columns.
fn parse_event(tuple: &[u8]) -> Result<EventRef<'_>, CopyError> {
    let count = tuple
        .first_chunk::<2>()
        .map(|b| i16::from_be_bytes(*b))
        .unwrap_or(0);
    if count != COLUMNS {
        return Err(CopyError::Format(format!(
            "a row of {count} columns, not {COLUMNS}"
        )));
    }
    let mut fields = Fields {
        tuple,
        at: 2,
        column: 0,
    };
    Ok(EventRef {
        id: fields.required_int8()?,
        chain: fields.required_text()?,
        seq: fields.required_int8()?,
        at: fields.timestamptz()?,
        actor_user_id: fields.int8()?.map(UserId),
        actor_name: fields.required_text()?,
        action: fields.required_text()?,
        target: fields.required_text()?,
        details: fields.required_text()?,
        client_addr: fields.text()?,
        gaming_day: fields.date()?,
        table_id: fields.int8()?.map(TableId),
        prev_hash: fields.required()?,
        hash: fields.required()?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn postgresql_epochs_are_the_first_of_january_2000() {
        assert_eq!(
            DateTime::from_timestamp_micros(PG_EPOCH_UNIX_MICROS).unwrap(),
            "2000-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            NaiveDate::from_num_days_from_ce_opt(PG_EPOCH_DAYS_FROM_CE).unwrap(),
            NaiveDate::from_ymd_opt(2000, 1, 1).unwrap()
        );
    }

    fn field(bytes: Option<&[u8]>) -> Vec<u8> {
        match bytes {
            None => (-1_i32).to_be_bytes().to_vec(),
            Some(bytes) => {
                let mut out = i32::try_from(bytes.len()).unwrap().to_be_bytes().to_vec();
                out.extend_from_slice(bytes);
                out
            }
        }
    }

    fn tuple() -> Vec<u8> {
        let mut out = COLUMNS.to_be_bytes().to_vec();
        for f in [
            Some(7_i64.to_be_bytes().to_vec()),
            Some(b"table:3".to_vec()),
            Some(5_i64.to_be_bytes().to_vec()),
            Some(1_000_000_i64.to_be_bytes().to_vec()),
            None,
            Some(b"ann".to_vec()),
            Some(b"round.settled".to_vec()),
            Some(b"round:9".to_vec()),
            Some(br#"{"a":1}"#.to_vec()),
            Some(b"10.0.0.1".to_vec()),
            Some(366_i32.to_be_bytes().to_vec()),
            Some(3_i64.to_be_bytes().to_vec()),
            Some(vec![1; 32]),
            Some(vec![2; 32]),
        ] {
            out.extend(field(f.as_deref()));
        }
        out
    }

    #[test]
    fn a_tuple_reads_as_its_event() {
        let tuple = tuple();
        assert_eq!(tuple_len(&tuple), Some(tuple.len()));
        assert_eq!(tuple_len(&tuple[..tuple.len() - 1]), None);
        assert_eq!(tuple_len(TRAILER), Some(2));
        let event = parse_event(&tuple).unwrap();
        assert_eq!(
            (event.id, event.chain, event.seq, event.actor_user_id),
            (7, "table:3", 5, None)
        );
        assert_eq!(
            event.at,
            "2000-01-01T00:00:01Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            (event.actor_name, event.action, event.target, event.details),
            ("ann", "round.settled", "round:9", r#"{"a":1}"#)
        );
        assert_eq!(event.client_addr, Some("10.0.0.1"));
        assert_eq!(event.gaming_day, NaiveDate::from_ymd_opt(2001, 1, 1));
        assert_eq!(event.table_id, Some(TableId(3)));
        assert_eq!((event.prev_hash, event.hash), (&[1; 32][..], &[2; 32][..]));
    }

    #[test]
    fn a_tuple_that_does_not_read_says_where() {
        let mut short = tuple();
        short.truncate(short.len() - 40);
        assert!(parse_event(&short)
            .unwrap_err()
            .to_string()
            .contains("column 13 is cut short"));
        let mut wrong = tuple();
        wrong[..2].copy_from_slice(&3_i16.to_be_bytes());
        assert!(parse_event(&wrong)
            .unwrap_err()
            .to_string()
            .contains("a row of 3 columns"));
    }
}
