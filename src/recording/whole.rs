//! A whole round recorded in one call (`PUT /api/v1/tables/{code}/rounds/{key}`), for casino
//! systems that send rounds complete.
//!
//! A whole round at a table this process wrote the last round of skips the read: it is made in
//! the request's handler from what [`TableMemos`] remembers ([`record_remembered`]) and written
//! by the [`RoundWriter`] together with the other tables' rounds waiting, in one statement
//! whose checks decide as the read would have; one that does not pass them is recorded with
//! [`record`], which reads first.

use chrono::NaiveDate;
use diesel::PgConnection;

use crate::db::audit_log::{Actor, ChainHead};
use crate::db::rounds::confirm::{self, EntryRow, TokenToCheck};
use crate::db::rounds::rows::{self, SettledRound};
use crate::db::shifts::Shift;
use crate::db::tables::PlayingTable;
use crate::recording::entry::FieldErrors;
use crate::recording::memory::{TableMemo, TableMemos};
use crate::recording::write::{
    not_held, settle_entered, shift_and_head, until_written, Attempt, Entered, RoundToSettle,
    Settled, Slot,
};
use crate::recording::writer::RoundWriter;
use crate::recording::{may_read, Belongs, RoundsError, Writer};

/// Who enters a round, and when, under which one-time key.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub key: &'a str,
    pub gaming_day: NaiveDate,
    pub writer: Writer,
    pub actor: &'a Actor,
}

impl<'a> Entry<'a> {
    /// The round to settle under this entry's key, at `table`.
    /// The round sent whole by the writer, who so entered it alone.
    pub(crate) fn round_to_settle<'b>(
        &'b self,
        table: &'b PlayingTable,
        settled: &'b Settled,
    ) -> RoundToSettle<'b> {
        RoundToSettle {
            key: self.key,
            table,
            gaming_day: self.gaming_day,
            writer: self.writer,
            actor: self.actor,
            settled,
            entered_by: std::slice::from_ref(&self.writer.user),
        }
    }
}

impl TableMemo {
    fn after(written: &RoundToSettle<'_>, slot: Slot, shift: Shift, head: ChainHead) -> Self {
        TableMemo {
            gaming_day: written.gaming_day,
            table: written.table.clone(),
            shift,
            head,
            last_no: slot.last_no + 1,
        }
    }
}

