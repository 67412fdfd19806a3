//! Cash over the cage's counter, the compliance thresholds, cases and decisions: rows and
//! queries (migration `2026-12-12-000001_cash_transactions`; docs/compliance.md). Every row is
//! only ever inserted (triggers refuse changes); a void is a row of its own beside the cash. The
//! decisions and the words a person reads are in `crate::accounting::cash` and
//! `crate::players::compliance`.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Date, Nullable, SmallInt, Text, Timestamptz};

use crate::db::ids::{BuyInId, CageCashId, CaseId, ObservationId, PlayerId, TableId, UserId};
use crate::db::schema::{
    cage_cash, cage_cash_voids, compliance_cases, compliance_decisions, compliance_thresholds,
};

/// The `compliance` chain: the cage's cash, every cash transaction with a known player, the
/// cases raised, the compliance officer's decisions and the thresholds set.
pub const COMPLIANCE_CHAIN: &str = "compliance";

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = cage_cash)]
pub struct CageCashRow {
    pub id: CageCashId,
    pub gaming_day: NaiveDate,
    pub direction: String,
    pub currency: String,
    pub amount: i64,
    pub player_id: Option<PlayerId>,
    pub note: String,
    pub recorded_by: UserId,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = cage_cash_voids)]
pub struct CageCashVoidRow {
    pub cage_cash_id: CageCashId,
    pub reason: String,
    pub voided_by: UserId,
    pub voided_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = compliance_thresholds)]
pub struct ThresholdRow {
    pub id: i64,
    pub currency: String,
    pub threshold: i64,
    pub warn_percent: i16,
    pub window_days: i16,
    pub set_by: Option<UserId>,
    pub set_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = compliance_cases)]
pub struct CaseRow {
    pub id: CaseId,
    pub kind: String,
    pub gaming_day: NaiveDate,
    pub first_day: NaiveDate,
    pub player_id: Option<PlayerId>,
    pub direction: String,
    pub currency: String,
    pub total: i64,
    pub threshold: i64,
    pub transactions: serde_json::Value,
    pub identification: serde_json::Value,
    pub table_id: Option<TableId>,
    pub raised_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = compliance_decisions)]
pub struct DecisionRow {
    pub case_id: CaseId,
    pub decision: String,
    pub reference: String,
    pub reason: String,
    pub decided_by: UserId,
    pub decided_at: DateTime<Utc>,
}

/// Cash to record at the cage.
pub struct NewCageCash<'a> {
    pub gaming_day: NaiveDate,
    pub direction: &'a str,
    pub currency: &'a str,
    pub amount: i64,
    pub player_id: Option<PlayerId>,
    pub note: &'a str,
    pub recorded_by: UserId,
}

pub fn insert_cage_cash(
    conn: &mut PgConnection,
    new: &NewCageCash<'_>,
) -> QueryResult<CageCashRow> {
    diesel::insert_into(cage_cash::table)
        .values((
            cage_cash::gaming_day.eq(new.gaming_day),
            cage_cash::direction.eq(new.direction),
            cage_cash::currency.eq(new.currency),
            cage_cash::amount.eq(new.amount),
            cage_cash::player_id.eq(new.player_id),
            cage_cash::note.eq(new.note),
            cage_cash::recorded_by.eq(new.recorded_by),
        ))
        .returning(CageCashRow::as_returning())
        .get_result(conn)
}

/// One cash record of the cage, with its void if it has one.
pub fn cage_cash_one(
    conn: &mut PgConnection,
    id: CageCashId,
) -> QueryResult<Option<(CageCashRow, Option<CageCashVoidRow>)>> {
    cage_cash::table
        .left_join(cage_cash_voids::table)
        .filter(cage_cash::id.eq(id))
        .select((
            CageCashRow::as_select(),
            Option::<CageCashVoidRow>::as_select(),
        ))
        .first(conn)
        .optional()
}

