//! A set hand (back 5, middle 5, front 3) and its foul verdict ("totyo") in dealer's words.

use std::cmp::Ordering;
use std::fmt;

use thiserror::Error;

use crate::rules::card::{Card, Suit};
use crate::rules::hand::{self, compare_front_with_middle, evaluate_front, HandValue};
use crate::rules::profile::{RuleProfile, SuitOrder, Wheel};

/// One of the three hands of a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    Back,
    Middle,
    Front,
}

impl Slot {
    pub const ALL: [Slot; 3] = [Slot::Back, Slot::Middle, Slot::Front];

    /// How many cards the hand holds.
    pub const fn size(self) -> usize {
        match self {
            Slot::Back | Slot::Middle => 5,
            Slot::Front => 3,
        }
    }

    pub const fn word(self) -> &'static str {
        match self {
            Slot::Back => "back",
            Slot::Middle => "middle",
            Slot::Front => "front",
        }
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Why three hands do not make a set.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetHandError {
    #[error("the {slot} needs {} cards, not {count}", slot.size())]
    WrongCount { slot: Slot, count: usize },
    #[error("{card} is twice in the {slot}")]
    RepeatedCard { card: Card, slot: Slot },
    #[error("{card} is in both the {first} and the {second}")]
    DuplicateCard {
        card: Card,
        first: Slot,
        second: Slot,
    },
}

/// Thirteen distinct cards split into a back (5), a middle (5) and a front (3), with each hand
/// evaluated once at construction (wheel lowest; [`HandValue::for_wheel`] adjusts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetHand {
    back: [Card; 5],
    middle: [Card; 5],
    front: [Card; 3],
    values: [HandValue; 3],
}

impl SetHand {
    pub fn new(back: &[Card], middle: &[Card], front: &[Card]) -> Result<SetHand, SetHandError> {
        let wrong = |slot: Slot, cards: &[Card]| SetHandError::WrongCount {
            slot,
            count: cards.len(),
        };
        let back: [Card; 5] = back.try_into().map_err(|_| wrong(Slot::Back, back))?;
        let middle: [Card; 5] = middle.try_into().map_err(|_| wrong(Slot::Middle, middle))?;
        let front: [Card; 3] = front.try_into().map_err(|_| wrong(Slot::Front, front))?;
        SetHand::from_arrays(back, middle, front)
    }

    pub fn from_arrays(
        back: [Card; 5],
        middle: [Card; 5],
        front: [Card; 3],
    ) -> Result<SetHand, SetHandError> {
        let mask = |cards: &[Card]| {
            cards
                .iter()
                .fold(0u64, |mask, card| mask | 1u64 << card.index())
        };
        // Thirteen distinct cards set thirteen bits; only otherwise look for the culprit.
        if (mask(&back) | mask(&middle) | mask(&front)).count_ones() != 13 {
            return Err(SetHand::first_repeat(&back, &middle, &front));
        }
        let evaluator = hand::Evaluator::new(Wheel::Lowest);
        let values = [
            evaluator.evaluate(back),
            evaluator.evaluate(middle),
            evaluate_front(front),
        ];
        Ok(SetHand {
            back,
            middle,
            front,
            values,
        })
    }

    /// The first card, in back-middle-front order, that was placed before.
    #[cold]
    fn first_repeat(back: &[Card; 5], middle: &[Card; 5], front: &[Card; 3]) -> SetHandError {
        let mut seen: [Option<Slot>; 64] = [None; 64];
        let placed = back
            .iter()
            .map(|c| (Slot::Back, c))
            .chain(middle.iter().map(|c| (Slot::Middle, c)))
            .chain(front.iter().map(|c| (Slot::Front, c)));
        for (slot, &card) in placed {
            let entry = &mut seen[usize::from(card.index())];
            match *entry {
                Some(first) if first == slot => return SetHandError::RepeatedCard { card, slot },
                Some(first) => {
                    return SetHandError::DuplicateCard {
                        card,
                        first,
                        second: slot,
                    }
                }
                None => *entry = Some(slot),
            }
        }
        // Only called when the 13 cards set fewer than 13 bits of a 64-bit mask, and card
        // indices are below 52, so two cards are equal and the loop above has returned.
        unreachable!("fewer than 13 distinct cards, so one repeats")
    }

    pub fn back(&self) -> &[Card; 5] {
        &self.back
    }

