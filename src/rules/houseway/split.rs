//! Every way to split 13 cards into a back (5), a middle (5) and a front (3): 1,287 backs times
//! 56 middles of the 8 cards left = 72,072 splits, and which of them are legal (not fouled).
//!
//! Each 5-card and 3-card subset is evaluated once (1,287 + 286 values, [`Subsets`]); a split is
//! then three indices into those tables, and its foul verdict two comparisons of stored values.

use std::cmp::Ordering;
use std::sync::OnceLock;

use thiserror::Error;

use crate::rules::card::Card;
use crate::rules::hand::HandValue;
use crate::rules::hand::{compare_front_with_middle, evaluate_front, tie_strength, Evaluator};
use crate::rules::profile::{RuleProfile, TieRule};
use crate::rules::set_hand::SetHand;

/// 13 choose 5.
pub const FIVE_CARD_SUBSETS: usize = 1287;
/// 13 choose 3.
pub const THREE_CARD_SUBSETS: usize = 286;
/// 8 choose 5: the middles (and with them the fronts) left once a back is chosen.
pub const MIDDLES_PER_BACK: usize = 56;
/// 1,287 × 56.
pub const SPLIT_COUNT: usize = FIVE_CARD_SUBSETS * MIDDLES_PER_BACK;

/// Why cards cannot be one place's deal.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealtError {
    #[error("a deal is 13 cards, not {count}")]
    WrongCount { count: usize },
    #[error("{card} is in the deal twice")]
    Repeated { card: Card },
}

/// The 13 positions (0..13) of the subsets, as bit masks, with the reverse index and, per back,
/// its 56 (middle, front) pairs. The same for every hand; built once.
pub(crate) struct Layout {
    pub(crate) five: [u16; FIVE_CARD_SUBSETS],
    pub(crate) three: [u16; THREE_CARD_SUBSETS],
    /// `rest[back]`: the middle's index into `five` and the front's into `three`.
    pub(crate) rest: Vec<[(u16, u16); MIDDLES_PER_BACK]>,
}

impl Layout {
    pub(crate) fn get() -> &'static Layout {
        static LAYOUT: OnceLock<Layout> = OnceLock::new();
        LAYOUT.get_or_init(Layout::build)
    }

    fn build() -> Layout {
        let masks = |size: u32| -> Vec<u16> {
            (0u16..1 << 13)
                .filter(|mask| mask.count_ones() == size)
                .collect()
        };
        let (five_list, three_list) = (masks(5), masks(3));
        let mut five = [0u16; FIVE_CARD_SUBSETS];
        let mut three = [0u16; THREE_CARD_SUBSETS];
        five.copy_from_slice(&five_list);
        three.copy_from_slice(&three_list);
        let mut index_of_five = vec![0u16; 1 << 13];
        for (i, &mask) in five.iter().enumerate() {
            index_of_five[usize::from(mask)] = i as u16;
        }
        let mut index_of_three = vec![0u16; 1 << 13];
        for (i, &mask) in three.iter().enumerate() {
            index_of_three[usize::from(mask)] = i as u16;
        }
        let all = (1u16 << 13) - 1;
        let rest = five
            .iter()
            .map(|&back| {
                let left = all & !back;
                let mut pairs = [(0u16, 0u16); MIDDLES_PER_BACK];
                let middles = five.iter().filter(|&&middle| middle & back == 0);
                for (pair, &middle) in pairs.iter_mut().zip(middles) {
                    let front = left & !middle;
                    *pair = (
                        index_of_five[usize::from(middle)],
                        index_of_three[usize::from(front)],
                    );
                }
                pairs
            })
            .collect();
        Layout { five, three, rest }
    }
}

/// One split of a deal: indices into [`Subsets`]' five-card (back, middle) and three-card
/// (front) subsets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Split {
    pub back: u16,
    pub middle: u16,
    pub front: u16,
}

