//! Round entry: the JSON body a dealer's screen sends, checked against the table's limits and
//! rule profile and turned into a validated [`Round`], or into errors keyed by form field
//! (`seat2_bet`, `dealer_front`, `round`...). Pure: the rules engine does the card and rule
//! checks and its messages are reused as they are.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rules::card::{parse_cards, Card};
use crate::rules::money::Money;
use crate::rules::place::{Place, SeatNo};
use crate::rules::profile::{RuleProfile, SuitOrder, Wheel};
use crate::rules::round::{DealError, Round, SettlementError};
use crate::rules::royalty::Royalty;
use crate::rules::set_hand::{SetHand, SetHandError, Slot};
use crate::rules::wire::{Action, PlaceIn, RoundIn, SeatIn, WireError};

/// One place as entered: what it did, and the cards as text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceBody {
    #[serde(default)]
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royalty: Option<Royalty>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub middle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<String>,
}

#[cfg(test)]
impl PlaceBody {
    /// A place that played the three hands given (for tests).
    pub fn set(back: &str, middle: &str, front: &str) -> PlaceBody {
        PlaceBody {
            back: Some(back.to_owned()),
            middle: Some(middle.to_owned()),
            front: Some(front.to_owned()),
            ..PlaceBody::default()
        }
    }
}

/// One occupied seat as entered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "SeatFields")]
pub struct SeatBody {
    pub seat: i64,
    pub bet: i64,
    #[serde(flatten)]
    pub play: PlaceBody,
}

/// A [`SeatBody`] as read, its fields spelled out: serde cannot refuse unknown fields beside a
/// flattened struct, and a misspelt field (`"bets"`) must be refused, not ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatFields {
    seat: i64,
    bet: i64,
    #[serde(default)]
    action: Action,
    #[serde(default)]
    royalty: Option<Royalty>,
    #[serde(default)]
    dealt: Option<String>,
    #[serde(default)]
    back: Option<String>,
    #[serde(default)]
    middle: Option<String>,
    #[serde(default)]
    front: Option<String>,
}

impl From<SeatFields> for SeatBody {
    fn from(f: SeatFields) -> Self {
        SeatBody {
            seat: f.seat,
            bet: f.bet,
            play: PlaceBody {
                action: f.action,
                royalty: f.royalty,
                dealt: f.dealt,
                back: f.back,
                middle: f.middle,
                front: f.front,
            },
        }
    }
}

/// A round as entered at the table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundBody {
    #[serde(default)]
    pub seats: Vec<SeatBody>,
    pub dealer: PlaceBody,
}

/// The table's betting limits, in minor units of its currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits<'a> {
    pub currency: &'a str,
    pub min_bet: i64,
    pub max_bet: i64,
}

/// What is wrong with a round, by field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FieldErrors(pub BTreeMap<String, String>);

