//! Players, their statuses and ratings: rows and queries (migration
//! `2026-12-11-000001_players_and_ratings`; docs/players.md). Statuses, ratings, their steps,
//! refused seatings and house edges are only ever inserted (triggers refuse changes); a
//! player's identity may be updated. The decisions and the words a person reads are in
//! `crate::players`.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Int4, Nullable, Timestamptz};

use crate::db::ids::{
    ExclusionListId, PlayerId, PlayerStatusId, ProfileVersionId, RatingId, SeatRefusalId, TableId,
    UserId,
};
use crate::db::schema::{
    comp_rules, exclusion_list_lines, exclusion_lists, gaming_tables, open_ratings,
    player_statuses, players, profile_version_edges, rating_steps, ratings, rule_profile_versions,
    seat_refusals,
};

/// The audit chain of players, their statuses and ratings, and every read of a player's
/// personal data.
pub const PLAYERS_CHAIN: &str = "players";

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = players)]
pub struct PlayerRow {
    pub id: PlayerId,
    pub card_number: String,
    pub first_name: String,
    pub last_name: String,
    pub date_of_birth: Option<NaiveDate>,
    pub id_reference: Option<String>,
    pub notes: String,
    pub created_by: UserId,
    pub created_at: DateTime<Utc>,
}

/// A player's identity as written (new, or corrected).
#[derive(Debug, Clone, PartialEq, Eq, AsChangeset, Insertable)]
#[diesel(table_name = players, treat_none_as_null = true)]
pub struct Identity {
    pub card_number: String,
    pub first_name: String,
    pub last_name: String,
    pub date_of_birth: Option<NaiveDate>,
    pub id_reference: Option<String>,
    pub notes: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = player_statuses)]
pub struct StatusRow {
    pub id: PlayerStatusId,
    pub player_id: PlayerId,
    pub status: String,
    pub reason: String,
    pub source: String,
    pub set_by: UserId,
    pub set_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = ratings)]
pub struct RatingRow {
    pub id: RatingId,
    pub player_id: PlayerId,
    pub table_id: TableId,
    pub seat: i16,
    pub gaming_day: NaiveDate,
    pub started_at: DateTime<Utc>,
    pub started_by: UserId,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = rating_steps)]
pub struct StepRow {
    pub rating_id: RatingId,
    pub seq: i16,
    pub kind: String,
    pub at: DateTime<Utc>,
    pub by_user: UserId,
    pub walked_with: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = seat_refusals)]
pub struct RefusalRow {
    pub id: SeatRefusalId,
    pub player_id: PlayerId,
    pub table_id: TableId,
    pub seat: i16,
    pub gaming_day: NaiveDate,
    pub status: String,
    pub refused_by: UserId,
    pub refused_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = profile_version_edges)]
pub struct EdgeRow {
    pub rule_profile_version_id: ProfileVersionId,
    pub edge_ppm: i32,
    pub half_width_ppm: i32,
    pub deals: i32,
    pub seed: i64,
    pub computed_at: DateTime<Utc>,
}

pub fn insert_player(
    conn: &mut PgConnection,
    identity: &Identity,
    by: UserId,
) -> QueryResult<PlayerRow> {
    diesel::insert_into(players::table)
        .values((identity, players::created_by.eq(by)))
        .returning(PlayerRow::as_returning())
        .get_result(conn)
}

pub fn update_identity(
    conn: &mut PgConnection,
    id: PlayerId,
    identity: &Identity,
) -> QueryResult<PlayerRow> {
    diesel::update(players::table.find(id))
        .set(identity)
        .returning(PlayerRow::as_returning())
        .get_result(conn)
}

pub fn player(conn: &mut PgConnection, id: PlayerId) -> QueryResult<Option<PlayerRow>> {
    players::table
        .find(id)
        .select(PlayerRow::as_select())
        .first(conn)
        .optional()
}

