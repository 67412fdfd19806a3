//! Every card problem of an entered round at once, by field: each hand and deal read on its own
//! (unreadable cards, wrong counts, a card twice in one field), then across fields (a card in
//! two places, whether in their hands or their deals; a card in two hands of one place; a set
//! card that was not dealt). The engine stops at the first problem; a dealer fixing a round
//! wants them all. The messages are the engine's own. Pure.

use std::collections::{BTreeMap, BTreeSet};

use crate::recording::entry::{place_key, FieldErrors, PlaceBody, RoundBody};
use crate::rules::card::{parse_cards, Card};
use crate::rules::place::{Place, SeatNo};
use crate::rules::round::{DealError, SettlementError};
use crate::rules::set_hand::{SetHandError, Slot};
use crate::rules::wire::{Action, WireError};

/// One card field of a place: `dealt` or a hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Dealt,
    Hand(Slot),
}

impl Part {
    fn word(self) -> &'static str {
        match self {
            Part::Dealt => "dealt",
            Part::Hand(slot) => slot.word(),
        }
    }
}

fn field(place: Place, part: Part) -> String {
    format!("{}_{}", place_key(place), part.word())
}

/// The places of the round that exist (a seat outside 1-3 is the bets' check to name).
fn places(body: &RoundBody) -> Vec<(Place, &PlaceBody)> {
    let mut places = vec![(Place::Dealer, &body.dealer)];
    for seat in &body.seats {
        if let Ok(number) = SeatNo::new(seat.seat) {
            places.push((Place::Seat(number), &seat.play));
        }
    }
    places
}

/// Adds every card problem of `body` to `errors` (a field keeps its first message).
pub fn card_problems(body: &RoundBody, errors: &mut FieldErrors) {
    // Every readable card, with the fields holding it.
    let mut holders: BTreeMap<Card, Vec<(Place, Part)>> = BTreeMap::new();
    // Each place's readable fields of the right size.
    let mut complete: BTreeMap<(String, Part), Vec<Card>> = BTreeMap::new();
    for (place, play) in places(body) {
        let parts = [
            (Part::Dealt, &play.dealt),
            (Part::Hand(Slot::Back), &play.back),
            (Part::Hand(Slot::Middle), &play.middle),
            (Part::Hand(Slot::Front), &play.front),
        ];
        for (part, text) in parts {
            let Some(text) = text else { continue };
            let cards = match parse_cards(text) {
                Ok(cards) => cards,
                Err(source) => {
                    let err = WireError::Cards {
                        place,
                        hand: part.word(),
                        source,
                    };
                    errors.add(field(place, part), err.to_string());
                    continue;
                }
            };
            let size_problem = match part {
                Part::Dealt if cards.len() != 13 => Some(
                    WireError::DealtCount {
                        place,
                        count: cards.len(),
                    }
                    .to_string(),
                ),
                Part::Hand(slot) if cards.len() != slot.size() => Some(
                    WireError::Set {
                        place,
                        source: SetHandError::WrongCount {
                            slot,
                            count: cards.len(),
                        },
                    }
                    .to_string(),
                ),
                _ => None,
            };
            if let Some(message) = size_problem {
                errors.add(field(place, part), message);
            }
            let mut seen = BTreeSet::new();
            for &card in &cards {
                if !seen.insert(card) {
                    let message = match part {
                        Part::Dealt => {
                            SettlementError::from(DealError::RepeatedInDealt { place, card })
                                .to_string()
                        }
                        Part::Hand(slot) => WireError::Set {
                            place,
                            source: SetHandError::RepeatedCard { card, slot },
                        }
                        .to_string(),
                    };
                    errors.add(field(place, part), message);
                }
            }
            for card in seen {
                holders.entry(card).or_default().push((place, part));
            }
            if size_problem_free(part, cards.len()) {
                complete.insert((place_key(place), part), cards);
            }
        }
        missing_hands(place, play, errors);
    }
    for (card, held) in &holders {
        let mut at: Vec<Place> = held.iter().map(|(place, _)| *place).collect();
        at.dedup();
        if at.len() > 1 {
            // In two places: every field holding it is marked, naming the first two places.
            let err = SettlementError::from(DealError::DuplicateCard {
                card: *card,
                first: at[0],
                second: at[1],
            });
            for (place, part) in held {
                errors.add(field(*place, *part), err.to_string());
            }
            continue;
        }
        let hands: Vec<Slot> = held
            .iter()
            .filter_map(|(_, part)| match part {
                Part::Hand(slot) => Some(*slot),
                Part::Dealt => None,
            })
            .collect();
        if let [first, second, ..] = hands[..] {
            let err = WireError::Set {
                place: at[0],
                source: SetHandError::DuplicateCard {
                    card: *card,
                    first,
                    second,
                },
            };
            for slot in [first, second] {
                errors.add(field(at[0], Part::Hand(slot)), err.to_string());
            }
        }
    }
    set_not_dealt(body, &complete, errors);
}

fn size_problem_free(part: Part, count: usize) -> bool {
    match part {
        Part::Dealt => count == 13,
        Part::Hand(slot) => count == slot.size(),
    }
}