impl FieldErrors {
    /// An error on the round as a whole.
    pub fn round(message: impl Into<String>) -> FieldErrors {
        let mut errors = FieldErrors::default();
        errors.add("round", message);
        errors
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.entry(field.into()).or_insert_with(|| message.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every message, once each, in field order.
    pub fn summary(&self) -> String {
        let mut messages: Vec<&str> = Vec::new();
        for message in self.0.values() {
            if !messages.contains(&message.as_str()) {
                messages.push(message);
            }
        }
        messages.join("; ")
    }
}

/// Checks a round against the table: bets within limits, then every rule of the engine.
pub fn validate(
    body: &RoundBody,
    profile: &RuleProfile,
    limits: Limits,
) -> Result<Round, FieldErrors> {
    let mut errors = FieldErrors::default();
    if body.seats.is_empty() {
        // A settled round is a record of bets: the database holds every round to one seat at
        // least, and a round without one is refused here with words, not there.
        errors.add("seats", "a round needs at least one seat");
    }
    let mut seats = Vec::with_capacity(body.seats.len());
    for entry in &body.seats {
        let Ok(seat) = SeatNo::new(entry.seat) else {
            errors.add(
                "seats",
                format!(
                    "seat {} does not exist; the seats are 1, 2 and 3",
                    entry.seat
                ),
            );
            continue;
        };
        let outside = if entry.bet < limits.min_bet {
            Some(("below the table minimum", limits.min_bet))
        } else if entry.bet > limits.max_bet {
            Some(("above the table maximum", limits.max_bet))
        } else {
            None
        };
        if let Some((which, limit)) = outside {
            errors.add(
                format!("seat{}_bet", seat.number()),
                format!(
                    "seat {seat} bet {cur} {} is {which} of {cur} {}",
                    Money::from_minor_units(entry.bet).major_text(),
                    Money::from_minor_units(limit).major_text(),
                    cur = limits.currency,
                ),
            );
        }
        let play = place_in(&entry.play);
        seats.push(SeatIn {
            seat,
            bet: Money::from_minor_units(entry.bet),
            action: play.action,
            royalty: play.royalty,
            back: play.back,
            middle: play.middle,
            front: play.front,
            dealt: play.dealt,
        });
    }
    let round_in = RoundIn {
        rules: *profile,
        dealer: place_in(&body.dealer),
        seats,
    };
    // The engine first: a valid round, the usual case, is read once.
    let engine = round_in.to_round();
    if errors.is_empty() {
        if let Ok(round) = engine {
            return Ok(round);
        }
    }
    // Otherwise the bets' problems and the rule the engine stopped at (the caller adds every
    // card problem: `recording::problems`).
    if let Err(err) = engine {
        for (field, message) in field_errors(body, &err).0 {
            errors.add(field, message);
        }
    }
    Err(errors)
}

fn place_in(body: &PlaceBody) -> PlaceIn<'_> {
    fn text(t: &Option<String>) -> Option<Cow<'_, str>> {
        t.as_deref().map(Cow::Borrowed)
    }
    PlaceIn {
        action: body.action,
        royalty: body.royalty,
        back: text(&body.back),
        middle: text(&body.middle),
        front: text(&body.front),
        dealt: text(&body.dealt),
    }
}

/// The field-name prefix of a place: `dealer`, `seat1`...
pub fn place_key(place: Place) -> String {
    match place {
        Place::Dealer => "dealer".to_owned(),
        Place::Seat(seat) => format!("seat{}", seat.number()),
    }
}

fn key(place: Place, part: &str) -> String {
    format!("{}_{part}", place_key(place))
}

fn field_errors(body: &RoundBody, err: &WireError) -> FieldErrors {
    let fields = match err {
        WireError::Json(_) => vec!["round".to_owned()],
        WireError::Cards { place, hand, .. } => vec![key(*place, hand)],
        WireError::Set { place, source } => match source {
            SetHandError::WrongCount { slot, .. } | SetHandError::RepeatedCard { slot, .. } => {
                vec![key(*place, slot.word())]
            }
            SetHandError::DuplicateCard { first, second, .. } => {
                vec![key(*place, first.word()), key(*place, second.word())]
            }
        },
        WireError::PartialSet { place, missing } => vec![key(*place, missing.word())],
        WireError::DealtCount { place, .. } => vec![key(*place, "dealt")],
        WireError::Rules(rule) => match rule {
            SettlementError::Deal(DealError::DuplicateCard {
                card,
                first,
                second,
            }) => vec![
                card_field(body, *first, *card),
                card_field(body, *second, *card),
            ],
            SettlementError::Deal(
                DealError::RepeatedInDealt { place, .. }
                | DealError::SetNotDealt { place, .. }
                | DealError::WrongDealtCount { place, .. },
            )
            | SettlementError::RoyaltyWithoutDeal { place } => vec![key(*place, "dealt")],
            SettlementError::DuplicateSeat(seat) => vec![key(Place::Seat(*seat), "seat")],
            SettlementError::NonPositiveBet { seat, .. } => vec![key(Place::Seat(*seat), "bet")],
            SettlementError::SurrenderOff { place }
            | SettlementError::RoyaltiesOff { place }
            | SettlementError::RoyaltyNotHeld { place, .. }
            | SettlementError::HandsNotSet { place, .. } => vec![key(*place, "action")],
            SettlementError::SurrenderAfterDealerRoyalty { seat } => {
                vec![key(Place::Seat(*seat), "action")]
            }
            SettlementError::MissingHands { place } => vec![key(*place, "back")],
            SettlementError::Overflow { .. } => vec!["round".to_owned()],
        },
    };
    let message = err.to_string();
    let mut errors = FieldErrors::default();
    for field in fields {
        errors.add(field, message.clone());
    }
    errors
}