/// The player, locked until the transaction ends (a status or a seating takes turns with
/// another one for the same player).
pub fn lock_player(conn: &mut PgConnection, id: PlayerId) -> QueryResult<Option<PlayerRow>> {
    players::table
        .find(id)
        .select(PlayerRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

pub fn by_card(conn: &mut PgConnection, card: &str) -> QueryResult<Option<PlayerRow>> {
    players::table
        .filter(players::card_number.eq(card))
        .select(PlayerRow::as_select())
        .first(conn)
        .optional()
}

/// Players whose card number starts with `card`, or whose last or first name starts with
/// `name` (case ignored), by last name; at most `limit`.
pub fn search(
    conn: &mut PgConnection,
    text: &str,
    limit: i64,
) -> QueryResult<Vec<(PlayerRow, Option<StatusRow>)>> {
    let pattern = format!("{}%", escape_like(text));
    let found: Vec<PlayerRow> = players::table
        .filter(
            players::card_number
                .like(pattern.to_uppercase())
                .or(players::last_name.ilike(&pattern))
                .or(players::first_name.ilike(&pattern)),
        )
        .order((players::last_name, players::first_name, players::id))
        .limit(limit)
        .select(PlayerRow::as_select())
        .load(conn)?;
    with_statuses(conn, found)
}

/// The players whose identity document matches `reference`, or whose last and first names and
/// date of birth match (case ignored): an exclusion list's line against the players.
pub fn matching(
    conn: &mut PgConnection,
    reference: Option<&str>,
    last_name: &str,
    first_name: &str,
    born: Option<NaiveDate>,
) -> QueryResult<Vec<PlayerRow>> {
    use diesel::dsl::sql;
    use diesel::sql_types::{Bool, Text};
    let by_name = sql::<Bool>("lower(last_name) = lower(")
        .bind::<Text, _>(last_name.to_owned())
        .sql(") AND lower(first_name) = lower(")
        .bind::<Text, _>(first_name.to_owned())
        .sql(") AND date_of_birth IS NOT DISTINCT FROM ")
        .bind::<Nullable<diesel::sql_types::Date>, _>(born)
        .sql(" AND date_of_birth IS NOT NULL");
    let by_reference = sql::<Bool>("lower(id_reference) = lower(")
        .bind::<Nullable<Text>, _>(reference.map(str::to_owned))
        .sql(")");
    players::table
        .filter(by_reference.or(by_name))
        .order(players::id)
        .select(PlayerRow::as_select())
        .load(conn)
}

/// A comp rule (`comp_rules`).
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = comp_rules)]
pub struct CompRuleRow {
    pub id: i64,
    pub basis_points: i32,
    pub from_day: NaiveDate,
    pub set_by: Option<UserId>,
    pub set_at: DateTime<Utc>,
}

/// Every comp rule, in the order they were set.
pub fn comp_rules(conn: &mut PgConnection) -> QueryResult<Vec<CompRuleRow>> {
    comp_rules::table
        .order(comp_rules::id)
        .select(CompRuleRow::as_select())
        .load(conn)
}

pub fn insert_comp_rule(
    conn: &mut PgConnection,
    basis_points: i32,
    from_day: NaiveDate,
    set_by: UserId,
) -> QueryResult<CompRuleRow> {
    diesel::insert_into(comp_rules::table)
        .values((
            comp_rules::basis_points.eq(basis_points),
            comp_rules::from_day.eq(from_day),
            comp_rules::set_by.eq(set_by),
        ))
        .returning(CompRuleRow::as_returning())
        .get_result(conn)
}

/// An exclusion list's import, before its lines.
pub struct NewList<'a> {
    pub source: &'a str,
    pub lines: i32,
    pub gaming_day: NaiveDate,
    pub imported_by: UserId,
}

/// One line of an exclusion list, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Insertable)]
#[diesel(table_name = exclusion_list_lines)]
pub struct NewListLine {
    pub list_id: ExclusionListId,
    pub line: i32,
    pub last_name: String,
    pub first_name: String,
    pub date_of_birth: Option<NaiveDate>,
    pub id_reference: Option<String>,
    pub status: String,
    pub reason: String,
}

