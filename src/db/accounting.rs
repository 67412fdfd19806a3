//! Table accounting's rows and queries (docs/accounting.md): chip sets and their versions,
//! each table's par versions, inventory slips (openers, closers) with their voids and
//! explanations. Versions are only ever inserted (a trigger refuses changes).
//! The decisions and the words a person reads are in `crate::accounting`.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;

use crate::db::ids::{ChipSetId, ChipSetVersionId, ParId, ShiftId, SlipId, TableId, UserId};
use crate::db::schema::{
    chip_set_versions, chip_sets, dealer_shifts, gaming_tables, inventory_slip_voids,
    inventory_slips, opener_explanations, round_drafts, table_pars, users,
};
use crate::rules::accounting::opener_holds;
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

/// A table inventory slip as stored (an opener or a closer): chips of each denomination of
/// `chip_set_version_id`, in its order, their total, the two signers, and an opener's check
/// against the previous closer.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = inventory_slips)]
pub struct SlipRow {
    pub id: SlipId,
    pub table_id: TableId,
    pub kind: String,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub chip_set_version_id: ChipSetVersionId,
    pub counts: Vec<Option<i64>>,
    #[diesel(deserialize_as = i64)]
    pub total: Money,
    pub par_id: Option<ParId>,
    pub dealer_id: UserId,
    pub supervisor_id: UserId,
    pub previous_closer_id: Option<SlipId>,
    pub difference: Option<i64>,
    pub difference_limit: Option<i64>,
    pub held: bool,
    pub created_at: DateTime<Utc>,
}

/// A slip to insert.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = inventory_slips)]
pub struct NewSlip<'a> {
    pub table_id: TableId,
    pub kind: &'a str,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub chip_set_version_id: ChipSetVersionId,
    pub counts: &'a [i64],
    pub total: i64,
    pub par_id: Option<ParId>,
    pub dealer_id: UserId,
    pub supervisor_id: UserId,
    pub previous_closer_id: Option<SlipId>,
    pub difference: Option<i64>,
    pub difference_limit: Option<i64>,
    pub held: bool,
}

pub fn insert_slip(conn: &mut PgConnection, slip: &NewSlip<'_>) -> QueryResult<SlipRow> {
    diesel::insert_into(inventory_slips::table)
        .values(slip)
        .returning(SlipRow::as_returning())
        .get_result(conn)
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = inventory_slip_voids)]
pub struct SlipVoidRow {
    pub slip_id: SlipId,
    pub reason: String,
    pub voided_by: UserId,
    pub voided_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = opener_explanations)]
pub struct ExplanationRow {
    pub slip_id: SlipId,
    pub explanation: String,
    pub written_by: UserId,
    pub written_at: DateTime<Utc>,
}

pub fn slip(conn: &mut PgConnection, id: SlipId) -> QueryResult<Option<SlipRow>> {
    inventory_slips::table
        .find(id)
        .select(SlipRow::as_select())
        .first(conn)
        .optional()
}

/// A table's slips of one gaming day, in the order they were signed.
pub fn slips_of_day(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Vec<SlipRow>> {
    inventory_slips::table
        .filter(inventory_slips::table_id.eq(table))
        .filter(inventory_slips::gaming_day.eq(day))
        .order(inventory_slips::id.asc())
        .select(SlipRow::as_select())
        .load(conn)
}

/// The table's newest slip that is not void, of `kind` if given.
pub fn last_standing_slip(
    conn: &mut PgConnection,
    table: TableId,
    kind: Option<&str>,
) -> QueryResult<Option<SlipRow>> {
    let mut query = inventory_slips::table
        .filter(inventory_slips::table_id.eq(table))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            inventory_slip_voids::table
                .filter(inventory_slip_voids::slip_id.eq(inventory_slips::id)),
        )))
        .into_boxed();
    if let Some(kind) = kind {
        query = query.filter(inventory_slips::kind.eq(kind));
    }
    query
        .order(inventory_slips::id.desc())
        .select(SlipRow::as_select())
        .first(conn)
        .optional()
}

/// The voids of these slips.
pub fn voids_of(conn: &mut PgConnection, slips: &[SlipId]) -> QueryResult<Vec<SlipVoidRow>> {
    inventory_slip_voids::table
        .filter(inventory_slip_voids::slip_id.eq_any(slips))
        .select(SlipVoidRow::as_select())
        .load(conn)
}

/// The explanations of these openers.
pub fn explanations_of(
    conn: &mut PgConnection,
    slips: &[SlipId],
) -> QueryResult<Vec<ExplanationRow>> {
    opener_explanations::table
        .filter(opener_explanations::slip_id.eq_any(slips))
        .select(ExplanationRow::as_select())
        .load(conn)
}

