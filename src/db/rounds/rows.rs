//! A settled round as stored: its header row, its places (kept in the row as a JSON array), the
//! conversion from the rules' settlement to those places, and the reads of settled rounds.

use std::fmt;
use std::str::FromStr;

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
use crate::rules::place::{Place, PlayerSeat, SeatNo};
use crate::rules::points::natural::Natural;
use crate::rules::points::settle::PointsOutcome;
use crate::rules::points::wire::{
    Against, PlayerIn, PointsAction, PointsRoundIn, PointsSettlementOut,
};
use crate::rules::royalty::Royalty;
use crate::rules::settle::Outcome;
use crate::rules::wire::{Action, HandsOut, PlaceIn, RoundIn, SettlementOut};

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
    pub place: PlaceName,
    pub bet: Option<Money>,
    pub action: PlaceAction,
    pub royalty: Option<Royalty>,
    pub dealt: Option<String>,
    pub back: Option<String>,
    pub middle: Option<String>,
    pub front: Option<String>,
    pub back_name: Option<String>,
    pub middle_name: Option<String>,
    pub front_name: Option<String>,
    pub fouled: Option<bool>,
    pub foul_reason: Option<String>,
    pub outcome: Option<PlaceOutcome>,
    pub hands_won: Option<i16>,
    pub result: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural: Option<Natural>,
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

/// Which place a stored place is: the dealer, or a seat by its number (1 to 3 in a banking
/// round, 1 to 4 in a points round). Kept as `"dealer"` and `"seat2"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PlaceName {
    #[default]
    Dealer,
    Seat(u8),
}

impl PlaceName {
    /// The seat's number, `None` for the dealer.
    pub fn seat(self) -> Option<u8> {
        match self {
            PlaceName::Dealer => None,
            PlaceName::Seat(number) => Some(number),
        }
    }

    /// The banking game's seat, `None` for the dealer and for a seat it does not have.
    pub fn banking_seat(self) -> Option<SeatNo> {
        self.seat().and_then(|n| SeatNo::new(i64::from(n)).ok())
    }

    /// The points game's player seat, `None` for the dealer and for a seat it does not have.
    pub fn points_seat(self) -> Option<PlayerSeat> {
        self.seat().and_then(|n| PlayerSeat::new(i64::from(n)).ok())
    }

    /// The text kept in the row: `dealer`, `seat2`.
    pub fn key(self) -> String {
        self.to_string()
    }
}

impl From<Place> for PlaceName {
    fn from(place: Place) -> PlaceName {
        match place {
            Place::Dealer => PlaceName::Dealer,
            Place::Seat(seat) => PlaceName::Seat(seat.number()),
        }
    }
}

impl fmt::Display for PlaceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceName::Dealer => f.write_str("dealer"),
            PlaceName::Seat(number) => write!(f, "seat{number}"),
        }
    }
}

impl FromStr for PlaceName {
    type Err = UnknownPlace;

    fn from_str(text: &str) -> Result<PlaceName, UnknownPlace> {
        if text == "dealer" {
            return Ok(PlaceName::Dealer);
        }
        text.strip_prefix("seat")
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| (1..=PlayerSeat::ALL.len() as u8).contains(n))
            .map(PlaceName::Seat)
            .ok_or(UnknownPlace)
    }
}

/// A place's text that is neither `dealer` nor a seat of either game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not dealer or seat1 to seat4")]
pub struct UnknownPlace;

impl Serialize for PlaceName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PlaceName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<PlaceName, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What a stored place did before setting, in either game (the banking game's [`Action`], the
/// points game's [`PointsAction`]), kept as their wire words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceAction {
    #[default]
    Play,
    Surrender,
    Royalty,
    Natural,
}

impl PlaceAction {
    /// The banking game's action, `None` for a natural (the points game's alone).
    pub fn banking(self) -> Option<Action> {
        match self {
            PlaceAction::Play => Some(Action::Play),
            PlaceAction::Surrender => Some(Action::Surrender),
            PlaceAction::Royalty => Some(Action::Royalty),
            PlaceAction::Natural => None,
        }
    }

    /// The points game's action, `None` for a royalty (the banking game's alone).
    pub fn points(self) -> Option<PointsAction> {
        match self {
            PlaceAction::Play => Some(PointsAction::Play),
            PlaceAction::Surrender => Some(PointsAction::Surrender),
            PlaceAction::Natural => Some(PointsAction::Natural),
            PlaceAction::Royalty => None,
        }
    }

    /// The word kept in the row: `surrender`.
    pub const fn key(self) -> &'static str {
        match self {
            PlaceAction::Play => "play",
            PlaceAction::Surrender => "surrender",
            PlaceAction::Royalty => "royalty",
            PlaceAction::Natural => "natural",
        }
    }
}

