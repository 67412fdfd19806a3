//! Rows and queries of the generated history's accounting (`pusoy-pit db generate`,
//! [`crate::accounting::history`]): the table-days still without documents, each day's shifts
//! and rounds as the documents need them, and the documents written in bulk, many to a
//! statement, with the ids and times the generator gives them (their audit events go through
//! [`crate::db::audit_log::append_sealed`]).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamptz};

use crate::db::ids::{ShiftId, TableId, UserId};
use crate::db::prepared::Sql;
use crate::db::schema::{
    buy_ins, cage_slip_steps, cage_slips, drop_counts, inventory_slips, opener_explanations,
};

/// The table-days of tables `$1` before gaming day `$2` that had dealer shifts, all signed
/// off, and have no inventory slip yet: what the accounting still has to be written for.
const PENDING_DAYS: &str = "\
    SELECT s.table_id, s.gaming_day FROM dealer_shifts s \
    WHERE s.table_id = ANY($1) AND s.gaming_day < $2 \
      AND NOT EXISTS (SELECT 1 FROM inventory_slips i \
                      WHERE i.table_id = s.table_id AND i.gaming_day = s.gaming_day) \
    GROUP BY s.table_id, s.gaming_day \
    HAVING bool_and(s.signed_off_at IS NOT NULL) \
    ORDER BY s.gaming_day, s.table_id";

#[derive(Debug, Clone, Copy, PartialEq, Eq, QueryableByName)]
pub struct TableDay {
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
}

/// Every table-day of `tables` before `before` with shifts all signed off and no inventory slip,
/// by day and table.
pub fn pending_days(
    conn: &mut PgConnection,
    tables: &[TableId],
    before: NaiveDate,
) -> QueryResult<Vec<TableDay>> {
    let ids: Vec<i64> = tables.iter().map(|t| t.0).collect();
    Sql::new(PENDING_DAYS)
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Date, _>(before)
        .load(conn)
}

/// The dealer shifts of tables `$1` on gaming day `$2`, with their dealers' names, in the
/// order they began.
const SHIFTS_OF_DAY: &str = "\
    SELECT s.id, s.table_id, s.dealer_id, u.username, s.signed_on_at, s.signed_off_at \
    FROM dealer_shifts s JOIN users u ON u.id = s.dealer_id \
    WHERE s.table_id = ANY($1) AND s.gaming_day = $2 \
    ORDER BY s.table_id, s.signed_on_at, s.id";

#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct ShiftRow {
    #[diesel(sql_type = BigInt)]
    pub id: ShiftId,
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = BigInt)]
    pub dealer_id: UserId,
    #[diesel(sql_type = Text)]
    pub username: String,
    #[diesel(sql_type = Timestamptz)]
    pub signed_on_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub signed_off_at: Option<DateTime<Utc>>,
}

pub fn shifts_of_day(
    conn: &mut PgConnection,
    tables: &[TableId],
    day: NaiveDate,
) -> QueryResult<Vec<ShiftRow>> {
    let ids: Vec<i64> = tables.iter().map(|t| t.0).collect();
    Sql::new(SHIFTS_OF_DAY)
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Date, _>(day)
        .load(conn)
}

/// The rounds of tables `$1` on gaming day `$2` that count (not void), from their figures: the
/// shift, when settled, the house's result, the bets and the seats, in the order settled.
const ROUNDS_OF_DAY: &str = "\
    SELECT f.table_id, f.shift_id, f.settled_at, f.dealer_result, f.handle, \
           f.seats::int4 AS seats \
    FROM round_figures f \
    WHERE f.gaming_day = $2 AND f.table_id = ANY($1) \
      AND NOT EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = f.round_id) \
    ORDER BY f.table_id, f.settled_at, f.round_id";

