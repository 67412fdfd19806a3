//! Settlement of a validated points round (docs/rules.md §8.3-§8.7): naturals, surrenders, every
//! pair of players who set hands, then the pusoy bonus. Every exchange is between two players,
//! so the points of a round sum to zero. No allocation; fails only on money overflow.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::rules::hand::tie_strength;
use crate::rules::money::Money;
use crate::rules::place::PlayerSeat;
use crate::rules::points::natural::Natural;
use crate::rules::points::round::{PointsDeclaration, PointsError, PointsRound};
use crate::rules::profile::{SuitOrder, Wheel};
use crate::rules::set_hand::{SetHand, Slot};

/// How a player's round went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointsOutcome {
    Played,
    Natural,
    Surrendered,
}

/// One player's settlement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerResult {
    pub seat: PlayerSeat,
    pub outcome: PointsOutcome,
    pub natural: Option<Natural>,
    /// Whether the player mis-set, when they set hands.
    pub fouled: Option<bool>,
    /// Points won (negative: lost) over the round.
    pub points: i64,
    /// `points` × the table's unit.
    pub result: Money,
    /// Points won from each other player, by `PlayerSeat::slot`; `None` for this player's own
    /// slot and for empty seats.
    pub against: [Option<i64>; 4],
}

/// A settled points round: the players' results sum to zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointsSettlement {
    /// Indexed by `PlayerSeat::slot`; empty seats are `None`.
    pub players: [Option<PlayerResult>; 4],
    /// The player who scooped every other player who set hands and collected the pusoy bonus.
    pub pusoy: Option<PlayerSeat>,
}

impl PointsSettlement {
    /// The players' results in seat order.
    pub fn players(&self) -> impl Iterator<Item = &PlayerResult> {
        self.players.iter().flatten()
    }
}

/// What a player brings to the comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Empty,
    Natural,
    Surrendered,
    Set,
}

