//! Naturals of the points game (docs/rules.md §8.3): 13 dealt cards that win without being set,
//! and why 13 cards do not hold the natural a player claims.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::card::{Card, Rank, Suit};

/// A natural, as named in a profile's `natural_points` and in a player's claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Natural {
    /// Thirteen different ranks.
    Dragon,
    /// Six pairs among the 13 cards (quads count as two pairs, trips as one).
    SixPairs,
    /// A split into 5 + 5 + 3 cards, each of one suit.
    ThreeFlushes,
    /// A split into 5 + 5 + 3 cards, each a straight (`A-2-3` and `Q-K-A` count for three).
    ThreeStraights,
}

impl Natural {
    pub const ALL: [Natural; 4] = [
        Natural::Dragon,
        Natural::SixPairs,
        Natural::ThreeFlushes,
        Natural::ThreeStraights,
    ];

    /// The name in profiles and on the wire: `six_pairs`.
    pub const fn key(self) -> &'static str {
        match self {
            Natural::Dragon => "dragon",
            Natural::SixPairs => "six_pairs",
            Natural::ThreeFlushes => "three_flushes",
            Natural::ThreeStraights => "three_straights",
        }
    }

    /// The name people say: "six pairs".
    pub const fn word(self) -> &'static str {
        match self {
            Natural::Dragon => "a dragon",
            Natural::SixPairs => "six pairs",
            Natural::ThreeFlushes => "three flushes",
            Natural::ThreeStraights => "three straights",
        }
    }

    pub fn from_key(key: &str) -> Option<Natural> {
        Natural::ALL
            .into_iter()
            .find(|natural| natural.key() == key)
    }
}

impl fmt::Display for Natural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Why 13 cards do not hold a natural, in terms a dealer can check on the felt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// A dragon has no repeated rank; this one repeats (the lowest repeated rank).
    RepeatedRank { rank: Rank, count: u8 },
    /// Six pairs were claimed; the cards hold this many.
    Pairs(u8),
    /// The cards of each suit, clubs, diamonds, hearts, spades: no 5 + 5 + 3 split by suit.
    SuitCounts([u8; 4]),
    /// No split into two five-card straights and a three-card straight.
    NoStraights,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Missing::RepeatedRank { rank, count } => write!(
                f,
                "a dragon is 13 different ranks, and the cards hold {count} {}",
                rank.plural()
            ),
            Missing::Pairs(pairs) => write!(
                f,
                "six pairs needs six pairs among the 13 cards (quads count as two), and they hold {pairs}"
            ),
            Missing::SuitCounts(counts) => {
                write!(
                    f,
                    "three flushes needs 5 + 5 + 3 cards of one suit each, and the cards hold "
                )?;
                for (i, suit) in Suit::ALL.into_iter().enumerate() {
                    let separator = match i {
                        0 => "",
                        3 => " and ",
                        _ => ", ",
                    };
                    write!(f, "{separator}{} {}", counts[i], suit.word())?;
                }
                Ok(())
            }
            Missing::NoStraights => write!(
                f,
                "the 13 cards do not split into two five-card straights and a three-card straight"
            ),
        }
    }
}

