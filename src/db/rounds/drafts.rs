//! Round drafts: the round being entered at a table, one open draft per table, saved revision by
//! revision until it is confirmed (settled) or abandoned.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Nullable};
use serde::Serialize;
use serde_json::Value;

use crate::db::ids::{DraftId, DraftKey, RoundId, ShiftId, TableId, UserId};
use crate::db::schema::round_drafts;

/// A round being entered.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = round_drafts)]
pub struct Draft {
    pub id: DraftId,
    pub draft_key: DraftKey,
    pub table_id: TableId,
    pub shift_id: Option<ShiftId>,
    pub created_by: UserId,
    pub revision: i32,
    pub data: Value,
    pub settled_round_id: Option<RoundId>,
    /// Every account that saved the draft, in the order of their first save (a PostgreSQL
    /// array, whose elements the schema cannot declare not null; none is).
    pub edited_by: Vec<Option<UserId>>,
}

impl Draft {
    /// The accounts that saved the draft, in the order of their first save.
    pub fn editors(&self) -> Vec<UserId> {
        self.edited_by.iter().flatten().copied().collect()
    }
}

/// The table's open draft, if any.
pub fn open_draft_of(conn: &mut PgConnection, table: TableId) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::table_id.eq(table))
        .filter(round_drafts::settled_round_id.is_null())
        .filter(round_drafts::abandoned_at.is_null())
        .select(Draft::as_select())
        .first(conn)
        .optional()
}

/// Inserts an empty draft under `key` for `table`'s `shift`; `None` when the table already has
/// an open draft (two screens opening the table's round at once: the partial unique index lets
/// one insert win).
pub fn insert_draft(
    conn: &mut PgConnection,
    key: &DraftKey,
    table: TableId,
    shift: ShiftId,
    created_by: UserId,
) -> QueryResult<Option<Draft>> {
    diesel::insert_into(round_drafts::table)
        .values((
            round_drafts::draft_key.eq(key),
            round_drafts::table_id.eq(table),
            round_drafts::shift_id.eq(shift),
            round_drafts::created_by.eq(created_by),
            round_drafts::edited_by.eq(vec![Some(created_by)]),
        ))
        .on_conflict_do_nothing()
        .returning(Draft::as_returning())
        .get_result(conn)
        .optional()
}

/// The draft with this key, settled or not.
pub fn draft_by_key(conn: &mut PgConnection, key: &str) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .select(Draft::as_select())
        .first(conn)
        .optional()
}

/// The draft with this key, locked until the transaction ends.
pub fn lock_draft(conn: &mut PgConnection, key: &str) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .select(Draft::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Stores `data` as the draft's round at its next revision, for `shift`, saved by `editor`
/// (added to the draft's editors if not among them yet).
pub fn update_draft(
    conn: &mut PgConnection,
    draft: &Draft,
    shift: ShiftId,
    data: &Value,
    editor: UserId,
) -> QueryResult<Draft> {
    let edited_by = sql::<Array<Nullable<BigInt>>>("CASE WHEN ")
        .bind::<BigInt, _>(editor)
        .sql(" = ANY(edited_by) THEN edited_by ELSE array_append(edited_by, ")
        .bind::<BigInt, _>(editor)
        .sql(") END");
    diesel::update(round_drafts::table.find(draft.id))
        .set((
            round_drafts::edited_by.eq(edited_by),
            round_drafts::shift_id.eq(shift),
            round_drafts::revision.eq(draft.revision + 1),
            round_drafts::data.eq(data),
            round_drafts::updated_at.eq(diesel::dsl::now),
        ))
        .returning(Draft::as_returning())
        .get_result(conn)
}