    pub fn middle(&self) -> &[Card; 5] {
        &self.middle
    }

    pub fn front(&self) -> &[Card; 3] {
        &self.front
    }

    /// The cards of one hand.
    pub fn cards(&self, slot: Slot) -> &[Card] {
        match slot {
            Slot::Back => &self.back,
            Slot::Middle => &self.middle,
            Slot::Front => &self.front,
        }
    }

    /// All thirteen cards, back then middle then front.
    pub fn all_cards(&self) -> impl Iterator<Item = Card> + '_ {
        self.back
            .iter()
            .chain(self.middle.iter())
            .chain(self.front.iter())
            .copied()
    }

    /// The value of one hand under a wheel option.
    #[inline]
    pub fn value(&self, slot: Slot, wheel: Wheel) -> HandValue {
        self.values[slot as usize].for_wheel(wheel)
    }

    /// The back, middle and front values under a wheel option.
    #[inline]
    pub fn values(&self, wheel: Wheel) -> [HandValue; 3] {
        match wheel {
            Wheel::Lowest => self.values,
            Wheel::Second => self.values.map(|value| value.for_wheel(wheel)),
        }
    }

    /// The full human name of one hand, e.g. "pair of queens, seven kicker".
    pub fn name(&self, slot: Slot) -> &'static str {
        self.values[slot as usize].name_str()
    }

    /// The foul verdict under a profile: `None` when the set is legal.
    pub fn foul(&self, profile: &RuleProfile) -> Option<Foul> {
        self.foul_by(profile.wheel, profile.suit_ties())
    }

    /// The foul verdict under a wheel option and, when ties go by suit, the suit order
    /// (docs/rules.md §4.2: suits decide back against middle only then). Both games use it.
    pub fn foul_by(&self, wheel: Wheel, suit_ties: Option<&SuitOrder>) -> Option<Foul> {
        let back = self.value(Slot::Back, wheel);
        let middle = self.value(Slot::Middle, wheel);
        let front = self.value(Slot::Front, wheel);
        let middle_over_back = match (middle.cmp(&back), suit_ties) {
            (Ordering::Greater, _) => Some(Breach::new(Slot::Middle, middle, Slot::Back, back)),
            (Ordering::Equal, Some(order)) => {
                let middle_suit = hand::tie_strength(middle, &self.middle, order);
                let back_suit = hand::tie_strength(back, &self.back, order);
                (middle_suit > back_suit).then(|| Breach {
                    by_suit: Some((
                        order.highest_first()[usize::from(3 - middle_suit.min(3))],
                        order.highest_first()[usize::from(3 - back_suit.min(3))],
                    )),
                    ..Breach::new(Slot::Middle, middle, Slot::Back, back)
                })
            }
            _ => None,
        };
        let front_over_middle = (compare_front_with_middle(front, middle) == Ordering::Greater)
            .then(|| Breach::new(Slot::Front, front, Slot::Middle, middle));
        match (middle_over_back, front_over_middle) {
            (Some(first), second) => Some(Foul { first, second }),
            (None, Some(first)) => Some(Foul {
                first,
                second: None,
            }),
            (None, None) => None,
        }
    }

    /// Whether the set is fouled under a profile (the same verdict as [`SetHand::foul`]).
    #[inline]
    pub fn is_fouled(&self, profile: &RuleProfile) -> bool {
        self.is_fouled_by(profile.wheel, profile.suit_ties())
    }

    /// Whether the set is fouled (the same verdict as [`SetHand::foul_by`]).
    #[inline]
    pub fn is_fouled_by(&self, wheel: Wheel, suit_ties: Option<&SuitOrder>) -> bool {
        let [back, middle, front] = self.values(wheel);
        if middle > back || compare_front_with_middle(front, middle) == Ordering::Greater {
            return true;
        }
        middle == back && suit_ties.is_some() && self.foul_by(wheel, suit_ties).is_some()
    }
}

/// A fouled set: the hands out of order, in words ("middle (pair of nines) ranks above back
/// (pair of sixes)").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Foul {
    pub first: Breach,
    /// When both the middle is above the back and the front above the middle.
    pub second: Option<Breach>,
}

/// One hand ranking above the hand that must hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Breach {
    pub upper: Slot,
    pub upper_value: HandValue,
    pub lower: Slot,
    pub lower_value: HandValue,
    /// For an exact tie decided by suit (`ties = suit_order`): the upper and lower hands' suits.
    pub by_suit: Option<(Suit, Suit)>,
}