impl From<Action> for PlaceAction {
    fn from(action: Action) -> PlaceAction {
        match action {
            Action::Play => PlaceAction::Play,
            Action::Surrender => PlaceAction::Surrender,
            Action::Royalty => PlaceAction::Royalty,
        }
    }
}

impl From<PointsAction> for PlaceAction {
    fn from(action: PointsAction) -> PlaceAction {
        match action {
            PointsAction::Play => PlaceAction::Play,
            PointsAction::Surrender => PlaceAction::Surrender,
            PointsAction::Natural => PlaceAction::Natural,
        }
    }
}

/// How a stored seat's round ended, in either game (the banking game's [`Outcome`], the points
/// game's [`PointsOutcome`]), kept as their wire words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceOutcome {
    Played,
    Surrendered,
    Royalty,
    DealerRoyalty,
    DealerSurrendered,
    Natural,
}

impl PlaceOutcome {
    /// The word kept in the row: `dealer_royalty`.
    pub const fn key(self) -> &'static str {
        match self {
            PlaceOutcome::Played => "played",
            PlaceOutcome::Surrendered => "surrendered",
            PlaceOutcome::Royalty => "royalty",
            PlaceOutcome::DealerRoyalty => "dealer_royalty",
            PlaceOutcome::DealerSurrendered => "dealer_surrendered",
            PlaceOutcome::Natural => "natural",
        }
    }
}

impl From<Outcome> for PlaceOutcome {
    fn from(outcome: Outcome) -> PlaceOutcome {
        match outcome {
            Outcome::Played => PlaceOutcome::Played,
            Outcome::Surrendered => PlaceOutcome::Surrendered,
            Outcome::Royalty => PlaceOutcome::Royalty,
            Outcome::DealerRoyalty => PlaceOutcome::DealerRoyalty,
            Outcome::DealerSurrendered => PlaceOutcome::DealerSurrendered,
        }
    }
}

impl From<PointsOutcome> for PlaceOutcome {
    fn from(outcome: PointsOutcome) -> PlaceOutcome {
        match outcome {
            PointsOutcome::Played => PlaceOutcome::Played,
            PointsOutcome::Surrendered => PlaceOutcome::Surrendered,
            PointsOutcome::Natural => PlaceOutcome::Natural,
        }
    }
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

fn base_row(place: Place, bet: Option<Money>, play: &PlaceIn<'_>, result: Money) -> PlaceRow {
    let text = |t: &Option<std::borrow::Cow<'_, str>>| t.as_deref().map(str::to_owned);
    PlaceRow {
        place: place.into(),
        bet,
        action: play.action.into(),
        royalty: play.royalty,
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
    let mut row = base_row(Place::Dealer, None, &round.dealer, dealer.result);
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
            Place::Seat(seat.seat),
            Some(seat.bet),
            &seat.play(),
            out.result,
        );
        row.name_hands(out.hands.as_ref());
        row.fouled = out.fouled;
        row.foul_reason.clone_from(&out.foul);
        row.outcome = Some(out.outcome.into());
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
                place: PlaceName::Seat(player.seat.number()),
                action: player.action.into(),
                dealt: text(&player.dealt),
                back: text(&player.back),
                middle: text(&player.middle),
                front: text(&player.front),
                fouled: out.fouled,
                foul_reason: out.foul.clone(),
                outcome: Some(out.outcome.into()),
                result: out.result,
                natural: player.natural,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn serde_text<T: Serialize>(value: T) -> String {
        serde_json::to_value(value)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    /// The words `key()` gives are the words serde stores, for every value (the two spell
    /// them separately).
    #[test]
    fn a_stored_place_reads_and_writes_the_words_serde_keeps() {
        use PlaceAction as A;
        use PlaceOutcome as O;
        for action in [A::Play, A::Surrender, A::Royalty, A::Natural] {
            assert_eq!(serde_text(action), action.key());
        }
        for outcome in [
            O::Played,
            O::Surrendered,
            O::Royalty,
            O::DealerRoyalty,
            O::DealerSurrendered,
            O::Natural,
        ] {
            assert_eq!(serde_text(outcome), outcome.key());
        }
        for royalty in [
            Royalty::SixPairs,
            Royalty::FourOfAKind,
            Royalty::StraightFlush,
        ] {
            assert_eq!(serde_text(royalty), royalty.key());
        }
        for (text, place) in [
            ("dealer", PlaceName::Dealer),
            ("seat1", PlaceName::Seat(1)),
            ("seat4", PlaceName::Seat(4)),
        ] {
            assert_eq!(serde_text(place), text);
            assert_eq!(text.parse(), Ok(place));
        }
        for bad in ["seat0", "seat5", "seat", "Dealer", "seat01x"] {
            assert_eq!(bad.parse::<PlaceName>(), Err(UnknownPlace), "{bad}");
        }
    }
}