/// Whether the 13 cards hold the natural, and if not, why.
pub fn check(cards: &[Card; 13], natural: Natural) -> Result<(), Missing> {
    let mut counts = [0u8; 13];
    let mut suits = [0u8; 4];
    for card in cards {
        counts[usize::from(card.rank().index())] += 1;
        suits[usize::from(card.suit().index())] += 1;
    }
    match natural {
        Natural::Dragon => match counts.iter().position(|&count| count > 1) {
            None => Ok(()),
            Some(rank) => Err(Missing::RepeatedRank {
                rank: Rank::from_index(rank as u8),
                count: counts[rank],
            }),
        },
        Natural::SixPairs => {
            let pairs = counts.iter().map(|&count| count / 2).sum::<u8>();
            if pairs >= 6 {
                Ok(())
            } else {
                Err(Missing::Pairs(pairs))
            }
        }
        Natural::ThreeFlushes => {
            // Each suit's count must be a sum of some of the hands 5, 5, 3: give each hand a suit.
            let fits = (0..4).any(|a| {
                (0..4).any(|b| {
                    (0..4).any(|c| {
                        let mut wanted = [0u8; 4];
                        wanted[a] += 5;
                        wanted[b] += 5;
                        wanted[c] += 3;
                        wanted == suits
                    })
                })
            });
            if fits {
                Ok(())
            } else {
                Err(Missing::SuitCounts(suits))
            }
        }
        Natural::ThreeStraights => {
            if splits_into_straights(counts) {
                Ok(())
            } else {
                Err(Missing::NoStraights)
            }
        }
    }
}