#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct RoundRow {
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = BigInt)]
    pub shift_id: ShiftId,
    #[diesel(sql_type = Timestamptz)]
    pub settled_at: DateTime<Utc>,
    #[diesel(sql_type = BigInt)]
    pub dealer_result: i64,
    #[diesel(sql_type = BigInt)]
    pub handle: i64,
    #[diesel(sql_type = Integer)]
    pub seats: i32,
}

pub fn rounds_of_day(
    conn: &mut PgConnection,
    tables: &[TableId],
    day: NaiveDate,
) -> QueryResult<Vec<RoundRow>> {
    let ids: Vec<i64> = tables.iter().map(|t| t.0).collect();
    Sql::new(ROUNDS_OF_DAY)
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Date, _>(day)
        .load(conn)
}

/// `$2` new ids of the sequence named `$1`, in order.
const NEXT_IDS: &str = "SELECT nextval($1::regclass) AS id FROM generate_series(1, $2)";

#[derive(QueryableByName)]
struct NextId {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// The sequences of the documents' ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sequence {
    InventorySlips,
    BuyIns,
    CageSlips,
    DropCounts,
}

impl Sequence {
    fn name(self) -> &'static str {
        match self {
            Sequence::InventorySlips => "inventory_slips_id_seq",
            Sequence::BuyIns => "buy_ins_id_seq",
            Sequence::CageSlips => "cage_slips_id_seq",
            Sequence::DropCounts => "drop_counts_id_seq",
        }
    }
}

/// `count` new ids of `sequence`, so that the events naming the documents can be sealed before
/// the documents are written.
pub fn next_ids(
    conn: &mut PgConnection,
    sequence: Sequence,
    count: usize,
) -> QueryResult<Vec<i64>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let ids: Vec<NextId> = Sql::new(NEXT_IDS)
        .bind::<Text, _>(sequence.name())
        .bind::<Integer, _>(i32::try_from(count).unwrap_or(i32::MAX))
        .load(conn)?;
    Ok(ids.into_iter().map(|n| n.id).collect())
}

/// Takes `count` slip numbers of `kind` (`fill` or `credit`) in `year` at once, from the same
/// counter the cage's requests take theirs from: answers the first; the counter row stays
/// locked until the transaction ends, so the numbers stay gapless.
const TAKE_NUMBERS: &str = "\
    INSERT INTO cage_slip_numbers (kind, year, last_number) VALUES ($1, $2, $3) \
    ON CONFLICT (kind, year) DO UPDATE \
        SET last_number = cage_slip_numbers.last_number + EXCLUDED.last_number \
    RETURNING (last_number - $3 + 1)::int8 AS id";

pub fn take_numbers(
    conn: &mut PgConnection,
    kind: &str,
    year: i32,
    count: i32,
) -> QueryResult<i32> {
    let first: NextId = Sql::new(TAKE_NUMBERS)
        .bind::<Text, _>(kind)
        .bind::<Integer, _>(year)
        .bind::<Integer, _>(count)
        .get_result(conn)?;
    i32::try_from(first.id).map_err(|err| diesel::result::Error::DeserializationError(err.into()))
}

/// An inventory slip as generated (its id taken beforehand).
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = inventory_slips)]
pub struct SlipInsert {
    pub id: i64,
    pub table_id: TableId,
    pub kind: &'static str,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub chip_set_version_id: i64,
    pub counts: Vec<i64>,
    pub total: i64,
    pub par_id: Option<i64>,
    pub dealer_id: UserId,
    pub supervisor_id: UserId,
    pub previous_closer_id: Option<i64>,
    pub difference: Option<i64>,
    pub difference_limit: Option<i64>,
    pub held: bool,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = opener_explanations)]
pub struct ExplanationInsert {
    pub slip_id: i64,
    pub explanation: String,
    pub written_by: UserId,
    pub written_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = buy_ins)]
pub struct BuyInInsert {
    pub id: i64,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub seat: i16,
    pub kind: &'static str,
    pub currency: String,
    pub amount: i64,
    pub recorded_by: UserId,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = cage_slips)]