/// A stored line that matched a player, with its list's name.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct ListedLine {
    pub list_id: ExclusionListId,
    pub source: String,
    pub line: i32,
    pub status: String,
    pub reason: String,
}

/// Keeps an exclusion list's import; its id.
pub fn insert_list(conn: &mut PgConnection, new: &NewList<'_>) -> QueryResult<ExclusionListId> {
    diesel::insert_into(exclusion_lists::table)
        .values((
            exclusion_lists::source.eq(new.source),
            exclusion_lists::lines.eq(new.lines),
            exclusion_lists::gaming_day.eq(new.gaming_day),
            exclusion_lists::imported_by.eq(new.imported_by),
        ))
        .returning(exclusion_lists::id)
        .get_result(conn)
}

/// Keeps a list's lines, in statements of at most 1,000 lines.
pub fn insert_list_lines(conn: &mut PgConnection, lines: &[NewListLine]) -> QueryResult<()> {
    for chunk in lines.chunks(1_000) {
        diesel::insert_into(exclusion_list_lines::table)
            .values(chunk)
            .execute(conn)?;
    }
    Ok(())
}

/// The stored exclusion lists' lines that name this identity: by identity document, or by last
/// and first name with date of birth (case ignored), as `matching` matches a line to players;
/// the oldest import first.
pub fn listed(
    conn: &mut PgConnection,
    reference: Option<&str>,
    last_name: &str,
    first_name: &str,
    born: Option<NaiveDate>,
) -> QueryResult<Vec<ListedLine>> {
    use diesel::dsl::sql;
    use diesel::sql_types::{Bool, Text};
    let by_name = sql::<Bool>("lower(exclusion_list_lines.last_name) = lower(")
        .bind::<Text, _>(last_name.to_owned())
        .sql(") AND lower(exclusion_list_lines.first_name) = lower(")
        .bind::<Text, _>(first_name.to_owned())
        .sql(") AND exclusion_list_lines.date_of_birth = ")
        .bind::<Nullable<diesel::sql_types::Date>, _>(born)
        .sql(" AND exclusion_list_lines.date_of_birth IS NOT NULL");
    let by_reference = sql::<Bool>("exclusion_list_lines.id_reference IS NOT NULL AND lower(exclusion_list_lines.id_reference) = lower(")
        .bind::<Nullable<Text>, _>(reference.map(str::to_owned))
        .sql(")");
    exclusion_list_lines::table
        .inner_join(exclusion_lists::table)
        .filter(by_reference.or(by_name))
        .order(exclusion_list_lines::id)
        .select((
            exclusion_list_lines::list_id,
            exclusion_lists::source,
            exclusion_list_lines::line,
            exclusion_list_lines::status,
            exclusion_list_lines::reason,
        ))
        .load(conn)
}

/// `text` with the LIKE pattern characters escaped.
fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Each player with their current status (the latest), in one more query.
fn with_statuses(
    conn: &mut PgConnection,
    found: Vec<PlayerRow>,
) -> QueryResult<Vec<(PlayerRow, Option<StatusRow>)>> {
    let ids: Vec<PlayerId> = found.iter().map(|p| p.id).collect();
    let statuses: Vec<StatusRow> = player_statuses::table
        .filter(player_statuses::player_id.eq_any(&ids))
        .distinct_on(player_statuses::player_id)
        .order((player_statuses::player_id, player_statuses::id.desc()))
        .select(StatusRow::as_select())
        .load(conn)?;
    Ok(found
        .into_iter()
        .map(|p| {
            let status = statuses.iter().find(|s| s.player_id == p.id).cloned();
            (p, status)
        })
        .collect())
}

/// The player's statuses, oldest first.
pub fn statuses(conn: &mut PgConnection, player: PlayerId) -> QueryResult<Vec<StatusRow>> {
    player_statuses::table
        .filter(player_statuses::player_id.eq(player))
        .order(player_statuses::id)
        .select(StatusRow::as_select())
        .load(conn)
}

