//! Rounds for tests, shared by the rules' tests and the `settle` command's writer tests: the
//! banking cases of docs/rules.md §5-6 as JSON lines, and random deals set legally or not.

use proptest::prelude::*;

use crate::rules::card::{Card, Suit};
use crate::rules::hand::Evaluator;
use crate::rules::money::Money;
use crate::rules::place::PlayerSeat;
use crate::rules::place::SeatNo;
use crate::rules::points::natural::{check, Natural};
use crate::rules::points::profile::{PointsProfile, PointsTies};
use crate::rules::points::round::{PlayerPlay, PointsDeclaration, PointsRound};
use crate::rules::profile::{BothFouled, RuleProfile, SuitOrder, TieRule, Wheel};
use crate::rules::round::{DealerPlay, Declaration, Round, SeatPlay};
use crate::rules::set_hand::SetHand;
use crate::rules::settle::Outcome;

// A middling dealer and player sets against it, all from distinct cards.
pub const DEALER: &str =
    r#""back": "Kc Kd 8h 8s 3c", "middle": "Qc Qd 7h 5s 2c", "front": "Jc Td 4h""#;
pub const WINS_ALL: &str =
    r#""back": "As Ah Ac 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "Kh Ks 7d""#;
pub const WINS_TWO: &str =
    r#""back": "As Ah Ac 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "9s 7d 2h""#;
pub const WINS_ONE: &str =
    r#""back": "As Ah Ac 9d 9c", "middle": "Js Jh 5d 3h 2h", "front": "9s 7d 4d""#;
pub const WINS_NONE: &str =
    r#""back": "Ks Kh 6h 6d 2d", "middle": "Js Jh 5d 3h 2h", "front": "9s 7d 4d""#;
pub const FOULED: &str =
    r#""back": "2d 2h 5h 7s 9c", "middle": "3d 3h 4s 8c Tc", "front": "Ah Kh Qh""#;
// A fouled dealer (docs/rules.md §6.5, example 2) and sets that avoid its cards.
pub const DEALER_FOULED: &str =
    r#""back": "2c 2d 5h 7s 9c", "middle": "3c 3d 4h 8s Tc", "front": "Ah Kh Qh""#;
pub const LEGAL_VS_FOULED: &str =
    r#""back": "As Ac Ad 9d 9h", "middle": "6s 6h 6d 2h 2s", "front": "Ks Kd 7d""#;
pub const FOULED_VS_FOULED: &str =
    r#""back": "Js Jh 5d 7c 9s", "middle": "Qs Qc 4d 8c Td", "front": "Kc Kd 2s""#;
// Middle hands that tie exactly: the player holds Qd, the dealer Qs.
pub const DEALER_TIE: &str =
    r#""back": "Kc Kd 8h 8s 3c", "middle": "Qh Qs 7h 5c 2c", "front": "Jc Td 4h""#;
pub const PLAYER_TIE: &str =
    r#""back": "As Ah Ac 9d 9c", "middle": "Qc Qd 7c 5d 2d", "front": "9s 7d 4d""#;
// Straights around the wheel.
pub const DEALER_SIX_HIGH: &str =
    r#""back": "6c 5h 4d 3s 2d", "middle": "Kc Kd 8h 8s 3c", "front": "Jc Td 4h""#;
pub const PLAYER_WHEEL: &str =
    r#""back": "5d 4c 3h 2s Ac", "middle": "Qc Qd 7h 5s 2c", "front": "9s 7d 4s""#;
pub const QUADS_DEALT: &str = "6c 6d 6h 6s 9h 9s Th Ts Jd Jh Js Ah Ad";
pub const SIX_PAIRS_DEALT: &str = "Ks Kh Qh Qs Js Jh Tc Th 8c 8d 7c 7s Ad";
pub const OTHER_SIX_PAIRS_DEALT: &str = "Ks Kc Qs Qc Js Jc Ts Th 9s 9h 8s 8h As";
pub const STRAIGHT_FLUSH_DEALT: &str = "2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qh Kh Ah";

pub type Expected = Result<(Vec<(u8, Outcome, i64)>, i64), &'static str>;

pub fn line(rules: &str, dealer: &str, seats: &[String]) -> String {
    format!(
        r#"{{"rules": {{{rules}}}, "dealer": {{{dealer}}}, "seats": [{}]}}"#,
        seats.join(", ")
    )
}

