//! A settled round as stored: its header row, its places (kept in the row as a JSON array), the
//! conversion from the rules' settlement to those places, and the reads of settled rounds.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Text};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::ids::{DraftKey, ProfileVersionId, RoundId, ShiftId, TableId, UserId};
use crate::db::prepared::Sql;
use crate::db::rounds::sql;
use crate::db::schema::rounds;
use crate::db::shifts::Shift;
use crate::rules::card::{parse_cards, Card};
use crate::rules::houseway::{hand_text, Analysis};
use crate::rules::money::{Money, Total};
use crate::rules::points::wire::{Against, PlayerIn, PointsRoundIn, PointsSettlementOut};
use crate::rules::wire::{HandsOut, PlaceIn, RoundIn, SettlementOut};

/// A settled round's header row.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = rounds)]
pub struct RoundRow {
    pub id: RoundId,
    pub table_id: TableId,
    pub gaming_day: NaiveDate,
    pub round_no: i32,
    pub draft_key: DraftKey,
    /// The dealer's shift the round was dealt in.
    pub shift_id: ShiftId,
    /// The dealer of that shift (also when a pit manager entered the round).
    pub dealer_id: UserId,
    pub rule_profile_version_id: ProfileVersionId,
    pub currency: String,
    #[diesel(deserialize_as = i64)]
    pub dealer_result: Money,
    pub settled_at: DateTime<Utc>,
    /// Whether the round's largest seat result was at or above its table's approval threshold
    /// when it was settled: it waits for a supervisor's approval.
    pub needs_approval: bool,
}

/// One place of a settled round (docs/rules.md §12), as kept in the round's row (`places`, a
/// JSON array: a banking round's dealer first, then the seats in order; a points round's
/// players in seat order, with their points, what they scored against each other player, the
/// natural shown and whether they made pusoy, which a banking round's places leave out).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlaceRow {
    pub place: String,
    pub bet: Option<Money>,
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
    pub result: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<Against>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pusoy: Option<bool>,
    /// The dealer's only: the house way's set when the table required it and the recorded set
    /// differed (absent otherwise, and in rounds stored before the option). The column
    /// `rounds.house_way_departure` is computed from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub house_way: Option<HouseWayRow>,
}

/// The house way's set of a dealer's 13 cards, kept with a round whose dealer set them
/// otherwise at a table that requires the house way (cards high to low in each hand).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HouseWayRow {
    pub back: String,
    pub middle: String,
    pub front: String,
    /// How much expected result per unit bet the recorded set gave up (four decimals).
    pub ev_given_up: f64,
}

impl HouseWayRow {
    pub fn of(analysis: &Analysis) -> HouseWayRow {
        let best = &analysis.best;
        HouseWayRow {
            back: hand_text(best.back()),
            middle: hand_text(best.middle()),
            front: hand_text(best.front()),
            ev_given_up: (analysis.ev_given_up * 10_000.0).round() / 10_000.0,
        }
    }

    /// "dealer set differs from house way: expected <back / middle / front>, recorded <...>",
    /// as the supervisor reads it, with `recorded` the dealer's place as stored.
    pub fn flag_words(&self, recorded: &PlaceRow) -> String {
        let hand = |text: &Option<String>| {
            text.as_deref()
                .and_then(|t| parse_cards(t).ok())
                .map_or_else(String::new, |cards| hand_text(&cards))
        };
        format!(
            "dealer set differs from house way: expected {} / {} / {}, recorded {} / {} / {}",
            self.back,
            self.middle,
            self.front,
            hand(&recorded.back),
            hand(&recorded.middle),
            hand(&recorded.front)
        )
    }
}

/// A settled round with its places (dealer first, then the seats in order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettledRound {
    #[serde(flatten)]
    pub round: RoundRow,
    pub places: Vec<PlaceRow>,
}