pub fn current_status(conn: &mut PgConnection, player: PlayerId) -> QueryResult<Option<StatusRow>> {
    player_statuses::table
        .filter(player_statuses::player_id.eq(player))
        .order(player_statuses::id.desc())
        .select(StatusRow::as_select())
        .first(conn)
        .optional()
}

/// A status to add.
pub struct NewStatus<'a> {
    pub player_id: PlayerId,
    pub status: &'a str,
    pub reason: &'a str,
    pub source: &'a str,
    pub set_by: UserId,
}

pub fn insert_status(conn: &mut PgConnection, new: &NewStatus<'_>) -> QueryResult<StatusRow> {
    diesel::insert_into(player_statuses::table)
        .values((
            player_statuses::player_id.eq(new.player_id),
            player_statuses::status.eq(new.status),
            player_statuses::reason.eq(new.reason),
            player_statuses::source.eq(new.source),
            player_statuses::set_by.eq(new.set_by),
        ))
        .returning(StatusRow::as_returning())
        .get_result(conn)
}

/// A rating to start.
pub struct NewRating {
    pub player_id: PlayerId,
    pub table_id: TableId,
    pub seat: i16,
    pub gaming_day: NaiveDate,
    pub started_by: UserId,
    /// When it starts (none: now, the database's time).
    pub started_at: Option<DateTime<Utc>>,
}

/// Writes a rating's row.
fn insert_rating(conn: &mut PgConnection, new: &NewRating) -> QueryResult<RatingRow> {
    diesel::insert_into(ratings::table)
        .values((
            ratings::player_id.eq(new.player_id),
            ratings::table_id.eq(new.table_id),
            ratings::seat.eq(new.seat),
            ratings::gaming_day.eq(new.gaming_day),
            ratings::started_by.eq(new.started_by),
            new.started_at.map(|at| ratings::started_at.eq(at)),
        ))
        .returning(RatingRow::as_returning())
        .get_result(conn)
}