/// Rank counts indexed by the ace-low position: 0 is the ace played low, 1..=12 two to king,
/// 13 the ace played high. A straight of `n` starting at `low` takes one card from each of
/// `low..low + n`; an ace taken low or high comes out of the same count.
fn splits_into_straights(counts: [u8; 13]) -> bool {
    // The ace is index 12 in `counts`; positions 0 and 13 both map to it.
    let rank_of = |position: usize| if position == 0 { 12 } else { position - 1 };
    let take = |counts: &mut [u8; 13], low: usize, len: usize| -> bool {
        for position in low..low + len {
            let count = &mut counts[rank_of(position)];
            if *count == 0 {
                return false;
            }
            *count -= 1;
        }
        true
    };
    // Five-card straights start at positions 0 (the wheel) to 9 (ten to ace); three-card
    // straights at 0 (A-2-3) to 11 (Q-K-A). The two fives are unordered: first <= second.
    for first in 0..=9 {
        for second in first..=9 {
            for front in 0..=11 {
                let mut left = counts;
                if take(&mut left, first, 5)
                    && take(&mut left, second, 5)
                    && take(&mut left, front, 3)
                {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::parse_cards;
    use crate::rules::hand::{evaluate, Category};
    use crate::rules::profile::Wheel;
    use proptest::prelude::*;

    fn thirteen(text: &str) -> [Card; 13] {
        parse_cards(text)
            .expect("cards")
            .try_into()
            .expect("13 cards")
    }

    #[test]
    fn each_natural_is_recognised_or_refused_with_the_reason() {
        use Natural::*;
        let cases: [(&str, Natural, Result<(), &str>); 14] = [
            ("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac", Dragon, Ok(())),
            ("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Kc", Dragon, Err("a dragon is 13 different ranks, and the cards hold 2 kings")),
            ("2c 2d 4h 4s 6c 6d 8h 8s Tc Td Qh Qs Ac", SixPairs, Ok(())),
            // Quads count as two pairs and trips as one.
            ("2c 2d 2h 2s 6c 6d 8h 8s 8c Td Qh Qs Ac", SixPairs, Err("six pairs needs six pairs among the 13 cards (quads count as two), and they hold 5")),
            ("2c 2d 2h 2s 6c 6d 8h 8s Tc Td Qh Qs Ac", SixPairs, Ok(())),
            ("2c 4c 6c 8c Tc 3d 5d 7d 9d Jd 2h 3h Kh", ThreeFlushes, Ok(())),
            // Thirteen of one suit is 5 + 5 + 3 in one suit; 8 clubs and 5 diamonds split too.
            ("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac", ThreeFlushes, Ok(())),
            ("2c 3c 4c 5c 6c 7c 8c 9c 3d 5d 7d 9d Jd", ThreeFlushes, Ok(())),
            ("2c 4c 6c 8c 3d 5d 7d 9d Jd 2h 3h Kh As", ThreeFlushes, Err("three flushes needs 5 + 5 + 3 cards of one suit each, and the cards hold 4 clubs, 5 diamonds, 3 hearts and 1 spades")),
            ("Ac 2d 3h 4s 5c 9d Th Js Qc Kd Ah 2s 3c", ThreeStraights, Ok(())),
            // Only Q-K-A in front makes it (2-6 and 5-9 behind), and only A-2-3 (5-9, T-A).
            ("2c 3d 4h 5s 6c 5d 6h 7s 8c 9d Qh Ks Ac", ThreeStraights, Ok(())),
            ("Ac Ad 2h 3s 5c 6d 7h 8s 9c Td Jh Qs Kc", ThreeStraights, Ok(())),
            // K-A-2 would wrap around, so this split is not one.
            ("Kc Ad 2h 5s 6c 7d 8h 9s 9c Td Jh Qs Kd", ThreeStraights, Err("the 13 cards do not split into two five-card straights and a three-card straight")),
            ("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Kh As Ac", ThreeStraights, Err("the 13 cards do not split into two five-card straights and a three-card straight")),
        ];
        for (cards, natural, expected) in cases {
            let got = check(&thirteen(cards), natural).map_err(|missing| missing.to_string());
            assert_eq!(
                got,
                expected.map_err(str::to_string),
                "{natural:?}: {cards}"
            );
        }
    }

    /// Three consecutive ranks, `A-2-3` and `Q-K-A` included, no wrap-around.
    fn front_straight(cards: &[Card]) -> bool {
        let mut ranks: Vec<u8> = cards.iter().map(|c| c.rank().index()).collect();
        ranks.sort_unstable();
        ranks == [0, 1, 12] || (ranks[1] == ranks[0] + 1 && ranks[2] == ranks[1] + 1)
    }

    fn five_straight(cards: &[Card]) -> bool {
        let hand: [Card; 5] = cards.try_into().expect("five cards");
        matches!(
            evaluate(hand, Wheel::Lowest).category(),
            Category::Straight | Category::StraightFlush
        )
    }

    fn one_suit(cards: &[Card]) -> bool {
        cards.iter().all(|c| c.suit() == cards[0].suit())
    }

    /// The brute force: every split of the 13 cards into 5 + 5 + 3 for the two split naturals,
    /// every choice of disjoint pairs for six pairs, every two cards for a dragon.
    fn brute_force(cards: &[Card; 13], natural: Natural) -> bool {
        match natural {
            Natural::Dragon => {
                (0..13).all(|i| (i + 1..13).all(|j| cards[i].rank() != cards[j].rank()))
            }
            Natural::SixPairs => most_pairs(cards) >= 6,
            Natural::ThreeFlushes | Natural::ThreeStraights => {
                type Test = fn(&[Card]) -> bool;
                let (five, three): (Test, Test) = if natural == Natural::ThreeFlushes {
                    (one_suit, one_suit)
                } else {
                    (five_straight, front_straight)
                };
                let mut found = false;
                for_each_split(cards, |back, middle, front| {
                    found = found || (five(back) && five(middle) && three(front));
                });
                found
            }
        }
    }

    fn most_pairs(cards: &[Card]) -> u8 {
        let Some((first, rest)) = cards.split_first() else {
            return 0;
        };
        // Either the first card is left unpaired, or it pairs with a later card of its rank.
        let mut best = most_pairs(rest);
        for (i, other) in rest.iter().enumerate() {
            if other.rank() == first.rank() {
                let mut left = rest.to_vec();
                left.remove(i);
                best = best.max(1 + most_pairs(&left));
            }
        }
        best
    }

    fn for_each_split(cards: &[Card; 13], mut visit: impl FnMut(&[Card], &[Card], &[Card])) {
        for back in 0u16..1 << 13 {
            if back.count_ones() != 5 {
                continue;
            }
            let rest: Vec<usize> = (0..13).filter(|i| back & 1 << i == 0).collect();
            for middle in 0u16..1 << 8 {
                if middle.count_ones() != 5 {
                    continue;
                }
                let pick = |mask: u16, from: &[usize]| -> Vec<Card> {
                    from.iter()
                        .enumerate()
                        .filter(|(bit, _)| mask & 1 << bit != 0)
                        .map(|(_, &i)| cards[i])
                        .collect()
                };
                let all: Vec<usize> = (0..13).collect();
                let b = pick(back, &all);
                let m = pick(middle, &rest);
                let f = pick(!middle & 0xff, &rest);
                visit(&b, &m, &f);
            }
        }
    }

    fn deck() -> Vec<Card> {
        Card::all().collect()
    }

    fn card(rank: usize, suit: usize) -> Card {
        Card::new(Rank::ALL[rank % 13], Suit::ALL[suit % 4])
    }

    /// Thirteen cards made to hold a natural (when the pieces are distinct), perhaps with one
    /// card swapped for another from the deck to make a near miss.
    fn constructed() -> impl Strategy<Value = [Card; 13]> {
        let straights = (
            0usize..10,
            0usize..10,
            0usize..12,
            proptest::collection::vec(0usize..4, 13),
        )
            .prop_map(|(a, b, c, suits)| {
                let position = |p: usize| if p == 0 { 12 } else { p - 1 };
                (0..5)
                    .map(|i| position(a + i))
                    .chain((0..5).map(|i| position(b + i)))
                    .chain((0..3).map(|i| position(c + i)))
                    .zip(suits)
                    .map(|(rank, suit)| card(rank, suit))
                    .collect::<Vec<Card>>()
            });
        let flushes = (
            Just((0..13).collect::<Vec<usize>>()).prop_shuffle(),
            Just((0..13).collect::<Vec<usize>>()).prop_shuffle(),
            Just((0..13).collect::<Vec<usize>>()).prop_shuffle(),
            Just(vec![0usize, 1, 2, 3]).prop_shuffle(),
        )
            .prop_map(|(a, b, c, suits)| {
                a[..5]
                    .iter()
                    .map(|&r| card(r, suits[0]))
                    .chain(b[..5].iter().map(|&r| card(r, suits[1])))
                    .chain(c[..3].iter().map(|&r| card(r, suits[2])))
                    .collect::<Vec<Card>>()
            });
        let pairs = (
            Just((0..13).collect::<Vec<usize>>()).prop_shuffle(),
            any::<u8>(),
        )
            .prop_map(|(ranks, suits)| {
                ranks[..6]
                    .iter()
                    .flat_map(|&r| [card(r, usize::from(suits)), card(r, usize::from(suits) + 1)])
                    .chain(std::iter::once(card(ranks[6], 0)))
                    .collect::<Vec<Card>>()
            });
        let dragon = proptest::collection::vec(0usize..4, 13).prop_map(|suits| {
            suits
                .iter()
                .enumerate()
                .map(|(r, &s)| card(r, s))
                .collect::<Vec<Card>>()
        });
        (
            prop_oneof![straights, flushes, pairs, dragon],
            any::<bool>(),
            0usize..13,
            0usize..52,
        )
            .prop_filter_map("13 distinct cards", |(mut cards, swap, at, with)| {
                if swap {
                    cards[at] = deck()[with];
                }
                let mut seen = 0u64;
                for c in &cards {
                    if seen & 1 << c.index() != 0 {
                        return None;
                    }
                    seen |= 1 << c.index();
                }
                cards.try_into().ok()
            })
    }

    fn random_hand() -> impl Strategy<Value = [Card; 13]> {
        Just(deck())
            .prop_shuffle()
            .prop_map(|cards| cards[..13].try_into().expect("13 cards"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn detecting_naturals_agrees_with_a_brute_force_search(
            cards in prop_oneof![random_hand(), constructed()],
        ) {
            for natural in Natural::ALL {
                prop_assert_eq!(
                    check(&cards, natural).is_ok(),
                    brute_force(&cards, natural),
                    "{:?} in {}", natural, crate::rules::card::format_cards(&cards)
                );
            }
        }
    }
}