/// The settled round with this id.
pub fn get_round(conn: &mut PgConnection, id: RoundId) -> QueryResult<Option<SettledRound>> {
    let Some((round, places)) = rounds::table
        .find(id)
        .select((RoundRow::as_select(), rounds::places))
        .first::<(RoundRow, Value)>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let places = serde_json::from_value(places)
        .map_err(|err| diesel::result::Error::DeserializationError(Box::new(err)))?;
    Ok(Some(SettledRound { round, places }))
}

/// Up to `limit` settled rounds after round `after` (from the first), in id order.
pub fn rounds_after(
    conn: &mut PgConnection,
    after: Option<RoundId>,
    limit: i64,
) -> QueryResult<Vec<SettledRound>> {
    let rows: Vec<(RoundRow, Value)> = rounds::table
        .filter(rounds::id.gt(after.unwrap_or(RoundId(i64::MIN))))
        .order(rounds::id.asc())
        .limit(limit)
        .select((RoundRow::as_select(), rounds::places))
        .load(conn)?;
    rows.into_iter()
        .map(|(round, places)| {
            let places = serde_json::from_value(places)
                .map_err(|err| diesel::result::Error::DeserializationError(Box::new(err)))?;
            Ok(SettledRound { round, places })
        })
        .collect()
}

/// The settled round stored under this key.
pub fn round_by_key(conn: &mut PgConnection, key: &str) -> QueryResult<Option<SettledRound>> {
    let id: Option<RoundId> = rounds::table
        .filter(rounds::draft_key.eq(key))
        .select(rounds::id)
        .first(conn)
        .optional()?;
    match id {
        Some(id) => get_round(conn, id),
        None => Ok(None),
    }
}

/// The table's latest settled rounds, newest first (by gaming day and round number).
pub fn recent_for_table(
    conn: &mut PgConnection,
    table: TableId,
    limit: i64,
) -> QueryResult<Vec<RoundRow>> {
    rounds::table
        .filter(rounds::table_id.eq(table))
        .order((rounds::gaming_day.desc(), rounds::round_no.desc()))
        .limit(limit)
        .select(RoundRow::as_select())
        .load(conn)
}

/// The house results (sums of dealer results) of a table: its rounds on one gaming day, and
/// the rounds of one shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HouseResults {
    pub day: Total,
    pub shift: Total,
}

/// [`HouseResults`] as the query gives them: exact sums as text.
#[derive(QueryableByName)]
struct HouseSums {
    #[diesel(sql_type = Text)]
    day: String,
    #[diesel(sql_type = Text)]
    shift: String,
}

fn total(sum: &str) -> QueryResult<Total> {
    sum.parse::<i128>()
        .map(Total)
        .map_err(|err| diesel::result::Error::DeserializationError(Box::new(err)))
}

/// The table's house result for gaming day `day` and for `shift`, in one query.
pub fn house_results(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
    shift: &Shift,
) -> QueryResult<HouseResults> {
    let sums: HouseSums = Sql::new(sql::HOUSE_RESULTS)
        .bind::<BigInt, _>(table)
        .bind::<Date, _>(day)
        .bind::<BigInt, _>(shift.id)
        .bind::<Date, _>(shift.gaming_day)
        .get_result(conn)?;
    Ok(HouseResults {
        day: total(&sums.day)?,
        shift: total(&sums.shift)?,
    })
}

/// A serde enum's text (`"surrender"`, `"six_pairs"`...).
fn text_of<T: Serialize>(value: &T) -> Option<String> {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => Some(text),
        _ => None,
    }
}

fn base_row(place: String, bet: Option<Money>, play: &PlaceIn<'_>, result: Money) -> PlaceRow {
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
        result,
        ..PlaceRow::default()
    }
}