/// Whether a caller's one-time key is usable: 8 to 64 letters, digits and `.`, `_`, `:`, `-`.
pub fn check_key(key: &str) -> Result<(), RoundsError> {
    let usable = (8..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if usable {
        Ok(())
    } else {
        let mut errors = FieldErrors::default();
        errors.add(
            "key",
            "the round's key must be 8 to 64 letters, digits, '.', '_', ':' or '-'",
        );
        Err(RoundsError::Invalid(errors))
    }
}

/// Records and settles the whole round `body` (JSON, read as a round of the table's game) at
/// the table `code` under the caller's one-time key (checked with [`check_key`] first), without
/// a draft: validates and settles it under the table's rules as read,
/// checks the writer's shift, numbers the round, stores it and appends `round.settled`, in one
/// statement (see [`crate::db::rounds::sql`]). Recording the same key again returns the round
/// already stored (`false`); a key already used at another table, or by a draft, is refused.
pub fn record(
    conn: &mut PgConnection,
    memos: &TableMemos,
    code: &str,
    entry: &Entry<'_>,
    body: &[u8],
) -> Result<(SettledRound, PlayingTable, bool), RoundsError> {
    let recorded = until_written(conn, code, |conn| {
        let read = confirm::read_entry(conn, code, entry.gaming_day, entry.key)?
            .ok_or_else(|| RoundsError::NoTable(code.to_owned()))?;
        let table = read.table().map_err(RoundsError::from)?;
        let entered = Entered::read(body, table.game()).map_err(Attempt::Failed)?;
        let settled = settle_entered(&entered, &table).map_err(Attempt::Failed)?;
        if let Some(existing) = used_under(conn, &read, entry.key, &table)? {
            replayable(conn, &existing, entry, &settled)?;
            return Ok((existing, table, false));
        }
        let (shift, head) = shift_and_head(conn, &read, entry.writer)?;
        not_held(&read)?;
        let to_settle = entry.round_to_settle(&table, &settled);
        let slot = Slot::read(&read);
        let write = to_settle.prepare(slot, &shift, head, None)?;
        if confirm::write_whole_rounds(conn, std::slice::from_ref(&write))?.contains(&slot.round_id)
        {
            // The table as the write left it, for its next round.
            let head = write.event.head_after();
            memos.remember(code, TableMemo::after(&to_settle, slot, shift, head));
            Ok((write.settled(), table, true))
        } else {
            Err(Attempt::Moved)
        }
    })?;
    // Round ids for the next rounds written from memory (the round is written whatever this
    // says).
    if let Err(err) = memos.top_up_round_ids(conn) {
        tracing::warn!(error = %err, "cannot take round ids");
    }
    Ok(recorded)
}

/// Records the whole round `body` (JSON) at the table `code` from what this process remembers of
/// the table after its last round there ([`TableMemos`]), without reading first: `writer` writes
/// it with the other rounds waiting, and checks under lock that nothing it was made from has
/// moved (`token`, if any, included). `None` when there is nothing to go on, when the round
/// would be refused on what is remembered (the key included), or when something moved: nothing
/// is written, and the caller records the round with [`record`], which reads the table and gives
/// any refusal on the table as it is.
pub async fn record_remembered(
    writer: &RoundWriter,
    memos: &TableMemos,
    code: &str,
    entry: &Entry<'_>,
    body: &[u8],
    token: Option<TokenToCheck>,
) -> Option<(SettledRound, PlayingTable)> {
    check_key(entry.key).ok()?;
    let memo = memos.recall(code, entry.gaming_day)?;
    let forget = || {
        memos.forget(code);
        memos.missed();
        None
    };
    if entry.writer.may_enter(Some(&memo.shift), code).is_err() {
        return forget();
    }
    // A refusal is only given on the table as read: the memory may hold old limits or rules.
    let settled = Entered::read(body, memo.table.game())
        .and_then(|entered| settle_entered(&entered, &memo.table));
    let Ok(settled) = settled else {
        return forget();
    };
    let Some(round_id) = memos.take_round_id() else {
        memos.missed();
        return None;
    };
    let slot = Slot {
        round_id,
        last_no: memo.last_no,
    };
    let to_settle = entry.round_to_settle(&memo.table, &settled);
    let Ok(prepared) = to_settle.prepare(slot, &memo.shift, memo.head.clone(), token) else {
        return forget();
    };
    let (settled, head) = (prepared.settled(), prepared.event.head_after());
    if !writer.write(prepared).await {
        return forget();
    }
    memos.written_from_memory();
    memos.remember(
        code,
        TableMemo::after(&to_settle, slot, memo.shift.clone(), head),
    );
    Some((settled, memo.table))
}

/// Whether the round `existing`, stored under the caller's key, may be answered again to this
/// request: only to someone who may read it ([`may_read`]), and only if the request holds the
/// same round (`settled`): the same key with another round is refused,
/// not answered with the old one while the new one is dropped.
fn replayable(
    conn: &mut PgConnection,
    existing: &SettledRound,
    entry: &Entry<'_>,
    settled: &Settled,
) -> Result<(), RoundsError> {
    let writer = entry.writer;
    may_read(
        conn,
        writer.user,
        writer.role,
        Belongs::ToShift(existing.round.shift_id),
    )?;
    if rows::same_entries(&existing.places, &settled.place_rows()) {
        return Ok(());
    }
    let mut errors = FieldErrors::default();
    errors.add(
        "key",
        format!(
            "the key {} is already used for a different round; send the same round again, or \
             a new key for a new round",
            entry.key
        ),
    );
    Err(RoundsError::Invalid(errors))
}

/// The round already recorded under `key` at `table`; an error if the key is in use elsewhere.
fn used_under(
    conn: &mut PgConnection,
    read: &EntryRow,
    key: &str,
    table: &PlayingTable,
) -> Result<Option<SettledRound>, RoundsError> {
    if read.draft_id.is_some() {
        return Err(RoundsError::KeyTaken(key.to_owned()));
    }
    let Some(round_id) = read.key_round_id else {
        return Ok(None);
    };
    match rows::get_round(conn, round_id)? {
        Some(round) if round.round.table_id == table.table.id => Ok(Some(round)),
        Some(_) => Err(RoundsError::KeyTaken(key.to_owned())),
        None => Ok(None),
    }
}