/// Starts a rating and marks the seat and the player taken. None when the seat or the player
/// is already in an open rating (the rating is not written then: the caller's transaction is
/// rolled back by its refusal).
pub fn start_rating(conn: &mut PgConnection, new: &NewRating) -> QueryResult<Option<RatingRow>> {
    let row = insert_rating(conn, new)?;
    let taken = diesel::insert_into(open_ratings::table)
        .values((
            open_ratings::table_id.eq(new.table_id),
            open_ratings::seat.eq(new.seat),
            open_ratings::rating_id.eq(row.id),
            open_ratings::player_id.eq(new.player_id),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok((taken == 1).then_some(row))
}

/// Writes a rating that has ended already (of an observation carded after it ended): the
/// rating from `new.started_at` and one step, its end at `ended_at` with the chips walked with
/// (none: not seen). No seat or player is marked taken: it is not open.
pub fn insert_ended_rating(
    conn: &mut PgConnection,
    new: &NewRating,
    ended_at: DateTime<Utc>,
    walked_with: Option<i64>,
) -> QueryResult<RatingRow> {
    let row = insert_rating(conn, new)?;
    diesel::insert_into(rating_steps::table)
        .values((
            rating_steps::rating_id.eq(row.id),
            rating_steps::seq.eq(1),
            rating_steps::kind.eq("end"),
            rating_steps::at.eq(ended_at),
            rating_steps::by_user.eq(new.started_by),
            rating_steps::walked_with.eq(walked_with),
        ))
        .execute(conn)?;
    Ok(row)
}

/// The ratings whose time meets `from..to` (from their start to their end, pauses included;
/// a running one to no end) at seat `seat` of `table` or of `player`, by id.
pub fn ratings_meeting(
    conn: &mut PgConnection,
    table: TableId,
    seat: i16,
    player: PlayerId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> QueryResult<Vec<RatingRow>> {
    ratings::table
        .left_join(
            rating_steps::table.on(rating_steps::rating_id
                .eq(ratings::id)
                .and(rating_steps::kind.eq("end"))),
        )
        .filter(ratings::started_at.lt(to))
        .filter(
            rating_steps::at
                .nullable()
                .gt(from)
                .or(rating_steps::at.nullable().is_null()),
        )
        .filter(
            ratings::table_id
                .eq(table)
                .and(ratings::seat.eq(seat))
                .or(ratings::player_id.eq(player)),
        )
        .order(ratings::id)
        .select(RatingRow::as_select())
        .load(conn)
}

/// The open rating at a table's seat, if any.
pub fn open_at(
    conn: &mut PgConnection,
    table: TableId,
    seat: i16,
) -> QueryResult<Option<RatingRow>> {
    open_ratings::table
        .inner_join(ratings::table)
        .filter(open_ratings::table_id.eq(table))
        .filter(open_ratings::seat.eq(seat))
        .select(RatingRow::as_select())
        .first(conn)
        .optional()
}

/// The open rating of a player, if any.
pub fn open_of(conn: &mut PgConnection, player: PlayerId) -> QueryResult<Option<RatingRow>> {
    open_ratings::table
        .inner_join(ratings::table)
        .filter(open_ratings::player_id.eq(player))
        .select(RatingRow::as_select())
        .first(conn)
        .optional()
}

/// The open ratings at a table, by seat, with their players.
pub fn open_at_table(
    conn: &mut PgConnection,
    table: TableId,
) -> QueryResult<Vec<(RatingRow, PlayerRow)>> {
    open_ratings::table
        .inner_join(ratings::table)
        .inner_join(players::table)
        .filter(open_ratings::table_id.eq(table))
        .order(open_ratings::seat)
        .select((RatingRow::as_select(), PlayerRow::as_select()))
        .load(conn)
}

/// The steps of these ratings, in order.
pub fn steps(conn: &mut PgConnection, ids: &[RatingId]) -> QueryResult<Vec<StepRow>> {
    rating_steps::table
        .filter(rating_steps::rating_id.eq_any(ids))
        .order((rating_steps::rating_id, rating_steps::seq))
        .select(StepRow::as_select())
        .load(conn)
}

/// A step to add after the rating's `seq - 1` earlier ones.
pub struct NewStep<'a> {
    pub rating_id: RatingId,
    pub seq: i16,
    pub kind: &'a str,
    pub by: UserId,
    pub walked_with: Option<i64>,
}

pub fn insert_step(conn: &mut PgConnection, new: &NewStep<'_>) -> QueryResult<StepRow> {
    diesel::insert_into(rating_steps::table)
        .values((
            rating_steps::rating_id.eq(new.rating_id),
            rating_steps::seq.eq(new.seq),
            rating_steps::kind.eq(new.kind),
            rating_steps::by_user.eq(new.by),
            rating_steps::walked_with.eq(new.walked_with),
        ))
        .returning(StepRow::as_returning())
        .get_result(conn)
}

/// Frees the seat and the player of an ended rating.
pub fn close_open(conn: &mut PgConnection, rating: RatingId) -> QueryResult<usize> {
    diesel::delete(open_ratings::table.filter(open_ratings::rating_id.eq(rating))).execute(conn)
}

/// A player's ratings, newest first, at most `limit`.
pub fn ratings_of(
    conn: &mut PgConnection,
    player: PlayerId,
    limit: i64,
) -> QueryResult<Vec<RatingRow>> {
    ratings::table
        .filter(ratings::player_id.eq(player))
        .order((ratings::started_at.desc(), ratings::id.desc()))
        .limit(limit)
        .select(RatingRow::as_select())
        .load(conn)
}

/// The ratings begun on a gaming day, by table and start.
pub fn ratings_of_day(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<RatingRow>> {
    ratings::table
        .filter(ratings::gaming_day.eq(day))
        .order((ratings::table_id, ratings::id))
        .select(RatingRow::as_select())
        .load(conn)
}

/// The ratings begun on gaming days `from` to `to` (at one table, or every table), by gaming
/// day and id.
pub fn ratings_between(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<TableId>,
) -> QueryResult<Vec<RatingRow>> {
    let mut query = ratings::table
        .filter(ratings::gaming_day.between(from, to))
        .into_boxed();
    if let Some(table) = table {
        query = query.filter(ratings::table_id.eq(table));
    }
    query
        .order((ratings::gaming_day, ratings::id))
        .select(RatingRow::as_select())
        .load(conn)
}

pub fn rating(conn: &mut PgConnection, id: RatingId) -> QueryResult<Option<RatingRow>> {
    ratings::table
        .find(id)
        .select(RatingRow::as_select())
        .first(conn)
        .optional()
}

/// The players of these ids.
pub fn players_of(conn: &mut PgConnection, ids: &[PlayerId]) -> QueryResult<Vec<PlayerRow>> {
    players::table
        .filter(players::id.eq_any(ids))
        .select(PlayerRow::as_select())
        .load(conn)
}

/// One round at a rated (or observed) seat: when it counts (a round entered again counts at the
/// time of the round it replaced), what the seat bet and won, and its rule profile version's
/// edge.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct SeatRoundRow {
    /// The rating's id (the observation's, for [`crate::db::observations::observed_rounds`]).
    #[diesel(sql_type = BigInt)]
    pub span_id: i64,
    /// The round counted (the re-entry, for a round entered again).
    #[diesel(sql_type = BigInt)]
    pub round_id: i64,
    #[diesel(sql_type = Timestamptz)]
    pub dealt_at: DateTime<Utc>,
    /// The dealer of the round counted (of the re-entry, for a round entered again).
    #[diesel(sql_type = BigInt)]
    pub dealer_id: UserId,
    #[diesel(sql_type = BigInt)]
    pub bet: i64,
    #[diesel(sql_type = BigInt)]
    pub result: i64,
    /// None while the version's edge is not computed (a points-game version's is 0).
    #[diesel(sql_type = Nullable<Int4>)]
    pub edge_ppm: Option<i32>,
}

/// The rounds of a seat's spans of time: `span` is a query of `(id, table_id, place,
/// started_at, ended)` (place `seat<n>`, ended `infinity` while it runs) whose parameters are
/// `$1` the spans' ids (`int8[]`) and `$2` their ends (`timestamptz[]`, null: none). Answers
/// the rounds not voided at each span's table and seat, settled from its start to its end; a
/// round entered again counts in place of the round it replaced, at that round's time (one
/// re-entry deep: a re-entry of a re-entry is not followed). Rows are [`SeatRoundRow`]s.
pub(crate) fn rounds_of_spans(span: &str) -> String {
    format!(
        "WITH span AS ({span}), \
         dealt AS ( \
             SELECT s.id AS span_id, s.place, x.id AS round_id, x.settled_at AS dealt_at \
             FROM span s JOIN rounds x ON x.table_id = s.table_id \
              AND x.settled_at >= s.started_at AND x.settled_at < s.ended \
              AND NOT EXISTS (SELECT 1 FROM round_reentries re WHERE re.round_id = x.id)), \
         counted AS ( \
             SELECT d.span_id, d.place, coalesce(re.round_id, d.round_id) AS round_id, \
                    d.dealt_at \
             FROM dealt d LEFT JOIN round_reentries re ON re.replaces_round_id = d.round_id) \
         SELECT c.span_id, c.round_id, c.dealt_at, x.dealer_id, \
                coalesce((p->>'bet')::int8, 0) AS bet, (p->>'result')::int8 AS result, \
                CASE WHEN v.game = 'points' THEN 0 ELSE e.edge_ppm END AS edge_ppm \
         FROM counted c \
         JOIN rounds x ON x.id = c.round_id \
         JOIN LATERAL (SELECT options->>'game' AS game FROM rule_profile_versions \
                       WHERE id = x.rule_profile_version_id) v ON true \
         LEFT JOIN profile_version_edges e \
                ON e.rule_profile_version_id = x.rule_profile_version_id \
         CROSS JOIN LATERAL jsonb_array_elements(x.places) p \
         WHERE p->>'place' = c.place \
           AND NOT EXISTS (SELECT 1 FROM round_voids rv WHERE rv.round_id = x.id) \
         ORDER BY c.span_id, c.dealt_at, c.round_id"
    )
}

/// The rounds not voided at each rating's table and seat, settled from its start to its end
/// (`ends`, the same order as `ids`; none: up to now), as [`rounds_of_spans`] counts them. The
/// caller leaves out what falls in a pause. One statement for many ratings; each reads its
/// table's rounds by the table's and the time's index.
pub fn seat_rounds(
    conn: &mut PgConnection,
    ids: &[RatingId],
    ends: &[Option<DateTime<Utc>>],
) -> QueryResult<Vec<SeatRoundRow>> {
    use diesel::sql_types::{Array, Nullable as N};
    diesel::sql_query(rounds_of_spans(
        "SELECT r.id, r.table_id, 'seat' || r.seat AS place, r.started_at, \
                coalesce(e.ended, 'infinity') AS ended \
         FROM unnest($1::int8[], $2::timestamptz[]) AS e (id, ended) \
         JOIN ratings r ON r.id = e.id",
    ))
    .bind::<Array<BigInt>, _>(ids.iter().map(|id| id.0).collect::<Vec<_>>())
    .bind::<Array<N<Timestamptz>>, _>(ends.to_vec())
    .load(conn)
}

/// The edges of these rule profile versions that are known.
pub fn edges(conn: &mut PgConnection, versions: &[ProfileVersionId]) -> QueryResult<Vec<EdgeRow>> {
    profile_version_edges::table
        .filter(profile_version_edges::rule_profile_version_id.eq_any(versions))
        .select(EdgeRow::as_select())
        .load(conn)
}

/// The versions with no edge yet, oldest first, with their options.
pub fn versions_without_edge(
    conn: &mut PgConnection,
) -> QueryResult<Vec<(ProfileVersionId, serde_json::Value)>> {
    rule_profile_versions::table
        .filter(not(exists(profile_version_edges::table.filter(
            profile_version_edges::rule_profile_version_id.eq(rule_profile_versions::id),
        ))))
        .order(rule_profile_versions::id)
        .select((rule_profile_versions::id, rule_profile_versions::options))
        .load(conn)
}

/// Stores a version's edge; nothing when one is there already (two instances computed it).
pub fn insert_edge(
    conn: &mut PgConnection,
    version: ProfileVersionId,
    edge_ppm: i32,
    half_width_ppm: i32,
    deals: i32,
    seed: i64,
) -> QueryResult<usize> {
    diesel::insert_into(profile_version_edges::table)
        .values((
            profile_version_edges::rule_profile_version_id.eq(version),
            profile_version_edges::edge_ppm.eq(edge_ppm),
            profile_version_edges::half_width_ppm.eq(half_width_ppm),
            profile_version_edges::deals.eq(deals),
            profile_version_edges::seed.eq(seed),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
}

/// A refused seating to record.
pub struct NewRefusal<'a> {
    pub player_id: PlayerId,
    pub table_id: TableId,
    pub seat: i16,
    pub gaming_day: NaiveDate,
    pub status: &'a str,
    pub refused_by: UserId,
}

pub fn insert_refusal(conn: &mut PgConnection, new: &NewRefusal<'_>) -> QueryResult<RefusalRow> {
    diesel::insert_into(seat_refusals::table)
        .values((
            seat_refusals::player_id.eq(new.player_id),
            seat_refusals::table_id.eq(new.table_id),
            seat_refusals::seat.eq(new.seat),
            seat_refusals::gaming_day.eq(new.gaming_day),
            seat_refusals::status.eq(new.status),
            seat_refusals::refused_by.eq(new.refused_by),
        ))
        .returning(RefusalRow::as_returning())
        .get_result(conn)
}

/// A gaming day's refused seatings, newest first, with the player and the table's code.
pub fn refusals_of_day(
    conn: &mut PgConnection,
    day: NaiveDate,
) -> QueryResult<Vec<(RefusalRow, PlayerRow, String)>> {
    seat_refusals::table
        .inner_join(players::table)
        .inner_join(gaming_tables::table)
        .filter(seat_refusals::gaming_day.eq(day))
        .order(seat_refusals::id.desc())
        .select((
            RefusalRow::as_select(),
            PlayerRow::as_select(),
            gaming_tables::code,
        ))
        .load(conn)
}

/// The code and currency of these tables.
pub fn tables_of(
    conn: &mut PgConnection,
    ids: &[TableId],
) -> QueryResult<Vec<(TableId, String, String)>> {
    gaming_tables::table
        .filter(gaming_tables::id.eq_any(ids))
        .select((
            gaming_tables::id,
            gaming_tables::code,
            gaming_tables::currency,
        ))
        .load(conn)
}

/// A rating's buy-ins: the sum of those not voided at its table and seat while it ran.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct RatedBuyIns {
    #[diesel(sql_type = BigInt)]
    pub rating_id: i64,
    #[diesel(sql_type = BigInt)]
    pub amount: i64,
}

/// The buy-ins recorded at each rating's table and seat from its start to its end (`ends` as
/// in [`seat_rounds`]), and those attributed to it (recorded at the seat while the player was
/// observed, before the carding, unless that observation was voided since), each once, not
/// voided, summed per rating (pauses included: a player away buys nothing in at the seat).
pub fn rated_buy_ins(
    conn: &mut PgConnection,
    ids: &[RatingId],
    ends: &[Option<DateTime<Utc>>],
) -> QueryResult<Vec<RatedBuyIns>> {
    use diesel::sql_types::Array;
    diesel::sql_query(
        "WITH rated AS ( \
             SELECT r.id AS rating_id, b.id AS buy_in_id \
             FROM unnest($1::int8[], $2::timestamptz[]) AS e (id, ended) \
             JOIN ratings r ON r.id = e.id \
             JOIN buy_ins b ON b.table_id = r.table_id AND b.gaming_day >= r.gaming_day \
              AND b.seat = r.seat AND b.created_at >= r.started_at \
              AND b.created_at < coalesce(e.ended, 'infinity') \
             UNION \
             SELECT a.rating_id, a.buy_in_id FROM buy_in_attributions a \
             WHERE a.rating_id = ANY ($1::int8[]) \
               AND NOT EXISTS (SELECT 1 FROM unrated_observation_voids ov \
                               WHERE ov.observation_id = a.observation_id)) \
         SELECT x.rating_id, coalesce(sum(b.amount), 0)::int8 AS amount \
         FROM rated x JOIN buy_ins b ON b.id = x.buy_in_id \
         WHERE NOT EXISTS (SELECT 1 FROM buy_in_voids v WHERE v.buy_in_id = b.id) \
         GROUP BY x.rating_id",
    )
    .bind::<Array<BigInt>, _>(ids.iter().map(|id| id.0).collect::<Vec<_>>())
    .bind::<Array<Nullable<Timestamptz>>, _>(ends.to_vec())
    .load(conn)
}

/// A currency's sum.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct CurrencySum {
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub currency: String,
    #[diesel(sql_type = BigInt)]
    pub amount: i64,
}

/// A gaming day's drop recorded at the tables (buy-ins not voided), per currency.
pub fn day_drop(conn: &mut PgConnection, day: NaiveDate) -> QueryResult<Vec<CurrencySum>> {
    diesel::sql_query(
        "SELECT b.currency, coalesce(sum(b.amount), 0)::int8 AS amount FROM buy_ins b \
         WHERE b.gaming_day = $1 \
           AND NOT EXISTS (SELECT 1 FROM buy_in_voids v WHERE v.buy_in_id = b.id) \
         GROUP BY b.currency ORDER BY b.currency",
    )
    .bind::<diesel::sql_types::Date, _>(day)
    .load(conn)
}