impl Breach {
    fn new(upper: Slot, upper_value: HandValue, lower: Slot, lower_value: HandValue) -> Breach {
        Breach {
            upper,
            upper_value,
            lower,
            lower_value,
            by_suit: None,
        }
    }
}

impl Breach {
    /// The explanation as pieces of static text, in order: what `Display` prints, for writers
    /// that skip the formatting machinery (the CLI prints one or two per round).
    pub fn pieces(&self) -> impl Iterator<Item = &'static str> {
        // Short names ("pair of nines") unless they read the same; then every deciding rank.
        let (mut upper, mut lower) = (
            self.upper_value.short_name_str(),
            self.lower_value.short_name_str(),
        );
        if upper == lower {
            (upper, lower) = (self.upper_value.name_str(), self.lower_value.name_str());
        }
        let (upper_slot, lower_slot) = (self.upper.word(), self.lower.word());
        let pieces: [&'static str; 12] = match self.by_suit {
            None => [
                upper_slot,
                " (",
                upper,
                ") ranks above ",
                lower_slot,
                " (",
                lower,
                ")",
                "",
                "",
                "",
                "",
            ],
            Some((upper_suit, lower_suit)) => [
                upper_slot,
                " (",
                upper,
                ") ties ",
                lower_slot,
                " (",
                lower,
                ") but holds the stronger suit (",
                upper_suit.word(),
                " over ",
                lower_suit.word(),
                ")",
            ],
        };
        pieces.into_iter()
    }
}

impl Foul {
    /// The explanation as pieces of static text, in order: what `Display` prints.
    pub fn pieces(&self) -> impl Iterator<Item = &'static str> {
        let second = self
            .second
            .into_iter()
            .flat_map(|second| std::iter::once("; and ").chain(second.pieces()));
        self.first.pieces().chain(second)
    }
}

impl fmt::Display for Foul {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces().try_for_each(|piece| f.write_str(piece))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::parse_cards;
    use crate::rules::profile::SuitOrder;

    fn set(back: &str, middle: &str, front: &str) -> Result<SetHand, SetHandError> {
        let cards = |text: &str| parse_cards(text).expect("cards");
        SetHand::new(&cards(back), &cards(middle), &cards(front))
    }

    fn legal_profile() -> RuleProfile {
        RuleProfile::default()
    }

    #[test]
    fn the_worked_examples_of_section_6_foul_or_not_as_the_rules_say() {
        // (back, middle, front, explanation or None for legal)
        let cases = [
            ("As Ks Qs Js Ts", "9h 9d 9c 4s 4h", "Ad Kd 2c", None),
            (
                "2c 2d 5h 7s 9c",
                "3c 3d 4h 8s Tc",
                "Ah Kh Qh",
                Some("middle (pair of threes) ranks above back (pair of twos)"),
            ),
            (
                "Ac Ad Ah 2s 2h",
                "Qc Qd 5h 4s 3c",
                "Qh Qs 7d",
                Some("front (pair of queens, seven kicker) ranks above middle (pair of queens, five-four-three kickers)"),
            ),
        ];
        for (back, middle, front, expected) in cases {
            let set = set(back, middle, front).expect("valid set");
            let foul = set.foul(&legal_profile()).map(|foul| foul.to_string());
            assert_eq!(foul.as_deref(), expected, "{back} / {middle} / {front}");
            assert_eq!(set.is_fouled(&legal_profile()), expected.is_some());
        }
    }

    #[test]
    fn fouls_are_explained_in_dealers_words() {
        let cases = [
            (
                "6c 6d Ah 7s 2c",
                "9c 9d Kh 8s 3c",
                "4c 5d Jh",
                "middle (pair of nines) ranks above back (pair of sixes)",
            ),
            (
                "Ac Ad Kh 8s 3c",
                "9c 9d Ks 8h 3d",
                "Kc Kd 2h",
                "front (pair of kings) ranks above middle (pair of nines)",
            ),
            (
                "2c 3d 4h 6s 8c",
                "Kc Kd Qh Js 9c",
                "As Ah Ad",
                "middle (pair of kings) ranks above back (eight high); and front (three of a kind, aces) ranks above middle (pair of kings)",
            ),
        ];
        for (back, middle, front, expected) in cases {
            let set = set(back, middle, front).expect("valid set");
            let foul = set.foul(&legal_profile()).expect("fouled");
            assert_eq!(foul.to_string(), expected);
        }
    }

