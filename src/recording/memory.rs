//! What this process remembers of each table after writing a round there, so that the next
//! whole round at that table can be made without reading first. Memos are only ever a guess: the
//! write checks, under lock, that the shift, the audit chain, the round number, the table's
//! settings and its profile's versions are still as remembered, and writes nothing otherwise.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use chrono::NaiveDate;
use diesel::{PgConnection, QueryResult};

use crate::db::audit_log::ChainHead;
use crate::db::ids::RoundId;
use crate::db::rounds::confirm;
use crate::db::shifts::Shift;
use crate::db::tables::PlayingTable;

/// What a table looked like right after this process wrote a round there.
#[derive(Debug, Clone)]
pub(crate) struct TableMemo {
    pub gaming_day: NaiveDate,
    pub table: PlayingTable,
    pub shift: Shift,
    pub head: ChainHead,
    /// The number of the round just written.
    pub last_no: i32,
}

/// Round ids taken from the sequence at a time, for rounds written without a read.
const ID_BLOCK: i64 = 64;

/// Each table's memo, by code, and round ids taken beforehand.
#[derive(Debug, Default)]
pub struct TableMemos {
    tables: Mutex<HashMap<String, TableMemo>>,
    round_ids: Mutex<Vec<RoundId>>,
    from_memory: AtomicU64,
    missed: AtomicU64,
}

impl TableMemos {
    pub(crate) fn recall(&self, code: &str, gaming_day: NaiveDate) -> Option<TableMemo> {
        let tables = self.tables.lock().ok()?;
        tables
            .get(code)
            .filter(|memo| memo.gaming_day == gaming_day)
            .cloned()
    }

    pub(crate) fn remember(&self, code: &str, memo: TableMemo) {
        if let Ok(mut tables) = self.tables.lock() {
            tables.insert(code.to_owned(), memo);
        }
    }

    pub(crate) fn forget(&self, code: &str) {
        if let Ok(mut tables) = self.tables.lock() {
            tables.remove(code);
        }
    }

    /// Counts a round written from a memo.
    pub(crate) fn written_from_memory(&self) {
        self.from_memory.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a round tried from a memo and not written that way (the memo was forgotten and
    /// the round left to be recorded after a read).
    pub(crate) fn missed(&self) {
        self.missed.fetch_add(1, Ordering::Relaxed);
    }

    /// How many rounds this process has written from memos (without a read first).
    pub fn rounds_from_memory(&self) -> u64 {
        self.from_memory.load(Ordering::Relaxed)
    }

    /// How many rounds this process tried to write from a memo and did not (something it
    /// remembered had moved, or the round was refused on what it remembered).
    pub fn misses(&self) -> u64 {
        self.missed.load(Ordering::Relaxed)
    }

    /// A round id from those taken from the sequence beforehand; `None` when none are left.
    pub(crate) fn take_round_id(&self) -> Option<RoundId> {
        self.round_ids.lock().ok()?.pop()
    }

    /// Takes another block of round ids from the sequence when fewer than half a block are
    /// left.
    pub fn top_up_round_ids(&self, conn: &mut PgConnection) -> QueryResult<()> {
        let left = self.round_ids.lock().map_or(0, |ids| ids.len());
        if i64::try_from(left).unwrap_or(i64::MAX) >= ID_BLOCK / 2 {
            return Ok(());
        }
        let mut block = confirm::next_round_ids(conn, ID_BLOCK)?;
        // Taken from the end: the lowest first.
        block.sort_unstable_by(|a, b| b.cmp(a));
        if let Ok(mut ids) = self.round_ids.lock() {
            block.extend(ids.drain(..));
            *ids = block;
        }
        Ok(())
    }
}