/// Settles a validated points round.
pub fn settle_points(round: &PointsRound) -> Result<PointsSettlement, PointsError> {
    let profile = round.profile();
    let seats = round.seats();
    let wheel = profile.wheel;
    let suit_ties = profile.suit_ties();
    // Per player, worked out once, arrays by seat slot. For a setter: its hands, whether it
    // mis-set, its back/middle/front values (as `HandValue::bits`, ordered like the values)
    // and points; `total` is the sum of those points, or a natural's points.
    let mut kind = [Kind::Empty; 4];
    let mut hands: [Option<&SetHand>; 4] = [None; 4];
    let mut fouled = [false; 4];
    let mut values = [[0u32; 3]; 4];
    let mut points = [[0i64; 3]; 4];
    let mut total = [0i64; 4];
    for (i, play) in seats.iter().enumerate() {
        let Some(play) = play else { continue };
        match (play.declaration, &play.hands) {
            (PointsDeclaration::Natural(natural), _) => {
                kind[i] = Kind::Natural;
                total[i] = i64::from(profile.natural_points.points(natural));
            }
            (PointsDeclaration::Surrender, _) => kind[i] = Kind::Surrendered,
            (PointsDeclaration::Play, Some(set)) => {
                kind[i] = Kind::Set;
                hands[i] = Some(set);
                fouled[i] = set.is_fouled_by(wheel, suit_ties);
                let set_values = set.values(wheel);
                for slot in Slot::ALL {
                    let value = set_values[slot as usize];
                    values[i][slot as usize] = value.bits();
                    points[i][slot as usize] =
                        i64::from(profile.hand_points.points(slot, value.category()));
                }
                total[i] = points[i][0] + points[i][1] + points[i][2];
            }
            // PointsRound::new refuses a player who plays without hands.
            (PointsDeclaration::Play, None) => {}
        }
    }
    // net[i][j]: points player i wins from player j (so net[j][i] = -net[i][j]).
    let mut net = [[0i64; 4]; 4];
    // How many players each player scooped (a mis-setter counts as scooped), and how many set.
    let mut scoops = [0u8; 4];
    let setters = kind.iter().filter(|&&k| k == Kind::Set).count() as u8;
    let surrender = i64::from(profile.surrender_points);
    let scoop = i64::from(profile.scoop_bonus);
    for i in 0..4 {
        for j in i + 1..4 {
            let won = match (kind[i], kind[j]) {
                (Kind::Empty, _) | (_, Kind::Empty) => continue,
                (Kind::Natural, Kind::Natural) => match total[i].cmp(&total[j]) {
                    Ordering::Greater => total[i],
                    Ordering::Less => -total[j],
                    Ordering::Equal => 0,
                },
                (Kind::Natural, _) => total[i],
                (_, Kind::Natural) => -total[j],
                (Kind::Surrendered, Kind::Surrendered) => 0,
                (Kind::Surrendered, Kind::Set) => -surrender,
                (Kind::Set, Kind::Surrendered) => surrender,
                (Kind::Set, Kind::Set) => match (fouled[i], fouled[j]) {
                    (true, true) => 0,
                    (true, false) => {
                        scoops[j] += 1;
                        -(total[j] + scoop)
                    }
                    (false, true) => {
                        scoops[i] += 1;
                        total[i] + scoop
                    }
                    (false, false) => {
                        let (mut won, mut ours, mut theirs) = (0i64, 0u8, 0u8);
                        for slot in Slot::ALL {
                            let k = slot as usize;
                            let ordering = match values[i][k].cmp(&values[j][k]) {
                                Ordering::Equal => match (suit_ties, hands[i], hands[j]) {
                                    (Some(order), Some(a), Some(b)) => {
                                        suit_tie(order, a, b, slot, wheel)
                                    }
                                    _ => Ordering::Equal,
                                },
                                ordering => ordering,
                            };
                            match ordering {
                                Ordering::Greater => {
                                    won += points[i][k];
                                    ours += 1;
                                }
                                Ordering::Less => {
                                    won -= points[j][k];
                                    theirs += 1;
                                }
                                Ordering::Equal => {}
                            }
                        }
                        if ours == 3 {
                            scoops[i] += 1;
                            won += scoop;
                        } else if theirs == 3 {
                            scoops[j] += 1;
                            won -= scoop;
                        }
                        won
                    }
                },
            };
            net[i][j] = won;
            net[j][i] = -won;
        }
    }
    // Pusoy: one player scooped every other player who set hands, at least two of them, and
    // collects (front + middle + back points) x the players who set hands from each of them,
    // instead of what the pair scored.
    let sweeper = match profile.pusoy_bonus && setters >= 3 {
        true => (0..4).find(|&i| scoops[i] == setters - 1),
        false => None,
    };
    if let Some(sweeper) = sweeper {
        let bonus = total[sweeper] * i64::from(setters);
        for j in 0..4 {
            if j != sweeper && kind[j] == Kind::Set {
                net[sweeper][j] = bonus;
                net[j][sweeper] = -bonus;
            }
        }
    }
    let mut players = [None; 4];
    for (i, play) in seats.iter().enumerate() {
        let Some(play) = play else { continue };
        let mut against = [None; 4];
        let mut won = 0i64;
        for j in 0..4 {
            if j != i && kind[j] != Kind::Empty {
                against[j] = Some(net[i][j]);
                won += net[i][j];
            }
        }
        let (outcome, natural) = match play.declaration {
            PointsDeclaration::Natural(natural) => (PointsOutcome::Natural, Some(natural)),
            PointsDeclaration::Surrender => (PointsOutcome::Surrendered, None),
            PointsDeclaration::Play => (PointsOutcome::Played, None),
        };
        let result = round
            .unit()
            .checked_mul(won)
            .ok_or(PointsError::Overflow(play.seat))?;
        players[i] = Some(PlayerResult {
            seat: play.seat,
            outcome,
            natural,
            fouled: (kind[i] == Kind::Set).then_some(fouled[i]),
            points: won,
            result,
            against,
        });
    }
    Ok(PointsSettlement {
        players,
        pusoy: sweeper.and_then(|i| PlayerSeat::ALL.get(i).copied()),
    })
}