impl PlaceRow {
    /// Whether `self` and `other` record the same place as entered: the place, its bet, action
    /// and royalty, and the same cards in each hand and deal (in any order), whatever their
    /// settlement says (the rules in force may have changed between them).
    pub fn same_entry(&self, other: &PlaceRow) -> bool {
        fn cards(text: &Option<String>) -> Option<Vec<Card>> {
            let mut cards = parse_cards(text.as_deref()?).ok()?;
            cards.sort_unstable();
            Some(cards)
        }
        let hands = |row: &PlaceRow| {
            [&row.back, &row.middle, &row.front, &row.dealt]
                .map(|text| (text.is_some(), cards(text)))
        };
        (
            &self.place,
            self.bet,
            &self.action,
            &self.royalty,
            &self.natural,
        ) == (
            &other.place,
            other.bet,
            &other.action,
            &other.royalty,
            &other.natural,
        ) && hands(self) == hands(other)
    }

    fn name_hands(&mut self, hands: Option<&HandsOut>) {
        if let Some(hands) = hands {
            self.back_name = Some(hands.back.to_string());
            self.middle_name = Some(hands.middle.to_string());
            self.front_name = Some(hands.front.to_string());
        }
    }
}

/// Whether `stored` and `entered` record the same round as entered, place by place
/// ([`PlaceRow::same_entry`]).
pub fn same_entries(stored: &[PlaceRow], entered: &[PlaceRow]) -> bool {
    stored.len() == entered.len() && stored.iter().zip(entered).all(|(a, b)| a.same_entry(b))
}

/// The rows of every place, from the canonical round and its settlement.
///
/// `house_way` is the dealer's departure from the house way, if the table required it
/// ([`crate::rules::houseway::dealer_departure`]).
pub fn place_rows(
    round: &RoundIn<'_>,
    settlement: &SettlementOut,
    house_way: Option<&Analysis>,
) -> Vec<PlaceRow> {
    let dealer = &settlement.dealer;
    let mut row = base_row("dealer".to_owned(), None, &round.dealer, dealer.result);
    row.name_hands(dealer.hands.as_ref());
    row.fouled = dealer.fouled;
    row.foul_reason.clone_from(&dealer.foul);
    row.house_way = house_way.map(HouseWayRow::of);
    let mut rows = vec![row];
    for seat in &round.seats {
        let Some(out) = settlement.seats.iter().find(|s| s.seat == seat.seat) else {
            continue;
        };
        let mut row = base_row(
            format!("seat{}", seat.seat.number()),
            Some(seat.bet),
            &seat.play(),
            out.result,
        );
        row.name_hands(out.hands.as_ref());
        row.fouled = out.fouled;
        row.foul_reason.clone_from(&out.foul);
        row.outcome = text_of(&out.outcome);
        row.hands_won = out.hands_won.map(i16::from);
        rows.push(row);
    }
    rows
}

/// The rows of every player of a points round, from the canonical round and its settlement.
pub fn points_place_rows(
    round: &PointsRoundIn<'_>,
    settlement: &PointsSettlementOut,
) -> Vec<PlaceRow> {
    let text = |t: &Option<std::borrow::Cow<'_, str>>| t.as_deref().map(str::to_owned);
    round
        .seats
        .iter()
        .filter_map(|player: &PlayerIn<'_>| {
            let out = settlement.seats.iter().find(|s| s.seat == player.seat)?;
            let mut row = PlaceRow {
                place: format!("seat{}", player.seat.number()),
                action: text_of(&player.action).unwrap_or_default(),
                dealt: text(&player.dealt),
                back: text(&player.back),
                middle: text(&player.middle),
                front: text(&player.front),
                fouled: out.fouled,
                foul_reason: out.foul.clone(),
                outcome: text_of(&out.outcome),
                result: out.result,
                natural: player.natural.as_ref().and_then(text_of),
                points: Some(out.points),
                against: Some(out.against),
                pusoy: Some(settlement.pusoy == Some(player.seat)),
                ..PlaceRow::default()
            };
            row.name_hands(out.hands.as_ref());
            Some(row)
        })
        .collect()
}
