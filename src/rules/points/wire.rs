//! The JSON shapes of a points round and its settlement, as `pusoy-pit settle` reads and writes
//! them (lines with `"game": "points"`), and conversion to and from the engine's types.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

use crate::rules::card::{format_cards, Card, ParseCardError};
use crate::rules::game::Game;
use crate::rules::money::Money;
use crate::rules::place::PlayerSeat;
use crate::rules::points::natural::Natural;
use crate::rules::points::profile::PointsProfile;
use crate::rules::points::round::{PlayerPlay, PointsDeclaration, PointsError, PointsRound};
use crate::rules::points::settle::{settle_points, PointsOutcome, PointsSettlement};
use crate::rules::set_hand::{SetHand, SetHandError, Slot};
use crate::rules::wire::{borrowed_text, place_cards, CardsError, HandsOut};

/// What a player did before setting, on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointsAction {
    #[default]
    Play,
    Natural,
    Surrender,
}

/// One points round as submitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointsRoundIn<'a> {
    /// Always `points`: it is what tells these lines from banking rounds.
    pub game: Game,
    /// What one point is worth, in minor units. Default 1.
    #[serde(default = "one_unit")]
    pub unit: Money,
    #[serde(default)]
    pub rules: PointsProfile,
    #[serde(borrow)]
    pub seats: Vec<PlayerIn<'a>>,
}

fn one_unit() -> Money {
    Money::from_minor_units(1)
}

/// One player: the seat, the declaration, and the cards as text such as `"As Ks Qs Js Ts"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerIn<'a> {
    pub seat: PlayerSeat,
    #[serde(default)]
    pub action: PointsAction,
    /// The natural shown, when `action` is `natural`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural: Option<Natural>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub back: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub middle: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub front: Option<Cow<'a, str>>,
    /// The 13 cards dealt: required for a natural, optional otherwise.
    #[serde(
        default,
        borrow,
        deserialize_with = "borrowed_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub dealt: Option<Cow<'a, str>>,
}

/// Why a points round as submitted cannot be settled.
#[derive(Debug, Error)]
pub enum PointsWireError {
    #[error("not a round: {0}")]
    Json(#[from] serde_json::Error),
    #[error("a points round says \"game\": \"points\"")]
    NotPoints,
    #[error("{seat} {hand}: {source}")]
    Cards {
        seat: PlayerSeat,
        /// "back", "middle", "front" or "dealt".
        hand: &'static str,
        source: ParseCardError,
    },
    #[error("{seat}: {source}")]
    Set {
        seat: PlayerSeat,
        source: SetHandError,
    },
    #[error("{seat}: {missing} is missing (give back, middle and front together)")]
    PartialSet { seat: PlayerSeat, missing: Slot },
    #[error("{seat}: a deal is 13 cards, not {count}")]
    DealtCount { seat: PlayerSeat, count: usize },
    #[error("{seat} showed a natural but did not say which (dragon, six_pairs, three_flushes or three_straights)")]
    UnnamedNatural { seat: PlayerSeat },
    #[error("{seat} named a natural ({natural}) but its action is not `natural`")]
    StrayNatural { seat: PlayerSeat, natural: Natural },
    #[error(transparent)]
    Rules(#[from] PointsError),
}

impl PointsWireError {
    fn cards(seat: PlayerSeat, error: CardsError) -> PointsWireError {
        match error {
            CardsError::Cards { hand, source } => PointsWireError::Cards { seat, hand, source },
            CardsError::Set(source) => PointsWireError::Set { seat, source },
            CardsError::PartialSet(missing) => PointsWireError::PartialSet { seat, missing },
            CardsError::DealtCount(count) => PointsWireError::DealtCount { seat, count },
        }
    }
}

/// Parses one points line and settles it.
pub fn settle_points_json(line: &str) -> Result<PointsSettlementOut, PointsWireError> {
    let round_in: PointsRoundIn<'_> = serde_json::from_str(line)?;
    let round = round_in.to_round()?;
    let settlement = settle_points(&round)?;
    Ok(PointsSettlementOut::new(&round, &settlement))
}

impl PointsRoundIn<'_> {
    /// Checks and converts to a validated [`PointsRound`].
    pub fn to_round(&self) -> Result<PointsRound, PointsWireError> {
        if self.game != Game::Points {
            return Err(PointsWireError::NotPoints);
        }
        let mut plays = Vec::with_capacity(self.seats.len());
        for player in &self.seats {
            plays.push(player.to_engine()?);
        }
        Ok(PointsRound::new(self.rules, self.unit, plays)?)
    }

    /// The canonical submission of a validated round: settling it again gives the same result.
    pub fn from_round(round: &PointsRound) -> PointsRoundIn<'static> {
        let text = |cards: &[Card]| Some(Cow::Owned(format_cards(cards)));
        PointsRoundIn {
            game: Game::Points,
            unit: round.unit(),
            rules: *round.profile(),
            seats: round
                .players()
                .map(|play| {
                    let (action, natural) = match play.declaration {
                        PointsDeclaration::Play => (PointsAction::Play, None),
                        PointsDeclaration::Natural(natural) => {
                            (PointsAction::Natural, Some(natural))
                        }
                        PointsDeclaration::Surrender => (PointsAction::Surrender, None),
                    };
                    let hands = play.hands.as_ref();
                    PlayerIn {
                        seat: play.seat,
                        action,
                        natural,
                        back: hands.and_then(|set| text(set.back())),
                        middle: hands.and_then(|set| text(set.middle())),
                        front: hands.and_then(|set| text(set.front())),
                        dealt: play.dealt.as_ref().and_then(|cards| text(cards)),
                    }
                })
                .collect(),
        }
    }
}