/// The cage's cash of a gaming day, each with its void, in the order recorded.
pub fn cage_cash_of_day(
    conn: &mut PgConnection,
    day: NaiveDate,
) -> QueryResult<Vec<(CageCashRow, Option<CageCashVoidRow>)>> {
    cage_cash::table
        .left_join(cage_cash_voids::table)
        .filter(cage_cash::gaming_day.eq(day))
        .order(cage_cash::id.asc())
        .select((
            CageCashRow::as_select(),
            Option::<CageCashVoidRow>::as_select(),
        ))
        .load(conn)
}

/// Records the void of cage cash; `None` when it has one already.
pub fn insert_cage_cash_void(
    conn: &mut PgConnection,
    id: CageCashId,
    reason: &str,
    voided_by: UserId,
) -> QueryResult<Option<CageCashVoidRow>> {
    diesel::insert_into(cage_cash_voids::table)
        .values((
            cage_cash_voids::cage_cash_id.eq(id),
            cage_cash_voids::reason.eq(reason),
            cage_cash_voids::voided_by.eq(voided_by),
        ))
        .on_conflict_do_nothing()
        .returning(CageCashVoidRow::as_returning())
        .get_result(conn)
        .optional()
}

/// The thresholds in force for a currency: its latest row.
pub fn thresholds_of(conn: &mut PgConnection, currency: &str) -> QueryResult<Option<ThresholdRow>> {
    compliance_thresholds::table
        .filter(compliance_thresholds::currency.eq(currency))
        .order(compliance_thresholds::id.desc())
        .select(ThresholdRow::as_select())
        .first(conn)
        .optional()
}

/// Every thresholds row, newest first (the first of each currency is in force).
pub fn threshold_history(conn: &mut PgConnection) -> QueryResult<Vec<ThresholdRow>> {
    compliance_thresholds::table
        .order((
            compliance_thresholds::currency,
            compliance_thresholds::id.desc(),
        ))
        .select(ThresholdRow::as_select())
        .load(conn)
}

/// Thresholds to put in force.
pub struct NewThresholds<'a> {
    pub currency: &'a str,
    pub threshold: i64,
    pub warn_percent: i16,
    pub window_days: i16,
    pub set_by: UserId,
}

pub fn insert_thresholds(
    conn: &mut PgConnection,
    new: &NewThresholds<'_>,
) -> QueryResult<ThresholdRow> {
    diesel::insert_into(compliance_thresholds::table)
        .values((
            compliance_thresholds::currency.eq(new.currency),
            compliance_thresholds::threshold.eq(new.threshold),
            compliance_thresholds::warn_percent.eq(new.warn_percent),
            compliance_thresholds::window_days.eq(new.window_days),
            compliance_thresholds::set_by.eq(Some(new.set_by)),
        ))
        .returning(ThresholdRow::as_returning())
        .get_result(conn)
}

/// One cash transaction of a player's, at a table or at the cage.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct CashLine {
    /// `buy_in` or `cage`.
    #[diesel(sql_type = Text)]
    pub source: String,
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Nullable<Text>)]
    pub table_code: Option<String>,
    #[diesel(sql_type = Nullable<SmallInt>)]
    pub seat: Option<i16>,
    #[diesel(sql_type = BigInt)]
    pub amount: i64,
    #[diesel(sql_type = Timestamptz)]
    pub at: DateTime<Utc>,
}

