//! The gaming-day report: over one gaming day or a range of them, the figures of the whole
//! range, of each day, table, dealer and dealer's shift, each in its currency; the house result
//! by hour of the gaming day; a shift's running total; and the day's seal if it is closed.
//!
//! One statement sums everything ([`REPORT`], grouping sets over one scan of the range's
//! rounds' figures, narrow rows found through the index on the gaming day).

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Integer, Nullable, Text, Timestamptz};

use crate::db::days::{self, DayClose};
use crate::db::ids::{ShiftId, TableId, UserId};
use crate::db::prepared::Sql;
use crate::db::schema::{dealer_shifts, gaming_tables, rounds, users};
use crate::reports::figures::Figures;
use crate::rules::money::Money;

/// The longest range a report covers, in days: a quarter, so that a range report stays a
/// page a person reads (and a query the database answers in seconds, not minutes).
pub const MOST_DAYS: i64 = 92;

/// The figures of every round of gaming days `$1` to `$2` (inclusive), grouped five ways: the
/// whole range (`total`), each gaming day (`day`), table (`table`), dealer (`dealer`) and shift
/// (`shift`, with its table and dealer), each also by currency. Columns: `kind`, `gaming_day`,
/// `table_id`, `dealer_id`, `shift_id` (null where not grouped by), `currency`, then
/// [`Figures`]' columns.
///
/// Each round's figures were worked out from its places when it was written (`round_figures`,
/// one narrow row per round, migration `2026-11-27-000001_round_figures`), so the report sums
/// those rows and never reads a round's places. It sums them in two steps: per shift of a
/// table on a gaming day (`s`, one pass over the rounds), then the five groupings over those
/// few rows (the grouping sets over every round cost twice as much). A voided round counts
/// only in `voids`; a points-game round adds its players' measures and nothing to the house
/// result (its dealer result is 0); a round is pending when it needed approval and has neither
/// an approval nor a void. `$filter` narrows the rounds further (one table's:
/// `AND f.table_id = $3`).
macro_rules! report_sql {
    ($filter:literal) => {
        concat!(
            "\
    WITH r AS ( \
        SELECT f.*, v.round_id IS NOT NULL AS voided, \
               f.needs_approval AND a.round_id IS NULL AND v.round_id IS NULL AS pending \
        FROM round_figures f \
        LEFT JOIN round_voids v ON v.round_id = f.round_id \
        LEFT JOIN round_approvals a ON a.round_id = f.round_id \
        WHERE f.gaming_day BETWEEN $1 AND $2 ",
            $filter,
            " \
    ), s AS ( \
        SELECT gaming_day, table_id, dealer_id, shift_id, currency, \
               count(*) FILTER (WHERE NOT voided) AS rounds, \
               sum(seats) FILTER (WHERE NOT voided) AS seats, \
               sum(handle) FILTER (WHERE NOT voided) AS handle, \
               sum(dealer_result) FILTER (WHERE NOT voided) AS house, \
               sum(player_sets) FILTER (WHERE NOT voided) AS player_sets, \
               sum(player_fouls) FILTER (WHERE NOT voided) AS player_fouls, \
               sum(dealer_sets) FILTER (WHERE NOT voided) AS dealer_sets, \
               sum(dealer_fouls) FILTER (WHERE NOT voided) AS dealer_fouls, \
               sum(surrenders) FILTER (WHERE NOT voided) AS surrenders, \
               sum(royalties) FILTER (WHERE NOT voided) AS royalties, \
               sum(player_sweeps) FILTER (WHERE NOT voided) AS player_sweeps, \
               sum(dealer_sweeps) FILTER (WHERE NOT voided) AS dealer_sweeps, \
               count(*) FILTER (WHERE points_game AND NOT voided) AS points_rounds, \
               sum(naturals) FILTER (WHERE NOT voided) AS naturals, \
               sum(pusoys) FILTER (WHERE NOT voided) AS pusoys, \
               sum(players_won) FILTER (WHERE NOT voided) AS players_won, \
               count(*) FILTER (WHERE voided) AS voids, \
               count(*) FILTER (WHERE pending) AS pending \
        FROM r GROUP BY gaming_day, table_id, dealer_id, shift_id, currency \
    ) \
    SELECT CASE GROUPING(gaming_day, table_id, dealer_id, shift_id) \
               WHEN 15 THEN 'total' WHEN 7 THEN 'day' WHEN 11 THEN 'table' \
               WHEN 13 THEN 'dealer' ELSE 'shift' END AS kind, \
           gaming_day, table_id, dealer_id, shift_id, currency, \
           sum(rounds)::bigint AS rounds, \
           COALESCE(sum(seats), 0)::bigint AS seats, \
           COALESCE(sum(handle), 0)::bigint AS handle, \
           COALESCE(sum(house), 0)::bigint AS house, \
           COALESCE(sum(player_sets), 0)::bigint AS player_sets, \
           COALESCE(sum(player_fouls), 0)::bigint AS player_fouls, \
           COALESCE(sum(dealer_sets), 0)::bigint AS dealer_sets, \
           COALESCE(sum(dealer_fouls), 0)::bigint AS dealer_fouls, \
           COALESCE(sum(surrenders), 0)::bigint AS surrenders, \
           COALESCE(sum(royalties), 0)::bigint AS royalties, \
           COALESCE(sum(player_sweeps), 0)::bigint AS player_sweeps, \
           COALESCE(sum(dealer_sweeps), 0)::bigint AS dealer_sweeps, \
           sum(points_rounds)::bigint AS points_rounds, \
           COALESCE(sum(naturals), 0)::bigint AS naturals, \
           COALESCE(sum(pusoys), 0)::bigint AS pusoys, \
           COALESCE(sum(players_won), 0)::bigint AS players_won, \
           sum(voids)::bigint AS voids, \
           sum(pending)::bigint AS pending \
    FROM s \
    GROUP BY GROUPING SETS ((currency), (gaming_day, currency), (table_id, currency), \
                            (dealer_id, currency), (shift_id, table_id, dealer_id, currency)) \
    ORDER BY kind, gaming_day, table_id, dealer_id, shift_id, currency"
        )
    };
}

