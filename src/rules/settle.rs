//! Settlement of a validated banking round (docs/rules.md §5 and §6): every seat against the
//! dealer. [`settle`] does no allocation and only fails on arithmetic overflow.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::rules::card::Card;
use crate::rules::hand::{tie_strength, HandValue};
use crate::rules::money::Money;
use crate::rules::place::{Place, SeatNo};
use crate::rules::profile::{BothFouled, RuleProfile, TieRule};
use crate::rules::set_hand::{SetHand, Slot};

use crate::rules::round::{DealerPlay, Declaration, Round, SeatPlay, SettlementError};

/// How a player seat's round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Played,
    Surrendered,
    Royalty,
    DealerRoyalty,
    DealerSurrendered,
}

/// Who took one of the three hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Winner {
    Player,
    Dealer,
}

/// Who won the back, the middle and the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandWinners {
    pub back: Winner,
    pub middle: Winner,
    pub front: Winner,
}

/// One seat's settlement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatResult {
    pub seat: SeatNo,
    pub outcome: Outcome,
    /// Whether the seat fouled, when it set hands.
    pub fouled: Option<bool>,
    /// Hands won (0..=3), when both sides set and neither fouled.
    pub hands_won: Option<u8>,
    pub winners: Option<HandWinners>,
    pub result: Money,
}

/// The dealer's settlement: minus the sum of the seats' results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealerResult {
    /// Whether the dealer fouled, when the dealer set hands.
    pub fouled: Option<bool>,
    pub result: Money,
}

/// A settled round. Always balances: the dealer's result is minus the sum of the seats'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settlement {
    pub dealer: DealerResult,
    /// Indexed by seat (`SeatNo::slot`); empty seats are `None`.
    pub seats: [Option<SeatResult>; 3],
}

impl Settlement {
    /// The occupied seats' results in seat order.
    pub fn seats(&self) -> impl Iterator<Item = &SeatResult> {
        self.seats.iter().flatten()
    }
}

/// Settles a validated round (docs/rules.md §5 and §6).
pub fn settle(round: &Round) -> Result<Settlement, SettlementError> {
    let profile = round.profile();
    let dealer = round.dealer();
    let dealer_fouled = dealer.hands.as_ref().map(|set| set.is_fouled(profile));
    let mut seats = [None; 3];
    let mut dealer_result = Money::ZERO;
    for play in round.seats() {
        let result = settle_seat(profile, dealer, dealer_fouled, play)?;
        dealer_result =
            dealer_result
                .checked_sub(result.result)
                .ok_or(SettlementError::Overflow {
                    place: Place::Dealer,
                })?;
        seats[play.seat.slot()] = Some(result);
    }
    Ok(Settlement {
        dealer: DealerResult {
            fouled: dealer_fouled,
            result: dealer_result,
        },
        seats,
    })
}

fn settle_seat(
    profile: &RuleProfile,
    dealer: &DealerPlay,
    dealer_fouled: Option<bool>,
    play: &SeatPlay,
) -> Result<SeatResult, SettlementError> {
    let fouled = play.hands.as_ref().map(|set| set.is_fouled(profile));
    let mut hands_won = None;
    let mut winners = None;
    let (outcome, multiple) = match (play.declaration, dealer.declaration) {
        (Declaration::Royalty(_), _) => (Outcome::Royalty, 1),
        (Declaration::Surrender, _) => (Outcome::Surrendered, -1),
        (Declaration::Play, Declaration::Royalty(_)) => (Outcome::DealerRoyalty, -1),
        (Declaration::Play, Declaration::Surrender) => (Outcome::DealerSurrendered, 1),
        (Declaration::Play, Declaration::Play) => match (&play.hands, &dealer.hands) {
            (Some(player), Some(banker)) => {
                let multiple = match (fouled == Some(true), dealer_fouled == Some(true)) {
                    (true, false) => -2,
                    (false, true) => 2,
                    (true, true) => match profile.both_fouled {
                        BothFouled::Push => 0,
                        BothFouled::PlayerLoses => -2,
                    },
                    (false, false) => {
                        let won = compare_sets(profile, player, banker);
                        let count = [won.back, won.middle, won.front]
                            .iter()
                            .filter(|&&w| w == Winner::Player)
                            .count() as u8;
                        hands_won = Some(count);
                        winners = Some(won);
                        match count {
                            3 => 2,
                            2 => 1,
                            1 => -1,
                            _ => -2,
                        }
                    }
                };
                (Outcome::Played, multiple)
            }
            // Round::new guarantees both sides set hands when the seat played to the end.
            _ => {
                return Err(SettlementError::MissingHands {
                    place: Place::Seat(play.seat),
                })
            }
        },
    };
    let result = play
        .bet
        .checked_mul(multiple)
        .ok_or(SettlementError::Overflow {
            place: Place::Seat(play.seat),
        })?;
    Ok(SeatResult {
        seat: play.seat,
        outcome,
        fouled,
        hands_won,
        winners,
        result,
    })
}