/// A player's cash transactions in `direction` and `currency` on gaming days `from..=to`, not
/// void, by day and time: buy-ins in cash at the tables (cash in: their own, and those
/// attributed to them when carded from an observation, unless that observation was voided since)
/// and the cage's cash.
pub fn player_cash(
    conn: &mut PgConnection,
    player: PlayerId,
    direction: &str,
    currency: &str,
    from: NaiveDate,
    to: NaiveDate,
) -> QueryResult<Vec<CashLine>> {
    diesel::sql_query(
        "SELECT 'buy_in' AS source, b.id, b.gaming_day, t.code AS table_code, b.seat, b.amount, \
                b.created_at AS at \
         FROM buy_ins b JOIN gaming_tables t ON t.id = b.table_id \
         WHERE $2 = 'in' AND b.player_id = $1 AND b.kind = 'cash' AND b.currency = $3 \
           AND b.gaming_day BETWEEN $4 AND $5 \
           AND NOT EXISTS (SELECT 1 FROM buy_in_voids v WHERE v.buy_in_id = b.id) \
         UNION ALL \
         SELECT 'buy_in', b.id, b.gaming_day, t.code, b.seat, b.amount, b.created_at \
         FROM buy_in_attributions a JOIN buy_ins b ON b.id = a.buy_in_id \
         JOIN gaming_tables t ON t.id = b.table_id \
         WHERE $2 = 'in' AND a.player_id = $1 AND b.kind = 'cash' AND b.currency = $3 \
           AND a.gaming_day BETWEEN $4 AND $5 \
           AND NOT EXISTS (SELECT 1 FROM buy_in_voids v WHERE v.buy_in_id = b.id) \
           AND NOT EXISTS (SELECT 1 FROM unrated_observation_voids ov \
                           WHERE ov.observation_id = a.observation_id) \
         UNION ALL \
         SELECT 'cage', c.id, c.gaming_day, NULL, NULL, c.amount, c.created_at \
         FROM cage_cash c \
         WHERE c.player_id = $1 AND c.direction = $2 AND c.currency = $3 \
           AND c.gaming_day BETWEEN $4 AND $5 \
           AND NOT EXISTS (SELECT 1 FROM cage_cash_voids v WHERE v.cage_cash_id = c.id) \
         ORDER BY gaming_day, at, source, id",
    )
    .bind::<BigInt, _>(player.0)
    .bind::<Text, _>(direction)
    .bind::<Text, _>(currency)
    .bind::<Date, _>(from)
    .bind::<Date, _>(to)
    .load(conn)
}

/// The kinds and days of a player's cases in `direction` and `currency` raised on gaming days
/// `from..=to`.
pub fn raised(
    conn: &mut PgConnection,
    player: PlayerId,
    direction: &str,
    currency: &str,
    from: NaiveDate,
    to: NaiveDate,
) -> QueryResult<Vec<(String, NaiveDate)>> {
    compliance_cases::table
        .filter(compliance_cases::player_id.eq(player))
        .filter(compliance_cases::direction.eq(direction))
        .filter(compliance_cases::currency.eq(currency))
        .filter(compliance_cases::gaming_day.between(from, to))
        .select((compliance_cases::kind, compliance_cases::gaming_day))
        .load(conn)
}

/// A case to raise.
pub struct NewCase<'a> {
    pub kind: &'a str,
    pub gaming_day: NaiveDate,
    pub first_day: NaiveDate,
    pub player_id: Option<PlayerId>,
    pub direction: &'a str,
    pub currency: &'a str,
    pub total: i64,
    pub threshold: i64,
    pub transactions: serde_json::Value,
    pub identification: serde_json::Value,
    pub table_id: Option<TableId>,
}

/// Raises a case; `None` when the player's day has one of its kind already (a concurrent
/// transaction raised it first: the unique index keeps one).
pub fn insert_case(conn: &mut PgConnection, new: &NewCase<'_>) -> QueryResult<Option<CaseRow>> {
    diesel::insert_into(compliance_cases::table)
        .values((
            compliance_cases::kind.eq(new.kind),
            compliance_cases::gaming_day.eq(new.gaming_day),
            compliance_cases::first_day.eq(new.first_day),
            compliance_cases::player_id.eq(new.player_id),
            compliance_cases::direction.eq(new.direction),
            compliance_cases::currency.eq(new.currency),
            compliance_cases::total.eq(new.total),
            compliance_cases::threshold.eq(new.threshold),
            compliance_cases::transactions.eq(&new.transactions),
            compliance_cases::identification.eq(&new.identification),
            compliance_cases::table_id.eq(new.table_id),
        ))
        .on_conflict_do_nothing()
        .returning(CaseRow::as_returning())
        .get_result(conn)
        .optional()
}

/// The cases raised on gaming days `from..=to`, newest first, each with its decision, at most
/// `limit`; only those without a decision when `open_only`.
pub fn cases(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    open_only: bool,
    limit: i64,
) -> QueryResult<Vec<(CaseRow, Option<DecisionRow>)>> {
    let mut query = compliance_cases::table
        .left_join(compliance_decisions::table)
        .filter(compliance_cases::gaming_day.between(from, to))
        .into_boxed();
    if open_only {
        query = query.filter(compliance_decisions::case_id.is_null());
    }
    query
        .order(compliance_cases::id.desc())
        .limit(limit)
        .select((CaseRow::as_select(), Option::<DecisionRow>::as_select()))
        .load(conn)
}