pub struct CageSlipInsert {
    pub id: i64,
    pub kind: &'static str,
    pub year: i32,
    pub number: i32,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub chip_set_version_id: i64,
    pub counts: Vec<i64>,
    pub total: i64,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = cage_slip_steps)]
pub struct StepInsert {
    pub slip_id: i64,
    pub step: &'static str,
    pub signed_by: UserId,
    pub second_signed_by: Option<UserId>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = drop_counts)]
pub struct CountInsert {
    pub id: i64,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub currency: String,
    pub note_denominations: Vec<i64>,
    pub note_counts: Vec<i64>,
    pub cash: i64,
    pub markers: i64,
    pub chip_vouchers: i64,
    pub total: i64,
    pub first_counter: UserId,
    pub second_counter: UserId,
    pub created_at: DateTime<Utc>,
}

/// A gaming day's documents, for many tables, written a kind to a statement (the steps of the
/// cage's slips one step to a statement, each after the one before it, as the steps' trigger
/// checks).
#[derive(Debug, Clone, Default)]
pub struct Documents {
    pub slips: Vec<SlipInsert>,
    pub explanations: Vec<ExplanationInsert>,
    pub buy_ins: Vec<BuyInInsert>,
    pub cage_slips: Vec<CageSlipInsert>,
    /// Requested, issued, received: in that order.
    pub steps: [Vec<StepInsert>; 3],
    pub counts: Vec<CountInsert>,
}

/// PostgreSQL takes at most 65,535 bind values a statement: a batch stays well below.
const BATCH_ROWS: usize = 1_000;

pub fn insert_documents(conn: &mut PgConnection, documents: &Documents) -> QueryResult<()> {
    for batch in documents.slips.chunks(BATCH_ROWS) {
        diesel::insert_into(inventory_slips::table)
            .values(batch)
            .execute(conn)?;
    }
    for batch in documents.explanations.chunks(BATCH_ROWS) {
        diesel::insert_into(opener_explanations::table)
            .values(batch)
            .execute(conn)?;
    }
    for batch in documents.buy_ins.chunks(BATCH_ROWS) {
        diesel::insert_into(buy_ins::table)
            .values(batch)
            .execute(conn)?;
    }
    for batch in documents.cage_slips.chunks(BATCH_ROWS) {
        diesel::insert_into(cage_slips::table)
            .values(batch)
            .execute(conn)?;
    }
    for steps in &documents.steps {
        for batch in steps.chunks(BATCH_ROWS) {
            diesel::insert_into(cage_slip_steps::table)
                .values(batch)
                .execute(conn)?;
        }
    }
    for batch in documents.counts.chunks(BATCH_ROWS) {
        diesel::insert_into(drop_counts::table)
            .values(batch)
            .execute(conn)?;
    }
    Ok(())
}

/// The table's last closer that is not void, as `(id, chip set version, counts)`.
pub fn last_closer(
    conn: &mut PgConnection,
    table: TableId,
) -> QueryResult<Option<(i64, i64, Vec<i64>)>> {
    use crate::db::schema::inventory_slip_voids;
    inventory_slips::table
        .filter(inventory_slips::table_id.eq(table))
        .filter(inventory_slips::kind.eq("closer"))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            inventory_slip_voids::table
                .filter(inventory_slip_voids::slip_id.eq(inventory_slips::id)),
        )))
        .order(inventory_slips::id.desc())
        .select((
            inventory_slips::id,
            inventory_slips::chip_set_version_id,
            inventory_slips::counts,
        ))
        .first::<(i64, i64, Vec<Option<i64>>)>(conn)
        .optional()
        .map(|found| {
            found.map(|(id, version, counts)| {
                (
                    id,
                    version,
                    counts.into_iter().map(|c| c.unwrap_or(0)).collect(),
                )
            })
        })
}