    #[test]
    fn equal_hands_are_allowed_and_suits_matter_only_under_suit_order() {
        let equal = set("Kc Kd 7h 5s 3c", "Ks Kh 7c 5d 3h", "Qc Jd 9h").expect("valid set");
        assert!(equal.foul(&legal_profile()).is_none());
        let suit_order = RuleProfile {
            ties: crate::rules::profile::TieRule::SuitOrder,
            ..RuleProfile::default()
        };
        // Back's kings are clubs and diamonds (diamonds highest): legal.
        assert!(equal.foul(&suit_order).is_none());
        let swapped = set("Ks Kh 7c 5d 3h", "Kc Kd 7h 5s 3c", "Qc Jd 9h").expect("valid set");
        let foul = swapped.foul(&suit_order).expect("fouled by suit");
        assert_eq!(
            foul.to_string(),
            "middle (pair of kings, seven-five-three kickers) ties back (pair of kings, seven-five-three kickers) but holds the stronger suit (diamonds over hearts)"
        );
        assert!(swapped.is_fouled(&suit_order));
        let spades_first = RuleProfile {
            suit_order: "shdc".parse::<SuitOrder>().expect("order"),
            ..suit_order
        };
        assert!(swapped.foul(&spades_first).is_none());
        assert!(equal.is_fouled(&spades_first));
    }

    #[test]
    fn the_wheel_option_can_decide_a_foul() {
        let set = set("6c 5h 4d 3s 2d", "5d 4c 3h 2s Ac", "Kc Qd 9h").expect("valid set");
        assert!(set.foul(&legal_profile()).is_none());
        let second = RuleProfile {
            wheel: Wheel::Second,
            ..RuleProfile::default()
        };
        assert_eq!(
            set.foul(&second).map(|f| f.to_string()).as_deref(),
            Some("middle (straight, five high) ranks above back (straight, six high)")
        );
    }

    #[test]
    fn bad_sets_are_rejected_naming_the_hand_and_card() {
        let cases = [
            (
                "As Ks Qs Js",
                "9h 9d 9c 4s 4h",
                "Ad Kd 2c",
                "the back needs 5 cards, not 4",
            ),
            (
                "As Ks Qs Js Ts",
                "9h 9d 9c 4s 4h",
                "Ad Kd",
                "the front needs 3 cards, not 2",
            ),
            (
                "As Ks Qs Js Ts",
                "9h 9d 9c 4s 4h 2h",
                "Ad Kd 2c",
                "the middle needs 5 cards, not 6",
            ),
            (
                "Ah Ks Qs Js Ts",
                "9h 9d 9c 4s 4h",
                "Ah Kd 2c",
                "Ah is in both the back and the front",
            ),
            (
                "As Ks Qs Js Ts",
                "9h 9d 9c 9h 4h",
                "Ad Kd 2c",
                "9h is twice in the middle",
            ),
        ];
        for (back, middle, front, message) in cases {
            let error = set(back, middle, front).expect_err("invalid set");
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn a_set_names_its_hands() {
        let set = set("As Ks Qs Js Ts", "9h 9d 9c 4s 4h", "Ad Kd 2c").expect("valid set");
        assert_eq!(set.name(Slot::Back), "straight flush, ace high");
        assert_eq!(set.name(Slot::Middle), "full house, nines over fours");
        assert_eq!(set.name(Slot::Front), "high card, ace-king-two");
        assert_eq!(set.all_cards().count(), 13);
    }

    #[test]
    fn an_exact_back_middle_tie_is_legal_under_dealer_wins_whatever_the_suits() {
        // The default suit order is diamonds, clubs, hearts, spades: these kings are clubs and
        // diamonds in one hand, spades and hearts in the other.
        let stronger_back = set("Kc Kd 7h 5s 3c", "Ks Kh 7c 5d 3h", "Qc Jd 9h").expect("valid set");
        let stronger_middle =
            set("Ks Kh 7c 5d 3h", "Kc Kd 7h 5s 3c", "Qc Jd 9h").expect("valid set");
        for set in [stronger_back, stronger_middle] {
            assert!(!set.is_fouled(&legal_profile()), "{:?}", set.middle());
            assert_eq!(set.foul(&legal_profile()), None, "{:?}", set.middle());
        }
    }
}
