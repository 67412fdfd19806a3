//! Rounds: the open draft of each table, its confirmation into a numbered, immutable settled
//! round (with every place's record and the `round.settled` audit event, in one transaction),
//! and the reads of tables, profile versions and rounds that round entry needs.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Integer, Jsonb, Nullable, Text};
use rand::RngCore;
use serde::Serialize;
use serde_json::{json, Value};

use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::schema::{round_drafts, round_places, rounds};
use crate::db::users::UserId;
use crate::rules::profile::RuleProfile;
use crate::rules::settle::Round;
use crate::rules::wire::{PlaceIn, RoundIn, SettlementOut};

/// Why a round operation could not be done.
#[derive(Debug, thiserror::Error)]
pub enum RoundsError {
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    #[error("there is no round {0}")]
    NoDraft(String),
    #[error("the round was changed elsewhere (it is at revision {current}, not {expected}); reload it and try again")]
    RevisionMismatch { expected: i32, current: i32 },
    #[error("the round is already settled and can no longer be changed")]
    AlreadySettled,
    #[error("table {0} has no rule profile version")]
    NoProfileVersion(String),
    #[error("rule profile version {id} cannot be read: {source}")]
    BadProfile { id: i64, source: serde_json::Error },
}

/// A gaming table with the rule-profile version currently in force.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableInfo {
    pub id: i64,
    pub code: String,
    pub name: String,
    pub currency: String,
    pub min_bet: i64,
    pub max_bet: i64,
    pub profile_version_id: i64,
    pub profile: RuleProfile,
}

#[derive(QueryableByName)]
struct TableRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    code: String,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    min_bet: i64,
    #[diesel(sql_type = BigInt)]
    max_bet: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    version_id: Option<i64>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    options: Option<Value>,
}

/// A table with its profile's latest version, in one query (it runs on every round request).
const TABLE_QUERY: &str = "SELECT t.id, t.code, t.name, t.currency, t.min_bet, t.max_bet, \
     v.id AS version_id, v.options FROM gaming_tables t LEFT JOIN LATERAL (\
     SELECT id, options FROM rule_profile_versions WHERE profile_id = t.rule_profile_id \
     ORDER BY version DESC LIMIT 1) v ON true WHERE ";

fn table_info(row: Option<TableRow>) -> Result<Option<TableInfo>, RoundsError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let (Some(version_id), Some(options)) = (row.version_id, row.options) else {
        return Err(RoundsError::NoProfileVersion(row.code));
    };
    let profile = serde_json::from_value(options).map_err(|source| RoundsError::BadProfile {
        id: version_id,
        source,
    })?;
    Ok(Some(TableInfo {
        id: row.id,
        code: row.code,
        name: row.name,
        currency: row.currency,
        min_bet: row.min_bet,
        max_bet: row.max_bet,
        profile_version_id: version_id,
        profile,
    }))
}

/// The table with this code and its current profile version.
pub fn table_by_code(
    conn: &mut PgConnection,
    code: &str,
) -> Result<Option<TableInfo>, RoundsError> {
    let row = diesel::sql_query(format!("{TABLE_QUERY}t.code = $1"))
        .bind::<Text, _>(code)
        .get_result(conn)
        .optional()?;
    table_info(row)
}

/// The table with this id and its current profile version.
pub fn table_by_id(conn: &mut PgConnection, id: i64) -> Result<Option<TableInfo>, RoundsError> {
    let row = diesel::sql_query(format!("{TABLE_QUERY}t.id = $1"))
        .bind::<BigInt, _>(id)
        .get_result(conn)
        .optional()?;
    table_info(row)
}

/// A round being entered.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = round_drafts)]
pub struct Draft {
    pub id: i64,
    pub draft_key: String,
    pub table_id: i64,
    pub created_by: i64,
    pub revision: i32,
    pub data: Value,
    pub settled_round_id: Option<i64>,
}

fn open_draft_of(conn: &mut PgConnection, table_id: i64) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::table_id.eq(table_id))
        .filter(round_drafts::settled_round_id.is_null())
        .filter(round_drafts::abandoned_at.is_null())
        .select(Draft::as_select())
        .first(conn)
        .optional()
}