/// The cases of a player, newest first, each with its decision.
pub fn cases_of(
    conn: &mut PgConnection,
    player: PlayerId,
) -> QueryResult<Vec<(CaseRow, Option<DecisionRow>)>> {
    compliance_cases::table
        .left_join(compliance_decisions::table)
        .filter(compliance_cases::player_id.eq(player))
        .order(compliance_cases::id.desc())
        .select((CaseRow::as_select(), Option::<DecisionRow>::as_select()))
        .load(conn)
}

/// One case with its decision.
pub fn case(
    conn: &mut PgConnection,
    id: CaseId,
) -> QueryResult<Option<(CaseRow, Option<DecisionRow>)>> {
    compliance_cases::table
        .left_join(compliance_decisions::table)
        .filter(compliance_cases::id.eq(id))
        .select((CaseRow::as_select(), Option::<DecisionRow>::as_select()))
        .first(conn)
        .optional()
}

/// A decision to record.
pub struct NewDecision<'a> {
    pub case_id: CaseId,
    pub decision: &'a str,
    pub reference: &'a str,
    pub reason: &'a str,
    pub decided_by: UserId,
}

/// Records the decision on a case; `None` when it has one already.
pub fn insert_decision(
    conn: &mut PgConnection,
    new: &NewDecision<'_>,
) -> QueryResult<Option<DecisionRow>> {
    diesel::insert_into(compliance_decisions::table)
        .values((
            compliance_decisions::case_id.eq(new.case_id),
            compliance_decisions::decision.eq(new.decision),
            compliance_decisions::reference.eq(new.reference),
            compliance_decisions::reason.eq(new.reason),
            compliance_decisions::decided_by.eq(new.decided_by),
        ))
        .on_conflict_do_nothing()
        .returning(DecisionRow::as_returning())
        .get_result(conn)
        .optional()
}

/// A player's total of a gaming day in one direction and currency.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct PlayerDayTotal {
    #[diesel(sql_type = BigInt)]
    pub player_id: i64,
    #[diesel(sql_type = Text)]
    pub direction: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = BigInt)]
    pub total: i64,
}

/// Each player's cash in and cash out of gaming day `day`, per currency, not void (buy-ins
/// attributed to a player counted as theirs while the observation they came from is not void),
/// where the total is at least `at_least` (minor units, any currency).
pub fn day_totals(
    conn: &mut PgConnection,
    day: NaiveDate,
    at_least: i64,
) -> QueryResult<Vec<PlayerDayTotal>> {
    diesel::sql_query(
        "SELECT player_id, direction, currency, sum(amount)::int8 AS total FROM ( \
           SELECT b.player_id, 'in' AS direction, b.currency, b.amount FROM buy_ins b \
           WHERE b.gaming_day = $1 AND b.player_id IS NOT NULL AND b.kind = 'cash' \
             AND NOT EXISTS (SELECT 1 FROM buy_in_voids v WHERE v.buy_in_id = b.id) \
           UNION ALL \
           SELECT a.player_id, 'in', b.currency, b.amount FROM buy_in_attributions a \
           JOIN buy_ins b ON b.id = a.buy_in_id \
           WHERE a.gaming_day = $1 AND b.kind = 'cash' \
             AND NOT EXISTS (SELECT 1 FROM buy_in_voids v WHERE v.buy_in_id = b.id) \
             AND NOT EXISTS (SELECT 1 FROM unrated_observation_voids ov \
                             WHERE ov.observation_id = a.observation_id) \
           UNION ALL \
           SELECT c.player_id, c.direction, c.currency, c.amount FROM cage_cash c \
           WHERE c.gaming_day = $1 AND c.player_id IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM cage_cash_voids v WHERE v.cage_cash_id = c.id) \
         ) cash GROUP BY player_id, direction, currency HAVING sum(amount) >= $2 \
         ORDER BY total DESC, player_id, direction, currency",
    )
    .bind::<Date, _>(day)
    .bind::<BigInt, _>(at_least)
    .load(conn)
}

