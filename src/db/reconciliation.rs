//! What a table's documents and rounds say of each gaming day, summed for the reconciliation
//! (docs/accounting.md, "Win, hold and the reconciliation"), and the investigations' rows. Rows
//! and queries only: the arithmetic is `rules::reconciliation`'s, the decisions and words
//! `crate::accounting::reconcile`'s.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Nullable, Text, Timestamptz};

use crate::db::ids::{InvestigationId, ShiftId, TableId, UserId};
use crate::db::schema::{investigation_closings, investigations};
use crate::rules::money::Money;
use crate::rules::reconciliation::{Documents, Drop};

/// The gaming days `$1` to `$2` not closed (`open_days`): the days whose records are summed one
/// by one, a closed day's table-days being read from the row its close wrote
/// (`closed_table_days`) and its shifts from their sums (`closed_day_round_sums`,
/// `closed_day_drop_sums`).
macro_rules! open_days {
    () => {
        "open_days AS ( \
            SELECT d::date AS gaming_day FROM generate_series($1::date, $2::date, '1 day') d \
            WHERE NOT EXISTS (SELECT 1 FROM gaming_day_closes c WHERE c.gaming_day = d::date) \
        ), "
    };
}

/// The rounds' part of [`TABLE_DAYS`] (`played`): by table-day of the open days, the house
/// result, the rounds, the void ones, whether any was of the points game, those waiting for
/// approval.
macro_rules! played_by_rounds {
    () => {
        "SELECT live.* FROM open_days o CROSS JOIN LATERAL ( \
            SELECT f.table_id, f.gaming_day, \
                   COALESCE(sum(f.dealer_result) FILTER (WHERE v.round_id IS NULL), 0) AS house, \
                   count(*) FILTER (WHERE v.round_id IS NULL) AS rounds, \
                   count(*) FILTER (WHERE v.round_id IS NOT NULL) AS void_rounds, \
                   bool_or(f.points_game) AS points_game, \
                   count(*) FILTER (WHERE f.needs_approval AND a.round_id IS NULL \
                                      AND v.round_id IS NULL) AS pending \
            FROM round_figures f \
            LEFT JOIN round_voids v ON v.round_id = f.round_id \
            LEFT JOIN round_approvals a ON a.round_id = f.round_id \
            WHERE f.gaming_day = o.gaming_day AND ($3::bigint IS NULL OR f.table_id = $3) \
            GROUP BY f.table_id, f.gaming_day \
        ) live"
    };
}