pub fn seat(seat: u8, bet: i64, rest: &str) -> String {
    format!(r#"{{"seat": {seat}, "bet": {bet}, {rest}}}"#)
}

/// Every outcome and every option of the banking game: a name, a line, and the seats'
/// `(seat, outcome, result)` with the dealer's result, or the error message.
pub fn banking_cases() -> Vec<(&'static str, String, Expected)> {
    use Outcome::*;
    let dealer_royalty = format!(r#""action": "royalty", "dealt": "{STRAIGHT_FLUSH_DEALT}""#);
    let seat_royalty = format!(r#""action": "royalty", "dealt": "{QUADS_DEALT}""#);
    let six_pairs = format!(r#""action": "royalty", "dealt": "{SIX_PAIRS_DEALT}""#);
    let other_six_pairs = format!(r#""action": "royalty", "dealt": "{OTHER_SIX_PAIRS_DEALT}""#);
    let cases: Vec<(&str, String, Expected)> = vec![
        (
            "three hands won is pusoy, +2x",
            line("", DEALER, &[seat(1, 100, WINS_ALL)]),
            Ok((vec![(1, Played, 200)], -200)),
        ),
        (
            "two hands won is +1x",
            line("", DEALER, &[seat(1, 100, WINS_TWO)]),
            Ok((vec![(1, Played, 100)], -100)),
        ),
        (
            "one hand won is -1x",
            line("", DEALER, &[seat(2, 100, WINS_ONE)]),
            Ok((vec![(2, Played, -100)], 100)),
        ),
        (
            "no hand won is pusoy, -2x",
            line("", DEALER, &[seat(3, 100, WINS_NONE)]),
            Ok((vec![(3, Played, -200)], 200)),
        ),
        (
            "a fouled player against a legal dealer loses double",
            line("", DEALER, &[seat(1, 100, FOULED)]),
            Ok((vec![(1, Played, -200)], 200)),
        ),
        (
            "a fouled dealer pays a legal player double",
            line("", DEALER_FOULED, &[seat(1, 100, LEGAL_VS_FOULED)]),
            Ok((vec![(1, Played, 200)], -200)),
        ),
        (
            "both fouled pushes by default",
            line("", DEALER_FOULED, &[seat(1, 100, FOULED_VS_FOULED)]),
            Ok((vec![(1, Played, 0)], 0)),
        ),
        (
            "both fouled pushes when asked",
            line(
                r#""both_fouled": "push""#,
                DEALER_FOULED,
                &[seat(1, 100, FOULED_VS_FOULED)],
            ),
            Ok((vec![(1, Played, 0)], 0)),
        ),
        (
            "both fouled costs the player double under player_loses",
            line(
                r#""both_fouled": "player_loses""#,
                DEALER_FOULED,
                &[seat(1, 100, FOULED_VS_FOULED)],
            ),
            Ok((vec![(1, Played, -200)], 200)),
        ),
        (
            "player_loses changes nothing for a legal player",
            line(
                r#""both_fouled": "player_loses""#,
                DEALER_FOULED,
                &[seat(1, 100, LEGAL_VS_FOULED)],
            ),
            Ok((vec![(1, Played, 200)], -200)),
        ),
        (
            "an exact tie is the dealer's by default",
            line("", DEALER_TIE, &[seat(1, 100, PLAYER_TIE)]),
            Ok((vec![(1, Played, -100)], 100)),
        ),
        (
            "an exact tie is the dealer's under dealer_wins",
            line(
                r#""ties": "dealer_wins""#,
                DEALER_TIE,
                &[seat(1, 100, PLAYER_TIE)],
            ),
            Ok((vec![(1, Played, -100)], 100)),
        ),
        (
            "under suit_order the stronger queen takes the tie",
            line(
                r#""ties": "suit_order""#,
                DEALER_TIE,
                &[seat(1, 100, PLAYER_TIE)],
            ),
            Ok((vec![(1, Played, 100)], -100)),
        ),
        (
            "the suit order decides which queen is stronger",
            line(
                r#""ties": "suit_order", "suit_order": "shdc""#,
                DEALER_TIE,
                &[seat(1, 100, PLAYER_TIE)],
            ),
            Ok((vec![(1, Played, -100)], 100)),
        ),
        (
            "a wheel loses to six high when the wheel is lowest",
            line(
                r#""wheel": "lowest""#,
                DEALER_SIX_HIGH,
                &[seat(1, 100, PLAYER_WHEEL)],
            ),
            Ok((vec![(1, Played, -200)], 200)),
        ),
        (
            "a wheel beats six high when the wheel is second",
            line(
                r#""wheel": "second""#,
                DEALER_SIX_HIGH,
                &[seat(1, 100, PLAYER_WHEEL)],
            ),
            Ok((vec![(1, Played, -100)], 100)),
        ),
        (
            "a surrender costs 1x",
            line(
                "",
                DEALER,
                &[
                    seat(1, 100, WINS_ALL),
                    seat(2, 50, r#""action": "surrender""#),
                ],
            ),
            Ok((vec![(1, Played, 200), (2, Surrendered, -50)], -150)),
        ),
        (
            "a surrender costs 1x with surrender on",
            line(
                r#""surrender": true"#,
                DEALER,
                &[seat(3, 70, r#""action": "surrender""#)],
            ),
            Ok((vec![(3, Surrendered, -70)], 70)),
        ),
        (
            "a surrender is refused when surrender is off",
            line(
                r#""surrender": false"#,
                DEALER,
                &[seat(2, 50, r#""action": "surrender""#)],
            ),
            Err("seat 2 surrendered, but surrender is off at this table"),
        ),
        (
            "a dealer surrender is refused when surrender is off",
            line(
                r#""surrender": false"#,
                r#""action": "surrender""#,
                &[seat(1, 50, r#""action": "play""#)],
            ),
            Err("dealer surrendered, but surrender is off at this table"),
        ),
        (
            "a royalty wins 1x",
            line(
                "",
                DEALER,
                &[seat(1, 100, WINS_TWO), seat(3, 200, &six_pairs)],
            ),
            Ok((vec![(1, Played, 100), (3, Royalty, 200)], -300)),
        ),
        (
            "a royalty wins 1x when the claim names it",
            line(
                "",
                DEALER,
                &[seat(
                    3,
                    10,
                    &format!(r#"{seat_royalty}, "royalty": "six_pairs""#),
                )],
            ),
            Ok((vec![(3, Royalty, 10)], -10)),
        ),
        (
            "a royalty is refused when royalties are off",
            line(
                r#""royalties": false"#,
                DEALER,
                &[seat(3, 200, &seat_royalty)],
            ),
            Err("seat 3 declared a royalty, but royalties are off at this table"),
        ),
        (
            "a royalty the cards do not hold is refused",
            line(
                "",
                DEALER,
                &[seat(
                    3,
                    200,
                    &format!(r#"{seat_royalty}, "royalty": "straight_flush""#),
                )],
            ),
            Err("seat 3 declared a royalty (straight flush), but the cards dealt do not hold it"),
        ),
        (
            "a royalty without the deal is refused",
            line("", DEALER, &[seat(3, 200, r#""action": "royalty""#)]),
            Err("seat 3 declared a royalty, but the 13 cards dealt were not recorded"),
        ),
        (
            "a dealer royalty takes 1x from every player still in",
            line(
                "",
                &dealer_royalty,
                &[
                    seat(1, 100, r#""action": "play""#),
                    seat(2, 40, "\"action\": \"play\""),
                ],
            ),
            Ok((vec![(1, DealerRoyalty, -100), (2, DealerRoyalty, -40)], 140)),
        ),
        (
            "a player royalty still counts before the dealer's",
            line(
                "",
                &dealer_royalty,
                &[
                    seat(1, 100, "\"action\": \"play\""),
                    seat(3, 25, &other_six_pairs),
                ],
            ),
            Ok((vec![(1, DealerRoyalty, -100), (3, Royalty, 25)], 75)),
        ),
        (
            "a dealer royalty is refused when dealer royalties are off",
            line(
                r#""dealer_royalties": false"#,
                &dealer_royalty,
                &[seat(1, 100, "\"action\": \"play\"")],
            ),
            Err("dealer declared a royalty, but royalties are off at this table"),
        ),
        (
            "a surrender after the dealer's royalty is refused",
            line(
                "",
                &dealer_royalty,
                &[seat(2, 100, r#""action": "surrender""#)],
            ),
            Err("seat 2 surrendered after the dealer's royalty had ended the round"),
        ),
        (
            "a dealer surrender pays 1x to every player still in",
            line(
                "",
                r#""action": "surrender""#,
                &[
                    seat(1, 100, "\"action\": \"play\""),
                    seat(2, 30, r#""action": "surrender""#),
                ],
            ),
            Ok((
                vec![(1, DealerSurrendered, 100), (2, Surrendered, -30)],
                -70,
            )),
        ),
        (
            "a dealer surrender pays a lone player 1x",
            line(
                "",
                r#""action": "surrender""#,
                &[seat(3, 5, "\"action\": \"play\"")],
            ),
            Ok((vec![(3, DealerSurrendered, 5)], -5)),
        ),
        (
            "a zero bet is refused",
            line("", DEALER, &[seat(1, 0, WINS_ALL)]),
            Err("seat 1 bet 0; a bet must be more than 0"),
        ),
        (
            "a negative bet is refused",
            line("", DEALER, &[seat(2, -5, WINS_ALL)]),
            Err("seat 2 bet -5; a bet must be more than 0"),
        ),
        (
            "a card in two places is refused naming both",
            line(
                "",
                DEALER,
                &[seat(1, 100, WINS_ALL), seat(2, 100, WINS_TWO)],
            ),
            Err("As was dealt twice: to seat 1 and to seat 2"),
        ),
        (
            "a set that does not match the deal is refused",
            line(
                "",
                DEALER,
                &[seat(
                    1,
                    100,
                    &format!(r#"{WINS_ALL}, "dealt": "{QUADS_DEALT}""#),
                )],
            ),
            Err("seat 1 set As, which was not dealt to seat 1"),
        ),
        (
            "a seat listed twice is refused",
            line(
                "",
                DEALER,
                &[
                    seat(1, 100, WINS_ALL),
                    seat(1, 100, r#""action": "surrender""#),
                ],
            ),
            Err("seat 1 appears twice in the round"),
        ),
        (
            "a seat still in must set",
            line("", DEALER, &[seat(1, 100, "\"action\": \"play\"")]),
            Err("seat 1 is still in the round but set no hands"),
        ),
        (
            "a bad card names the place, hand, token and position",
            line(
                "",
                DEALER,
                &[seat(
                    2,
                    100,
                    r#""back": "As Ah 1x 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "Kh Ks 7d""#,
                )],
            ),
            Err("seat 2 back: card 3 `1x`: `1` is not a rank (2-9, T or 10, J, Q, K, A)"),
        ),
        (
            "a short hand names the place and the hand",
            line(
                "",
                DEALER,
                &[seat(
                    2,
                    100,
                    r#""back": "As Ah 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "Kh Ks 7d""#,
                )],
            ),
            Err("seat 2: the back needs 5 cards, not 4"),
        ),
        (
            "the overflowing result of a huge bet is refused",
            line("", DEALER, &[seat(1, i64::MAX, WINS_ALL)]),
            Err("seat 1's result does not fit in the money range"),
        ),
    ];
    cases
}

/// A legal set from 13 cards: the best back of all 13, the best middle of the rest.
pub fn legal_set(cards: &[Card], profile: &RuleProfile) -> SetHand {
    let evaluator = Evaluator::new(profile.wheel);
    let best = |pool: &[Card]| -> Vec<Card> {
        let n = pool.len();
        let mut best: Option<(crate::rules::hand::HandValue, Vec<Card>)> = None;
        for a in 0..n {
            for b in a + 1..n {
                for c in b + 1..n {
                    for d in c + 1..n {
                        for e in d + 1..n {
                            let hand = [pool[a], pool[b], pool[c], pool[d], pool[e]];
                            let value = evaluator.evaluate(hand);
                            if best.as_ref().is_none_or(|(v, _)| value > *v) {
                                best = Some((value, hand.to_vec()));
                            }
                        }
                    }
                }
            }
        }
        best.map(|(_, hand)| hand).unwrap_or_default()
    };
    let back = best(cards);
    let rest: Vec<Card> = cards
        .iter()
        .copied()
        .filter(|c| !back.contains(c))
        .collect();
    let middle = best(&rest);
    let front: Vec<Card> = rest
        .iter()
        .copied()
        .filter(|c| !middle.contains(c))
        .collect();
    let set = SetHand::new(&back, &middle, &front).expect("13 distinct cards");
    if set.is_fouled(profile) {
        // Only an exact back/middle tie lost on suit: swap them.
        SetHand::new(&middle, &back, &front).expect("13 distinct cards")
    } else {
        set
    }
}

pub fn split_set(cards: &[Card]) -> SetHand {
    SetHand::new(&cards[0..5], &cards[5..10], &cards[10..13]).expect("13 distinct cards")
}

pub fn profile_strategy() -> impl Strategy<Value = RuleProfile> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        Just(Suit::ALL).prop_shuffle(),
    )
        .prop_map(|(suit_ties, player_loses, second, suits)| RuleProfile {
            ties: if suit_ties {
                TieRule::SuitOrder
            } else {
                TieRule::DealerWins
            },
            both_fouled: if player_loses {
                BothFouled::PlayerLoses
            } else {
                BothFouled::Push
            },
            wheel: if second { Wheel::Second } else { Wheel::Lowest },
            suit_order: SuitOrder::new([suits[0], suits[1], suits[2], suits[3]])
                .expect("four suits"),
            ..RuleProfile::default()
        })
}

pub fn deck_strategy() -> impl Strategy<Value = Vec<Card>> {
    Just(Card::all().collect::<Vec<Card>>()).prop_shuffle()
}

pub fn build_round(
    profile: RuleProfile,
    deck: &[Card],
    bets: &[i64],
    surrender: &[bool],
    legal: bool,
) -> Round {
    let set = |cards: &[Card]| {
        if legal {
            legal_set(cards, &profile)
        } else {
            split_set(cards)
        }
    };
    let dealer = DealerPlay {
        declaration: Declaration::Play,
        hands: Some(set(&deck[0..13])),
        dealt: None,
    };
    let seats = SeatNo::ALL.iter().enumerate().map(|(i, &seat)| {
        let cards = &deck[13 * (i + 1)..13 * (i + 2)];
        SeatPlay {
            seat,
            bet: Money::from_minor_units(bets[i]),
            declaration: if surrender[i] {
                Declaration::Surrender
            } else {
                Declaration::Play
            },
            hands: (!surrender[i]).then(|| set(cards)),
            dealt: Some(cards.try_into().expect("13 cards")),
        }
    });
    Round::new(profile, dealer, seats).expect("a legal round")
}

/// The banking profile whose foul verdict matches the points profile's: for building
/// legal sets with the shared helper.
pub fn foul_profile(profile: &PointsProfile) -> RuleProfile {
    RuleProfile {
        wheel: profile.wheel,
        ties: match profile.ties {
            PointsTies::SuitOrder => TieRule::SuitOrder,
            PointsTies::Push => TieRule::DealerWins,
        },
        suit_order: profile.suit_order,
        ..RuleProfile::default()
    }
}

pub fn points_profile_strategy() -> impl Strategy<Value = PointsProfile> {
    (
        any::<bool>(),
        any::<bool>(),
        Just(Suit::ALL).prop_shuffle(),
        0u32..5,
        0u32..5,
        any::<bool>(),
    )
        .prop_map(
            |(push, second, suits, surrender_points, scoop_bonus, pusoy_bonus)| PointsProfile {
                ties: if push {
                    PointsTies::Push
                } else {
                    PointsTies::SuitOrder
                },
                wheel: if second { Wheel::Second } else { Wheel::Lowest },
                suit_order: crate::rules::profile::SuitOrder::new([
                    suits[0], suits[1], suits[2], suits[3],
                ])
                .expect("four suits"),
                surrender_points,
                scoop_bonus,
                pusoy_bonus,
                ..PointsProfile::default()
            },
        )
}

/// What each seat does: 0 leaves it empty, 1 plays a legal set, 2 plays the cards as dealt
/// (often a mis-set), 3 surrenders, 4 shows a natural when the cards hold one.
pub fn build_points_round(
    profile: PointsProfile,
    deck: &[Card],
    choices: &[u8],
) -> Option<PointsRound> {
    let plays = PlayerSeat::ALL
        .iter()
        .zip(choices)
        .filter_map(|(&seat, &choice)| {
            let cards: [Card; 13] = deck[13 * seat.slot()..13 * seat.slot() + 13]
                .try_into()
                .expect("13 cards");
            let held = Natural::ALL
                .into_iter()
                .find(|&natural| check(&cards, natural).is_ok());
            let (declaration, hands) = match (choice, held) {
                (0, _) => return None,
                (2, _) => (PointsDeclaration::Play, Some(split_set(&cards))),
                (3, _) => (PointsDeclaration::Surrender, None),
                (4, Some(natural)) => (PointsDeclaration::Natural(natural), None),
                _ => (
                    PointsDeclaration::Play,
                    Some(legal_set(&cards, &foul_profile(&profile))),
                ),
            };
            Some(PlayerPlay {
                seat,
                declaration,
                hands,
                dealt: Some(cards),
            })
        });
    PointsRound::new(profile, Money::from_minor_units(100), plays).ok()
}