/// The report of every table.
const REPORT: &str = report_sql!("");

/// The report of table `$3` alone.
const REPORT_AT_TABLE: &str = report_sql!("AND f.table_id = $3");

/// The house result of gaming days `$1` to `$2` by hour of the gaming day (0: the hour that
/// starts it) and currency, voided rounds left out. `$3` is the casino's offset from UTC and
/// `$4` the local time a gaming day starts, both in seconds: a round's hour is its local time
/// less its gaming day's start. Read from the rounds' figures (narrow rows, as [`REPORT`]).
const BY_HOUR: &str = "\
    SELECT LEAST(23, GREATEST(0, floor((extract(epoch FROM r.settled_at) + $3 \
               - extract(epoch FROM r.gaming_day::timestamp) - $4) / 3600)))::int AS hour, \
           r.currency, count(*) AS rounds, sum(r.dealer_result)::bigint AS house \
    FROM round_figures r \
    WHERE r.gaming_day BETWEEN $1 AND $2 \
      AND NOT EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = r.round_id) \
    GROUP BY 1, 2 ORDER BY 2, 1";

/// The rounds of shift `$3` at table `$1`, which began on gaming day `$2`, in the order they
/// were settled, each with whether it was voided (read through the key on table and day).
const SHIFT_ROUNDS: &str = "\
    SELECT r.round_no, r.gaming_day, r.settled_at, r.dealer_result, r.currency, \
           EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = r.id) AS voided \
    FROM rounds r \
    WHERE r.table_id = $1 AND r.gaming_day >= $2 AND r.shift_id = $3 \
    ORDER BY r.settled_at, r.id";

/// What a report line sums up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Total,
    Day(NaiveDate),
    Table(TableName),
    Dealer(DealerName),
    Shift {
        table: TableName,
        dealer: DealerName,
        shift: ShiftTimes,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    pub id: TableId,
    pub code: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealerName {
    pub id: UserId,
    pub username: String,
    pub display_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShiftTimes {
    pub id: ShiftId,
    pub gaming_day: NaiveDate,
    pub signed_on_at: DateTime<Utc>,
    pub signed_off_at: Option<DateTime<Utc>>,
}

/// One line of the report: its subject, its currency and its figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub subject: Subject,
    pub currency: String,
    pub figures: Figures,
}

/// The report over gaming days `from` to `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// The whole range, one line per currency.
    pub totals: Vec<Line>,
    pub days: Vec<Line>,
    pub tables: Vec<Line>,
    pub dealers: Vec<Line>,
    pub shifts: Vec<Line>,
    /// The close of the day, for a one-day report of a closed day.
    pub close: Option<DayClose>,
}

#[derive(Debug, QueryableByName)]
struct ReportRow {
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Nullable<Date>)]
    gaming_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<BigInt>)]
    table_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    dealer_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    shift_id: Option<i64>,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(embed)]
    figures: Figures,
}

/// Why a range cannot be reported.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("the range ends ({to}) before it starts ({from})")]
    Backwards { from: NaiveDate, to: NaiveDate },
    #[error("the range {from} to {to} is longer than {MOST_DAYS} days; report a shorter one")]
    TooLong { from: NaiveDate, to: NaiveDate },
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

