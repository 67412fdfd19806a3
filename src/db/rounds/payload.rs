//! The details of a round's `round.settled` audit event, in a type of their own so that
//! changing the API's JSON can never change the format of stored audit rows. `format` says
//! which version a row holds; version 1 is the round as entered (canonical: the form
//! `pusoy-pit settle` reads, so an auditor can re-settle it from the row alone) and its
//! settlement, with the round's place at its table.

use serde::Serialize;

use crate::db::ids::{ProfileVersionId, ShiftId, UserId};
use crate::rules::game::Game;
use crate::rules::money::Money;
use crate::rules::place::{PlayerSeat, SeatNo};
use crate::rules::points::natural::Natural;
use crate::rules::points::profile::PointsProfile;
use crate::rules::points::settle::PointsOutcome;
use crate::rules::points::wire::{
    Against, PlayerOut, PointsAction, PointsRoundIn, PointsSettlementOut,
};
use crate::rules::profile::RuleProfile;
use crate::rules::royalty::Royalty;
use crate::rules::settle::{HandWinners, Outcome};
use crate::rules::wire::{Action, DealerOut, HandsOut, PlaceIn, RoundIn, SeatOut, SettlementOut};

/// The version of the format written now.
pub const FORMAT: u8 = 1;

/// A `round.settled` event's details.
#[derive(Debug, Serialize)]
pub struct RoundSettled<'a> {
    pub format: u8,
    pub table: &'a str,
    pub round_no: i32,
    pub draft_key: &'a str,
    pub shift_id: ShiftId,
    pub dealer_id: UserId,
    /// Every account that entered or changed the round before its confirmation (the event's
    /// actor confirmed it); absent from events written before it was recorded.
    pub entered_by: &'a [UserId],
    pub rule_profile_version_id: ProfileVersionId,
    pub round: RoundRecord<'a>,
    pub settlement: SettlementRecord<'a>,
}

/// The round as entered: its rules, the dealer and the occupied seats.
#[derive(Debug, Serialize)]
pub struct RoundRecord<'a> {
    rules: &'a RuleProfile,
    dealer: PlaceRecord<'a>,
    seats: Vec<SeatRecord<'a>>,
}

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
enum ActionRecord {
    Play,
    Surrender,
    Royalty,
}

#[derive(Debug, Serialize)]
struct PlaceRecord<'a> {
    action: ActionRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    royalty: Option<Royalty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    back: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    middle: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    front: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dealt: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct SeatRecord<'a> {
    seat: SeatNo,
    bet: Money,
    action: ActionRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    royalty: Option<Royalty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    back: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    middle: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    front: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dealt: Option<&'a str>,
}

/// The settlement: the dealer's line and each seat's.
#[derive(Debug, Serialize)]
pub struct SettlementRecord<'a> {
    dealer: DealerRecord<'a>,
    seats: Vec<SeatResultRecord<'a>>,
}

#[derive(Debug, Serialize)]
struct HandsRecord<'a> {
    back: &'a str,
    middle: &'a str,
    front: &'a str,
}

#[derive(Debug, Serialize)]
struct DealerRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    royalty: Option<Royalty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fouled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    foul: Option<&'a str>,
    result: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    hands: Option<HandsRecord<'a>>,
}

#[derive(Debug, Serialize)]
struct SeatResultRecord<'a> {
    seat: SeatNo,
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    royalty: Option<Royalty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fouled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    foul: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hands_won: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    winners: Option<HandWinners>,
    result: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    hands: Option<HandsRecord<'a>>,
}

fn action(action: Action) -> ActionRecord {
    match action {
        Action::Play => ActionRecord::Play,
        Action::Surrender => ActionRecord::Surrender,
        Action::Royalty => ActionRecord::Royalty,
    }
}

fn place<'a>(play: &'a PlaceIn<'_>) -> PlaceRecord<'a> {
    PlaceRecord {
        action: action(play.action),
        royalty: play.royalty,
        back: play.back.as_deref(),
        middle: play.middle.as_deref(),
        front: play.front.as_deref(),
        dealt: play.dealt.as_deref(),
    }
}

fn hands(hands: Option<&HandsOut>) -> Option<HandsRecord<'_>> {
    hands.map(|h| HandsRecord {
        back: &h.back,
        middle: &h.middle,
        front: &h.front,
    })
}

impl<'a> RoundRecord<'a> {
    /// The canonical round `round`.
    pub fn of(round: &'a RoundIn<'a>) -> Self {
        RoundRecord {
            rules: &round.rules,
            dealer: place(&round.dealer),
            seats: round
                .seats
                .iter()
                .map(|seat| SeatRecord {
                    seat: seat.seat,
                    bet: seat.bet,
                    action: action(seat.action),
                    royalty: seat.royalty,
                    back: seat.back.as_deref(),
                    middle: seat.middle.as_deref(),
                    front: seat.front.as_deref(),
                    dealt: seat.dealt.as_deref(),
                })
                .collect(),
        }
    }
}

