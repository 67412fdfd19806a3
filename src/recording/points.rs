//! Round entry at a points-game table (docs/rules.md §8): the JSON body of a points round (no
//! dealer, no bets: two to four players in seats 1-4, each playing, showing a natural or
//! surrendering), checked against the table's unit and points profile and turned into a
//! validated [`PointsRound`], or into errors keyed by form field (`seat2_natural`,
//! `seat3_back`, `dealer`...). Pure: the engine does the card and rule checks and its messages
//! are reused as they are.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::recording::entry::{part_holding, FieldErrors};
use crate::rules::card::Card;
use crate::rules::game::Game;
use crate::rules::money::Money;
use crate::rules::place::PlayerSeat;
use crate::rules::points::natural::Natural;
use crate::rules::points::profile::PointsProfile;
use crate::rules::points::round::{PointsError, PointsRound};
use crate::rules::points::wire::{PlayerIn, PointsAction, PointsRoundIn, PointsWireError};
use crate::rules::round::DealError;
use crate::rules::set_hand::SetHandError;

/// One player as entered: the seat, what they did, and the cards as text. `bet` and `royalty`
/// belong to the banking game: they are read only to be refused by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerBody {
    pub seat: i64,
    #[serde(default)]
    pub action: PointsAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural: Option<Natural>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub middle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bet: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royalty: Option<Value>,
}

/// A points round as entered. `dealer` belongs to the banking game: read only to be refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointsBody {
    #[serde(default)]
    pub seats: Vec<PlayerBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealer: Option<Value>,
}

/// What a points table is: its unit and currency, and its rules.
#[derive(Debug, Clone, Copy)]
pub struct PointsTable<'a> {
    pub currency: &'a str,
    pub unit: Money,
    pub profile: &'a PointsProfile,
}

fn text(t: &Option<String>) -> Option<Cow<'_, str>> {
    t.as_deref().map(Cow::Borrowed)
}

fn seat_key(seat: PlayerSeat, part: &str) -> String {
    format!("seat{}_{part}", seat.number())
}

/// Checks a points round against the table: no banking fields, seats 1-4, then every rule of
/// the engine (the first it stops at, on its field).
pub fn validate(body: &PointsBody, table: PointsTable<'_>) -> Result<PointsRound, FieldErrors> {
    let mut errors = FieldErrors::default();
    if body.dealer.is_some() {
        errors.add(
            "dealer",
            "a points-game table has no dealer hand: leave `dealer` out (the players play each \
             other)",
        );
    }
    if body.seats.len() < 2 {
        errors.add(
            "seats",
            format!(
                "a points round has two to four players, not {}",
                body.seats.len()
            ),
        );
    }
    let mut players = Vec::with_capacity(body.seats.len());
    for entry in &body.seats {
        let seat = match PlayerSeat::new(entry.seat) {
            Ok(seat) => seat,
            Err(bad) => {
                errors.add("seats", bad.to_string());
                continue;
            }
        };
        if entry.bet.is_some() {
            errors.add(
                seat_key(seat, "bet"),
                format!(
                    "{seat}: a points-game table takes no bets; a point is worth the table's \
                     unit, {} {}",
                    table.currency,
                    table.unit.major_text()
                ),
            );
        }
        if entry.royalty.is_some() {
            errors.add(
                seat_key(seat, "royalty"),
                format!(
                    "{seat}: the points game has naturals, not royalties: send \"action\": \
                     \"natural\" with \"natural\" (dragon, six_pairs, three_flushes or \
                     three_straights)"
                ),
            );
        }
        players.push(PlayerIn {
            seat,
            action: entry.action,
            natural: entry.natural,
            back: text(&entry.back),
            middle: text(&entry.middle),
            front: text(&entry.front),
            dealt: text(&entry.dealt),
        });
    }
    let round_in = PointsRoundIn {
        game: Game::Points,
        unit: table.unit,
        rules: *table.profile,
        seats: players,
    };
    match round_in.to_round() {
        Ok(round) if errors.is_empty() => Ok(round),
        Ok(_) => Err(errors),
        Err(err) => {
            for (field, message) in field_errors(body, &err).0 {
                errors.add(field, message);
            }
            Err(errors)
        }
    }
}