/// Checks a range a person asked for: in order, and at most [`MOST_DAYS`] long.
pub fn check_range(from: NaiveDate, to: NaiveDate) -> Result<(), ReportError> {
    if to < from {
        return Err(ReportError::Backwards { from, to });
    }
    if (to - from).num_days() >= MOST_DAYS {
        return Err(ReportError::TooLong { from, to });
    }
    Ok(())
}

/// The report over gaming days `from` to `to` (inclusive), at most [`MOST_DAYS`] of them.
pub fn report(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Report, ReportError> {
    check_range(from, to)?;
    Ok(report_of(conn, from, to, None)?)
}

/// The report over gaming days `from` to `to` (inclusive) of table `table` or of every table,
/// however long the range (an export's: the caller bounds it).
pub fn report_of(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Report> {
    let rows: Vec<ReportRow> = match table {
        None => Sql::new(REPORT)
            .bind::<Date, _>(from)
            .bind::<Date, _>(to)
            .load(conn)?,
        Some(table) => Sql::new(REPORT_AT_TABLE)
            .bind::<Date, _>(from)
            .bind::<Date, _>(to)
            .bind::<BigInt, _>(table.0)
            .load(conn)?,
    };
    let names = Names::load(conn, &rows)?;
    let mut report = Report {
        from,
        to,
        totals: Vec::new(),
        days: Vec::new(),
        tables: Vec::new(),
        dealers: Vec::new(),
        shifts: Vec::new(),
        close: if from == to {
            days::find_close(conn, from)?
        } else {
            None
        },
    };
    for row in rows {
        let (list, subject) = match row.kind.as_str() {
            "total" => (&mut report.totals, Some(Subject::Total)),
            "day" => (&mut report.days, row.gaming_day.map(Subject::Day)),
            "table" => (
                &mut report.tables,
                names.table(row.table_id).map(Subject::Table),
            ),
            "dealer" => (
                &mut report.dealers,
                names.dealer(row.dealer_id).map(Subject::Dealer),
            ),
            _ => (&mut report.shifts, names.shift(&row)),
        };
        if let Some(subject) = subject {
            list.push(Line {
                subject,
                currency: row.currency,
                figures: row.figures,
            });
        }
    }
    let label = |line: &Line| match &line.subject {
        Subject::Table(t) => t.code.clone(),
        Subject::Dealer(d) => d.display_name.clone(),
        Subject::Shift { table, shift, .. } => format!("{} {}", table.code, shift.signed_on_at),
        Subject::Total | Subject::Day(_) => String::new(),
    };
    for list in [&mut report.tables, &mut report.dealers, &mut report.shifts] {
        list.sort_by_cached_key(|line| (label(line), line.currency.clone()));
    }
    Ok(report)
}

/// The names of the tables, dealers and shifts a report's rows refer to.
struct Names {
    tables: BTreeMap<i64, TableName>,
    dealers: BTreeMap<i64, DealerName>,
    shifts: BTreeMap<i64, ShiftTimes>,
}

impl Names {
    fn load(conn: &mut PgConnection, rows: &[ReportRow]) -> QueryResult<Names> {
        let dealer_ids: Vec<UserId> = rows
            .iter()
            .filter_map(|r| r.dealer_id.map(UserId))
            .collect();
        let shift_ids: Vec<ShiftId> = rows
            .iter()
            .filter_map(|r| r.shift_id.map(ShiftId))
            .collect();
        let tables = gaming_tables::table
            .select((gaming_tables::id, gaming_tables::code, gaming_tables::name))
            .load::<(TableId, String, String)>(conn)?
            .into_iter()
            .map(|(id, code, name)| (id.0, TableName { id, code, name }))
            .collect();
        let dealers = users::table
            .filter(users::id.eq_any(dealer_ids))
            .select((users::id, users::username, users::display_name))
            .load::<(UserId, String, String)>(conn)?
            .into_iter()
            .map(|(id, username, display_name)| {
                (
                    id.0,
                    DealerName {
                        id,
                        username,
                        display_name,
                    },
                )
            })
            .collect();
        let shifts = dealer_shifts::table
            .filter(dealer_shifts::id.eq_any(shift_ids))
            .select((
                dealer_shifts::id,
                dealer_shifts::gaming_day,
                dealer_shifts::signed_on_at,
                dealer_shifts::signed_off_at,
            ))
            .load::<(ShiftId, NaiveDate, DateTime<Utc>, Option<DateTime<Utc>>)>(conn)?
            .into_iter()
            .map(|(id, gaming_day, signed_on_at, signed_off_at)| {
                (
                    id.0,
                    ShiftTimes {
                        id,
                        gaming_day,
                        signed_on_at,
                        signed_off_at,
                    },
                )
            })
            .collect();
        Ok(Names {
            tables,
            dealers,
            shifts,
        })
    }

    fn table(&self, id: Option<i64>) -> Option<TableName> {
        id.and_then(|id| self.tables.get(&id)).cloned()
    }

    fn dealer(&self, id: Option<i64>) -> Option<DealerName> {
        id.and_then(|id| self.dealers.get(&id)).cloned()
    }

    fn shift(&self, row: &ReportRow) -> Option<Subject> {
        Some(Subject::Shift {
            table: self.table(row.table_id)?,
            dealer: self.dealer(row.dealer_id)?,
            shift: row.shift_id.and_then(|id| self.shifts.get(&id)).cloned()?,
        })
    }
}

/// The latest gaming day up to `today` with rounds, if any (through the index on the day).
pub fn latest_day(conn: &mut PgConnection, today: NaiveDate) -> QueryResult<Option<NaiveDate>> {
    rounds::table
        .filter(rounds::gaming_day.le(today))
        .select(diesel::dsl::max(rounds::gaming_day))
        .first(conn)
}

/// The house result of one hour of the gaming day, in one currency.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct HourResult {
    /// Hours since the gaming day started (0 to 23).
    #[diesel(sql_type = Integer)]
    pub hour: i32,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub house: Money,
}

/// The house result of gaming days `from` to `to` by hour of the gaming day (hours without
/// rounds are left out), for a casino at `zone` whose gaming day starts at `start`.
pub fn by_hour(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    zone: FixedOffset,
    start: NaiveTime,
) -> Result<Vec<HourResult>, ReportError> {
    check_range(from, to)?;
    let start_secs = (start - NaiveTime::MIN).num_seconds();
    Ok(Sql::new(BY_HOUR)
        .bind::<Date, _>(from)
        .bind::<Date, _>(to)
        .bind::<BigInt, _>(i64::from(zone.local_minus_utc()))
        .bind::<BigInt, _>(start_secs)
        .load(conn)?)
}

/// A round of a shift, for its running total.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct ShiftRound {
    #[diesel(sql_type = Integer)]
    pub round_no: i32,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Timestamptz)]
    pub settled_at: DateTime<Utc>,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    pub dealer_result: Money,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Bool)]
    pub voided: bool,
}