impl<'a> SettlementRecord<'a> {
    pub fn of(settlement: &'a SettlementOut) -> Self {
        let DealerOut {
            royalty,
            fouled,
            foul,
            result,
            hands: dealer_hands,
        } = &settlement.dealer;
        SettlementRecord {
            dealer: DealerRecord {
                royalty: *royalty,
                fouled: *fouled,
                foul: foul.as_deref(),
                result: *result,
                hands: hands(dealer_hands.as_ref()),
            },
            seats: settlement.seats.iter().map(seat_result).collect(),
        }
    }
}

fn seat_result(seat: &SeatOut) -> SeatResultRecord<'_> {
    SeatResultRecord {
        seat: seat.seat,
        outcome: seat.outcome,
        royalty: seat.royalty,
        fouled: seat.fouled,
        foul: seat.foul.as_deref(),
        hands_won: seat.hands_won,
        winners: seat.winners,
        result: seat.result,
        hands: hands(seat.hands.as_ref()),
    }
}

/// A points round's `round.settled` event's details (docs/rules.md §8): as a banking round's,
/// with `game: "points"`, the players as entered (the canonical points round, the form
/// `pusoy-pit settle` reads) and each player's points, result and points against each other.
#[derive(Debug, Serialize)]
pub struct PointsRoundSettled<'a> {
    pub format: u8,
    pub game: Game,
    pub table: &'a str,
    pub round_no: i32,
    pub draft_key: &'a str,
    pub shift_id: ShiftId,
    pub dealer_id: UserId,
    /// As [`RoundSettled::entered_by`].
    pub entered_by: &'a [UserId],
    pub rule_profile_version_id: ProfileVersionId,
    pub round: PointsRoundRecord<'a>,
    pub settlement: PointsSettlementRecord<'a>,
}

/// The points round as entered: its rules, its unit and the players.
#[derive(Debug, Serialize)]
pub struct PointsRoundRecord<'a> {
    rules: &'a PointsProfile,
    unit: Money,
    seats: Vec<PlayerRecord<'a>>,
}

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
enum PointsActionRecord {
    Play,
    Natural,
    Surrender,
}

#[derive(Debug, Serialize)]
struct PlayerRecord<'a> {
    seat: PlayerSeat,
    action: PointsActionRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    natural: Option<Natural>,
    #[serde(skip_serializing_if = "Option::is_none")]
    back: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    middle: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    front: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dealt: Option<&'a str>,
}

/// The points settlement: each player's line and the seat that made pusoy.
#[derive(Debug, Serialize)]
pub struct PointsSettlementRecord<'a> {
    seats: Vec<PlayerResultRecord<'a>>,
    pusoy: Option<PlayerSeat>,
}

#[derive(Debug, Serialize)]
struct PlayerResultRecord<'a> {
    seat: PlayerSeat,
    outcome: PointsOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    natural: Option<Natural>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fouled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    foul: Option<&'a str>,
    points: i64,
    result: Money,
    against: Against,
    #[serde(skip_serializing_if = "Option::is_none")]
    hands: Option<HandsRecord<'a>>,
}

impl<'a> PointsRoundRecord<'a> {
    /// The canonical points round `round`.
    pub fn of(round: &'a PointsRoundIn<'a>) -> Self {
        PointsRoundRecord {
            rules: &round.rules,
            unit: round.unit,
            seats: round
                .seats
                .iter()
                .map(|player| PlayerRecord {
                    seat: player.seat,
                    action: match player.action {
                        PointsAction::Play => PointsActionRecord::Play,
                        PointsAction::Natural => PointsActionRecord::Natural,
                        PointsAction::Surrender => PointsActionRecord::Surrender,
                    },
                    natural: player.natural,
                    back: player.back.as_deref(),
                    middle: player.middle.as_deref(),
                    front: player.front.as_deref(),
                    dealt: player.dealt.as_deref(),
                })
                .collect(),
        }
    }
}

impl<'a> PointsSettlementRecord<'a> {
    pub fn of(settlement: &'a PointsSettlementOut) -> Self {
        PointsSettlementRecord {
            seats: settlement.seats.iter().map(player_result).collect(),
            pusoy: settlement.pusoy,
        }
    }
}

fn player_result(player: &PlayerOut) -> PlayerResultRecord<'_> {
    PlayerResultRecord {
        seat: player.seat,
        outcome: player.outcome,
        natural: player.natural,
        fouled: player.fouled,
        foul: player.foul.as_deref(),
        points: player.points,
        result: player.result,
        against: player.against,
        hands: hands(player.hands.as_ref()),
    }
}