/// [`TABLE_DAYS`]'s text around its rounds' part `$played` (a statement with its columns).
/// An open day's table-days are summed from their records, one index probe a day and kind of
/// record; a closed day's are its close's rows, with the count (which often comes after the
/// close) read as it is.
macro_rules! table_days {
    ($played:expr) => {
        concat!(
            "WITH ",
            open_days!(),
            "played AS (",
            $played,
            "), recorded AS ( \
        SELECT table_id, gaming_day, sum(cash) AS cash, sum(non_cash) AS non_cash, \
               sum(fees) AS fees \
        FROM ( \
            SELECT live.* FROM open_days o CROSS JOIN LATERAL ( \
                SELECT b.table_id, b.gaming_day, \
                       COALESCE(sum(b.amount) FILTER ( \
                           WHERE b.kind = 'cash' AND v.buy_in_id IS NULL), 0) AS cash, \
                       COALESCE(sum(b.amount) FILTER ( \
                           WHERE b.kind <> 'cash' AND v.buy_in_id IS NULL), 0) AS non_cash, \
                       0 AS fees \
                FROM buy_ins b LEFT JOIN buy_in_voids v ON v.buy_in_id = b.id \
                WHERE b.gaming_day = o.gaming_day AND ($3::bigint IS NULL OR b.table_id = $3) \
                GROUP BY b.table_id, b.gaming_day \
            ) live \
            UNION ALL \
            SELECT live.* FROM open_days o CROSS JOIN LATERAL ( \
                SELECT f.table_id, f.gaming_day, 0, 0, \
                       COALESCE(sum(f.amount) FILTER (WHERE v.fee_id IS NULL), 0) \
                FROM table_fees f LEFT JOIN table_fee_voids v ON v.fee_id = f.id \
                WHERE f.gaming_day = o.gaming_day AND ($3::bigint IS NULL OR f.table_id = $3) \
                GROUP BY f.table_id, f.gaming_day \
            ) live \
        ) parts \
        GROUP BY table_id, gaming_day \
    ), open_slips AS ( \
        SELECT s.* FROM open_days o JOIN inventory_slips s ON s.gaming_day = o.gaming_day \
        WHERE $3::bigint IS NULL OR s.table_id = $3 \
    ), open_cage_slips AS ( \
        SELECT c.* FROM open_days o JOIN cage_slips c ON c.gaming_day = o.gaming_day \
        WHERE $3::bigint IS NULL OR c.table_id = $3 \
    ), counted AS ( \
        SELECT DISTINCT ON (d.table_id, d.gaming_day) d.table_id, d.gaming_day, \
               d.id AS count_id, d.total AS counted, d.cash AS counted_cash, \
               d.markers + d.chip_vouchers AS counted_non_cash \
        FROM drop_counts d \
        WHERE d.gaming_day BETWEEN $1 AND $2 AND ($3::bigint IS NULL OR d.table_id = $3) \
          AND NOT EXISTS (SELECT 1 FROM drop_count_voids v WHERE v.count_id = d.id) \
        ORDER BY d.table_id, d.gaming_day, d.id DESC \
    ), days AS ( \
        SELECT table_id, gaming_day FROM played \
        UNION SELECT table_id, gaming_day FROM open_slips \
        UNION SELECT table_id, gaming_day FROM open_cage_slips \
        UNION SELECT table_id, gaming_day FROM recorded \
        UNION SELECT n.table_id, n.gaming_day FROM counted n \
            WHERE NOT EXISTS (SELECT 1 FROM closed_table_days c \
                              WHERE c.gaming_day = n.gaming_day AND c.table_id = n.table_id) \
    ), slips AS ( \
        SELECT s.table_id, s.gaming_day, \
               (array_agg(s.total ORDER BY s.id) FILTER (WHERE s.kind = 'opener'))[1] AS opener, \
               (array_agg(s.total ORDER BY s.id DESC) FILTER (WHERE s.kind = 'closer'))[1] \
                   AS closer, \
               bool_or(s.held AND NOT EXISTS ( \
                   SELECT 1 FROM opener_explanations e WHERE e.slip_id = s.id)) AS held \
        FROM open_slips s \
        WHERE NOT EXISTS (SELECT 1 FROM inventory_slip_voids v WHERE v.slip_id = s.id) \
        GROUP BY s.table_id, s.gaming_day \
    ), cage AS ( \
        SELECT c.table_id, c.gaming_day, \
               COALESCE(sum(c.total) FILTER (WHERE c.kind = 'fill' AND st.received), 0) AS fills, \
               COALESCE(sum(c.total) FILTER (WHERE c.kind = 'credit' AND st.received), 0) \
                   AS credits, \
               count(*) FILTER (WHERE NOT st.received) AS cage_open \
        FROM open_cage_slips c \
        CROSS JOIN LATERAL ( \
            SELECT bool_or(step = 'received') AS received, bool_or(step = 'void') AS void \
            FROM cage_slip_steps WHERE slip_id = c.id) st \
        WHERE NOT st.void \
        GROUP BY c.table_id, c.gaming_day \
    ), table_days AS ( \
        SELECT d.table_id, d.gaming_day, COALESCE(r.points_game, false) AS points_game, \
               s.opener, s.closer, COALESCE(s.held, false) AS held, \
               COALESCE(c.fills, 0)::bigint AS fills, COALESCE(c.credits, 0)::bigint AS credits, \
               COALESCE(c.cage_open, 0)::bigint AS cage_open, \
               COALESCE(b.cash, 0)::bigint AS bought_cash, \
               COALESCE(b.non_cash, 0)::bigint AS bought_non_cash, \
               COALESCE(b.fees, 0)::bigint AS fees, \
               COALESCE(r.house, 0)::bigint AS house, COALESCE(r.rounds, 0)::bigint AS rounds, \
               COALESCE(r.void_rounds, 0)::bigint AS void_rounds, \
               COALESCE(r.pending, 0)::bigint AS pending \
        FROM days d \
        LEFT JOIN slips s USING (table_id, gaming_day) \
        LEFT JOIN cage c USING (table_id, gaming_day) \
        LEFT JOIN recorded b USING (table_id, gaming_day) \
        LEFT JOIN played r USING (table_id, gaming_day) \
        UNION ALL \
        SELECT table_id, gaming_day, points_game, opener, closer, held, fills, credits, \
               cage_open, bought_cash, bought_non_cash, fees, house, rounds, void_rounds, \
               pending \
        FROM closed_table_days \
        WHERE gaming_day BETWEEN $1 AND $2 AND ($3::bigint IS NULL OR table_id = $3) \
    ) \
    SELECT d.table_id, d.gaming_day, t.code, t.currency, d.points_game, \
           d.opener, d.closer, d.held, d.fills, d.credits, d.cage_open, \
           d.bought_cash, d.bought_non_cash, \
           n.counted, n.counted_cash, n.counted_non_cash, \
           d.fees, d.house, d.rounds, d.void_rounds, d.pending \
    FROM table_days d \
    JOIN gaming_tables t ON t.id = d.table_id \
    LEFT JOIN counted n USING (table_id, gaming_day) \
    ORDER BY d.gaming_day, t.code"
        )
    };
}

