//! The count team's counts of each table's drop (docs/accounting.md, "The count"): rows and
//! queries of `drop_counts` and `drop_count_voids` (migration
//! `2026-12-04-000001_drop_and_reconciliation`; triggers refuse UPDATE and DELETE), the buy-ins
//! a table recorded (not void) to compare a count with, and who had a hand in a table's day.
//! The decisions and the words a person reads are in `crate::accounting::counts`.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::{exists, not, sql};
use diesel::prelude::*;
use diesel::sql_types::BigInt;

use crate::db::ids::{DropCountId, TableId, UserId};
use crate::db::schema::{
    buy_in_voids, buy_ins, cage_slip_steps, cage_slips, dealer_shifts, drop_count_voids,
    drop_counts, gaming_tables, inventory_slips, rounds,
};
use crate::rules::money::Money;

/// A count as stored: the banknotes by denomination (`note_denominations[i]` minor units,
/// `note_counts[i]` notes; both empty when the currency has no banknotes listed), the cash, the
/// non-cash items and their total, the two counters.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = drop_counts)]
pub struct CountRow {
    pub id: DropCountId,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub currency: String,
    pub note_denominations: Vec<Option<i64>>,
    pub note_counts: Vec<Option<i64>>,
    #[diesel(deserialize_as = i64)]
    pub cash: Money,
    #[diesel(deserialize_as = i64)]
    pub markers: Money,
    #[diesel(deserialize_as = i64)]
    pub chip_vouchers: Money,
    #[diesel(deserialize_as = i64)]
    pub total: Money,
    pub first_counter: UserId,
    pub second_counter: UserId,
    pub created_at: DateTime<Utc>,
}

/// A count to insert.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = drop_counts)]
pub struct NewCount<'a> {
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub currency: &'a str,
    pub note_denominations: &'a [i64],
    pub note_counts: &'a [i64],
    pub cash: i64,
    pub markers: i64,
    pub chip_vouchers: i64,
    pub total: i64,
    pub first_counter: UserId,
    pub second_counter: UserId,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = drop_count_voids)]
pub struct CountVoidRow {
    pub count_id: DropCountId,
    pub reason: String,
    pub voided_by: UserId,
    pub voided_at: DateTime<Utc>,
}

/// A table as the count's pages name it.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = gaming_tables)]
pub struct CountTable {
    pub id: TableId,
    pub code: String,
    pub name: String,
    pub currency: String,
}

pub fn insert_count(conn: &mut PgConnection, count: &NewCount<'_>) -> QueryResult<CountRow> {
    diesel::insert_into(drop_counts::table)
        .values(count)
        .returning(CountRow::as_returning())
        .get_result(conn)
}

pub fn insert_void(
    conn: &mut PgConnection,
    count: DropCountId,
    reason: &str,
    by: UserId,
) -> QueryResult<CountVoidRow> {
    diesel::insert_into(drop_count_voids::table)
        .values((
            drop_count_voids::count_id.eq(count),
            drop_count_voids::reason.eq(reason),
            drop_count_voids::voided_by.eq(by),
        ))
        .returning(CountVoidRow::as_returning())
        .get_result(conn)
}

pub fn count(conn: &mut PgConnection, id: DropCountId) -> QueryResult<Option<CountRow>> {
    drop_counts::table
        .find(id)
        .select(CountRow::as_select())
        .first(conn)
        .optional()
}