/// The field of `place` that holds `card` (its set hands first, then its deal).
fn card_field(body: &RoundBody, place: Place, card: Card) -> String {
    let entry = match place {
        Place::Dealer => Some(&body.dealer),
        Place::Seat(seat) => body
            .seats
            .iter()
            .find(|s| s.seat == i64::from(seat.number()))
            .map(|s| &s.play),
    };
    let part = entry.and_then(|e| part_holding([&e.back, &e.middle, &e.front, &e.dealt], card));
    key(place, part.unwrap_or("back"))
}

/// Which of a place's card fields, given as back, middle, front and dealt, holds `card`: its
/// set hands first, then its deal.
pub(crate) fn part_holding(texts: [&Option<String>; 4], card: Card) -> Option<&'static str> {
    let parts = ["back", "middle", "front", "dealt"];
    parts.into_iter().zip(texts).find_map(|(part, text)| {
        text.as_deref()
            .and_then(|t| parse_cards(t).ok())
            .is_some_and(|cards| cards.contains(&card))
            .then_some(part)
    })
}

/// What a dealer needs to see about one place's set hands before confirming: each hand's name
/// and, for a fouled set, the foul in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlaceNote {
    pub back: &'static str,
    pub middle: &'static str,
    pub front: &'static str,
    /// `None` when the set is legal.
    pub foul: Option<String>,
}

impl PlaceNote {
    /// The note as one line, the foul first ("fouled: middle (...) ranks above back (...); back:
    /// ..., middle: ..., front: ...").
    pub fn text(&self) -> String {
        let hands = format!(
            "back: {}, middle: {}, front: {}",
            self.back, self.middle, self.front
        );
        match &self.foul {
            Some(foul) => format!("fouled: {foul}; {hands}"),
            None => hands,
        }
    }
}