/// A deal of 13 distinct cards, sorted by card index (so the order the cards came in never
/// matters), with the value of every 5-card and 3-card subset under one profile's wheel.
pub struct Subsets {
    cards: [Card; 13],
    pub(crate) five: [HandValue; FIVE_CARD_SUBSETS],
    pub(crate) three: [HandValue; THREE_CARD_SUBSETS],
    profile: RuleProfile,
}

impl Subsets {
    /// Checks the deal (13 distinct cards) and evaluates its subsets.
    pub fn new(cards: &[Card], profile: &RuleProfile) -> Result<Subsets, DealtError> {
        let mut sorted: [Card; 13] = cards
            .try_into()
            .map_err(|_| DealtError::WrongCount { count: cards.len() })?;
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(DealtError::Repeated { card: pair[0] });
        }
        let evaluator = Evaluator::new(profile.wheel);
        let keys = sorted.map(|card| evaluator.card_key(card.index()));
        // Nested loops with the highest position outermost visit the subsets in ascending mask
        // order, which is `Layout`'s order; each level adds one card's key to the sum above it.
        let mut five = [HandValue::NONE; FIVE_CARD_SUBSETS];
        let mut next = five.iter_mut();
        for e in 4..13 {
            let with_e = Evaluator::NO_CARDS.wrapping_add(keys[e]);
            for d in 3..e {
                let with_d = with_e.wrapping_add(keys[d]);
                for c in 2..d {
                    let with_c = with_d.wrapping_add(keys[c]);
                    for b in 1..c {
                        let with_b = with_c.wrapping_add(keys[b]);
                        for &key in &keys[..b] {
                            if let Some(slot) = next.next() {
                                *slot = evaluator.value_of_keys(with_b.wrapping_add(key));
                            }
                        }
                    }
                }
            }
        }
        let mut three = [HandValue::NONE; THREE_CARD_SUBSETS];
        let mut next = three.iter_mut();
        for c in 2..13 {
            for b in 1..c {
                for &card in &sorted[..b] {
                    if let Some(slot) = next.next() {
                        *slot = evaluate_front([card, sorted[b], sorted[c]]);
                    }
                }
            }
        }
        Ok(Subsets {
            cards: sorted,
            five,
            three,
            profile: *profile,
        })
    }

    /// The 13 cards, sorted by index.
    pub fn cards(&self) -> &[Card; 13] {
        &self.cards
    }

    pub fn profile(&self) -> &RuleProfile {
        &self.profile
    }

    /// All 72,072 splits, legal or not, backs in subset order.
    pub fn splits(&self) -> impl Iterator<Item = Split> + '_ {
        Layout::get()
            .rest
            .iter()
            .enumerate()
            .flat_map(|(back, pairs)| {
                pairs.iter().map(move |&(middle, front)| Split {
                    back: back as u16,
                    middle,
                    front,
                })
            })
    }

    /// The splits that are not fouled under the profile.
    pub fn legal_splits(&self) -> impl Iterator<Item = Split> + '_ {
        self.splits().filter(|&split| self.is_legal(split))
    }

    /// The foul verdict of [`SetHand::is_fouled`], from the stored values.
    #[inline]
    pub fn is_legal(&self, split: Split) -> bool {
        let back = self.five[usize::from(split.back)];
        let middle = self.five[usize::from(split.middle)];
        let front = self.three[usize::from(split.front)];
        self.middle_fits(split.back, back, split.middle, middle)
            && compare_front_with_middle(front, middle) != Ordering::Greater
    }

    /// Whether the middle may sit under the back: lower, or equal and not beaten on suit when
    /// ties go by suit (docs/rules.md §4.2).
    #[inline]
    pub(crate) fn middle_fits(
        &self,
        back_index: u16,
        back: HandValue,
        middle_index: u16,
        middle: HandValue,
    ) -> bool {
        match middle.cmp(&back) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => {
                self.profile.ties != TieRule::SuitOrder || {
                    let order = &self.profile.suit_order;
                    let back_cards = self.five_cards(back_index);
                    let middle_cards = self.five_cards(middle_index);
                    tie_strength(middle, &middle_cards, order)
                        <= tie_strength(back, &back_cards, order)
                }
            }
        }
    }

    /// The value of a split's back, middle and front.
    pub fn values(&self, split: Split) -> [HandValue; 3] {
        [
            self.five[usize::from(split.back)],
            self.five[usize::from(split.middle)],
            self.three[usize::from(split.front)],
        ]
    }

    /// The cards of one 5-card subset.
    pub fn five_cards(&self, index: u16) -> [Card; 5] {
        let mask = Layout::get().five[usize::from(index) % FIVE_CARD_SUBSETS];
        let mut cards = [self.cards[0]; 5];
        for (slot, position) in cards.iter_mut().zip(positions(mask)) {
            *slot = self.cards[position];
        }
        cards
    }

    /// The cards of one 3-card subset.
    pub fn three_cards(&self, index: u16) -> [Card; 3] {
        let mask = Layout::get().three[usize::from(index) % THREE_CARD_SUBSETS];
        let mut cards = [self.cards[0]; 3];
        for (slot, position) in cards.iter_mut().zip(positions(mask)) {
            *slot = self.cards[position];
        }
        cards
    }

    /// The split as a set hand.
    pub fn set_hand(&self, split: Split) -> SetHand {
        let back = self.five_cards(split.back);
        let middle = self.five_cards(split.middle);
        let front = self.three_cards(split.front);
        match SetHand::from_arrays(back, middle, front) {
            Ok(set) => set,
            // A split's three masks partition the 13 positions, and the cards are distinct
            // (checked in `Subsets::new`), so the set always has 13 distinct cards.
            Err(error) => unreachable!("a split is always a valid set: {error}"),
        }
    }

    /// The split that puts exactly these cards in each hand, if they are this deal's cards.
    pub fn split_of(&self, set: &SetHand) -> Option<Split> {
        let mask = |cards: &[Card]| -> Option<u16> {
            cards.iter().try_fold(0u16, |mask, card| {
                let position = self.cards.binary_search(card).ok()?;
                Some(mask | 1 << position)
            })
        };
        let layout = Layout::get();
        let back = mask(set.back())?;
        let middle = mask(set.middle())?;
        let front = mask(set.front())?;
        Some(Split {
            back: layout.five.binary_search(&back).ok()? as u16,
            middle: layout.five.binary_search(&middle).ok()? as u16,
            front: layout.three.binary_search(&front).ok()? as u16,
        })
    }
}

