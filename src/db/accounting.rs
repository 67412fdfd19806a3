//! Table accounting's rows and queries (docs/accounting.md): chip sets and their versions, and
//! each table's par versions. Versions are only ever inserted (a trigger refuses changes).
//! The decisions and the words a person reads are in `crate::accounting`.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use crate::db::ids::{ChipSetId, ChipSetVersionId, ParId, TableId, UserId};
use crate::db::schema::{chip_set_versions, chip_sets, gaming_tables, table_pars};
use crate::rules::money::Money;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = chip_sets)]
pub struct ChipSet {
    pub id: ChipSetId,
    pub currency: String,
    pub created_at: DateTime<Utc>,
}

/// A chip set version as stored: its denominations in minor units, ascending (a database check
/// holds them to non-null values above zero).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = chip_set_versions)]
pub struct ChipSetVersionRow {
    pub id: ChipSetVersionId,
    pub chip_set_id: ChipSetId,
    pub version: i32,
    pub denominations: Vec<Option<i64>>,
    pub created_by: Option<UserId>,
    pub created_at: DateTime<Utc>,
}

/// A table's par version as stored: chips of each denomination of `chip_set_version_id`, in
/// its order, and their total.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = table_pars)]
pub struct ParRow {
    pub id: ParId,
    pub table_id: TableId,
    pub version: i32,
    pub chip_set_version_id: ChipSetVersionId,
    pub counts: Vec<Option<i64>>,
    #[diesel(deserialize_as = i64)]
    pub total: Money,
    pub created_by: Option<UserId>,
    pub created_at: DateTime<Utc>,
}

/// The table a par belongs to: what its page names.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = gaming_tables)]
pub struct ParTable {
    pub id: TableId,
    pub code: String,
    pub name: String,
    pub currency: String,
}

/// Every chip set, by currency.
pub fn chip_sets(conn: &mut PgConnection) -> QueryResult<Vec<ChipSet>> {
    chip_sets::table
        .order(chip_sets::currency.asc())
        .select(ChipSet::as_select())
        .load(conn)
}

/// Every chip set version, by chip set and version.
pub fn chip_set_versions(conn: &mut PgConnection) -> QueryResult<Vec<ChipSetVersionRow>> {
    chip_set_versions::table
        .order((
            chip_set_versions::chip_set_id.asc(),
            chip_set_versions::version.asc(),
        ))
        .select(ChipSetVersionRow::as_select())
        .load(conn)
}

/// Inserts a chip set; a currency that has one already fails with a unique violation.
pub fn insert_chip_set(conn: &mut PgConnection, currency: &str) -> QueryResult<ChipSet> {
    diesel::insert_into(chip_sets::table)
        .values(chip_sets::currency.eq(currency))
        .returning(ChipSet::as_returning())
        .get_result(conn)
}

/// The chip set, locked until the transaction ends (so that two editors cannot both pick the
/// same next version number).
pub fn lock_chip_set(conn: &mut PgConnection, id: ChipSetId) -> QueryResult<Option<ChipSet>> {
    chip_sets::table
        .find(id)
        .select(ChipSet::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// The newest version of a chip set.
pub fn latest_chip_set_version(
    conn: &mut PgConnection,
    id: ChipSetId,
) -> QueryResult<Option<ChipSetVersionRow>> {
    chip_set_versions::table
        .filter(chip_set_versions::chip_set_id.eq(id))
        .order(chip_set_versions::version.desc())
        .select(ChipSetVersionRow::as_select())
        .first(conn)
        .optional()
}

/// The newest chip set version of a currency.
pub fn latest_chip_set_version_of(
    conn: &mut PgConnection,
    currency: &str,
) -> QueryResult<Option<ChipSetVersionRow>> {
    chip_set_versions::table
        .inner_join(chip_sets::table)
        .filter(chip_sets::currency.eq(currency))
        .order(chip_set_versions::version.desc())
        .select(ChipSetVersionRow::as_select())
        .first(conn)
        .optional()
}

pub fn chip_set_version(
    conn: &mut PgConnection,
    id: ChipSetVersionId,
) -> QueryResult<Option<ChipSetVersionRow>> {
    chip_set_versions::table
        .find(id)
        .select(ChipSetVersionRow::as_select())
        .first(conn)
        .optional()
}

pub fn insert_chip_set_version(
    conn: &mut PgConnection,
    chip_set: ChipSetId,
    version: i32,
    denominations: &[Money],
    created_by: Option<UserId>,
) -> QueryResult<ChipSetVersionRow> {
    let minor: Vec<i64> = denominations.iter().map(|d| d.minor_units()).collect();
    diesel::insert_into(chip_set_versions::table)
        .values((
            chip_set_versions::chip_set_id.eq(chip_set),
            chip_set_versions::version.eq(version),
            chip_set_versions::denominations.eq(minor),
            chip_set_versions::created_by.eq(created_by),
        ))
        .returning(ChipSetVersionRow::as_returning())
        .get_result(conn)
}

/// The table, locked until the transaction ends (one par version at a time per table).
pub fn lock_par_table(conn: &mut PgConnection, id: TableId) -> QueryResult<Option<ParTable>> {
    gaming_tables::table
        .find(id)
        .select(ParTable::as_select())
        .for_update()
        .first(conn)
        .optional()
}

pub fn par_table(conn: &mut PgConnection, id: TableId) -> QueryResult<Option<ParTable>> {
    gaming_tables::table
        .find(id)
        .select(ParTable::as_select())
        .first(conn)
        .optional()
}

/// Every par version of a table, oldest first.
pub fn pars(conn: &mut PgConnection, table: TableId) -> QueryResult<Vec<ParRow>> {
    table_pars::table
        .filter(table_pars::table_id.eq(table))
        .order(table_pars::version.asc())
        .select(ParRow::as_select())
        .load(conn)
}

/// The table's newest par version: the one in force.
pub fn latest_par(conn: &mut PgConnection, table: TableId) -> QueryResult<Option<ParRow>> {
    table_pars::table
        .filter(table_pars::table_id.eq(table))
        .order(table_pars::version.desc())
        .select(ParRow::as_select())
        .first(conn)
        .optional()
}

pub fn insert_par(
    conn: &mut PgConnection,
    table: TableId,
    version: i32,
    chip_set_version: ChipSetVersionId,
    counts: &[i64],
    total: Money,
    created_by: Option<UserId>,
) -> QueryResult<ParRow> {
    diesel::insert_into(table_pars::table)
        .values((
            table_pars::table_id.eq(table),
            table_pars::version.eq(version),
            table_pars::chip_set_version_id.eq(chip_set_version),
            table_pars::counts.eq(counts),
            table_pars::total.eq(total.minor_units()),
            table_pars::created_by.eq(created_by),
        ))
        .returning(ParRow::as_returning())
        .get_result(conn)
}