pub fn insert_void(
    conn: &mut PgConnection,
    slip: SlipId,
    reason: &str,
    by: UserId,
) -> QueryResult<SlipVoidRow> {
    diesel::insert_into(inventory_slip_voids::table)
        .values((
            inventory_slip_voids::slip_id.eq(slip),
            inventory_slip_voids::reason.eq(reason),
            inventory_slip_voids::voided_by.eq(by),
        ))
        .returning(SlipVoidRow::as_returning())
        .get_result(conn)
}

pub fn insert_explanation(
    conn: &mut PgConnection,
    slip: SlipId,
    explanation: &str,
    by: UserId,
) -> QueryResult<ExplanationRow> {
    diesel::insert_into(opener_explanations::table)
        .values((
            opener_explanations::slip_id.eq(slip),
            opener_explanations::explanation.eq(explanation),
            opener_explanations::written_by.eq(by),
        ))
        .returning(ExplanationRow::as_returning())
        .get_result(conn)
}

/// The table's newest slip that is not void, as [`last_standing_slip`] without a kind, in one
/// statement diesel keeps prepared (read by every new round and every table screen).
pub fn newest_standing_slip(
    conn: &mut PgConnection,
    table: TableId,
) -> QueryResult<Option<SlipRow>> {
    inventory_slips::table
        .filter(inventory_slips::table_id.eq(table))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            inventory_slip_voids::table
                .filter(inventory_slip_voids::slip_id.eq(inventory_slips::id)),
        )))
        .order(inventory_slips::id.desc())
        .select(SlipRow::as_select())
        .first(conn)
        .optional()
}

/// The table's opener that holds it (its difference from the previous closer above the limit,
/// unexplained), if its newest standing slip is one. Read by every new round there: one
/// prepared statement ([`newest_standing_slip`]), a second only for a held opener.
pub fn held_opener(conn: &mut PgConnection, table: TableId) -> QueryResult<Option<SlipRow>> {
    let Some(last) = newest_standing_slip(conn, table)? else {
        return Ok(None);
    };
    if !opener_holds(&last.kind, last.held, false) {
        return Ok(None);
    }
    let explained: bool = diesel::select(diesel::dsl::exists(
        opener_explanations::table.filter(opener_explanations::slip_id.eq(last.id)),
    ))
    .get_result(conn)?;
    Ok(opener_holds(&last.kind, last.held, explained).then_some(last))
}

/// A table's last dealer shift of a gaming day, open or not.
pub fn last_shift_of_day(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Option<(ShiftId, Option<DateTime<Utc>>)>> {
    dealer_shifts::table
        .filter(dealer_shifts::table_id.eq(table))
        .filter(dealer_shifts::gaming_day.eq(day))
        .order(dealer_shifts::signed_on_at.desc())
        .select((dealer_shifts::id, dealer_shifts::signed_off_at))
        .first(conn)
        .optional()
}

/// A table's open dealer shift with the dealer's name, and its open draft's key.
pub type OpenAtTable = (Option<(ShiftId, String)>, Option<String>);

/// The table's open dealer shift with the dealer's name, and its open draft's key, if any.
pub fn open_at_table(conn: &mut PgConnection, table: TableId) -> QueryResult<OpenAtTable> {
    let shift = dealer_shifts::table
        .inner_join(users::table)
        .filter(dealer_shifts::table_id.eq(table))
        .filter(dealer_shifts::signed_off_at.is_null())
        .select((dealer_shifts::id, users::display_name))
        .first(conn)
        .optional()?;
    let draft = round_drafts::table
        .filter(round_drafts::table_id.eq(table))
        .filter(round_drafts::settled_round_id.is_null())
        .filter(round_drafts::abandoned_at.is_null())
        .select(round_drafts::draft_key)
        .first(conn)
        .optional()?;
    Ok((shift, draft))
}

/// Display names of these accounts.
pub fn names_of(conn: &mut PgConnection, ids: &[UserId]) -> QueryResult<Vec<(UserId, String)>> {
    users::table
        .filter(users::id.eq_any(ids.iter().map(|id| id.0)))
        .select((users::id, users::display_name))
        .load::<(i64, String)>(conn)
        .map(|rows| rows.into_iter().map(|(id, n)| (UserId(id), n)).collect())
}

/// A table by its code.
pub fn par_table_by_code(conn: &mut PgConnection, code: &str) -> QueryResult<Option<ParTable>> {
    gaming_tables::table
        .filter(gaming_tables::code.eq(code))
        .select(ParTable::as_select())
        .first(conn)
        .optional()
}

/// A table by its code, locked until the transaction ends (one slip at a time per table).
pub fn lock_table_by_code(conn: &mut PgConnection, code: &str) -> QueryResult<Option<ParTable>> {
    gaming_tables::table
        .filter(gaming_tables::code.eq(code))
        .select(ParTable::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// The latest gaming day on which table `table` settled a round.
pub fn latest_round_day(conn: &mut PgConnection, table: TableId) -> QueryResult<Option<NaiveDate>> {
    use crate::db::schema::rounds;
    rounds::table
        .filter(rounds::table_id.eq(table))
        .select(diesel::dsl::max(rounds::gaming_day))
        .first(conn)
}