/// The set bit positions of a mask, lowest first.
fn positions(mut mask: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let position = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            position
        })
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::card::parse_cards;
    use crate::rules::profile::{SuitOrder, Wheel};
    use crate::rules::set_hand::SetHand;

    /// A deal from a fixed generator (xorshift64*), so failures can be replayed.
    pub(crate) fn deal(seed: u64) -> [Card; 13] {
        let deck = crate::rules::houseway::simulate::fixed_shuffle(seed);
        let mut cards = [deck[0]; 13];
        cards.copy_from_slice(&deck[..13]);
        cards
    }

    pub(crate) fn cards13(text: &str) -> [Card; 13] {
        match parse_cards(text).map(|cards| <[Card; 13]>::try_from(cards.as_slice())) {
            Ok(Ok(cards)) => cards,
            other => panic!("{text:?} is not 13 cards: {other:?}"),
        }
    }

    /// The naive reference: every assignment of the 13 cards to back, middle and front with the
    /// right sizes, judged by `SetHand::is_fouled`. Returns (all, legal) sets as sorted card
    /// triples.
    fn naive(cards: &[Card; 13], profile: &RuleProfile) -> (usize, Vec<[Vec<Card>; 3]>) {
        fn place(
            cards: &[Card; 13],
            i: usize,
            hands: &mut [Vec<Card>; 3],
            profile: &RuleProfile,
            all: &mut usize,
            legal: &mut Vec<[Vec<Card>; 3]>,
        ) {
            if i == 13 {
                *all += 1;
                let set = SetHand::new(&hands[0], &hands[1], &hands[2]).expect("13 distinct");
                if !set.is_fouled(profile) {
                    legal.push(hands.clone());
                }
                return;
            }
            for (slot, size) in [5, 5, 3].into_iter().enumerate() {
                if hands[slot].len() < size {
                    hands[slot].push(cards[i]);
                    place(cards, i + 1, hands, profile, all, legal);
                    hands[slot].pop();
                }
            }
        }
        let mut sorted = *cards;
        sorted.sort_unstable();
        let (mut all, mut legal) = (0, Vec::new());
        let mut hands: [Vec<Card>; 3] = Default::default();
        place(&sorted, 0, &mut hands, profile, &mut all, &mut legal);
        legal.sort();
        (all, legal)
    }

    fn fast(cards: &[Card; 13], profile: &RuleProfile) -> (usize, Vec<[Vec<Card>; 3]>) {
        let subsets = Subsets::new(cards, profile).expect("a deal");
        let all = subsets.splits().count();
        let mut legal: Vec<[Vec<Card>; 3]> = subsets
            .legal_splits()
            .map(|split| {
                let set = subsets.set_hand(split);
                [
                    set.back().to_vec(),
                    set.middle().to_vec(),
                    set.front().to_vec(),
                ]
            })
            .collect();
        legal.sort();
        (all, legal)
    }

    fn profiles() -> [RuleProfile; 3] {
        let suit_ties = RuleProfile {
            ties: TieRule::SuitOrder,
            suit_order: "shdc".parse::<SuitOrder>().expect("an order"),
            ..RuleProfile::default()
        };
        let second = RuleProfile {
            wheel: Wheel::Second,
            ..RuleProfile::default()
        };
        [RuleProfile::default(), suit_ties, second]
    }

    #[test]
    fn a_deal_has_72072_splits_each_a_partition_of_the_13_cards() {
        let cards = deal(1);
        let subsets = Subsets::new(&cards, &RuleProfile::default()).expect("a deal");
        let mut seen = std::collections::HashSet::new();
        for split in subsets.splits() {
            let set = subsets.set_hand(split);
            let mut all: Vec<Card> = set.all_cards().collect();
            all.sort_unstable();
            assert_eq!(all, subsets.cards().to_vec());
            assert!(seen.insert(split), "{split:?} enumerated twice");
        }
        assert_eq!(seen.len(), SPLIT_COUNT);
        assert_eq!(SPLIT_COUNT, 72_072);
    }

    /// Random deals plus deals where ties, wheels and equal hands decide fouls.
    fn reference_deals() -> Vec<[Card; 13]> {
        let mut deals: Vec<[Card; 13]> = (0..12).map(deal).collect();
        for text in [
            // Two equal pairs of queens and equal kickers: middle equals back, suits decide.
            "Qc Qd Qh Qs 7c 7d 5h 5s 2c 2d 3h 3s Ah",
            // A wheel and a six-high straight, for the wheel option.
            "Ac 2d 3h 4s 5c 6d 2h 3s 4c 9d Td Jh Kh",
            // Flushes in two suits and near-equal fronts.
            "Ah Kh 9h 7h 3h Ad Kd 9d 7d 3d As Ks 9s",
        ] {
            deals.push(cards13(text));
        }
        deals
    }

    #[test]
    fn legal_splits_match_the_naive_reference_under_every_profile() {
        for profile in profiles() {
            for cards in reference_deals() {
                let (naive_all, naive_legal) = naive(&cards, &profile);
                let (fast_all, fast_legal) = fast(&cards, &profile);
                assert_eq!(naive_all, 72_072);
                assert_eq!(fast_all, naive_all);
                assert_eq!(
                    fast_legal.len(),
                    naive_legal.len(),
                    "{} under {}",
                    crate::rules::card::format_cards(&cards),
                    profile.describe()
                );
                assert!(fast_legal == naive_legal, "the legal sets differ");
            }
        }
    }

    #[test]
    fn legal_split_counts_are_the_reference_counts_on_many_random_deals() {
        // Counts only (the naive walk is the slow part): 200 deals, default profile.
        for seed in 100..300 {
            let cards = deal(seed);
            let profile = RuleProfile::default();
            let reference = naive_legal_count(&cards, &profile);
            let subsets = Subsets::new(&cards, &profile).expect("a deal");
            assert_eq!(subsets.legal_splits().count(), reference, "seed {seed}");
        }
    }

    /// The legal count from `SetHand::is_fouled` over the 72,072 splits built independently
    /// (three nested combination loops over the sorted cards).
    fn naive_legal_count(cards: &[Card; 13], profile: &RuleProfile) -> usize {
        let mut legal = 0;
        let idx: Vec<usize> = (0..13).collect();
        for back in combinations(&idx, 5) {
            let left: Vec<usize> = idx.iter().copied().filter(|i| !back.contains(i)).collect();
            for middle in combinations(&left, 5) {
                let front: Vec<usize> = left
                    .iter()
                    .copied()
                    .filter(|i| !middle.contains(i))
                    .collect();
                let pick = |is: &[usize]| is.iter().map(|&i| cards[i]).collect::<Vec<_>>();
                let set = SetHand::new(&pick(&back), &pick(&middle), &pick(&front))
                    .expect("13 distinct cards");
                legal += usize::from(!set.is_fouled(profile));
            }
        }
        legal
    }

    fn combinations(items: &[usize], k: usize) -> Vec<Vec<usize>> {
        if k == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for (i, &item) in items.iter().enumerate() {
            for mut rest in combinations(&items[i + 1..], k - 1) {
                rest.insert(0, item);
                out.push(rest);
            }
        }
        out
    }

    /// `Subsets::new` values the subsets in nested loops rather than from `Layout`'s masks: each
    /// value must be the evaluation of the cards at that index's mask.
    #[test]
    fn every_subset_value_is_the_evaluation_of_its_masks_cards() {
        for profile in profiles() {
            let evaluator = Evaluator::new(profile.wheel);
            for seed in 0..4 {
                let subsets = Subsets::new(&deal(seed), &profile).expect("a deal");
                for (i, &value) in subsets.five.iter().enumerate() {
                    assert_eq!(
                        value,
                        evaluator.evaluate(subsets.five_cards(i as u16)),
                        "{i}"
                    );
                }
                for (i, &value) in subsets.three.iter().enumerate() {
                    assert_eq!(value, evaluate_front(subsets.three_cards(i as u16)), "{i}");
                }
            }
        }
    }

    #[test]
    fn the_order_the_cards_come_in_does_not_change_the_subsets() {
        let cards = deal(7);
        let mut reversed = cards;
        reversed.reverse();
        let profile = RuleProfile::default();
        let a = Subsets::new(&cards, &profile).expect("a deal");
        let b = Subsets::new(&reversed, &profile).expect("a deal");
        assert_eq!(a.cards(), b.cards());
        assert_eq!(a.five, b.five);
        assert_eq!(a.three, b.three);
    }

    #[test]
    fn a_deal_must_be_13_distinct_cards() {
        let profile = RuleProfile::default();
        let cards = deal(3);
        assert_eq!(
            Subsets::new(&cards[..12], &profile).err(),
            Some(DealtError::WrongCount { count: 12 })
        );
        let mut twice = cards;
        twice[5] = twice[9];
        assert_eq!(
            Subsets::new(&twice, &profile).err(),
            Some(DealtError::Repeated { card: cards[9] })
        );
    }

    #[test]
    fn split_of_finds_the_split_of_a_set() {
        let cards = deal(11);
        let subsets = Subsets::new(&cards, &RuleProfile::default()).expect("a deal");
        for split in subsets.splits().step_by(997) {
            assert_eq!(subsets.split_of(&subsets.set_hand(split)), Some(split));
        }
    }
}
