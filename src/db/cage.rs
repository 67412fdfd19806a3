//! The cage's rows and queries (docs/accounting.md, "Fills and credits"): slips, their signed
//! steps, their prints, and the gapless slip numbers. Rows are only ever inserted (triggers
//! refuse changes); the counter row is the one thing updated. The decisions and the words a
//! person reads are in `crate::accounting::cage`.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;

use crate::db::ids::{CageSlipId, CageSlipPrintId, ChipSetVersionId, TableId, UserId};
use crate::db::schema::{
    cage_slip_numbers, cage_slip_prints, cage_slip_steps, cage_slips, gaming_tables, users,
};
use crate::rules::money::Money;

/// A fill brings chips from the cage to a table; a credit takes them back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Fill,
    Credit,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Fill, Kind::Credit];

    /// The stored and form value.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Fill => "fill",
            Kind::Credit => "credit",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Kind::Fill => "Fill",
            Kind::Credit => "Credit",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is neither a fill nor a credit")]
pub struct UnknownKind(pub String);

impl FromStr for Kind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

impl TryFrom<String> for Kind {
    type Error = UnknownKind;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// A slip's number as printed: `F-2026-00001` (fills), `C-2026-00001` (credits).
pub fn number_text(kind: Kind, year: i32, number: i32) -> String {
    let letter = match kind {
        Kind::Fill => 'F',
        Kind::Credit => 'C',
    };
    format!("{letter}-{year}-{number:05}")
}

/// A step of a slip's life, in order; a void may follow any step but a void.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Requested,
    Issued,
    Received,
    Void,
}

impl Step {
    pub const ALL: [Step; 4] = [Step::Requested, Step::Issued, Step::Received, Step::Void];

    pub fn as_str(self) -> &'static str {
        match self {
            Step::Requested => "requested",
            Step::Issued => "issued",
            Step::Received => "received",
            Step::Void => "void",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a step of a slip")]
pub struct UnknownStep(pub String);

impl TryFrom<String> for Step {
    type Error = UnknownStep;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Step::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or(UnknownStep(s))
    }
}

/// A slip as requested: chips of each denomination of `chip_set_version_id`, in its order.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = cage_slips)]
pub struct SlipRow {
    pub id: CageSlipId,
    #[diesel(deserialize_as = String)]
    pub kind: Kind,
    pub year: i32,
    pub number: i32,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub chip_set_version_id: ChipSetVersionId,
    pub counts: Vec<Option<i64>>,
    #[diesel(deserialize_as = i64)]
    pub total: Money,
    pub created_at: DateTime<Utc>,
}

/// What a slip's pages name its table by.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = gaming_tables)]
pub struct SlipTable {
    pub id: TableId,
    pub code: String,
    pub name: String,
    pub currency: String,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = cage_slip_steps)]
pub struct StepRow {
    pub id: i64,
    pub slip_id: CageSlipId,
    #[diesel(deserialize_as = String)]
    pub step: Step,
    pub signed_by: UserId,
    pub second_signed_by: Option<UserId>,
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = cage_slip_prints)]
pub struct PrintRow {
    pub id: CageSlipPrintId,
    pub slip_id: CageSlipId,
    pub copy_number: i32,
    pub printed_by: UserId,
    pub at: DateTime<Utc>,
}

/// A signer as a slip shows them.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = users)]
pub struct Signer {
    pub id: UserId,
    pub username: String,
    pub display_name: String,
}

/// Takes the next number of `kind` in `year`: one more than the last given, or 1. The counter
/// row stays locked until the caller's transaction ends, so concurrent requests take turns, and
/// a request that rolls back gives its number back (no gap).
pub fn next_number(conn: &mut PgConnection, kind: Kind, year: i32) -> QueryResult<i32> {
    diesel::insert_into(cage_slip_numbers::table)
        .values((
            cage_slip_numbers::kind.eq(kind.as_str()),
            cage_slip_numbers::year.eq(year),
            cage_slip_numbers::last_number.eq(1),
        ))
        .on_conflict((cage_slip_numbers::kind, cage_slip_numbers::year))
        .do_update()
        .set(cage_slip_numbers::last_number.eq(cage_slip_numbers::last_number + 1))
        .returning(cage_slip_numbers::last_number)
        .get_result(conn)
}

/// A new slip, as requested.
pub struct NewSlip<'a> {
    pub kind: Kind,
    pub year: i32,
    pub number: i32,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub chip_set_version_id: ChipSetVersionId,
    pub counts: &'a [i64],
    pub total: Money,
}

pub fn insert_slip(conn: &mut PgConnection, new: &NewSlip<'_>) -> QueryResult<SlipRow> {
    diesel::insert_into(cage_slips::table)
        .values((
            cage_slips::kind.eq(new.kind.as_str()),
            cage_slips::year.eq(new.year),
            cage_slips::number.eq(new.number),
            cage_slips::table_id.eq(new.table_id),
            cage_slips::gaming_day.eq(new.gaming_day),
            cage_slips::chip_set_version_id.eq(new.chip_set_version_id),
            cage_slips::counts.eq(new.counts),
            cage_slips::total.eq(new.total.minor_units()),
        ))
        .returning(SlipRow::as_returning())
        .get_result(conn)
}

/// A signed step of a slip.
pub struct NewStep<'a> {
    pub slip: CageSlipId,
    pub step: Step,
    pub signed_by: UserId,
    pub second_signed_by: Option<UserId>,
    pub reason: Option<&'a str>,
}

