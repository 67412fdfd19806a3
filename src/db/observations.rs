//! Unrated observations: rows and queries (migrations `2026-12-14-000001_unrated_observations`
//! and `2026-12-15-000001_observation_cardings`; docs/players.md). An observation, its end, its
//! void and its carding (the player carded, and the rating it goes on as) are only ever
//! inserted (triggers refuse changes). The decisions and the words a person reads are in
//! `crate::players::observations`.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Nullable, Timestamptz};

use crate::db::drop::BuyInRow;
use crate::db::ids::{BuyInId, ObservationId, PlayerId, RatingId, TableId, UserId};
use crate::db::players::{rounds_of_spans, PlayerRow, SeatRoundRow};
use crate::db::schema::{
    buy_in_attributions, buy_in_voids, buy_ins, observation_cardings, players,
    unrated_observation_ends, unrated_observation_voids, unrated_observations,
};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = unrated_observations)]
pub struct ObservationRow {
    pub id: ObservationId,
    pub table_id: TableId,
    pub seat: i16,
    pub gaming_day: NaiveDate,
    pub description: String,
    pub currency: String,
    pub average_bet: i64,
    pub started_at: DateTime<Utc>,
    pub recorded_by: UserId,
    pub recorded_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = unrated_observation_ends)]
pub struct EndRow {
    pub observation_id: ObservationId,
    pub ended_at: DateTime<Utc>,
    pub walked_with: Option<i64>,
    pub ended_by: UserId,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = unrated_observation_voids)]
pub struct VoidRow {
    pub observation_id: ObservationId,
    pub reason: String,
    pub voided_by: UserId,
    pub voided_at: DateTime<Utc>,
}

/// An observation's player carded: mid-session (`kind` [`RUNNING`]), the observation ended at
/// `carded_at` and the rating `rating_id` of the player began there and then; after it ended
/// (`kind` [`ENDED`]), at `carded_at`, the rating spans the observation's own time.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = observation_cardings)]
pub struct CardingRow {
    pub observation_id: ObservationId,
    pub rating_id: RatingId,
    pub player_id: PlayerId,
    pub gaming_day: NaiveDate,
    pub carded_by: UserId,
    pub carded_at: DateTime<Utc>,
    pub kind: String,
}

/// A carding of a running observation: its rating goes on from the observation's end.
pub const RUNNING: &str = "running";
/// A carding of an ended observation: its rating spans the observation's time.
pub const ENDED: &str = "ended";

/// An observation with its end and its void, if any.
pub type Observed = (ObservationRow, Option<EndRow>, Option<VoidRow>);

/// An observation to record.
#[derive(Debug, Clone, PartialEq, Eq, Insertable)]
#[diesel(table_name = unrated_observations)]
pub struct NewObservation<'a> {
    pub table_id: TableId,
    pub seat: i16,
    pub gaming_day: NaiveDate,
    pub description: &'a str,
    pub currency: &'a str,
    pub average_bet: i64,
    pub started_at: DateTime<Utc>,
    pub recorded_by: UserId,
}

pub fn insert(conn: &mut PgConnection, new: &NewObservation<'_>) -> QueryResult<ObservationRow> {
    diesel::insert_into(unrated_observations::table)
        .values(new)
        .returning(ObservationRow::as_returning())
        .get_result(conn)
}

/// Ends an observation; none when it has ended already.
pub fn insert_end(
    conn: &mut PgConnection,
    id: ObservationId,
    at: DateTime<Utc>,
    walked_with: Option<i64>,
    by: UserId,
) -> QueryResult<Option<EndRow>> {
    diesel::insert_into(unrated_observation_ends::table)
        .values((
            unrated_observation_ends::observation_id.eq(id),
            unrated_observation_ends::ended_at.eq(at),
            unrated_observation_ends::walked_with.eq(walked_with),
            unrated_observation_ends::ended_by.eq(by),
        ))
        .on_conflict_do_nothing()
        .returning(EndRow::as_returning())
        .get_result(conn)
        .optional()
}