fn new_key() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The table's open draft, created (with a `round.draft_opened` event) if there is none.
pub fn open_draft(
    conn: &mut PgConnection,
    table: &TableInfo,
    user: UserId,
    actor: &Actor,
    gaming_day: NaiveDate,
) -> Result<Draft, RoundsError> {
    conn.transaction(|conn| {
        if let Some(draft) = open_draft_of(conn, table.id)? {
            return Ok(draft);
        }
        // Two screens may open the table's round at once: the partial unique index lets one
        // insert win and the other finds that draft.
        let inserted = diesel::insert_into(round_drafts::table)
            .values((
                round_drafts::draft_key.eq(new_key()),
                round_drafts::table_id.eq(table.id),
                round_drafts::created_by.eq(user.0),
            ))
            .on_conflict_do_nothing()
            .returning(Draft::as_returning())
            .get_result(conn)
            .optional()?;
        let Some(draft) = inserted else {
            return open_draft_of(conn, table.id)?
                .ok_or_else(|| RoundsError::NoDraft(table.code.clone()));
        };
        let chain = format!("table:{}", table.id);
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &chain,
                actor,
                action: "round.draft_opened",
                target: format!("round:{}", draft.draft_key),
                details: json!({ "table": table.code, "draft_key": draft.draft_key }),
                gaming_day: Some(gaming_day),
                table_id: Some(table.id),
            },
        )?;
        Ok(draft)
    })
}

/// The draft with this key, settled or not.
pub fn draft_by_key(conn: &mut PgConnection, key: &str) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .select(Draft::as_select())
        .first(conn)
        .optional()
}

fn lock_draft(conn: &mut PgConnection, key: &str) -> Result<Draft, RoundsError> {
    round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .select(Draft::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| RoundsError::NoDraft(key.to_owned()))
}

fn check_revision(draft: &Draft, expected: Option<i32>) -> Result<(), RoundsError> {
    match expected {
        Some(expected) if expected != draft.revision => Err(RoundsError::RevisionMismatch {
            expected,
            current: draft.revision,
        }),
        _ => Ok(()),
    }
}

/// Stores the entered round in the draft and bumps its revision: one conditional UPDATE (a
/// save happens on every change a dealer makes); only when it matches nothing is the draft
/// read again, to say why.
pub fn save_draft(
    conn: &mut PgConnection,
    key: &str,
    expected_revision: Option<i32>,
    data: &Value,
) -> Result<Draft, RoundsError> {
    let open = round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .filter(round_drafts::settled_round_id.is_null());
    let changes = (
        round_drafts::revision.eq(round_drafts::revision + 1),
        round_drafts::data.eq(data),
        round_drafts::updated_at.eq(diesel::dsl::now),
    );
    let saved = match expected_revision {
        Some(revision) => diesel::update(open.filter(round_drafts::revision.eq(revision)))
            .set(changes)
            .returning(Draft::as_returning())
            .get_result(conn)
            .optional()?,
        None => diesel::update(open)
            .set(changes)
            .returning(Draft::as_returning())
            .get_result(conn)
            .optional()?,
    };
    if let Some(saved) = saved {
        return Ok(saved);
    }
    let draft = draft_by_key(conn, key)?.ok_or_else(|| RoundsError::NoDraft(key.to_owned()))?;
    if draft.settled_round_id.is_some() {
        return Err(RoundsError::AlreadySettled);
    }
    check_revision(&draft, expected_revision)?;
    // Settled or changed between the two statements: report it as a stale revision.
    Err(RoundsError::RevisionMismatch {
        expected: expected_revision.unwrap_or(draft.revision),
        current: draft.revision,
    })
}

/// A settled round's header row.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = rounds)]
pub struct RoundRow {
    pub id: i64,
    pub table_id: i64,
    pub gaming_day: NaiveDate,
    pub round_no: i32,
    pub draft_key: String,
    pub dealer_id: i64,
    pub rule_profile_version_id: i64,
    pub currency: String,
    pub dealer_result: i64,
    pub settled_at: DateTime<Utc>,
}

/// One place of a settled round (RULES.md section 8).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, Serialize)]
#[diesel(table_name = round_places)]
pub struct PlaceRow {
    pub place: String,
    pub bet: Option<i64>,
    pub action: String,
    pub royalty: Option<String>,
    pub dealt: Option<String>,
    pub back: Option<String>,
    pub middle: Option<String>,
    pub front: Option<String>,
    pub back_name: Option<String>,
    pub middle_name: Option<String>,
    pub front_name: Option<String>,
    pub fouled: Option<bool>,
    pub foul_reason: Option<String>,
    pub outcome: Option<String>,
    pub hands_won: Option<i16>,
    pub result: i64,
}