/// A place still in the round needs all three hands (a royalty needs its deal instead).
fn missing_hands(place: Place, play: &PlaceBody, errors: &mut FieldErrors) {
    if play.action != Action::Play {
        return;
    }
    let given = [&play.back, &play.middle, &play.front].map(Option::is_some);
    if given == [false; 3] {
        let err = SettlementError::MissingHands { place };
        errors.add(field(place, Part::Hand(Slot::Back)), err.to_string());
        return;
    }
    for (slot, given) in Slot::ALL.into_iter().zip(given) {
        if !given {
            let err = WireError::PartialSet {
                place,
                missing: slot,
            };
            errors.add(field(place, Part::Hand(slot)), err.to_string());
        }
    }
}

/// A place whose deal and hands are all complete sets only cards it was dealt.
fn set_not_dealt(
    body: &RoundBody,
    complete: &BTreeMap<(String, Part), Vec<Card>>,
    errors: &mut FieldErrors,
) {
    for (place, _) in places(body) {
        let key = place_key(place);
        let Some(dealt) = complete.get(&(key.clone(), Part::Dealt)) else {
            continue;
        };
        for slot in Slot::ALL {
            let Some(cards) = complete.get(&(key.clone(), Part::Hand(slot))) else {
                continue;
            };
            if let Some(&card) = cards.iter().find(|card| !dealt.contains(card)) {
                let err = SettlementError::from(DealError::SetNotDealt { place, card });
                errors.add(field(place, Part::Hand(slot)), err.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::recording::entry::SeatBody;

    fn set(back: &str, middle: &str, front: &str) -> PlaceBody {
        PlaceBody::set(back, middle, front)
    }

    fn problems(body: &RoundBody) -> BTreeMap<String, String> {
        let mut errors = FieldErrors::default();
        card_problems(body, &mut errors);
        errors.0
    }

    #[test]
    fn a_legal_round_has_no_card_problems() {
        let body = RoundBody {
            seats: vec![SeatBody {
                seat: 1,
                bet: 500,
                play: set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As"),
            }],
            dealer: set("2c 2d 2h 5s 6s", "7c 7d 8h 9s Tc", "Jc Qd Kh"),
        };
        assert_eq!(problems(&body), BTreeMap::new());
    }

    #[test]
    fn every_problem_of_the_round_is_named_at_once() {
        let mut seat2_dealt = set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Jd", "Qc Kd As");
        seat2_dealt.back = None;
        let body = RoundBody {
            seats: vec![
                // An unreadable card, a short hand and a card twice in one hand.
                SeatBody {
                    seat: 1,
                    bet: 500,
                    play: set("Ac Ad Ah 3s hello", "8c 8d 9h Ts", "Qc Qc As"),
                },
                // A card of the dealer's in a deal, and a missing hand.
                SeatBody {
                    seat: 2,
                    bet: 500,
                    play: PlaceBody {
                        dealt: Some("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac".to_owned()),
                        ..seat2_dealt
                    },
                },
            ],
            dealer: set("2c 2d 2h 5s 6s", "7h 7d 8h 9s Td", "Jh Qd Kh"),
        };
        let got = problems(&body);
        assert_eq!(
            got.get("seat1_back").map(String::as_str),
            Some(
                "seat 1 back: card 5 `hello`: a card is a rank (2-9, T or 10, J, Q, K, A) then \
                 a suit (c, d, h, s or ♣ ♦ ♥ ♠)"
            )
        );
        assert_eq!(
            got.get("seat1_middle").map(String::as_str),
            Some("seat 1: the middle needs 5 cards, not 4")
        );
        assert_eq!(
            got.get("seat1_front").map(String::as_str),
            Some("seat 1: Qc is twice in the front")
        );
        assert_eq!(
            got.get("seat2_dealt").map(String::as_str),
            Some("2c was dealt twice: to dealer and to seat 2")
        );
        assert_eq!(
            got.get("dealer_back").map(String::as_str),
            Some("2c was dealt twice: to dealer and to seat 2")
        );
        assert_eq!(
            got.get("seat2_back").map(String::as_str),
            Some("seat 2: back is missing (give back, middle and front together)")
        );
    }

    #[test]
    fn a_card_in_two_hands_of_one_place_and_a_set_card_not_dealt_are_named() {
        let mut seat = set("Ac Ad Ah 3s 4s", "8c 8d 9h Ts Ac", "Qc Kd As");
        seat.dealt = Some("Ac Ad Ah 3s 4s 8c 8d 9h Ts Jd Qc Kd 2s".to_owned());
        let body = RoundBody {
            seats: vec![SeatBody {
                seat: 3,
                bet: 500,
                play: seat,
            }],
            dealer: set("2c 2d 2h 5s 6s", "7c 7d 8h 9s Tc", "Jc Qd Kh"),
        };
        let got = problems(&body);
        assert_eq!(
            got["seat3_back"],
            "seat 3: Ac is in both the back and the middle"
        );
        assert_eq!(
            got["seat3_middle"],
            "seat 3: Ac is in both the back and the middle"
        );
        assert_eq!(
            got["seat3_front"],
            "seat 3 set As, which was not dealt to seat 3"
        );
    }
}