impl PlayerIn<'_> {
    fn to_engine(&self) -> Result<PlayerPlay, PointsWireError> {
        let seat = self.seat;
        let declaration = match (self.action, self.natural) {
            (PointsAction::Natural, Some(natural)) => PointsDeclaration::Natural(natural),
            (PointsAction::Natural, None) => return Err(PointsWireError::UnnamedNatural { seat }),
            (_, Some(natural)) => return Err(PointsWireError::StrayNatural { seat, natural }),
            (PointsAction::Play, None) => PointsDeclaration::Play,
            (PointsAction::Surrender, None) => PointsDeclaration::Surrender,
        };
        let (hands, dealt) = place_cards(
            self.back.as_deref(),
            self.middle.as_deref(),
            self.front.as_deref(),
            self.dealt.as_deref(),
        )
        .map_err(|error| PointsWireError::cards(seat, error))?;
        Ok(PlayerPlay {
            seat,
            declaration,
            hands,
            dealt,
        })
    }
}

/// Points won from each other player, keyed by seat number: `{"2": -13, "3": 3}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Against(pub [Option<i64>; 4]);

impl Serialize for Against {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.0
                .iter()
                .enumerate()
                .filter_map(|(slot, points)| points.map(|points| (slot + 1, points))),
        )
    }
}

impl<'de> Deserialize<'de> for Against {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut against = [None; 4];
        for (seat, points) in BTreeMap::<PlayerSeat, i64>::deserialize(deserializer)? {
            against[seat.slot()] = Some(points);
        }
        Ok(Against(against))
    }
}

/// One player's line of a points settlement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerOut {
    pub seat: PlayerSeat,
    pub outcome: PointsOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural: Option<Natural>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fouled: Option<bool>,
    /// Why the set is a mis-set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foul: Option<String>,
    pub points: i64,
    pub result: Money,
    pub against: Against,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<HandsOut>,
}

/// A settled points round as `pusoy-pit settle` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsSettlementOut {
    pub seats: Vec<PlayerOut>,
    /// The seat that made pusoy, or null.
    pub pusoy: Option<PlayerSeat>,
}

impl PointsSettlementOut {
    pub fn new(round: &PointsRound, settlement: &PointsSettlement) -> PointsSettlementOut {
        let profile = round.profile();
        let seats = round
            .players()
            .zip(settlement.players())
            .map(|(play, result)| {
                let hands: Option<&SetHand> = play.hands.as_ref();
                PlayerOut {
                    seat: result.seat,
                    outcome: result.outcome,
                    natural: result.natural,
                    fouled: result.fouled,
                    foul: hands
                        .and_then(|set| set.foul_by(profile.wheel, profile.suit_ties()))
                        .map(|foul| foul.to_string()),
                    points: result.points,
                    result: result.result,
                    against: Against(result.against),
                    hands: hands.map(HandsOut::of),
                }
            })
            .collect();
        PointsSettlementOut {
            seats,
            pusoy: settlement.pusoy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_won_from_each_other_player_are_written_by_seat_number_and_read_back() {
        // Seat 1 won 13 from seat 2 and lost 3 to seat 3; seat 4 did not play.
        let against = Against([None, Some(-13), Some(3), None]);
        let text = serde_json::to_string(&against).expect("written");
        assert_eq!(text, r#"{"2":-13,"3":3}"#);
        assert_eq!(
            serde_json::from_str::<Against>(&text).expect("read back"),
            against
        );
        assert_eq!(
            serde_json::from_str::<Against>("{}").expect("nobody"),
            Against::default()
        );
        assert!(serde_json::from_str::<Against>(r#"{"5": 1}"#).is_err());
    }
}