/// Every table-day of gaming days `$1` to `$2` on which anything happened at the table (a round,
/// an inventory slip, a fill or credit, a buy-in, a fee, a count), `$3` narrowing to one table
/// when not null, with what each kind of record adds up to (void records left out):
/// - the opener: the day's first opener not void; the closer: its last closer not void;
///   whether an opener of the day holds the table, unexplained;
/// - fills and credits received, and those requested or issued but not received;
/// - buy-ins recorded, cash and non-cash; the count team's count (the last not void);
/// - the rounds' house result (a void round out, its re-entry in), the rounds, the void ones,
///   those waiting for approval; the points game's fees.
///
/// A closed gaming day is read from the rows its close wrote (`closed_table_days`, one a
/// table-day: nothing is recorded, voided or signed for a closed day after it), its count as it
/// is; only the days still open are summed record by record, each kind of record by one index
/// probe a day. So the cost follows the table-days asked for, not the records behind them.
const TABLE_DAYS: &str = table_days!(played_by_rounds!());

/// [`TABLE_DAYS`] without the open days' rounds: every table-day with a document, a buy-in or a
/// fee, an open day's rounds' figures zero (`points_game` false), for a caller that has summed
/// them already (the pit board, from its own statement).
const DOCUMENT_DAYS: &str = table_days!(
    "SELECT NULL::bigint AS table_id, NULL::date AS gaming_day, 0 AS house, 0 AS rounds, \
            0 AS void_rounds, false AS points_game, 0 AS pending WHERE false"
);

/// One table's gaming day as [`TABLE_DAYS`] sums it, in minor units of `currency`.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct TableDayRow {
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub code: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Bool)]
    pub points_game: bool,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub opener: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub closer: Option<i64>,
    /// An opener of the day holds the table, unexplained.
    #[diesel(sql_type = Bool)]
    pub held: bool,
    #[diesel(sql_type = BigInt)]
    pub fills: i64,
    #[diesel(sql_type = BigInt)]
    pub credits: i64,
    /// Fills and credits requested or issued, not yet received, not void.
    #[diesel(sql_type = BigInt)]
    pub cage_open: i64,
    #[diesel(sql_type = BigInt)]
    pub bought_cash: i64,
    #[diesel(sql_type = BigInt)]
    pub bought_non_cash: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub counted: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub counted_cash: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub counted_non_cash: Option<i64>,
    #[diesel(sql_type = BigInt)]
    pub fees: i64,
    #[diesel(sql_type = BigInt)]
    pub house: i64,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub void_rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub pending: i64,
}