pub fn insert_step(conn: &mut PgConnection, new: &NewStep<'_>) -> QueryResult<StepRow> {
    diesel::insert_into(cage_slip_steps::table)
        .values((
            cage_slip_steps::slip_id.eq(new.slip),
            cage_slip_steps::step.eq(new.step.as_str()),
            cage_slip_steps::signed_by.eq(new.signed_by),
            cage_slip_steps::second_signed_by.eq(new.second_signed_by),
            cage_slip_steps::reason.eq(new.reason),
        ))
        .returning(StepRow::as_returning())
        .get_result(conn)
}

pub fn slip(conn: &mut PgConnection, id: CageSlipId) -> QueryResult<Option<SlipRow>> {
    cage_slips::table
        .find(id)
        .select(SlipRow::as_select())
        .first(conn)
        .optional()
}

/// The slip, locked until the transaction ends: one step at a time per slip.
pub fn lock_slip(conn: &mut PgConnection, id: CageSlipId) -> QueryResult<Option<SlipRow>> {
    cage_slips::table
        .find(id)
        .select(SlipRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

pub fn slip_table(conn: &mut PgConnection, id: TableId) -> QueryResult<Option<SlipTable>> {
    gaming_tables::table
        .find(id)
        .select(SlipTable::as_select())
        .first(conn)
        .optional()
}

pub fn slip_table_by_code(conn: &mut PgConnection, code: &str) -> QueryResult<Option<SlipTable>> {
    gaming_tables::table
        .filter(gaming_tables::code.eq(code))
        .select(SlipTable::as_select())
        .first(conn)
        .optional()
}

/// The steps of these slips, in the order they were taken.
pub fn steps(conn: &mut PgConnection, slips: &[CageSlipId]) -> QueryResult<Vec<StepRow>> {
    cage_slip_steps::table
        .filter(cage_slip_steps::slip_id.eq_any(slips))
        .order(cage_slip_steps::id.asc())
        .select(StepRow::as_select())
        .load(conn)
}

/// The prints of a slip, oldest first.
pub fn prints(conn: &mut PgConnection, slip: CageSlipId) -> QueryResult<Vec<PrintRow>> {
    cage_slip_prints::table
        .filter(cage_slip_prints::slip_id.eq(slip))
        .order(cage_slip_prints::copy_number.asc())
        .select(PrintRow::as_select())
        .load(conn)
}

pub fn print(conn: &mut PgConnection, id: CageSlipPrintId) -> QueryResult<Option<PrintRow>> {
    cage_slip_prints::table
        .find(id)
        .select(PrintRow::as_select())
        .first(conn)
        .optional()
}

/// Records the next print of a slip (the caller holds the slip locked).
pub fn insert_print(
    conn: &mut PgConnection,
    slip: CageSlipId,
    copy_number: i32,
    printed_by: UserId,
) -> QueryResult<PrintRow> {
    diesel::insert_into(cage_slip_prints::table)
        .values((
            cage_slip_prints::slip_id.eq(slip),
            cage_slip_prints::copy_number.eq(copy_number),
            cage_slip_prints::printed_by.eq(printed_by),
        ))
        .returning(PrintRow::as_returning())
        .get_result(conn)
}

/// The slips of a gaming day (of one table, or every table), by kind and number.
pub fn slips_of_day(
    conn: &mut PgConnection,
    day: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<SlipRow>> {
    let mut query = cage_slips::table
        .filter(cage_slips::gaming_day.eq(day))
        .select(SlipRow::as_select())
        .order((cage_slips::kind.asc(), cage_slips::number.asc()))
        .into_boxed();
    if let Some(table) = table {
        query = query.filter(cage_slips::table_id.eq(table));
    }
    query.load(conn)
}

/// Slips whose only step is the request: what the cage has to issue, oldest first.
pub fn pending(conn: &mut PgConnection) -> QueryResult<Vec<SlipRow>> {
    let later = cage_slip_steps::table
        .filter(cage_slip_steps::slip_id.eq(cage_slips::id))
        .filter(cage_slip_steps::step.ne("requested"));
    cage_slips::table
        .filter(diesel::dsl::not(diesel::dsl::exists(later)))
        .order(cage_slips::id.asc())
        .select(SlipRow::as_select())
        .load(conn)
}

/// Slips issued but not yet received nor void, oldest first: chips on their way.
pub fn in_transit(conn: &mut PgConnection) -> QueryResult<Vec<SlipRow>> {
    let issued = cage_slip_steps::table
        .filter(cage_slip_steps::slip_id.eq(cage_slips::id))
        .filter(cage_slip_steps::step.eq("issued"));
    let ended = cage_slip_steps::table
        .filter(cage_slip_steps::slip_id.eq(cage_slips::id))
        .filter(cage_slip_steps::step.eq_any(["received", "void"]));
    cage_slips::table
        .filter(diesel::dsl::exists(issued))
        .filter(diesel::dsl::not(diesel::dsl::exists(ended)))
        .order(cage_slips::id.asc())
        .select(SlipRow::as_select())
        .load(conn)
}

/// The accounts that signed, by id.
pub fn signers(conn: &mut PgConnection, ids: &[UserId]) -> QueryResult<Vec<Signer>> {
    users::table
        .filter(users::id.eq_any(ids.iter().map(|id| id.0)))
        .select(Signer::as_select())
        .load(conn)
}