/// A settled round with its places (dealer first, then the seats in order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettledRound {
    #[serde(flatten)]
    pub round: RoundRow,
    pub places: Vec<PlaceRow>,
}

/// The settled round with this id.
pub fn get_round(conn: &mut PgConnection, id: i64) -> QueryResult<Option<SettledRound>> {
    let Some(round) = rounds::table
        .find(id)
        .select(RoundRow::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let places = round_places::table
        .filter(round_places::round_id.eq(id))
        .order(round_places::place)
        .select(PlaceRow::as_select())
        .load(conn)?;
    Ok(Some(SettledRound { round, places }))
}

/// The settled round confirmed from the draft with this key.
pub fn round_by_key(conn: &mut PgConnection, key: &str) -> QueryResult<Option<SettledRound>> {
    let id: Option<i64> = rounds::table
        .filter(rounds::draft_key.eq(key))
        .select(rounds::id)
        .first(conn)
        .optional()?;
    match id {
        Some(id) => get_round(conn, id),
        None => Ok(None),
    }
}

/// The table's latest settled rounds, newest first.
pub fn recent_for_table(
    conn: &mut PgConnection,
    table_id: i64,
    limit: i64,
) -> QueryResult<Vec<RoundRow>> {
    rounds::table
        .filter(rounds::table_id.eq(table_id))
        .order(rounds::id.desc())
        .limit(limit)
        .select(RoundRow::as_select())
        .load(conn)
}

/// Everything confirming a draft needs; `round` has been validated against `table` and
/// `settlement` is its settlement.
#[derive(Debug, Clone, Copy)]
pub struct ConfirmRound<'a> {
    pub key: &'a str,
    pub expected_revision: Option<i32>,
    pub table: &'a TableInfo,
    pub gaming_day: NaiveDate,
    pub dealer: UserId,
    pub actor: &'a Actor,
    pub round: &'a Round,
    pub settlement: &'a SettlementOut,
}

#[derive(QueryableByName)]
struct Counter {
    #[diesel(sql_type = Integer)]
    last_no: i32,
}

/// Settles a draft: numbers the round, stores it and its places, marks the draft settled and
/// appends `round.settled`, all in one transaction. Confirming a settled draft again returns
/// the round already stored (`false`: nothing new was written).
pub fn confirm(
    conn: &mut PgConnection,
    confirm: &ConfirmRound<'_>,
) -> Result<(SettledRound, bool), RoundsError> {
    conn.transaction(|conn| {
        let draft = lock_draft(conn, confirm.key)?;
        if let Some(id) = draft.settled_round_id {
            let round =
                get_round(conn, id)?.ok_or_else(|| RoundsError::NoDraft(confirm.key.to_owned()))?;
            return Ok((round, false));
        }
        if draft.table_id != confirm.table.id {
            return Err(RoundsError::NoDraft(confirm.key.to_owned()));
        }
        check_revision(&draft, confirm.expected_revision)?;
        let table = confirm.table;
        // The counter row stays locked until commit, so rounds of this table and day are
        // numbered one after another, and a rolled-back round gives its number back.
        let counter: Counter = diesel::sql_query(
            "INSERT INTO round_counters (table_id, gaming_day, last_no) VALUES ($1, $2, 1) \
             ON CONFLICT (table_id, gaming_day) \
             DO UPDATE SET last_no = round_counters.last_no + 1 RETURNING last_no",
        )
        .bind::<BigInt, _>(table.id)
        .bind::<Date, _>(confirm.gaming_day)
        .get_result(conn)?;
        let settlement = confirm.settlement;
        let round_id: i64 = diesel::insert_into(rounds::table)
            .values((
                rounds::table_id.eq(table.id),
                rounds::gaming_day.eq(confirm.gaming_day),
                rounds::round_no.eq(counter.last_no),
                rounds::draft_key.eq(confirm.key),
                rounds::dealer_id.eq(confirm.dealer.0),
                rounds::rule_profile_version_id.eq(table.profile_version_id),
                rounds::currency.eq(&table.currency),
                rounds::dealer_result.eq(settlement.dealer.result.minor_units()),
            ))
            .returning(rounds::id)
            .get_result(conn)?;
        let canonical = RoundIn::from_round(confirm.round);
        let places = place_rows(&canonical, settlement);
        // One multi-row insert for every place of the round.
        let rows: Vec<_> = places
            .iter()
            .map(|place| {
                (
                    round_places::round_id.eq(round_id),
                    round_places::table_id.eq(table.id),
                    round_places::gaming_day.eq(confirm.gaming_day),
                    place,
                )
            })
            .collect();
        diesel::insert_into(round_places::table)
            .values(rows)
            .execute(conn)?;
        diesel::update(round_drafts::table.find(draft.id))
            .set((
                round_drafts::settled_round_id.eq(round_id),
                round_drafts::updated_at.eq(diesel::dsl::now),
            ))
            .execute(conn)?;
        let chain = format!("table:{}", table.id);
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &chain,
                actor: confirm.actor,
                action: "round.settled",
                target: format!("round:{round_id}"),
                details: json!({
                    "table": table.code,
                    "round_no": counter.last_no,
                    "draft_key": confirm.key,
                    "rule_profile_version_id": table.profile_version_id,
                    "round": canonical,
                    "settlement": settlement,
                }),
                gaming_day: Some(confirm.gaming_day),
                table_id: Some(table.id),
            },
        )?;
        let round = get_round(conn, round_id)?.ok_or(diesel::result::Error::NotFound)?;
        Ok((round, true))
    })
}