impl TableDayRow {
    /// What the day's documents say, as the reconciliation reads them: the drop is the count
    /// when there is one, else the buy-ins recorded (cash and non-cash) while it is pending.
    pub fn documents(&self) -> Documents {
        Documents {
            opener: self.opener.map(Money::from_minor_units),
            closer: self.closer.map(Money::from_minor_units),
            fills: Money::from_minor_units(self.fills),
            credits: Money::from_minor_units(self.credits),
            drop: match self.counted {
                Some(counted) => Drop::Counted(Money::from_minor_units(counted)),
                None => Drop::Pending {
                    recorded: Money::from_minor_units(
                        self.bought_cash.saturating_add(self.bought_non_cash),
                    ),
                },
            },
        }
    }
}

/// The table-days of gaming days `from` to `to` (of one table, or of every table).
pub fn table_days(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<TableDayRow>> {
    load_range(conn, TABLE_DAYS, from, to, table)
}

/// The table-days of gaming day `day` as [`DOCUMENT_DAYS`] reads them: their documents, buy-ins
/// and fees, no rounds.
pub fn document_days(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<TableDayRow>> {
    load_range(conn, DOCUMENT_DAYS, day, day, None)
}

/// Statement `sql` over gaming days `$1` = `from` to `$2` = `to`, `$3` narrowing to `table`
/// when given: the shape the range statements of this module share.
fn load_range<T>(
    conn: &mut PgConnection,
    sql: &'static str,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<T>>
where
    T: QueryableByName<diesel::pg::Pg> + 'static,
{
    diesel::sql_query(sql)
        .bind::<Date, _>(from)
        .bind::<Date, _>(to)
        .bind::<Nullable<BigInt>, _>(table.map(|t| t.0))
        .load(conn)
}

/// Every dealer shift of gaming days `$1` to `$2` (`$3` narrowing to one table when not null),
/// with what was recorded during it: the buy-ins taken (cash and non-cash, void ones left out),
/// the points game's fees, the rounds' house result (a void round out, its re-entry in) and the
/// rounds; and how many shifts its table had that day. Each part reads its table by gaming day:
/// a closed day's rounds are its shift's sum (`closed_day_round_sums`, by its key), its buy-ins
/// and fees their sums (`closed_day_drop_sums`: a shift that began before the gaming day's end
/// may have taken buy-ins on the next, so these are summed by shift over the range); an open
/// day's are summed record by record.
const DEALER_SHIFTS: &str = concat!(
    "WITH ",
    open_days!(),
    "recorded AS ( \
        SELECT shift_id, sum(bought) AS bought, sum(fees) AS fees FROM ( \
            SELECT s.shift_id, s.cash + s.non_cash AS bought, s.fees \
            FROM closed_day_drop_sums s \
            WHERE s.gaming_day BETWEEN $1 AND $2 AND ($3::bigint IS NULL OR s.table_id = $3) \
              AND s.shift_id IS NOT NULL \
            UNION ALL \
            SELECT live.* FROM open_days o CROSS JOIN LATERAL ( \
                SELECT b.shift_id, COALESCE(sum(b.amount) FILTER (WHERE v.buy_in_id IS NULL), 0), \
                       0 \
                FROM buy_ins b LEFT JOIN buy_in_voids v ON v.buy_in_id = b.id \
                WHERE b.gaming_day = o.gaming_day AND ($3::bigint IS NULL OR b.table_id = $3) \
                  AND b.shift_id IS NOT NULL \
                GROUP BY b.shift_id \
            ) live \
            UNION ALL \
            SELECT live.* FROM open_days o CROSS JOIN LATERAL ( \
                SELECT f.shift_id, 0, COALESCE(sum(f.amount) FILTER (WHERE v.fee_id IS NULL), 0) \
                FROM table_fees f LEFT JOIN table_fee_voids v ON v.fee_id = f.id \
                WHERE f.gaming_day = o.gaming_day AND ($3::bigint IS NULL OR f.table_id = $3) \
                  AND f.shift_id IS NOT NULL \
                GROUP BY f.shift_id \
            ) live \
        ) parts \
        GROUP BY shift_id \
    ), played AS ( \
        SELECT live.* FROM open_days o CROSS JOIN LATERAL ( \
            SELECT f.shift_id, \
                   COALESCE(sum(f.dealer_result) FILTER (WHERE v.round_id IS NULL), 0) AS house, \
                   count(*) FILTER (WHERE v.round_id IS NULL) AS rounds \
            FROM round_figures f \
            LEFT JOIN round_voids v ON v.round_id = f.round_id \
            WHERE f.gaming_day = o.gaming_day AND ($3::bigint IS NULL OR f.table_id = $3) \
            GROUP BY f.shift_id \
        ) live \
    ) \
    SELECT s.id AS shift_id, s.table_id, s.gaming_day, t.code, t.currency, \
           s.dealer_id, u.display_name AS dealer, s.signed_on_at, s.signed_off_at, \
           COALESCE(b.bought, 0)::bigint AS bought, COALESCE(b.fees, 0)::bigint AS fees, \
           COALESCE(c.house, r.house, 0)::bigint AS house, \
           COALESCE(c.rounds, r.rounds, 0)::bigint AS rounds, \
           count(*) OVER (PARTITION BY s.table_id, s.gaming_day) AS shifts_that_day \
    FROM dealer_shifts s \
    JOIN gaming_tables t ON t.id = s.table_id \
    JOIN users u ON u.id = s.dealer_id \
    LEFT JOIN recorded b ON b.shift_id = s.id \
    LEFT JOIN closed_day_round_sums c \
        ON c.gaming_day = s.gaming_day AND c.table_id = s.table_id AND c.shift_id = s.id \
       AND c.gaming_day BETWEEN $1 AND $2 \
    LEFT JOIN played r ON r.shift_id = s.id \
    WHERE s.gaming_day BETWEEN $1 AND $2 AND ($3::bigint IS NULL OR s.table_id = $3) \
    ORDER BY s.gaming_day, t.code, s.signed_on_at, s.id"
);

/// One dealer shift as [`DEALER_SHIFTS`] sums it, in minor units of `currency`.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct ShiftRow {
    #[diesel(sql_type = BigInt)]
    pub shift_id: ShiftId,
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub code: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = BigInt)]
    pub dealer_id: UserId,
    #[diesel(sql_type = Text)]
    pub dealer: String,
    #[diesel(sql_type = Timestamptz)]
    pub signed_on_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub signed_off_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = BigInt)]
    pub bought: i64,
    #[diesel(sql_type = BigInt)]
    pub fees: i64,
    #[diesel(sql_type = BigInt)]
    pub house: i64,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub shifts_that_day: i64,
}