/// Two hands of equal rank under `ties = suit_order`: the stronger suit of the main group.
#[inline(never)]
fn suit_tie(
    order: &SuitOrder,
    ours: &SetHand,
    theirs: &SetHand,
    slot: Slot,
    wheel: Wheel,
) -> Ordering {
    let value = ours.value(slot, wheel);
    tie_strength(value, ours.cards(slot), order).cmp(&tie_strength(
        value,
        theirs.cards(slot),
        order,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::{Card, Suit};
    use crate::rules::points::profile::{PointsProfile, PointsTies};
    use crate::rules::points::wire::{settle_points_json, PointsRoundIn, PointsSettlementOut};
    use crate::rules::test_support::{build_points_round, deck_strategy, points_profile_strategy};
    use proptest::prelude::*;

    // Example 1 of docs/rules.md §8.9: A wins back (flush) and middle (straight), B the front
    // (Q-Q-Q).
    const EX1_A: &str =
        r#""back": "2h 4h 6h 9h Jh", "middle": "Tc Jc Qs Ks Ad", "front": "2d 3s 4d""#;
    const EX1_B: &str =
        r#""back": "5c 6d 7h 8s 9c", "middle": "Kc Kd Kh 2c 3d", "front": "Qc Qd Qh""#;
    // Example 2: A scoops B with plain hands; A_MISSET is A's cards with back and middle swapped.
    const EX2_A: &str =
        r#""back": "Ac Ad Kc Kd 4c", "middle": "Qc Qd 7c 8d 9d", "front": "Ah Kh 2h""#;
    const EX2_A_MISSET: &str =
        r#""back": "Qc Qd 7c 8d 9d", "middle": "Ac Ad Kc Kd 4c", "front": "Ah Kh 2h""#;
    const EX2_B: &str =
        r#""back": "3c 5d 7h 9s Jc", "middle": "2c 4d 6h 8s Tc", "front": "2d 3h 5s""#;
    const EX2_B_MISSET: &str =
        r#""back": "2c 4d 6h 8s Tc", "middle": "3c 5d 7h 9s Jc", "front": "2d 3h 5s""#;
    // Example 3: four players from one deck; A's flush, straight and aces beat everyone.
    const EX3_A: &str =
        r#""back": "As Ks Qs Js 9s", "middle": "Tc Jd Qc Kd Ah", "front": "Ac Ad 2c""#;
    const EX3_B: &str =
        r#""back": "Kc Kh Qd Qh 3c", "middle": "Jc Jh 4c 5d 6h", "front": "Th Ts 2d""#;
    const EX3_B_MISSET: &str =
        r#""back": "Jc Jh 4c 5d 6h", "middle": "Kc Kh Qd Qh 3c", "front": "Th Ts 2d""#;
    const EX3_C: &str =
        r#""back": "9c 9d 9h 2h 3d", "middle": "8c 8d 7c 7d 4d", "front": "5c 5h 2s""#;
    const EX3_D: &str =
        r#""back": "4h 5s 6c 7h 8s", "middle": "3s 3h 6s 6d Td", "front": "4s 7s 8h""#;
    // Naturals from one deck, and two sets from the rest of it.
    const DRAGON: &str = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac";
    const SIX_PAIRS: &str = "2d 2h 3c 3h 4c 4d 5c 5d 6d 6h 7c 7h As";
    const THREE_FLUSHES: &str = "8c 9c Jc Qc Kc 2s 3s 4s 6s 7s 9h Th Jh";
    const FLUSHES_SET: &str =
        r#""back": "8c 9c Jc Qc Kc", "middle": "2s 3s 4s 6s 7s", "front": "9h Th Jh""#;
    const REST_SET: &str =
        r#""back": "9d Td Qd Kd Ad", "middle": "8s Ts Js Qs 8d", "front": "5h Kh Ah""#;
    // Fronts of equal rank (9-6-3): clubs beats hearts under the default suit order.
    const TIE_A: &str =
        r#""back": "Ac Ad Kc Kd 4c", "middle": "Qc Qd 7c 8d 9d", "front": "9h 6h 3s""#;
    const TIE_B: &str =
        r#""back": "3c 5d 7h 9s Jc", "middle": "2c 4d 6c 8s Tc", "front": "9c 6s 3h""#;
    // A wheel in A's back against B's six-high straight.
    const WHEEL_A: &str =
        r#""back": "Ac 2d 3h 4s 5c", "middle": "Kc Kd 8h 8s 3c", "front": "Qc Jd 7h""#;
    const WHEEL_B: &str =
        r#""back": "2c 3d 4h 5s 6d", "middle": "Qh Qs 7c 5d 2h", "front": "Jc Td 4d""#;

    fn play(seat: u8, set: &str) -> String {
        format!(r#"{{"seat": {seat}, {set}}}"#)
    }

    fn natural(seat: u8, natural: &str, dealt: &str) -> String {
        format!(
            r#"{{"seat": {seat}, "action": "natural", "natural": "{natural}", "dealt": "{dealt}"}}"#
        )
    }

    fn surrender(seat: u8) -> String {
        format!(r#"{{"seat": {seat}, "action": "surrender"}}"#)
    }

    fn round(rules: &str, seats: &[String]) -> String {
        format!(
            r#"{{"game": "points", "rules": {{{rules}}}, "seats": [{}]}}"#,
            seats.join(", ")
        )
    }

    fn settled(line: &str) -> PointsSettlementOut {
        match settle_points_json(line) {
            Ok(out) => out,
            Err(error) => panic!("{line}: {error}"),
        }
    }

    /// Each seat's points, in seat order.
    fn points(line: &str) -> Vec<i64> {
        settled(line).seats.iter().map(|seat| seat.points).collect()
    }

    #[test]
    fn the_worked_examples_of_section_7_hold() {
        // A +2 for back and middle, B +3 for the front's three of a kind: A -1, B +1.
        assert_eq!(
            points(&round("", &[play(1, EX1_A), play(2, EX1_B)])),
            [-1, 1]
        );
        // A scoop of plain hands is 6; a mis-set pays the same.
        assert_eq!(
            points(&round("", &[play(1, EX2_A), play(2, EX2_B)])),
            [6, -6]
        );
        assert_eq!(
            points(&round("", &[play(1, EX2_A_MISSET), play(2, EX2_B)])),
            [-6, 6]
        );
        // A scoops B, C and D: 12 from each, 36 in all, plus what B, C and D score.
        let four = settled(&round(
            "",
            &[
                play(1, EX3_A),
                play(2, EX3_B),
                play(3, EX3_C),
                play(4, EX3_D),
            ],
        ));
        assert_eq!(four.pusoy.map(|seat| seat.number()), Some(1));
        assert_eq!(four.seats[0].points, 36);
        assert_eq!(
            four.seats[0].against.0,
            [None, Some(12), Some(12), Some(12)]
        );
        for other in &four.seats[1..] {
            assert_eq!(other.against.0[0], Some(-12));
        }
        // A shows a dragon; B, C and D play: 13 from each, plus their own comparisons.
        let dragon = settled(&round(
            "",
            &[
                natural(1, "dragon", DRAGON),
                play(2, FLUSHES_SET),
                play(4, REST_SET),
            ],
        ));
        assert_eq!(dragon.seats[0].points, 26);
        let four = settled(&round(
            "",
            &[
                natural(1, "dragon", DRAGON),
                play(2, FLUSHES_SET),
                surrender(3),
                play(4, REST_SET),
            ],
        ));
        assert_eq!(four.seats[0].points, 39);
        assert_eq!(
            four.seats[0].against.0,
            [None, Some(13), Some(13), Some(13)]
        );
    }

    type Case = (&'static str, String, Result<Vec<i64>, &'static str>);

    #[test]
    fn every_option_and_every_outcome_settles_as_section_7_says() {
        let cases: Vec<Case> = vec![
            ("a higher natural collects its points from a lower one; equal naturals score nothing; both collect from a player",
             round("", &[natural(1, "dragon", DRAGON), natural(2, "six_pairs", SIX_PAIRS), natural(3, "three_flushes", THREE_FLUSHES), play(4, REST_SET)]),
             Ok(vec![39, -7, -7, -25])),
            ("the same naturals seated the other way round score the same: a lower natural in an earlier seat pays a higher one, a player pays a natural seated after it",
             round("", &[play(1, REST_SET), natural(2, "three_flushes", THREE_FLUSHES), natural(3, "six_pairs", SIX_PAIRS), natural(4, "dragon", DRAGON)]),
             Ok(vec![-25, -7, -7, 39])),
            ("a surrender pays the natural its points and each player who sets hands the surrender points",
             round("", &[natural(1, "dragon", DRAGON), surrender(2), play(3, FLUSHES_SET), play(4, REST_SET)]),
             Ok(vec![39, -19, -11, -9])),
            ("nothing passes between two who surrendered",
             round("", &[surrender(1), surrender(2), play(3, FLUSHES_SET), play(4, REST_SET)]),
             Ok(vec![-6, -6, 5, 7])),
            ("surrender_points sets what a surrender pays",
             round(r#""surrender_points": 5"#, &[surrender(1), play(3, FLUSHES_SET)]),
             Ok(vec![-5, 5])),
            ("nothing passes between two who mis-set",
             round("", &[play(1, EX2_A_MISSET), play(2, EX2_B_MISSET)]),
             Ok(vec![0, 0])),
            ("a player scooped by a later seat pays the scoop as one scooped by an earlier seat",
             round("", &[play(1, EX2_B), play(2, EX2_A)]),
             Ok(vec![-6, 6])),
            ("a surrender at a pusoy pays the sweeper the surrender points, not the bonus",
             round("", &[play(1, EX3_A), play(2, EX3_B), play(3, EX3_C), surrender(4)]),
             Ok(vec![21, -7, -5, -9])),
            ("a mis-setter among the swept still gives the sweeper pusoy",
             round("", &[play(1, EX3_A), play(2, EX3_B_MISSET), play(3, EX3_C), play(4, EX3_D)]),
             Ok(vec![36, -12 - 3 - 3 - 3 - 3, -12 + 3 + 3 + 1, -12 + 3 + 3 - 1])),
            ("a mis-setter in a seat before the sweeper's counts as swept too",
             round("", &[play(1, EX3_B_MISSET), play(2, EX3_C), play(3, EX3_D), play(4, EX3_A)]),
             Ok(vec![-24, -5, -7, 36])),
            ("without the pusoy bonus a sweeper takes a scoop from each",
             round(r#""pusoy_bonus": false"#, &[play(1, EX3_A), play(2, EX3_B_MISSET), play(3, EX3_C), play(4, EX3_D)]),
             // B pays 6 to each; C and D swap a scoop of B for a scoop by A, and C beats D by 1.
             Ok(vec![18, -18, 1, -1])),
            ("two players never make pusoy: a scoop is a scoop",
             round("", &[play(1, EX2_A), play(2, EX2_B)]),
             Ok(vec![6, -6])),
            ("scoop_bonus sets what a scoop adds",
             round(r#""scoop_bonus": 0"#, &[play(1, EX2_A), play(2, EX2_B)]),
             Ok(vec![3, -3])),
            ("under ties = suit_order an equal front goes to the stronger suit",
             round("", &[play(1, TIE_A), play(2, TIE_B)]),
             Ok(vec![1, -1])),
            ("the suit order decides which suit is stronger",
             round(r#""suit_order": "hdcs""#, &[play(1, TIE_A), play(2, TIE_B)]),
             Ok(vec![6, -6])),
            ("under ties = push an equal front scores nothing and spoils the scoop",
             round(r#""ties": "push""#, &[play(1, TIE_A), play(2, TIE_B)]),
             Ok(vec![2, -2])),
            ("a profile's own hand_points replace the default table whole",
             round(r#""hand_points": {"front": {"pair": 2}}"#, &[play(1, EX1_A), play(2, EX1_B)]),
             Ok(vec![1, -1])),
            ("a hand_points entry scores the winner's hand",
             round(r#""hand_points": {"back": {"flush": 4}}"#, &[play(1, EX1_A), play(2, EX1_B)]),
             Ok(vec![4, -4])),
            ("natural_points sets what a natural scores",
             round(r#""natural_points": {"dragon": 20}"#, &[natural(1, "dragon", DRAGON), play(4, REST_SET)]),
             Ok(vec![20, -20])),
            ("a wheel loses to six high when the wheel is lowest",
             round("", &[play(1, WHEEL_A), play(2, WHEEL_B)]),
             Ok(vec![1, -1])),
            ("a wheel beats six high when the wheel is second",
             round(r#""wheel": "second""#, &[play(1, WHEEL_A), play(2, WHEEL_B)]),
             Ok(vec![6, -6])),
            ("surrender is refused when it is off",
             round(r#""surrender": false"#, &[surrender(1), play(3, FLUSHES_SET)]),
             Err("seat 1 surrendered, but surrender is off at this table")),
            ("a natural is refused when naturals are off",
             round(r#""naturals": false"#, &[natural(1, "dragon", DRAGON), play(4, REST_SET)]),
             Err("seat 1 showed a dragon, but naturals are off at this table")),
            ("a natural the table does not list is refused",
             round(r#""natural_points": {"six_pairs": 6}"#, &[natural(1, "dragon", DRAGON), play(4, REST_SET)]),
             Err("seat 1 showed a dragon, but a dragon is not a natural at this table")),
            ("a dragon claim on cards with a pair says so",
             round("", &[natural(1, "dragon", SIX_PAIRS), play(4, REST_SET)]),
             Err("seat 1 showed a dragon, but the cards dealt do not hold it: a dragon is 13 different ranks, and the cards hold 2 twos")),
            ("a three straights claim the cards do not support says so",
             round("", &[natural(1, "three_straights", SIX_PAIRS), play(4, REST_SET)]),
             Err("seat 1 showed three straights, but the cards dealt do not hold it: the 13 cards do not split into two five-card straights and a three-card straight")),
            ("a natural without its 13 cards is refused",
             round("", &[r#"{"seat": 1, "action": "natural", "natural": "dragon"}"#.to_string(), play(4, REST_SET)]),
             Err("seat 1 showed a dragon, but the 13 cards dealt were not recorded")),
            ("a natural must be named",
             round("", &[format!(r#"{{"seat": 1, "action": "natural", "dealt": "{DRAGON}"}}"#), play(4, REST_SET)]),
             Err("seat 1 showed a natural but did not say which (dragon, six_pairs, three_flushes or three_straights)")),
            ("a player who shows a natural sets no hands",
             round("", &[format!(r#"{{"seat": 1, "action": "natural", "natural": "three_flushes", "dealt": "{THREE_FLUSHES}", {FLUSHES_SET}}}"#), play(4, REST_SET)]),
             Err("seat 1 set hands, but a player who shows a natural does not set hands")),
            ("a player who plays must set hands",
             round("", &[r#"{"seat": 1}"#.to_string(), play(4, REST_SET)]),
             Err("seat 1 plays but set no hands")),
            ("a card in two places is refused naming both",
             round("", &[play(1, EX3_A), play(2, EX2_A)]),
             Err("Ac was dealt twice: to seat 1 and to seat 2")),
            ("a set that does not match the deal is refused",
             round("", &[format!(r#"{{"seat": 1, "dealt": "{DRAGON}", {EX1_A}}}"#), play(2, EX1_B)]),
             Err("seat 1 set 2h, which was not dealt to seat 1")),
            ("one player is not a round",
             round("", &[play(1, EX1_A)]),
             Err("a points round has two to four players, not 1")),
            ("a seat listed twice is refused",
             round("", &[play(1, EX1_A), surrender(1)]),
             Err("seat 1 appears twice in the round")),
        ];
        for (name, line, expected) in cases {
            let got = settle_points_json(&line)
                .map(|out| {
                    out.seats
                        .iter()
                        .map(|seat| seat.points)
                        .collect::<Vec<i64>>()
                })
                .map_err(|error| error.to_string());
            assert_eq!(got, expected.map_err(str::to_string), "{name}");
        }
    }

    #[test]
    fn results_are_points_times_the_unit_and_overflow_is_refused() {
        let line = |unit: i64| {
            format!(
                r#"{{"game": "points", "unit": {unit}, "seats": [{}, {}]}}"#,
                play(1, EX2_A),
                play(2, EX2_B)
            )
        };
        let out = settled(&line(250));
        let results: Vec<i64> = out.seats.iter().map(|s| s.result.minor_units()).collect();
        assert_eq!(results, [1500, -1500]);
        for (unit, message) in [
            (i64::MAX, "seat 1's result does not fit in the money range"),
            (0, "the unit is 0; a point must be worth more than 0"),
        ] {
            let error = settle_points_json(&line(unit)).expect_err("refused");
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn the_settlement_says_who_mis_set_and_why_and_names_the_hands() {
        let out = settled(&round("", &[play(1, EX2_A_MISSET), play(2, EX2_B)]));
        let json = serde_json::to_value(&out).expect("serialises");
        assert_eq!(
            json,
            serde_json::json!({
                "seats": [
                    {"seat": 1, "outcome": "played", "fouled": true,
                     "foul": "middle (two pair, aces and kings) ranks above back (pair of queens)",
                     "points": -6, "result": -6, "against": {"2": -6},
                     "hands": {"back": "pair of queens, nine-eight-seven kickers",
                               "middle": "two pair, aces and kings, four kicker",
                               "front": "high card, ace-king-two"}},
                    {"seat": 2, "outcome": "played", "fouled": false, "points": 6, "result": 6,
                     "against": {"1": 6},
                     "hands": {"back": "high card, jack-nine-seven-five-three",
                               "middle": "high card, ten-eight-six-four-two",
                               "front": "high card, five-three-two"}},
                ],
                "pusoy": null,
            })
        );
        let natural = settled(&round("", &[natural(2, "dragon", DRAGON), surrender(3)]));
        assert_eq!(
            serde_json::to_value(&natural).expect("serialises"),
            serde_json::json!({
                "seats": [
                    {"seat": 2, "outcome": "natural", "natural": "dragon", "points": 13,
                     "result": 13, "against": {"3": 13}},
                    {"seat": 3, "outcome": "surrendered", "points": -13, "result": -13,
                     "against": {"2": -13}},
                ],
                "pusoy": null,
            })
        );
    }

    #[test]
    fn a_settled_round_recomputes_the_same_from_its_record() {
        let line = round(
            r#""ties": "push", "scoop_bonus": 4"#,
            &[
                natural(1, "dragon", DRAGON),
                surrender(2),
                play(3, FLUSHES_SET),
                play(4, REST_SET),
            ],
        );
        let first = settled(&line);
        let parsed: PointsRoundIn<'_> = serde_json::from_str(&line).expect("parses");
        let record = PointsRoundIn::from_round(&parsed.to_round().expect("valid"));
        let again = settled(&serde_json::to_string(&record).expect("record"));
        assert_eq!(again, first);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn every_points_round_sums_to_zero(
            profile in points_profile_strategy(),
            deck in deck_strategy(),
            choices in proptest::collection::vec(0u8..5, 4),
        ) {
            // Fewer than two players is refused, not settled.
            let Some(round) = build_points_round(profile, &deck, &choices) else { return Ok(()) };
            let settlement = settle_points(&round).expect("settles");
            let total: i64 = settlement.players().map(|p| p.points).sum();
            prop_assert_eq!(total, 0);
            let money: i64 = settlement.players().map(|p| p.result.minor_units()).sum();
            prop_assert_eq!(money, 0);
            for player in settlement.players() {
                let against: i64 = player.against.iter().flatten().sum();
                prop_assert_eq!(against, player.points);
            }
        }

        #[test]
        fn a_random_deal_into_four_legal_sets_settles_without_error(
            profile in points_profile_strategy(),
            deck in deck_strategy(),
        ) {
            let round = build_points_round(profile, &deck, &[1, 1, 1, 1]).expect("a legal round");
            let settlement = settle_points(&round).expect("settles");
            for player in settlement.players() {
                prop_assert_eq!(player.fouled, Some(false));
            }
        }

        #[test]
        fn relabelling_suits_changes_nothing_when_ties_push(
            profile in points_profile_strategy(),
            deck in deck_strategy(),
            suits in Just(Suit::ALL).prop_shuffle(),
            choices in proptest::collection::vec(0u8..5, 4),
        ) {
            let profile = PointsProfile { ties: PointsTies::Push, ..profile };
            let relabelled: Vec<Card> = deck
                .iter()
                .map(|c| Card::new(c.rank(), suits[usize::from(c.suit().index())]))
                .collect();
            let original = build_points_round(profile, &deck, &choices).map(|r| settle_points(&r));
            let renamed = build_points_round(profile, &relabelled, &choices).map(|r| settle_points(&r));
            prop_assert_eq!(original, renamed);
        }
    }
}