/// A serde enum's text (`"surrender"`, `"six_pairs"`...).
fn text_of<T: Serialize>(value: &T) -> Option<String> {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => Some(text),
        _ => None,
    }
}

fn base_row(place: String, bet: Option<i64>, play: &PlaceIn<'_>, result: i64) -> PlaceRow {
    let text = |t: &Option<std::borrow::Cow<'_, str>>| t.as_deref().map(str::to_owned);
    PlaceRow {
        place,
        bet,
        action: text_of(&play.action).unwrap_or_default(),
        royalty: play.royalty.as_ref().and_then(text_of),
        dealt: text(&play.dealt),
        back: text(&play.back),
        middle: text(&play.middle),
        front: text(&play.front),
        back_name: None,
        middle_name: None,
        front_name: None,
        fouled: None,
        foul_reason: None,
        outcome: None,
        hands_won: None,
        result,
    }
}

/// The rows of every place, from the canonical round and its settlement.
fn place_rows(round: &RoundIn<'_>, settlement: &SettlementOut) -> Vec<PlaceRow> {
    let dealer = &settlement.dealer;
    let mut row = base_row(
        "dealer".to_owned(),
        None,
        &round.dealer,
        dealer.result.minor_units(),
    );
    if let Some(hands) = &dealer.hands {
        row.back_name = Some(hands.back.to_string());
        row.middle_name = Some(hands.middle.to_string());
        row.front_name = Some(hands.front.to_string());
    }
    row.fouled = dealer.fouled;
    row.foul_reason.clone_from(&dealer.foul);
    let mut rows = vec![row];
    for seat in &round.seats {
        let Some(out) = settlement.seats.iter().find(|s| s.seat == seat.seat) else {
            continue;
        };
        let mut row = base_row(
            format!("seat{}", seat.seat.number()),
            Some(seat.bet.minor_units()),
            &seat.play(),
            out.result.minor_units(),
        );
        if let Some(hands) = &out.hands {
            row.back_name = Some(hands.back.to_string());
            row.middle_name = Some(hands.middle.to_string());
            row.front_name = Some(hands.front.to_string());
        }
        row.fouled = out.fouled;
        row.foul_reason.clone_from(&out.foul);
        row.outcome = text_of(&out.outcome);
        row.hands_won = out.hands_won.map(i16::from);
        rows.push(row);
    }
    rows
}

/// The house result (sum of dealer results) of the table's rounds on one gaming day.
pub fn house_result_for_day(
    conn: &mut PgConnection,
    table_id: i64,
    day: NaiveDate,
) -> QueryResult<i64> {
    let results: Vec<i64> = rounds::table
        .filter(rounds::table_id.eq(table_id))
        .filter(rounds::gaming_day.eq(day))
        .select(rounds::dealer_result)
        .load(conn)?;
    Ok(results.iter().sum())
}