/// The dealer shifts of gaming days `from` to `to` (of one table, or of every table).
pub fn dealer_shifts(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<ShiftRow>> {
    load_range(conn, DEALER_SHIFTS, from, to, table)
}

/// What moved the chips of each table-day of gaming days `$1` to `$2` (`$3` narrowing to one
/// table when not null) whose table counted them more than once that day (more than one closer
/// not void: counted at each dealer change): its openers and closers not void, at their signing,
/// and its fills and credits received and not void, at their receipt.
const CHIP_EVENTS: &str = "\
    WITH counted_per_shift AS ( \
        SELECT s.table_id, s.gaming_day FROM inventory_slips s \
        WHERE s.gaming_day BETWEEN $1 AND $2 AND ($3::bigint IS NULL OR s.table_id = $3) \
          AND s.kind = 'closer' \
          AND NOT EXISTS (SELECT 1 FROM inventory_slip_voids v WHERE v.slip_id = s.id) \
        GROUP BY s.table_id, s.gaming_day HAVING count(*) > 1 \
    ) \
    SELECT s.table_id, s.gaming_day, s.kind, s.total, s.created_at AS at \
    FROM inventory_slips s JOIN counted_per_shift USING (table_id, gaming_day) \
    WHERE NOT EXISTS (SELECT 1 FROM inventory_slip_voids v WHERE v.slip_id = s.id) \
    UNION ALL \
    SELECT c.table_id, c.gaming_day, c.kind, c.total, r.at \
    FROM cage_slips c JOIN counted_per_shift USING (table_id, gaming_day) \
    JOIN cage_slip_steps r ON r.slip_id = c.id AND r.step = 'received' \
    WHERE NOT EXISTS (SELECT 1 FROM cage_slip_steps x WHERE x.slip_id = c.id AND x.step = 'void') \
    ORDER BY 1, 2, 5";

/// An opener, closer, fill or credit as [`CHIP_EVENTS`] reads it (`kind` as stored).
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct ChipEventRow {
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = BigInt)]
    pub total: i64,
    #[diesel(sql_type = Timestamptz)]
    pub at: DateTime<Utc>,
}