/// The counts of gaming day `day` (of one table if given), in the order they were signed.
pub fn counts_of_day(
    conn: &mut PgConnection,
    day: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<CountRow>> {
    let mut query = drop_counts::table
        .filter(drop_counts::gaming_day.eq(day))
        .into_boxed();
    if let Some(table) = table {
        query = query.filter(drop_counts::table_id.eq(table));
    }
    query
        .order(drop_counts::id.asc())
        .select(CountRow::as_select())
        .load(conn)
}

/// The voids of these counts.
pub fn voids_of(conn: &mut PgConnection, counts: &[DropCountId]) -> QueryResult<Vec<CountVoidRow>> {
    drop_count_voids::table
        .filter(drop_count_voids::count_id.eq_any(counts))
        .select(CountVoidRow::as_select())
        .load(conn)
}

/// The table's count of `day` that is not void, if there is one.
pub fn standing_count(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Option<CountRow>> {
    drop_counts::table
        .filter(drop_counts::table_id.eq(table))
        .filter(drop_counts::gaming_day.eq(day))
        .filter(not(exists(
            drop_count_voids::table.filter(drop_count_voids::count_id.eq(drop_counts::id)),
        )))
        .order(drop_counts::id.desc())
        .select(CountRow::as_select())
        .first(conn)
        .optional()
}

/// The buy-ins of gaming day `day` that are not void, summed per table, kind (`cash`, `marker`,
/// `chip_voucher`) and currency (of one table if given).
pub fn buy_in_totals(
    conn: &mut PgConnection,
    day: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<(TableId, String, String, i64)>> {
    let rows = buy_ins::table
        .filter(buy_ins::gaming_day.eq(day))
        .filter(not(exists(
            buy_in_voids::table.filter(buy_in_voids::buy_in_id.eq(buy_ins::id)),
        )))
        .group_by((buy_ins::table_id, buy_ins::kind, buy_ins::currency))
        .select((
            buy_ins::table_id,
            buy_ins::kind,
            buy_ins::currency,
            // A day's buy-ins at one table never come near the range of a bigint; a sum beyond
            // it fails the query rather than wrap.
            sql::<BigInt>("SUM(buy_ins.amount)::bigint"),
        ))
        .load::<(i64, String, String, i64)>(conn)?;
    // Grouped per table: a day's groups are few, and a boxed query cannot be grouped.
    Ok(rows
        .into_iter()
        .filter(|(t, ..)| table.is_none_or(|table| table.0 == *t))
        .map(|(table, kind, currency, sum)| (TableId(table), kind, currency, sum))
        .collect())
}

/// Every account that had a hand in table `table`'s gaming day `day`: recorded or voided a
/// buy-in, signed an opener or a closer, signed a step of a fill or credit, or dealt there.
pub fn hands_in_day(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Vec<UserId>> {
    let mut ids: Vec<i64> = buy_ins::table
        .filter(buy_ins::table_id.eq(table))
        .filter(buy_ins::gaming_day.eq(day))
        .select(buy_ins::recorded_by)
        .load(conn)?;
    ids.extend(
        buy_in_voids::table
            .inner_join(buy_ins::table)
            .filter(buy_ins::table_id.eq(table))
            .filter(buy_ins::gaming_day.eq(day))
            .select(buy_in_voids::voided_by)
            .load::<i64>(conn)?,
    );
    for (dealer, supervisor) in inventory_slips::table
        .filter(inventory_slips::table_id.eq(table))
        .filter(inventory_slips::gaming_day.eq(day))
        .select((inventory_slips::dealer_id, inventory_slips::supervisor_id))
        .load::<(i64, i64)>(conn)?
    {
        ids.extend([dealer, supervisor]);
    }
    for (signer, second) in cage_slip_steps::table
        .inner_join(cage_slips::table)
        .filter(cage_slips::table_id.eq(table))
        .filter(cage_slips::gaming_day.eq(day))
        .select((
            cage_slip_steps::signed_by,
            cage_slip_steps::second_signed_by,
        ))
        .load::<(i64, Option<i64>)>(conn)?
    {
        ids.push(signer);
        ids.extend(second);
    }
    ids.extend(
        dealer_shifts::table
            .filter(dealer_shifts::table_id.eq(table))
            .filter(dealer_shifts::gaming_day.eq(day))
            .select(dealer_shifts::dealer_id)
            .load::<i64>(conn)?,
    );
    ids.sort_unstable();
    ids.dedup();
    Ok(ids.into_iter().map(UserId).collect())
}

/// Every table, by code.
pub fn tables(conn: &mut PgConnection) -> QueryResult<Vec<CountTable>> {
    gaming_tables::table
        .order(gaming_tables::code.asc())
        .select(CountTable::as_select())
        .load(conn)
}

pub fn table_by_code(conn: &mut PgConnection, code: &str) -> QueryResult<Option<CountTable>> {
    gaming_tables::table
        .filter(gaming_tables::code.eq(code))
        .select(CountTable::as_select())
        .first(conn)
        .optional()
}

/// A table by its code, locked until the transaction ends (one count at a time per table).
pub fn lock_table_by_code(conn: &mut PgConnection, code: &str) -> QueryResult<Option<CountTable>> {
    gaming_tables::table
        .filter(gaming_tables::code.eq(code))
        .select(CountTable::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// The tables with business on gaming day `day`: a buy-in, an opener or closer, a fill or
/// credit, a dealer shift or a round there.
pub fn tables_with_business(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<TableId>> {
    let mut ids: Vec<i64> = buy_ins::table
        .filter(buy_ins::gaming_day.eq(day))
        .select(buy_ins::table_id)
        .distinct()
        .load(conn)?;
    ids.extend(
        inventory_slips::table
            .filter(inventory_slips::gaming_day.eq(day))
            .select(inventory_slips::table_id)
            .distinct()
            .load::<i64>(conn)?,
    );
    ids.extend(
        cage_slips::table
            .filter(cage_slips::gaming_day.eq(day))
            .select(cage_slips::table_id)
            .distinct()
            .load::<i64>(conn)?,
    );
    ids.extend(
        dealer_shifts::table
            .filter(dealer_shifts::gaming_day.eq(day))
            .select(dealer_shifts::table_id)
            .distinct()
            .load::<i64>(conn)?,
    );
    ids.extend(
        rounds::table
            .filter(rounds::gaming_day.eq(day))
            .select(rounds::table_id)
            .distinct()
            .load::<i64>(conn)?,
    );
    ids.sort_unstable();
    ids.dedup();
    Ok(ids.into_iter().map(TableId).collect())
}