/// Voids an observation; none when it is void already.
pub fn insert_void(
    conn: &mut PgConnection,
    id: ObservationId,
    reason: &str,
    by: UserId,
) -> QueryResult<Option<VoidRow>> {
    diesel::insert_into(unrated_observation_voids::table)
        .values((
            unrated_observation_voids::observation_id.eq(id),
            unrated_observation_voids::reason.eq(reason),
            unrated_observation_voids::voided_by.eq(by),
        ))
        .on_conflict_do_nothing()
        .returning(VoidRow::as_returning())
        .get_result(conn)
        .optional()
}

/// Records an observation's carding; none when it is carded already (the database refuses a
/// carding whose observation does not end where and when its rating starts).
pub fn insert_carding(
    conn: &mut PgConnection,
    new: &CardingRow,
) -> QueryResult<Option<CardingRow>> {
    diesel::insert_into(observation_cardings::table)
        .values(new)
        .on_conflict_do_nothing()
        .returning(CardingRow::as_returning())
        .get_result(conn)
        .optional()
}

/// The cardings of these observations, with the players carded.
pub fn cardings(
    conn: &mut PgConnection,
    ids: &[ObservationId],
) -> QueryResult<Vec<(CardingRow, PlayerRow)>> {
    observation_cardings::table
        .inner_join(players::table)
        .filter(observation_cardings::observation_id.eq_any(ids))
        .select((CardingRow::as_select(), PlayerRow::as_select()))
        .load(conn)
}

/// The cardings these ratings began with.
pub fn cardings_of_ratings(
    conn: &mut PgConnection,
    ids: &[RatingId],
) -> QueryResult<Vec<CardingRow>> {
    observation_cardings::table
        .filter(observation_cardings::rating_id.eq_any(ids))
        .select(CardingRow::as_select())
        .load(conn)
}

/// The observations of the player before they were carded, by gaming day and id, with their
/// ends and voids.
pub fn carded_as(conn: &mut PgConnection, player: PlayerId) -> QueryResult<Vec<Observed>> {
    let query = unrated_observations::table
        .filter(
            unrated_observations::id.eq_any(
                observation_cardings::table
                    .filter(observation_cardings::player_id.eq(player))
                    .select(observation_cardings::observation_id),
            ),
        )
        .into_boxed();
    observed(conn, query)
}

/// The observations these filters pick, by gaming day and id, with their ends and voids.
fn observed(
    conn: &mut PgConnection,
    query: unrated_observations::BoxedQuery<'_, diesel::pg::Pg>,
) -> QueryResult<Vec<Observed>> {
    let rows: Vec<ObservationRow> = query
        .order((unrated_observations::gaming_day, unrated_observations::id))
        .select(ObservationRow::as_select())
        .load(conn)?;
    let ids: Vec<ObservationId> = rows.iter().map(|r| r.id).collect();
    let ends: Vec<EndRow> = unrated_observation_ends::table
        .filter(unrated_observation_ends::observation_id.eq_any(&ids))
        .select(EndRow::as_select())
        .load(conn)?;
    let voids: Vec<VoidRow> = unrated_observation_voids::table
        .filter(unrated_observation_voids::observation_id.eq_any(&ids))
        .select(VoidRow::as_select())
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let end = ends.iter().find(|e| e.observation_id == row.id).cloned();
            let void = voids.iter().find(|v| v.observation_id == row.id).cloned();
            (row, end, void)
        })
        .collect())
}

/// One observation, with its end and void.
pub fn observation(conn: &mut PgConnection, id: ObservationId) -> QueryResult<Option<Observed>> {
    let query = unrated_observations::table
        .filter(unrated_observations::id.eq(id))
        .into_boxed();
    Ok(observed(conn, query)?.into_iter().next())
}