/// The chip events of the table-days of gaming days `from` to `to` counted per shift (of one
/// table, or of every table).
pub fn chip_events(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<ChipEventRow>> {
    load_range(conn, CHIP_EVENTS, from, to, table)
}

/// The round drafts open at each of these tables now (a draft belongs to no gaming day until it
/// is settled: the reconciliation lists those of the day being played).
pub fn open_drafts(
    conn: &mut PgConnection,
    tables: &[TableId],
) -> QueryResult<Vec<(TableId, String)>> {
    use crate::db::schema::round_drafts;
    round_drafts::table
        .filter(round_drafts::table_id.eq_any(tables))
        .filter(round_drafts::settled_round_id.is_null())
        .filter(round_drafts::abandoned_at.is_null())
        .select((round_drafts::table_id, round_drafts::draft_key))
        .order(round_drafts::id)
        .load(conn)
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = investigations)]
pub struct InvestigationRow {
    pub id: InvestigationId,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub currency: String,
    pub inventory_win: i64,
    pub rounds_win: i64,
    pub variance: i64,
    pub tolerance: i64,
    pub opened_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = investigations)]
pub struct NewInvestigation<'a> {
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub currency: &'a str,
    pub inventory_win: i64,
    pub rounds_win: i64,
    pub variance: i64,
    pub tolerance: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = investigation_closings)]
pub struct ClosingRow {
    pub investigation_id: InvestigationId,
    pub findings: String,
    pub closed_by: UserId,
    pub closed_at: DateTime<Utc>,
}

pub fn insert_investigation(
    conn: &mut PgConnection,
    new: &NewInvestigation<'_>,
) -> QueryResult<InvestigationRow> {
    diesel::insert_into(investigations::table)
        .values(new)
        .returning(InvestigationRow::as_returning())
        .get_result(conn)
}

/// A table-day's investigations, oldest first.
pub fn investigations_of(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
) -> QueryResult<Vec<InvestigationRow>> {
    investigations::table
        .filter(investigations::table_id.eq(table))
        .filter(investigations::gaming_day.eq(day))
        .select(InvestigationRow::as_select())
        .order(investigations::id)
        .load(conn)
}

/// Investigations of gaming days `from` to `to`, and every one still open whatever its day.
pub fn investigations_listed(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
) -> QueryResult<Vec<InvestigationRow>> {
    let closed = investigation_closings::table.select(investigation_closings::investigation_id);
    investigations::table
        .filter(
            investigations::gaming_day
                .between(from, to)
                .or(investigations::id.ne_all(closed)),
        )
        .select(InvestigationRow::as_select())
        .order((investigations::gaming_day, investigations::id))
        .load(conn)
}

pub fn investigation(
    conn: &mut PgConnection,
    id: InvestigationId,
) -> QueryResult<Option<InvestigationRow>> {
    investigations::table
        .find(id)
        .select(InvestigationRow::as_select())
        .first(conn)
        .optional()
}

pub fn closings_of(
    conn: &mut PgConnection,
    ids: &[InvestigationId],
) -> QueryResult<Vec<ClosingRow>> {
    investigation_closings::table
        .filter(investigation_closings::investigation_id.eq_any(ids))
        .select(ClosingRow::as_select())
        .load(conn)
}