/// The cage's cash of gaming days `from..=to`, each with its void, by day and id.
pub fn cage_cash_between(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
) -> QueryResult<Vec<(CageCashRow, Option<CageCashVoidRow>)>> {
    cage_cash::table
        .left_join(cage_cash_voids::table)
        .filter(cage_cash::gaming_day.between(from, to))
        .order((cage_cash::gaming_day, cage_cash::id))
        .select((
            CageCashRow::as_select(),
            Option::<CageCashVoidRow>::as_select(),
        ))
        .load(conn)
}

/// Every player's card number, by id.
pub fn cards(conn: &mut PgConnection) -> QueryResult<Vec<(i64, String)>> {
    use crate::db::schema::players;
    players::table
        .select((players::id, players::card_number))
        .load::<(PlayerId, String)>(conn)
        .map(|found| found.into_iter().map(|(id, card)| (id.0, card)).collect())
}

/// A case that lists a buy-in among its transactions.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct CaseListing {
    #[diesel(sql_type = BigInt)]
    pub case_id: CaseId,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = BigInt)]
    pub buy_in_id: BuyInId,
}

/// The cases of `player` whose transactions, as kept when raised, list any of the buy-ins
/// `ids`: a row per case and buy-in, by case.
pub fn cases_listing_buy_ins(
    conn: &mut PgConnection,
    player: PlayerId,
    ids: &[BuyInId],
) -> QueryResult<Vec<CaseListing>> {
    diesel::sql_query(
        "SELECT c.id AS case_id, c.gaming_day, (t ->> 'id')::int8 AS buy_in_id \
         FROM compliance_cases c CROSS JOIN LATERAL jsonb_array_elements(c.transactions) t \
         WHERE c.player_id = $1 AND t ->> 'source' = 'buy_in' \
           AND (t ->> 'id')::int8 = ANY ($2::int8[]) \
         ORDER BY c.id, buy_in_id",
    )
    .bind::<BigInt, _>(player.0)
    .bind::<Array<BigInt>, _>(ids.iter().map(|id| id.0).collect::<Vec<_>>())
    .load(conn)
}

/// A buy-in a case lists whose attribution to the case's player no longer counts: the
/// observation it was attributed from was voided since, with that void's reason, who and when.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct WithdrawnLine {
    #[diesel(sql_type = BigInt)]
    pub case_id: CaseId,
    #[diesel(sql_type = BigInt)]
    pub buy_in_id: BuyInId,
    #[diesel(sql_type = BigInt)]
    pub observation_id: ObservationId,
    #[diesel(sql_type = Text)]
    pub reason: String,
    #[diesel(sql_type = BigInt)]
    pub voided_by: UserId,
    #[diesel(sql_type = Timestamptz)]
    pub voided_at: DateTime<Utc>,
}

/// The buy-ins the cases `ids` list whose attribution to the case's player was withdrawn
/// (its observation voided), by case and buy-in.
pub fn withdrawn_in_cases(
    conn: &mut PgConnection,
    ids: &[CaseId],
) -> QueryResult<Vec<WithdrawnLine>> {
    diesel::sql_query(
        "SELECT c.id AS case_id, a.buy_in_id, a.observation_id, v.reason, v.voided_by, \
                v.voided_at \
         FROM compliance_cases c CROSS JOIN LATERAL jsonb_array_elements(c.transactions) t \
         JOIN buy_in_attributions a ON a.buy_in_id = (t ->> 'id')::int8 \
          AND a.player_id = c.player_id \
         JOIN unrated_observation_voids v ON v.observation_id = a.observation_id \
         WHERE c.id = ANY ($1::int8[]) AND t ->> 'source' = 'buy_in' \
         ORDER BY c.id, a.buy_in_id",
    )
    .bind::<Array<BigInt>, _>(ids.iter().map(|id| id.0).collect::<Vec<_>>())
    .load(conn)
}