/// The observations of gaming days `from` to `to` (at one table, or every table).
pub fn between(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<Observed>> {
    let mut query = unrated_observations::table
        .filter(unrated_observations::gaming_day.between(from, to))
        .into_boxed();
    if let Some(table) = table {
        query = query.filter(unrated_observations::table_id.eq(table));
    }
    observed(conn, query)
}

/// The observations at a table not ended and not void, by seat, whatever their day.
pub fn open_at_table(conn: &mut PgConnection, table: TableId) -> QueryResult<Vec<ObservationRow>> {
    unrated_observations::table
        .filter(unrated_observations::table_id.eq(table))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            unrated_observation_ends::table
                .filter(unrated_observation_ends::observation_id.eq(unrated_observations::id)),
        )))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            unrated_observation_voids::table
                .filter(unrated_observation_voids::observation_id.eq(unrated_observations::id)),
        )))
        .order((unrated_observations::seat, unrated_observations::id))
        .select(ObservationRow::as_select())
        .load(conn)
}

/// The rounds counted at each observation's table and seat from its start to its end (`ends`,
/// the same order as `ids`; none: up to now), as `db::players::rounds_of_spans` counts them.
pub fn observed_rounds(
    conn: &mut PgConnection,
    ids: &[ObservationId],
    ends: &[Option<DateTime<Utc>>],
) -> QueryResult<Vec<SeatRoundRow>> {
    diesel::sql_query(rounds_of_spans(
        "SELECT o.id, o.table_id, 'seat' || o.seat AS place, o.started_at, \
                coalesce(e.ended, 'infinity') AS ended \
         FROM unnest($1::int8[], $2::timestamptz[]) AS e (id, ended) \
         JOIN unrated_observations o ON o.id = e.id",
    ))
    .bind::<Array<BigInt>, _>(ids.iter().map(|id| id.0).collect::<Vec<_>>())
    .bind::<Array<Nullable<Timestamptz>>, _>(ends.to_vec())
    .load(conn)
}

/// A buy-in recorded with no player at an observed seat, attributed to the player the
/// observation was carded as (migration `2026-12-16-000002_buy_in_attributions`).
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = buy_in_attributions)]
pub struct AttributionRow {
    pub buy_in_id: BuyInId,
    pub player_id: PlayerId,
    pub rating_id: RatingId,
    pub observation_id: ObservationId,
    pub gaming_day: NaiveDate,
    pub attributed_by: UserId,
    #[diesel(skip_insertion)]
    pub attributed_at: DateTime<Utc>,
}

/// The buy-ins with no player recorded at observation `row`'s table and seat from its start to
/// `ended_at`, not voided and not attributed, in the order they were recorded.
pub fn buy_ins_observed(
    conn: &mut PgConnection,
    row: &ObservationRow,
    ended_at: DateTime<Utc>,
) -> QueryResult<Vec<BuyInRow>> {
    buy_ins::table
        .filter(buy_ins::table_id.eq(row.table_id))
        .filter(buy_ins::gaming_day.ge(row.gaming_day))
        .filter(buy_ins::seat.eq(row.seat))
        .filter(buy_ins::player_id.is_null())
        .filter(buy_ins::created_at.ge(row.started_at))
        .filter(buy_ins::created_at.lt(ended_at))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            buy_in_voids::table.filter(buy_in_voids::buy_in_id.eq(buy_ins::id)),
        )))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            buy_in_attributions::table.filter(buy_in_attributions::buy_in_id.eq(buy_ins::id)),
        )))
        .order((buy_ins::created_at, buy_ins::id))
        .select(BuyInRow::as_select())
        .load(conn)
}

/// Attributes a buy-in (the database refuses one that is not of the carded observation's seat
/// and time, or has a player of its own).
pub fn insert_attribution(
    conn: &mut PgConnection,
    new: &AttributionRow,
) -> QueryResult<AttributionRow> {
    diesel::insert_into(buy_in_attributions::table)
        .values(new)
        .returning(AttributionRow::as_returning())
        .get_result(conn)
}

/// Observation `id`'s attributions with their buy-ins, in the order the buy-ins were recorded.
pub fn attributions_of(
    conn: &mut PgConnection,
    id: ObservationId,
) -> QueryResult<Vec<(AttributionRow, BuyInRow)>> {
    buy_in_attributions::table
        .inner_join(buy_ins::table)
        .filter(buy_in_attributions::observation_id.eq(id))
        .order((buy_ins::created_at, buy_ins::id))
        .select((AttributionRow::as_select(), BuyInRow::as_select()))
        .load(conn)
}
