//! Royalties: the 13-card hands a participant may expose before setting (docs/rules.md §5.2).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::card::Card;

/// A royalty, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Royalty {
    /// Six pairs among the 13 cards (quads count as two pairs).
    SixPairs,
    /// Four cards of one rank.
    FourOfAKind,
    /// Five cards in sequence of one suit, among any 5 of the 13 (the wheel counts).
    StraightFlush,
}

impl Royalty {
    /// The name on the wire and in stored rounds: `six_pairs`.
    pub const fn key(self) -> &'static str {
        match self {
            Royalty::SixPairs => "six_pairs",
            Royalty::FourOfAKind => "four_of_a_kind",
            Royalty::StraightFlush => "straight_flush",
        }
    }

    pub const fn word(self) -> &'static str {
        match self {
            Royalty::SixPairs => "six pairs",
            Royalty::FourOfAKind => "four of a kind",
            Royalty::StraightFlush => "straight flush",
        }
    }
}

impl fmt::Display for Royalty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The best royalty the cards hold, if any (straight flush, then four of a kind, then six pairs).
pub fn best_royalty(cards: &[Card]) -> Option<Royalty> {
    [
        Royalty::StraightFlush,
        Royalty::FourOfAKind,
        Royalty::SixPairs,
    ]
    .into_iter()
    .find(|&royalty| holds(cards, royalty))
}

/// Whether the cards support a specific royalty claim.
pub fn holds(cards: &[Card], claim: Royalty) -> bool {
    let mut counts = [0u8; 13];
    let mut by_suit = [0u16; 4];
    for card in cards {
        counts[usize::from(card.rank().index())] += 1;
        by_suit[usize::from(card.suit().index())] |= 1 << card.rank().index();
    }
    match claim {
        Royalty::StraightFlush => by_suit.iter().any(|&mask| has_straight(mask)),
        Royalty::FourOfAKind => counts.contains(&4),
        Royalty::SixPairs => counts.iter().map(|&n| n / 2).sum::<u8>() >= 6,
    }
}

fn has_straight(rank_mask: u16) -> bool {
    const WHEEL: u16 = 0b1_0000_0000_1111;
    (0..=8).any(|low| (rank_mask >> low) & 0b11111 == 0b11111) || rank_mask & WHEEL == WHEEL
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::parse_cards;

    #[test]
    fn thirteen_cards_hold_the_best_royalty_they_support() {
        let cases = [
            (
                "9h Th Jh Qh Kh 2c 2d 2s 2h 3c 4d 5s 7c",
                Some(Royalty::StraightFlush),
            ),
            (
                "Ad 2d 3d 4d 5d 9c 9h Ts Jc Qh Ks 7c 8h",
                Some(Royalty::StraightFlush),
            ),
            (
                "2c 2d 2s 2h 3c 4d 5s 7c 9h Th Jh Qh 8d",
                Some(Royalty::FourOfAKind),
            ),
            (
                "2c 2d 3h 3s 5c 5d 7h 7s 9c 9d Jh Js As",
                Some(Royalty::SixPairs),
            ),
            (
                "2c 2d 2h 2s 4c 4d 5c 5d 6c 6d 7c 8d As",
                Some(Royalty::FourOfAKind),
            ),
            ("2c 2d 3h 3s 5c 5d 7h 7s 9c 9d Jh Qs As", None),
            ("Qh Kh Ah 2h 3h 9c 9d Ts Jc 4d 5s 7c 8d", None),
            ("2c 2d 2h 3c 3d 3h 4s 4d 5c 5d 9c 9d As", None),
        ];
        for (cards, royalty) in cases {
            let cards = parse_cards(cards).expect("cards");
            assert_eq!(best_royalty(&cards), royalty, "{cards:?}");
        }
    }

    #[test]
    fn quads_count_as_two_pairs_and_a_claim_is_checked_by_kind() {
        let cards = parse_cards("2c 2d 2h 2s 4c 4d 5c 5d 6c 6d 8c 8d As").expect("cards");
        assert!(holds(&cards, Royalty::SixPairs));
        assert!(holds(&cards, Royalty::FourOfAKind));
        assert!(!holds(&cards, Royalty::StraightFlush));
    }
}