/// The note of a place whose three hands, as entered, are 5, 5 and 3 distinct readable cards;
/// `None` otherwise (what is wrong with them is the validation's to say). Judged on its own,
/// so a place gets its note while the rest of the round is still being entered.
pub fn place_note(
    back: &str,
    middle: &str,
    front: &str,
    wheel: Wheel,
    suit_ties: Option<&SuitOrder>,
) -> Option<PlaceNote> {
    let set = SetHand::new(
        &parse_cards(back).ok()?,
        &parse_cards(middle).ok()?,
        &parse_cards(front).ok()?,
    )
    .ok()?;
    Some(PlaceNote {
        back: set.name(Slot::Back),
        middle: set.name(Slot::Middle),
        front: set.name(Slot::Front),
        foul: set.foul_by(wheel, suit_ties).map(|foul| foul.to_string()),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const LIMITS: Limits = Limits {
        currency: "PHP",
        min_bet: 100,
        max_bet: 10_000,
    };

    fn set(back: &str, middle: &str, front: &str) -> PlaceBody {
        PlaceBody::set(back, middle, front)
    }

    fn body(seat_bet: i64, seat: PlaceBody) -> RoundBody {
        RoundBody {
            seats: vec![SeatBody {
                seat: 1,
                bet: seat_bet,
                play: seat,
            }],
            dealer: set("2c 2d 2h 5s 6s", "7c 7d 8h 9s Tc", "Jc Qd Kh"),
        }
    }

    #[test]
    fn a_legal_round_validates() {
        let seat = set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As");
        assert!(validate(&body(500, seat), &RuleProfile::default(), LIMITS).is_ok());
    }

    #[test]
    fn a_bet_below_the_minimum_names_seat_and_limit() {
        let seat = set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As");
        let errors = validate(&body(5, seat), &RuleProfile::default(), LIMITS).unwrap_err();
        assert_eq!(
            errors.0["seat1_bet"],
            "seat 1 bet PHP 0.05 is below the table minimum of PHP 1.00"
        );
    }

    #[test]
    fn a_card_dealt_twice_marks_both_places() {
        // Jc is in the dealer's front and seat 1's middle.
        let seat = set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jc", "Qc Kd As");
        let errors = validate(&body(500, seat), &RuleProfile::default(), LIMITS).unwrap_err();
        assert!(errors.0.contains_key("seat1_middle"), "{errors:?}");
        assert!(errors.0.contains_key("dealer_front"), "{errors:?}");
        assert!(errors.summary().contains("Jc"), "{errors:?}");
    }

    #[test]
    fn a_place_note_names_the_hands_and_explains_a_foul() {
        let profile = RuleProfile::default();
        let place_note = |back, middle, front, profile: &RuleProfile| {
            place_note(back, middle, front, profile.wheel, profile.suit_ties())
        };
        let legal = place_note("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As", &profile).unwrap();
        assert_eq!(legal.foul, None);
        assert!(legal.back.starts_with("three of a kind"), "{legal:?}");
        assert!(
            legal.text().starts_with("back: three of a kind"),
            "{legal:?}"
        );

        let fouled = place_note("6c 6d 2h 3s 4s", "9c 9d Kh Ts Jd", "Qc 7d 5s", &profile).unwrap();
        let foul = fouled.foul.clone().unwrap();
        assert!(foul.contains("middle") && foul.contains("back"), "{foul}");
        assert!(fouled.text().starts_with("fouled: "), "{}", fouled.text());
    }

    #[test]
    fn a_place_with_unreadable_or_missing_cards_gets_no_note() {
        let profile = RuleProfile::default();
        let place_note = |back, middle, front, profile: &RuleProfile| {
            place_note(back, middle, front, profile.wheel, profile.suit_ties())
        };
        assert_eq!(
            place_note("Ac Ad Ah 3s Xs", "8c 8d 9h Ts Jd", "Qc Kd As", &profile),
            None
        );
        assert_eq!(
            place_note("Ac Ad Ah 3s", "8c 8d 9h Ts Jd", "Qc Kd As", &profile),
            None
        );
        assert_eq!(
            place_note("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Ac", "Qc Kd As", &profile),
            None
        );
    }

    #[test]
    fn a_bad_card_names_its_hand() {
        let seat = set("Ac Ad Ah 3s Xs", "8c 8d 9h Ts Jd", "Qc Kd As");
        let errors = validate(&body(500, seat), &RuleProfile::default(), LIMITS).unwrap_err();
        assert!(errors.0.contains_key("seat1_back"), "{errors:?}");
    }

    #[test]
    fn bets_at_the_limits_are_accepted_and_a_bet_above_the_maximum_names_seat_and_limit() {
        let seat = || set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As");
        let profile = RuleProfile::default();
        assert!(validate(&body(LIMITS.min_bet, seat()), &profile, LIMITS).is_ok());
        assert!(validate(&body(LIMITS.max_bet, seat()), &profile, LIMITS).is_ok());
        let errors = validate(&body(LIMITS.max_bet + 1, seat()), &profile, LIMITS).unwrap_err();
        assert_eq!(
            errors.0["seat1_bet"],
            "seat 1 bet PHP 100.01 is above the table maximum of PHP 100.00"
        );
    }

    #[test]
    fn a_seat_that_does_not_exist_is_named_on_the_seats_field() {
        let mut round = body(500, set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As"));
        round.seats[0].seat = 4;
        let errors = validate(&round, &RuleProfile::default(), LIMITS).unwrap_err();
        assert_eq!(
            errors.0,
            BTreeMap::from([(
                "seats".to_owned(),
                "seat 4 does not exist; the seats are 1, 2 and 3".to_owned()
            )])
        );
    }

    #[test]
    fn the_summary_gives_each_message_once_in_field_order() {
        let mut errors = FieldErrors::round("the round is late");
        errors.add("seat1_back", "Jc is twice");
        errors.add("dealer_front", "Jc is twice");
        errors.add("round", "a second message for a field is dropped");
        assert_eq!(errors.summary(), "Jc is twice; the round is late");
    }
}