/// A shift with its table and dealer, and its rounds in the order they were settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShiftRounds {
    pub table: TableName,
    pub dealer: DealerName,
    pub shift: ShiftTimes,
    pub rounds: Vec<ShiftRound>,
}

/// Shift `id` and its rounds, if it exists.
pub fn shift_rounds(conn: &mut PgConnection, id: ShiftId) -> QueryResult<Option<ShiftRounds>> {
    let found = dealer_shifts::table
        .inner_join(gaming_tables::table)
        .inner_join(users::table)
        .filter(dealer_shifts::id.eq(id))
        .select((
            (
                dealer_shifts::gaming_day,
                dealer_shifts::signed_on_at,
                dealer_shifts::signed_off_at,
            ),
            (gaming_tables::id, gaming_tables::code, gaming_tables::name),
            (users::id, users::username, users::display_name),
        ))
        .first::<(
            (NaiveDate, DateTime<Utc>, Option<DateTime<Utc>>),
            (TableId, String, String),
            (UserId, String, String),
        )>(conn)
        .optional()?;
    let Some(((gaming_day, signed_on_at, signed_off_at), table, dealer)) = found else {
        return Ok(None);
    };
    let rounds = Sql::new(SHIFT_ROUNDS)
        .bind::<BigInt, _>(table.0)
        .bind::<Date, _>(gaming_day)
        .bind::<BigInt, _>(id)
        .load(conn)?;
    Ok(Some(ShiftRounds {
        table: TableName {
            id: table.0,
            code: table.1,
            name: table.2,
        },
        dealer: DealerName {
            id: dealer.0,
            username: dealer.1,
            display_name: dealer.2,
        },
        shift: ShiftTimes {
            id,
            gaming_day,
            signed_on_at,
            signed_off_at,
        },
        rounds,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 3, d).unwrap()
    }

    #[test]
    fn a_range_must_run_forwards_and_stay_within_a_quarter() {
        assert!(check_range(day(1), day(1)).is_ok());
        assert!(matches!(
            check_range(day(2), day(1)),
            Err(ReportError::Backwards { .. })
        ));
        let last = day(1) + chrono::Days::new(MOST_DAYS as u64 - 1);
        assert!(check_range(day(1), last).is_ok());
        assert!(matches!(
            check_range(day(1), last + chrono::Days::new(1)),
            Err(ReportError::TooLong { .. })
        ));
    }
}