fn field_errors(body: &PointsBody, err: &PointsWireError) -> FieldErrors {
    let fields = match err {
        PointsWireError::Json(_) | PointsWireError::NotPoints => vec!["round".to_owned()],
        PointsWireError::Cards { seat, hand, .. } => vec![seat_key(*seat, hand)],
        PointsWireError::Set { seat, source } => match source {
            SetHandError::WrongCount { slot, .. } | SetHandError::RepeatedCard { slot, .. } => {
                vec![seat_key(*seat, slot.word())]
            }
            SetHandError::DuplicateCard { first, second, .. } => {
                vec![
                    seat_key(*seat, first.word()),
                    seat_key(*seat, second.word()),
                ]
            }
        },
        PointsWireError::PartialSet { seat, missing } => vec![seat_key(*seat, missing.word())],
        PointsWireError::DealtCount { seat, .. } => vec![seat_key(*seat, "dealt")],
        PointsWireError::UnnamedNatural { seat } | PointsWireError::StrayNatural { seat, .. } => {
            vec![seat_key(*seat, "natural")]
        }
        PointsWireError::Rules(rule) => match rule {
            PointsError::Deal(DealError::DuplicateCard {
                card,
                first,
                second,
            }) => vec![
                card_field(body, *first, *card),
                card_field(body, *second, *card),
            ],
            PointsError::Deal(
                DealError::RepeatedInDealt { place, .. }
                | DealError::SetNotDealt { place, .. }
                | DealError::WrongDealtCount { place, .. },
            ) => vec![seat_key(*place, "dealt")],
            PointsError::DuplicateSeat(_) | PointsError::PlayerCount(_) => {
                vec!["seats".to_owned()]
            }
            PointsError::NonPositiveUnit(_) | PointsError::Overflow(_) => vec!["round".to_owned()],
            PointsError::SurrenderOff(seat) | PointsError::HandsNotSet { seat, .. } => {
                vec![seat_key(*seat, "action")]
            }
            PointsError::NaturalsOff { seat, .. }
            | PointsError::NotANaturalHere { seat, .. }
            | PointsError::NaturalNotHeld { seat, .. } => vec![seat_key(*seat, "natural")],
            PointsError::NaturalWithoutDeal { seat, .. } => vec![seat_key(*seat, "dealt")],
            PointsError::MissingHands(seat) => vec![seat_key(*seat, "back")],
        },
    };
    let message = err.to_string();
    let mut errors = FieldErrors::default();
    for field in fields {
        errors.add(field, message.clone());
    }
    errors
}

/// The field of `seat` that holds `card` (its set hands first, then its deal).
fn card_field(body: &PointsBody, seat: PlayerSeat, card: Card) -> String {
    let entry = body
        .seats
        .iter()
        .find(|s| s.seat == i64::from(seat.number()));
    let part = entry.and_then(|e| part_holding([&e.back, &e.middle, &e.front, &e.dealt], card));
    seat_key(seat, part.unwrap_or("back"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn check(body: &PointsBody) -> Result<PointsRound, FieldErrors> {
        let profile = PointsProfile::default();
        let table = PointsTable {
            currency: "PHP",
            unit: Money::from_minor_units(1_000),
            profile: &profile,
        };
        validate(body, table)
    }

    fn player(seat: i64, back: &str, middle: &str, front: &str) -> PlayerBody {
        PlayerBody {
            seat,
            back: Some(back.to_owned()),
            middle: Some(middle.to_owned()),
            front: Some(front.to_owned()),
            ..PlayerBody::default()
        }
    }

    fn two_players() -> PointsBody {
        PointsBody {
            seats: vec![
                player(1, "Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As"),
                player(2, "2c 2d 2h 5s 6s", "7c 7d 8h 9s Tc", "Jc Qd Kh"),
            ],
            dealer: None,
        }
    }

    #[test]
    fn a_legal_points_round_validates() {
        assert!(check(&two_players()).is_ok());
    }

    #[test]
    fn banking_fields_are_refused_each_on_its_field() {
        let mut body = two_players();
        body.dealer = Some(serde_json::json!({"back": "As Ks Qs Js Ts"}));
        body.seats[0].bet = Some(serde_json::json!(500));
        body.seats[1].royalty = Some(serde_json::json!("six_pairs"));
        let errors = check(&body).unwrap_err();
        assert!(errors.0["dealer"].contains("no dealer hand"), "{errors:?}");
        assert_eq!(
            errors.0["seat1_bet"],
            "seat 1: a points-game table takes no bets; a point is worth the table's unit, PHP 10.00"
        );
        assert!(errors.0["seat2_royalty"].contains("naturals, not royalties"));
    }

    #[test]
    fn a_natural_the_cards_do_not_hold_is_refused_on_the_natural_field() {
        let mut body = two_players();
        body.seats[1] = PlayerBody {
            seat: 2,
            action: PointsAction::Natural,
            natural: Some(Natural::Dragon),
            dealt: Some("2c 2d 2h 5s 6s 7c 7d 8h 9s Tc Jc Qd Kh".to_owned()),
            ..PlayerBody::default()
        };
        let errors = check(&body).unwrap_err();
        let message = &errors.0["seat2_natural"];
        assert!(
            message.starts_with("seat 2 showed a dragon, but the cards dealt do not hold it"),
            "{message}"
        );
    }

    #[test]
    fn a_seat_beyond_four_and_a_lone_player_are_named_on_seats() {
        let mut body = two_players();
        body.seats[1].seat = 5;
        let errors = check(&body).unwrap_err();
        assert!(errors.0["seats"].contains("no seat 5"), "{errors:?}");
        body.seats.pop();
        let errors = check(&body).unwrap_err();
        assert!(
            errors.0["seats"].contains("two to four players"),
            "{errors:?}"
        );
    }

    #[test]
    fn a_card_in_two_seats_marks_both() {
        let mut body = two_players();
        body.seats[1].front = Some("Jc Qd As".to_owned());
        let errors = check(&body).unwrap_err();
        assert!(errors.0.contains_key("seat1_front"), "{errors:?}");
        assert!(errors.0.contains_key("seat2_front"), "{errors:?}");
    }
}