#[inline]
fn compare_sets(profile: &RuleProfile, player: &SetHand, dealer: &SetHand) -> HandWinners {
    let ours = player.values(profile.wheel);
    let theirs = dealer.values(profile.wheel);
    let winner = |slot: Slot| {
        let i = slot as usize;
        let ordering = match ours[i].cmp(&theirs[i]) {
            Ordering::Equal if profile.ties == TieRule::SuitOrder => {
                suit_tie(profile, ours[i], player.cards(slot), dealer.cards(slot))
            }
            ordering => ordering,
        };
        if ordering == Ordering::Greater {
            Winner::Player
        } else {
            Winner::Dealer
        }
    };
    HandWinners {
        back: winner(Slot::Back),
        middle: winner(Slot::Middle),
        front: winner(Slot::Front),
    }
}

/// An exact tie under `ties = suit_order`: the player's suit strength against the dealer's.
#[inline(never)]
fn suit_tie(profile: &RuleProfile, value: HandValue, player: &[Card], dealer: &[Card]) -> Ordering {
    let order = &profile.suit_order;
    tie_strength(value, player, order).cmp(&tie_strength(value, dealer, order))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::{Card, Suit};
    use crate::rules::profile::TieRule;
    use crate::rules::royalty::Royalty;
    use crate::rules::test_support::*;
    use crate::rules::wire::settle_json;
    use proptest::prelude::*;

    fn check(name: &str, json: &str, expected: Expected) {
        match (settle_json(json), expected) {
            (Ok(out), Ok((seats, dealer))) => {
                let got: Vec<(u8, Outcome, i64)> = out
                    .seats
                    .iter()
                    .map(|s| (s.seat.number(), s.outcome, s.result.minor_units()))
                    .collect();
                assert_eq!(got, seats, "{name}");
                assert_eq!(out.dealer.result.minor_units(), dealer, "{name}");
            }
            (Err(error), Err(message)) => {
                assert_eq!(error.to_string(), message, "{name}")
            }
            (got, expected) => panic!("{name}: got {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn every_outcome_and_every_option_settles_as_the_rules_say() {
        for (name, json, expected) in banking_cases() {
            check(name, &json, expected);
        }
    }

    #[test]
    fn the_worked_settlement_examples_of_section_6_hold() {
        // Back won, middle an exact tie, front lost: one hand won, -1x.
        let out = settle_json(&line("", DEALER_TIE, &[seat(1, 100, PLAYER_TIE)])).expect("settles");
        let first = &out.seats[0];
        assert_eq!(first.hands_won, Some(1));
        let winners = first.winners.expect("winners");
        assert_eq!(
            (winners.back, winners.middle, winners.front),
            (Winner::Player, Winner::Dealer, Winner::Dealer)
        );
        // A fouled player against a legal dealer: -200 on 100; both fouled with push: 0.
        check(
            "fouled",
            &line("", DEALER, &[seat(1, 100, FOULED)]),
            Ok((vec![(1, Outcome::Played, -200)], 200)),
        );
        check(
            "both",
            &line(
                r#""both_fouled": "push""#,
                DEALER_FOULED,
                &[seat(1, 100, FOULED_VS_FOULED)],
            ),
            Ok((vec![(1, Outcome::Played, 0)], 0)),
        );
        let fouled = settle_json(&line("", DEALER, &[seat(1, 100, FOULED)])).expect("settles");
        assert_eq!(
            fouled.seats[0].foul.as_deref(),
            Some("middle (pair of threes) ranks above back (pair of twos)")
        );
        assert_eq!(fouled.seats[0].hands_won, None);
    }

    #[test]
    fn a_settled_round_recomputes_the_same_from_its_record() {
        let json = line(
            r#""ties": "suit_order""#,
            DEALER_TIE,
            &[
                seat(1, 100, PLAYER_TIE),
                seat(2, 5, r#""action": "surrender""#),
            ],
        );
        let first = settle_json(&json).expect("settles");
        let round = serde_json::from_str::<crate::rules::wire::RoundIn<'_>>(&json)
            .expect("parses")
            .to_round()
            .expect("valid");
        let record = serde_json::to_string(&crate::rules::wire::RoundIn::from_round(&round))
            .expect("record");
        assert_eq!(settle_json(&record).expect("settles again"), first);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn a_random_deal_into_four_legal_sets_settles_and_balances(
            profile in profile_strategy(),
            deck in deck_strategy(),
            bets in proptest::collection::vec(1i64..1_000_000_000_000, 3),
        ) {
            let round = build_round(profile, &deck, &bets, &[false; 3], true);
            let settlement = settle(&round).expect("settles");
            prop_assert_eq!(settlement.dealer.fouled, Some(false));
            for seat in settlement.seats() {
                prop_assert_eq!(seat.fouled, Some(false));
                prop_assert!(seat.hands_won.is_some());
            }
            let total: i64 = settlement.seats().map(|s| s.result.minor_units()).sum();
            prop_assert_eq!(total + settlement.dealer.result.minor_units(), 0);
        }

        /// Each seat plays the dealer alone (docs/rules.md §5): settled at a table of its own,
        /// every seat gets the result it gets at the full table, the dealer pays or takes the
        /// sum of those separate results, and results scale with the bet.
        #[test]
        fn each_seat_is_settled_against_the_dealer_alone(
            profile in profile_strategy(),
            deck in deck_strategy(),
            bets in proptest::collection::vec(1i64..1_000_000_000, 3),
            surrender in proptest::collection::vec(any::<bool>(), 3),
        ) {
            let round = build_round(profile, &deck, &bets, &surrender, false);
            let settlement = settle(&round).expect("settles");
            let mut alone_total = 0;
            for play in round.seats() {
                let alone = Round::new(profile, *round.dealer(), [*play]).expect("a legal round");
                let alone = settle(&alone).expect("settles");
                let seat = alone.seats[play.seat.slot()].expect("the seat");
                prop_assert_eq!(Some(seat), settlement.seats[play.seat.slot()]);
                alone_total += seat.result.minor_units();
            }
            prop_assert_eq!(settlement.dealer.result.minor_units(), -alone_total);
            let doubled: Vec<i64> = bets.iter().map(|b| b * 2).collect();
            let twice = settle(&build_round(profile, &deck, &doubled, &surrender, false)).expect("settles");
            for seat in settlement.seats() {
                let result = twice.seats[seat.seat.slot()].expect("the seat").result.minor_units();
                prop_assert_eq!(result, seat.result.minor_units() * 2);
            }
        }

        #[test]
        fn relabelling_suits_changes_no_result_when_ties_go_to_the_dealer(
            profile in profile_strategy(),
            deck in deck_strategy(),
            suits in Just(Suit::ALL).prop_shuffle(),
            bets in proptest::collection::vec(1i64..1_000_000, 3),
            legal in any::<bool>(),
        ) {
            let profile = RuleProfile { ties: TieRule::DealerWins, ..profile };
            let relabelled: Vec<Card> = deck
                .iter()
                .map(|c| Card::new(c.rank(), suits[usize::from(c.suit().index())]))
                .collect();
            let original = settle(&build_round(profile, &deck, &bets, &[false; 3], legal)).expect("settles");
            let renamed = settle(&build_round(profile, &relabelled, &bets, &[false; 3], legal)).expect("settles");
            prop_assert_eq!(original, renamed);
        }
    }

    #[test]
    fn a_place_out_of_the_round_before_setting_may_not_set_hands() {
        const AWAY_FROM_STRAIGHT_FLUSH: &str =
            r#""back": "As Ks Qs Js 9s", "middle": "2h 3h 4h 5h 7h", "front": "8c 9c Tc""#;
        let surrender = format!(r#""action": "surrender", {WINS_ALL}"#);
        let royalty = format!(
            r#""action": "royalty", "dealt": "{QUADS_DEALT}", "back": "6c 6d 6h 6s 9h", "middle": "9s Th Ts Jd Jh", "front": "Js Ah Ad""#
        );
        let dealer_royalty = format!(r#""action": "royalty", "dealt": "{STRAIGHT_FLUSH_DEALT}""#);
        let dealer_royalty_set = format!(
            r#"{dealer_royalty}, "back": "2c 3c 4c 5c 6c", "middle": "7d 8d 9d Td Jd", "front": "Qh Kh Ah""#
        );
        let dealer_surrender_set = format!(r#""action": "surrender", {DEALER}"#);
        let cases: Vec<(&str, String, Expected)> = vec![
            (
                "a surrendered seat",
                line("", DEALER, &[seat(2, 50, &surrender)]),
                Err("seat 2 set hands, but a surrendered seat sets no hands"),
            ),
            (
                "a seat that declared a royalty",
                line("", DEALER, &[seat(3, 50, &royalty)]),
                Err("seat 3 set hands, but a seat that declared a royalty is out of the round"),
            ),
            (
                "a seat after the dealer surrendered",
                line("", r#""action": "surrender""#, &[seat(1, 50, WINS_ALL)]),
                Err("seat 1 set hands, but the dealer's surrender ended the round before setting"),
            ),
            (
                "a seat after the dealer's royalty",
                line(
                    "",
                    &dealer_royalty,
                    &[seat(1, 50, AWAY_FROM_STRAIGHT_FLUSH)],
                ),
                Err("seat 1 set hands, but the dealer's royalty ended the round before setting"),
            ),
            (
                "a surrendered dealer",
                line(
                    "",
                    &dealer_surrender_set,
                    &[seat(1, 50, r#""action": "play""#)],
                ),
                Err("dealer set hands, but a dealer who surrenders sets no hands"),
            ),
            (
                "a dealer who declared a royalty",
                line(
                    "",
                    &dealer_royalty_set,
                    &[seat(1, 50, r#""action": "play""#)],
                ),
                Err("dealer set hands, but a dealer who declares a royalty ends the round"),
            ),
        ];
        for (name, json, expected) in cases {
            check(name, &json, expected);
        }
    }

    #[test]
    fn a_dealer_still_in_must_set_unless_every_seat_is_out() {
        check(
            "a seat plays",
            &line("", r#""action": "play""#, &[seat(1, 50, WINS_ALL)]),
            Err("dealer is still in the round but set no hands"),
        );
        check(
            "every seat surrendered",
            &line(
                "",
                r#""action": "play""#,
                &[seat(1, 50, r#""action": "surrender""#)],
            ),
            Ok((vec![(1, Outcome::Surrendered, -50)], 50)),
        );
    }

    #[test]
    fn a_declared_royalty_is_recorded_as_claimed_or_as_the_best_the_cards_hold() {
        let royalty = |rest: &str, seat_number: u8| {
            let out =
                settle_json(&line("", DEALER, &[seat(seat_number, 10, rest)])).expect("settles");
            out.seats[0].royalty
        };
        let quads = format!(r#""action": "royalty", "dealt": "{QUADS_DEALT}""#);
        assert_eq!(royalty(&quads, 2), Some(Royalty::FourOfAKind));
        // Four sixes and four more pairs hold six pairs too: the claim is what is recorded.
        let claimed =
            format!(r#""action": "royalty", "royalty": "six_pairs", "dealt": "{QUADS_DEALT}""#);
        assert_eq!(royalty(&claimed, 3), Some(Royalty::SixPairs));
        assert_eq!(royalty(WINS_ALL, 1), None);

        let dealer_royalty = format!(r#""action": "royalty", "dealt": "{STRAIGHT_FLUSH_DEALT}""#);
        let out = settle_json(&line(
            "",
            &dealer_royalty,
            &[seat(1, 10, r#""action": "play""#)],
        ))
        .expect("settles");
        assert_eq!(out.dealer.royalty, Some(Royalty::StraightFlush));
        assert_eq!(out.seats[0].royalty, None);
    }

    #[test]
    fn a_set_must_be_made_of_its_places_deal_and_the_first_stray_card_is_named() {
        // Cards neither in WINS_ALL nor in DEALER.
        let disjoint = format!(r#"{WINS_ALL}, "dealt": "2h 2s 3h 3s 4c 4d 4s 5c 5d 5h 6c 7c 7s""#);
        // WINS_ALL's cards with 7c dealt instead of 7d, the last card set.
        let one_stray = format!(r#"{WINS_ALL}, "dealt": "As Ah Ac 9d 9c 6s 6h 6d 2d 3d Kh Ks 7c""#);
        let cases: Vec<(&str, String, Expected)> = vec![
            (
                "a set sharing no card with its deal",
                line("", DEALER, &[seat(1, 100, &disjoint)]),
                Err("seat 1 set As, which was not dealt to seat 1"),
            ),
            (
                "a set with one card not dealt",
                line("", DEALER, &[seat(1, 100, &one_stray)]),
                Err("seat 1 set 7d, which was not dealt to seat 1"),
            ),
        ];
        for (name, json, expected) in cases {
            check(name, &json, expected);
        }
    }

    #[test]
    fn a_seat_holding_exactly_the_dealers_cards_is_refused() {
        check(
            "the dealer's set again",
            &line("", DEALER, &[seat(1, 100, DEALER)]),
            Err("Kc was dealt twice: to dealer and to seat 1"),
        );
    }
}
