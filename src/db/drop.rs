//! Buy-ins and table fees: rows and queries (migration `2026-12-04-000001_drop_and_reconciliation`;
//! docs/accounting.md, "Buy-ins and table fees"). Rows are only ever inserted (triggers refuse
//! changes); a void is a row of its own beside the record. The decisions and the words a person
//! reads are in `crate::accounting::drop`.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;

use crate::db::ids::{BuyInId, PlayerId, ShiftId, TableFeeId, TableId, UserId};
use crate::db::schema::{buy_in_voids, buy_ins, table_fee_voids, table_fees};
use crate::rules::drop::BuyInKind;
use crate::rules::money::Money;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = buy_ins)]
pub struct BuyInRow {
    pub id: BuyInId,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub seat: i16,
    #[diesel(deserialize_as = String)]
    pub kind: BuyInKind,
    pub currency: String,
    #[diesel(deserialize_as = i64)]
    pub amount: Money,
    pub recorded_by: UserId,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = buy_in_voids)]
pub struct BuyInVoidRow {
    pub buy_in_id: BuyInId,
    pub reason: String,
    pub voided_by: UserId,
    pub voided_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = table_fees)]
pub struct FeeRow {
    pub id: TableFeeId,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub currency: String,
    #[diesel(deserialize_as = i64)]
    pub amount: Money,
    pub recorded_by: UserId,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = table_fee_voids)]
pub struct FeeVoidRow {
    pub fee_id: TableFeeId,
    pub reason: String,
    pub voided_by: UserId,
    pub voided_at: DateTime<Utc>,
}

/// A buy-in to record.
pub struct NewBuyIn<'a> {
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub seat: i16,
    pub kind: BuyInKind,
    pub currency: &'a str,
    pub amount: Money,
    /// The rated player seated there, if any.
    pub player_id: Option<PlayerId>,
    pub recorded_by: UserId,
}

pub fn insert_buy_in(conn: &mut PgConnection, new: &NewBuyIn<'_>) -> QueryResult<BuyInRow> {
    diesel::insert_into(buy_ins::table)
        .values((
            buy_ins::table_id.eq(new.table_id),
            buy_ins::gaming_day.eq(new.gaming_day),
            buy_ins::shift_id.eq(new.shift_id),
            buy_ins::seat.eq(new.seat),
            buy_ins::kind.eq(new.kind.as_str()),
            buy_ins::currency.eq(new.currency),
            buy_ins::amount.eq(new.amount.minor_units()),
            buy_ins::player_id.eq(new.player_id),
            buy_ins::recorded_by.eq(new.recorded_by),
        ))
        .returning(BuyInRow::as_returning())
        .get_result(conn)
}

/// A table fee to record.
pub struct NewFee<'a> {
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub shift_id: Option<ShiftId>,
    pub currency: &'a str,
    pub amount: Money,
    pub recorded_by: UserId,
}

pub fn insert_fee(conn: &mut PgConnection, new: &NewFee<'_>) -> QueryResult<FeeRow> {
    diesel::insert_into(table_fees::table)
        .values((
            table_fees::table_id.eq(new.table_id),
            table_fees::gaming_day.eq(new.gaming_day),
            table_fees::shift_id.eq(new.shift_id),
            table_fees::currency.eq(new.currency),
            table_fees::amount.eq(new.amount.minor_units()),
            table_fees::recorded_by.eq(new.recorded_by),
        ))
        .returning(FeeRow::as_returning())
        .get_result(conn)
}

/// The buy-ins of a table's gaming day, each with its void if it has one, in the order
/// recorded.
pub fn buy_ins_of_day(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Vec<(BuyInRow, Option<BuyInVoidRow>)>> {
    buy_ins::table
        .left_join(buy_in_voids::table)
        .filter(buy_ins::table_id.eq(table))
        .filter(buy_ins::gaming_day.eq(day))
        .order(buy_ins::id.asc())
        .select((BuyInRow::as_select(), Option::<BuyInVoidRow>::as_select()))
        .load(conn)
}

/// The table fees of a table's gaming day, each with its void if it has one, in the order
/// recorded.
pub fn fees_of_day(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Vec<(FeeRow, Option<FeeVoidRow>)>> {
    table_fees::table
        .left_join(table_fee_voids::table)
        .filter(table_fees::table_id.eq(table))
        .filter(table_fees::gaming_day.eq(day))
        .order(table_fees::id.asc())
        .select((FeeRow::as_select(), Option::<FeeVoidRow>::as_select()))
        .load(conn)
}

/// One buy-in, with its void if it has one.
pub fn buy_in(
    conn: &mut PgConnection,
    id: BuyInId,
) -> QueryResult<Option<(BuyInRow, Option<BuyInVoidRow>)>> {
    buy_ins::table
        .left_join(buy_in_voids::table)
        .filter(buy_ins::id.eq(id))
        .select((BuyInRow::as_select(), Option::<BuyInVoidRow>::as_select()))
        .first(conn)
        .optional()
}

/// One table fee, with its void if it has one.
pub fn fee(
    conn: &mut PgConnection,
    id: TableFeeId,
) -> QueryResult<Option<(FeeRow, Option<FeeVoidRow>)>> {
    table_fees::table
        .left_join(table_fee_voids::table)
        .filter(table_fees::id.eq(id))
        .select((FeeRow::as_select(), Option::<FeeVoidRow>::as_select()))
        .first(conn)
        .optional()
}

/// Records the void of a buy-in; `None` when it has one already (a concurrent void came
/// first: the primary key keeps one).
pub fn insert_buy_in_void(
    conn: &mut PgConnection,
    id: BuyInId,
    reason: &str,
    voided_by: UserId,
) -> QueryResult<Option<BuyInVoidRow>> {
    diesel::insert_into(buy_in_voids::table)
        .values((
            buy_in_voids::buy_in_id.eq(id),
            buy_in_voids::reason.eq(reason),
            buy_in_voids::voided_by.eq(voided_by),
        ))
        .on_conflict_do_nothing()
        .returning(BuyInVoidRow::as_returning())
        .get_result(conn)
        .optional()
}

/// Records the void of a table fee; `None` when it has one already.
pub fn insert_fee_void(
    conn: &mut PgConnection,
    id: TableFeeId,
    reason: &str,
    voided_by: UserId,
) -> QueryResult<Option<FeeVoidRow>> {
    diesel::insert_into(table_fee_voids::table)
        .values((
            table_fee_voids::fee_id.eq(id),
            table_fee_voids::reason.eq(reason),
            table_fee_voids::voided_by.eq(voided_by),
        ))
        .on_conflict_do_nothing()
        .returning(FeeVoidRow::as_returning())
        .get_result(conn)
        .optional()
}