pub fn insert_closing(
    conn: &mut PgConnection,
    id: InvestigationId,
    findings: &str,
    by: UserId,
) -> QueryResult<ClosingRow> {
    diesel::insert_into(investigation_closings::table)
        .values((
            investigation_closings::investigation_id.eq(id),
            investigation_closings::findings.eq(findings),
            investigation_closings::closed_by.eq(by),
        ))
        .returning(ClosingRow::as_returning())
        .get_result(conn)
}

/// Whether account `user` signed an inventory slip, dealt a shift or recorded a buy-in at
/// table `table` on gaming day `day`.
pub fn worked_at(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
    user: UserId,
) -> QueryResult<bool> {
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = Bool)]
        worked: bool,
    }
    let found: Found = diesel::sql_query(
        "SELECT EXISTS (SELECT 1 FROM inventory_slips WHERE table_id = $1 AND gaming_day = $2 \
                           AND $3 IN (dealer_id, supervisor_id)) \
             OR EXISTS (SELECT 1 FROM dealer_shifts WHERE table_id = $1 AND gaming_day = $2 \
                           AND dealer_id = $3) \
             OR EXISTS (SELECT 1 FROM buy_ins WHERE table_id = $1 AND gaming_day = $2 \
                           AND recorded_by = $3) AS worked",
    )
    .bind::<BigInt, _>(table.0)
    .bind::<Date, _>(day)
    .bind::<BigInt, _>(user.0)
    .get_result(conn)?;
    Ok(found.worked)
}

/// A table that needs a closer for a gaming day and has none: its code.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct MissingCloser {
    #[diesel(sql_type = Text)]
    pub table_code: String,
}

/// A fill or credit of a gaming day requested or issued, neither received nor void.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct UnreceivedSlip {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Text)]
    pub table_code: String,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    pub year: i32,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    pub number: i32,
    /// Its last step: `requested` or `issued`.
    #[diesel(sql_type = Text)]
    pub step: String,
}

/// The fills and credits of gaming day `day` neither received nor void, by table code and
/// number.
pub fn unreceived_slips(
    conn: &mut PgConnection,
    day: NaiveDate,
) -> QueryResult<Vec<UnreceivedSlip>> {
    diesel::sql_query(
        "SELECT c.id, t.code AS table_code, c.kind, c.year, c.number, \
                CASE WHEN bool_or(st.step = 'issued') THEN 'issued' ELSE 'requested' END AS step \
         FROM cage_slips c \
         JOIN gaming_tables t ON t.id = c.table_id \
         JOIN cage_slip_steps st ON st.slip_id = c.id \
         WHERE c.gaming_day = $1 \
         GROUP BY c.id, t.code \
         HAVING NOT bool_or(st.step IN ('received', 'void')) \
         ORDER BY t.code, c.kind, c.year, c.number",
    )
    .bind::<Date, _>(day)
    .load(conn)
}

/// The tables that took rounds or had an opener on gaming day `day` and have no closer of that
/// day (not void), among those whose currency has a chip set (where no chip set is configured,
/// no slip can be counted: those tables keep no inventory), in code order.
pub fn missing_closers(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<MissingCloser>> {
    diesel::sql_query(
        "SELECT t.code AS table_code FROM gaming_tables t \
         WHERE EXISTS (SELECT 1 FROM chip_sets c WHERE c.currency = t.currency) \
           AND (EXISTS (SELECT 1 FROM round_figures f \
                        WHERE f.gaming_day = $1 AND f.table_id = t.id) \
                OR EXISTS (SELECT 1 FROM inventory_slips s \
                           WHERE s.gaming_day = $1 AND s.table_id = t.id AND s.kind = 'opener' \
                             AND NOT EXISTS (SELECT 1 FROM inventory_slip_voids v \
                                             WHERE v.slip_id = s.id))) \
           AND NOT EXISTS (SELECT 1 FROM inventory_slips s \
                           WHERE s.gaming_day = $1 AND s.table_id = t.id AND s.kind = 'closer' \
                             AND NOT EXISTS (SELECT 1 FROM inventory_slip_voids v \
                                             WHERE v.slip_id = s.id)) \
         ORDER BY t.code",
    )
    .bind::<Date, _>(day)
    .load(conn)
}
