//! Hand evaluation: 5-card hands and 3-card fronts to a compact, totally ordered [`HandValue`],
//! the front-against-middle comparison, suit tie-breaks and the human name of every value.
//!
//! Speed matters (the dealer screen previews and auditors re-check whole gaming days), so
//! 5-card evaluation is table driven: each card maps to one `u64` whose five-fold sum holds a
//! rank-multiset key (unique sums), per-suit counters that reveal a flush, and the 13-bit rank
//! mask. Flushes index a 8,192-entry table by rank mask; everything else goes through a
//! row-displacement perfect hash of the rank key. Tables are built once, on first use.

use std::cmp::Ordering;
use std::sync::OnceLock;

use crate::rules::card::{Card, Rank};
use crate::rules::profile::{SuitOrder, Wheel};

/// A hand category, lowest first. A front can only be high card, one pair or three of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    HighCard,
    OnePair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::HighCard,
        Category::OnePair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
    ];
}

/// The strength of a 5-card hand or a 3-card front, comparable with `Ord` between hands of the
/// same size (use [`compare_front_with_middle`] across sizes).
///
/// Layout (one `u32`): category in bits 24..28, then up to five rank nibbles from bit 20 down to
/// bit 4 (the main group first, then kickers from the top), and the card count in bits 0..4.
/// For straights the first nibble is the straight's order under the wheel option and the second
/// its top card, so the name never depends on the option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandValue(u32);

const CATEGORY_SHIFT: u32 = 24;

impl HandValue {
    /// Below every hand's value: a placeholder for tables filled afterwards.
    pub const NONE: HandValue = HandValue(0);

    fn build(category: Category, ranks: &[u8], size: u8) -> HandValue {
        let mut bits = (category as u32) << CATEGORY_SHIFT;
        for (i, rank) in ranks.iter().enumerate().take(5) {
            bits |= u32::from(*rank & 15) << (20 - 4 * i as u32);
        }
        HandValue(bits | u32::from(size))
    }

    /// The raw bits, for storage and hashing. Ordered like the value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    pub fn category(self) -> Category {
        Category::ALL[((self.0 >> CATEGORY_SHIFT) as usize).min(8)]
    }

    /// The category as its number (`Category as u32`), without the lookup.
    #[inline]
    const fn category_bits(self) -> u32 {
        self.0 >> CATEGORY_SHIFT
    }

    /// 3 for a front, 5 otherwise.
    pub const fn size(self) -> u8 {
        (self.0 & 15) as u8
    }

    fn nibble(self, i: u32) -> Rank {
        Rank::from_index(((self.0 >> (20 - 4 * i)) & 15) as u8)
    }

    #[inline]
    fn is_straight(self) -> bool {
        const STRAIGHT: u32 = Category::Straight as u32;
        const STRAIGHT_FLUSH: u32 = Category::StraightFlush as u32;
        matches!(self.category_bits(), STRAIGHT | STRAIGHT_FLUSH)
    }

    /// The rank of the hand's main group: the quad, the triple, the higher pair, the pair, or
    /// the top card (of a straight: its top card as named, a five for the wheel).
    pub fn lead_rank(self) -> Rank {
        if self.is_straight() {
            self.nibble(1)
        } else {
            self.nibble(0)
        }
    }

    /// The ranks that decide the hand, main group first then kickers from the top.
    pub fn ranks(self) -> Vec<Rank> {
        if self.is_straight() {
            return vec![self.nibble(1)];
        }
        let count = match (self.category(), self.size()) {
            (Category::FourOfAKind | Category::FullHouse, _) => 2,
            (Category::ThreeOfAKind, 3) => 1,
            (Category::ThreeOfAKind | Category::TwoPair, _) => 3,
            (Category::OnePair, 3) => 2,
            (Category::OnePair, _) => 4,
            (Category::HighCard, 3) => 3,
            _ => 5,
        };
        (0..count).map(|i| self.nibble(i)).collect()
    }

    /// This value (evaluated with the wheel lowest) as it ranks under `wheel`: with
    /// `Wheel::Second` the wheel moves above the king-high straight and below the ace-high one.
    #[inline]
    pub fn for_wheel(self, wheel: Wheel) -> HandValue {
        if wheel == Wheel::Lowest || !self.is_straight() {
            return self;
        }
        let order = match self.nibble(1) {
            Rank::Five => 12,
            Rank::Ace => 13,
            top => u32::from(top.index()),
        };
        HandValue((self.0 & !(15 << 20)) | (order << 20))
    }

    /// [`HandValue::name`] from a table built once: no allocation, for hot paths like the CLI.
    #[inline]
    pub fn name_str(self) -> &'static str {
        names()
            .get(self.name_key())
            .map_or("unknown hand", |names| names.0)
    }

    /// [`HandValue::short_name`] from a table built once.
    #[inline]
    pub fn short_name_str(self) -> &'static str {
        names()
            .get(self.name_key())
            .map_or("unknown hand", |names| names.1)
    }

    /// The value with the wheel option undone (a straight's order is its top card), so that both
    /// wheel options share one name table.
    fn name_key(self) -> u32 {
        if self.is_straight() {
            (self.0 & !(15 << 20)) | ((self.0 >> 16) & 15) << 20
        } else {
            self.0
        }
    }

    /// The short name, category and main ranks: "pair of nines", "full house, kings over fours".
    pub fn short_name(self) -> String {
        let ranks = self.ranks();
        let first = ranks.first().copied().unwrap_or(Rank::Two);
        let second = ranks.get(1).copied().unwrap_or(Rank::Two);
        match self.category() {
            Category::StraightFlush => format!("straight flush, {} high", first.word()),
            Category::FourOfAKind => format!("four of a kind, {}", first.plural()),
            Category::FullHouse => {
                format!("full house, {} over {}", first.plural(), second.plural())
            }
            Category::Flush => format!("flush, {} high", first.word()),
            Category::Straight => format!("straight, {} high", first.word()),
            Category::ThreeOfAKind => format!("three of a kind, {}", first.plural()),
            Category::TwoPair => format!("two pair, {} and {}", first.plural(), second.plural()),
            Category::OnePair => format!("pair of {}", first.plural()),
            Category::HighCard => format!("{} high", first.word()),
        }
    }

    /// The full name, every deciding rank: "pair of queens, seven kicker",
    /// "flush, ace-king-nine-seven-four", "straight, five high".
    pub fn name(self) -> String {
        let ranks = self.ranks();
        let mut name = match self.category() {
            Category::Flush => "flush, ".to_string(),
            Category::HighCard => "high card, ".to_string(),
            _ => self.short_name(),
        };
        let kickers_from = match self.category() {
            Category::Flush | Category::HighCard => {
                push_rank_list(&mut name, &ranks);
                return name;
            }
            Category::StraightFlush | Category::Straight | Category::FullHouse => return name,
            Category::TwoPair => 2,
            _ => 1,
        };
        let kickers = ranks.get(kickers_from..).unwrap_or(&[]);
        if !kickers.is_empty() {
            name.push_str(", ");
            push_rank_list(&mut name, kickers);
            name.push_str(if kickers.len() == 1 {
                " kicker"
            } else {
                " kickers"
            });
        }
        name
    }
}

fn push_rank_list(text: &mut String, ranks: &[Rank]) {
    for (i, rank) in ranks.iter().enumerate() {
        if i > 0 {
            text.push('-');
        }
        text.push_str(rank.word());
    }
}

/// The full and short name of every value (wheel option undone, see [`HandValue::name_key`]):
/// one text arena and a direct open-addressing index on the value's bits. About 0.3 MB in
/// three arrays, against about 0.85 MB of scattered `String`s in the hash map it replaced.
struct NameTable {
    /// `NAME_SLOTS` entries found by [`name_slot`] and linear probing; `key == 0` is free (no
    /// name key is 0: its low nibble holds the card count).
    slots: Vec<NameSlot>,
    /// Every full name followed directly by its short name.
    text: String,
}

#[derive(Debug, Clone, Copy, Default)]
struct NameSlot {
    key: u32,
    start: u32,
    full_len: u8,
    short_len: u8,
}

const NAME_SLOTS: usize = 1 << 14;

/// The home slot of a name key: the top bits of a multiplicative hash (fewer than 8,000 keys
/// in 16,384 slots, so probes are short).
#[inline]
fn name_slot(key: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> (32 - NAME_SLOTS.trailing_zeros())) as usize
}

impl NameTable {
    fn build() -> NameTable {
        let mut table = NameTable {
            slots: vec![NameSlot::default(); NAME_SLOTS],
            text: String::with_capacity(1 << 19),
        };
        for size in [3, 5] {
            let mut counts = [0u8; 13];
            for_each_multiset(&mut counts, 0, size, &mut |counts| {
                table.add(reference_value(counts, false));
                if size == 5 && counts.iter().all(|&n| n <= 1) {
                    table.add(reference_value(counts, true));
                }
            });
        }
        table
    }

    fn add(&mut self, value: HandValue) {
        let key = value.name_key();
        let mut i = name_slot(key);
        while self.slots[i].key != 0 {
            if self.slots[i].key == key {
                return;
            }
            i = (i + 1) & (NAME_SLOTS - 1);
        }
        let (full, short) = (value.name(), value.short_name());
        // Names are at most "three of a kind, queens, king-jack kickers" long; the arena is a
        // few hundred KB. Both fit their fields with room to spare.
        self.slots[i] = NameSlot {
            key,
            start: self.text.len() as u32,
            full_len: full.len() as u8,
            short_len: short.len() as u8,
        };
        self.text.push_str(&full);
        self.text.push_str(&short);
    }

    /// The full and short names of a name key.
    #[inline]
    fn get(&self, key: u32) -> Option<(&str, &str)> {
        let mut i = name_slot(key);
        loop {
            let slot = self.slots[i & (NAME_SLOTS - 1)];
            if slot.key == key {
                let start = slot.start as usize;
                let middle = start + usize::from(slot.full_len);
                let end = middle + usize::from(slot.short_len);
                return Some((self.text.get(start..middle)?, self.text.get(middle..end)?));
            }
            if slot.key == 0 {
                return None;
            }
            i += 1;
        }
    }
}

static NAMES: OnceLock<NameTable> = OnceLock::new();

fn names() -> &'static NameTable {
    NAMES.get_or_init(NameTable::build)
}

/// Compares a front (3 cards) with a middle (5 cards) as docs/rules.md §3.5 says: category
/// first, then only as many ranks as the front has. `K-K-7` equals `K-K-7-5-3`.
#[inline]
pub fn compare_front_with_middle(front: HandValue, middle: HandValue) -> Ordering {
    const TRIPS: u32 = Category::ThreeOfAKind as u32;
    const PAIR: u32 = Category::OnePair as u32;
    let significant = match front.category_bits() {
        TRIPS => 1,
        PAIR => 2,
        _ => 3,
    };
    let mask = !0u32 << (24 - 4 * significant);
    (front.0 & mask).cmp(&(middle.0 & mask))
}

/// The suit strength that decides an exact tie under `ties = suit_order`: the strongest suit
/// among the hand's cards of its main group's rank ([`HandValue::lead_rank`]).
pub fn tie_strength(value: HandValue, cards: &[Card], order: &SuitOrder) -> u8 {
    let lead = value.lead_rank().index();
    cards
        .iter()
        .filter(|card| card.index() >> 2 == lead)
        .map(|card| order.strength(card.suit()))
        .max()
        .unwrap_or(0)
}

/// Evaluates a 3-card front: three of a kind, one pair or high card; straights and flushes do
/// not count.
#[inline]
pub fn evaluate_front(cards: [Card; 3]) -> HandValue {
    let [mut a, mut b, mut c] = cards.map(|card| card.rank().index());
    if a < b {
        std::mem::swap(&mut a, &mut b);
    }
    if b < c {
        std::mem::swap(&mut b, &mut c);
    }
    if a < b {
        std::mem::swap(&mut a, &mut b);
    }
    if a == c {
        HandValue::build(Category::ThreeOfAKind, &[a], 3)
    } else if a == b {
        HandValue::build(Category::OnePair, &[a, c], 3)
    } else if b == c {
        HandValue::build(Category::OnePair, &[b, a], 3)
    } else {
        HandValue::build(Category::HighCard, &[a, b, c], 3)
    }
}

/// Evaluates a 5-card hand under the given wheel option.
#[inline]
pub fn evaluate(cards: [Card; 5], wheel: Wheel) -> HandValue {
    Evaluator::new(wheel).evaluate(cards)
}

/// A 5-card evaluator bound to the lookup tables of one wheel option (each option has its own
/// tables, so evaluation never remaps straights). Cheap to copy; create one per profile and call
/// [`Evaluator::evaluate`] in loops.
#[derive(Debug, Clone, Copy)]
pub struct Evaluator {
    tables: &'static Tables,
}

impl Evaluator {
    pub fn new(wheel: Wheel) -> Evaluator {
        Evaluator {
            tables: TABLES[wheel as usize].get_or_init(|| Tables::build(wheel)),
        }
    }

    pub fn evaluate(&self, cards: [Card; 5]) -> HandValue {
        self.evaluate_indices(cards.map(Card::index))
    }

    /// Evaluates five card indices (`Card::index`); indices must be distinct and below 52.
    #[inline]
    pub fn evaluate_indices(&self, cards: [u8; 5]) -> HandValue {
        let key = |i: usize| self.card_key(cards[i]);
        self.value_of_keys(
            Evaluator::NO_CARDS
                .wrapping_add(key(0))
                .wrapping_add(key(1))
                .wrapping_add(key(2))
                .wrapping_add(key(3))
                .wrapping_add(key(4)),
        )
    }

    /// The sum of no cards' keys: [`Evaluator::NO_CARDS`] plus five distinct cards'
    /// [`Evaluator::card_key`]s (wrapping) is the sum [`Evaluator::value_of_keys`] reads. Callers
    /// that value many overlapping hands (every 5 of 13 cards) share the partial sums.
    pub const NO_CARDS: u64 = SUIT_COUNTER_START;

    /// A card's key by its index (`Card::index`, below 52).
    #[inline]
    pub fn card_key(&self, index: u8) -> u64 {
        self.tables.card[usize::from(index) & 63]
    }

    /// The value of five distinct cards from the sum of their keys (see [`Evaluator::NO_CARDS`]).
    #[inline]
    pub fn value_of_keys(&self, sum: u64) -> HandValue {
        let t = self.tables;
        if (sum >> 32) & 0x8888 != 0 {
            HandValue(t.flush[(sum >> 48) as usize & (FLUSH_TABLE - 1)])
        } else {
            let key = sum as u32;
            let row = t.offsets[(key >> ROW_SHIFT) as usize & (ROWS - 1)];
            let slot = (key & ROW_MASK) as usize + usize::from(row);
            HandValue(t.rest[slot & (REST_TABLE - 1)])
        }
    }
}

/// Per-rank keys whose sums over any 5-card rank multiset are distinct (found by a greedy
/// search; the largest sum is 360,918).
const RANK_KEYS: [u32; 13] = [
    0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415,
];
/// Suit counters start at 3 so that a fifth card of one suit sets that counter's bit 3.
const SUIT_COUNTER_START: u64 = 0x3333 << 32;
const ROW_SHIFT: u32 = 7;
const ROW_MASK: u32 = (1 << ROW_SHIFT) - 1;
const ROWS: usize = 4096;
const REST_TABLE: usize = 8192;
const FLUSH_TABLE: usize = 8192;

/// One set of tables per wheel option, indexed by `Wheel as usize`.
static TABLES: [OnceLock<Tables>; 2] = [OnceLock::new(), OnceLock::new()];

#[derive(Debug)]
struct Tables {
    card: [u64; 64],
    offsets: [u16; ROWS],
    rest: [u32; REST_TABLE],
    flush: [u32; FLUSH_TABLE],
}

impl Tables {
    /// The tables with every straight valued as `wheel` ranks it.
    fn build(wheel: Wheel) -> Tables {
        let mut card = [0u64; 64];
        for c in Card::all() {
            let rank = c.rank().index();
            card[usize::from(c.index())] = u64::from(RANK_KEYS[usize::from(rank)])
                | 1 << (32 + 4 * u32::from(c.suit().index()))
                | 1 << (48 + u32::from(rank));
        }

        let mut flush = [0u32; FLUSH_TABLE];
        let mut entries = Vec::with_capacity(6175);
        let mut counts = [0u8; 13];
        for_each_multiset(&mut counts, 0, 5, &mut |counts| {
            let key: u32 = (0..13).map(|r| u32::from(counts[r]) * RANK_KEYS[r]).sum();
            entries.push((key, reference_value(counts, false).for_wheel(wheel).0));
            if counts.iter().all(|&n| n <= 1) {
                let mask = (0..13)
                    .filter(|&r| counts[r] == 1)
                    .map(|r| 1 << r)
                    .sum::<usize>();
                flush[mask] = reference_value(counts, true).for_wheel(wheel).0;
            }
        });

        // Row displacement: rows of 128 keys, the fullest rows placed first at the smallest
        // offset where none of their keys collide.
        let mut rows: Vec<Vec<(u32, u32)>> = vec![Vec::new(); ROWS];
        for &(key, value) in &entries {
            rows[(key >> ROW_SHIFT) as usize].push((key & ROW_MASK, value));
        }
        let mut order: Vec<usize> = (0..ROWS).filter(|&r| !rows[r].is_empty()).collect();
        order.sort_by_key(|&r| std::cmp::Reverse(rows[r].len()));
        let mut used = vec![false; REST_TABLE + ROW_MASK as usize + 1];
        let mut offsets = [0u16; ROWS];
        let mut rest = [0u32; REST_TABLE];
        for r in order {
            let fits = |offset: usize| rows[r].iter().all(|&(col, _)| !used[col as usize + offset]);
            // The greedy packing is known to need fewer than REST_TABLE slots (tested).
            let offset = (0..REST_TABLE).find(|&o| fits(o)).unwrap_or(0);
            for &(col, value) in &rows[r] {
                used[col as usize + offset] = true;
                rest[(col as usize + offset) & (REST_TABLE - 1)] = value;
            }
            offsets[r] = offset as u16;
        }
        Tables {
            card,
            offsets,
            rest,
            flush,
        }
    }
}

/// Calls `visit` with every rank-count vector of `remaining` more cards (at most 4 per rank)
/// over ranks `from..13`.
pub(crate) fn for_each_multiset(
    counts: &mut [u8; 13],
    from: usize,
    remaining: u8,
    visit: &mut dyn FnMut(&[u8; 13]),
) {
    if remaining == 0 {
        visit(counts);
        return;
    }
    for rank in from..13 {
        if counts[rank] < 4 {
            counts[rank] += 1;
            for_each_multiset(counts, rank, remaining - 1, visit);
            counts[rank] -= 1;
        }
    }
}

/// The straightforward evaluation from rank counts (wheel lowest); builds the tables and is the
/// reference the exhaustive tests check the tables against.
fn reference_value(counts: &[u8; 13], flush: bool) -> HandValue {
    let size: u8 = counts.iter().sum();
    // Groups ordered by count, then rank, both descending.
    let mut groups: Vec<(u8, u8)> = (0..13u8)
        .rev()
        .filter(|&r| counts[usize::from(r)] > 0)
        .map(|r| (counts[usize::from(r)], r))
        .collect();
    groups.sort_by(|a, b| b.cmp(a));
    let ranks: Vec<u8> = groups.iter().map(|&(_, r)| r).collect();
    let shape: Vec<u8> = groups.iter().map(|&(n, _)| n).collect();
    let straight_top = if size == 5 && groups.len() == 5 {
        if ranks[0] - ranks[4] == 4 {
            Some(ranks[0])
        } else if ranks == [12, 3, 2, 1, 0] {
            Some(3)
        } else {
            None
        }
    } else {
        None
    };
    let category = match (shape.as_slice(), straight_top, flush && size == 5) {
        (_, Some(_), true) => Category::StraightFlush,
        ([4, ..], _, _) => Category::FourOfAKind,
        ([3, 2], _, _) => Category::FullHouse,
        (_, _, true) => Category::Flush,
        (_, Some(_), false) => Category::Straight,
        ([3, ..], _, _) => Category::ThreeOfAKind,
        ([2, 2, ..], _, _) => Category::TwoPair,
        ([2, ..], _, _) => Category::OnePair,
        _ => Category::HighCard,
    };
    // A straight's top card is found only among five distinct ranks, so the category is then a
    // straight or a straight flush.
    match straight_top {
        Some(top) => HandValue::build(category, &[top, top], size),
        None => HandValue::build(category, &ranks, size),
    }
}

/// Evaluates any 3 or 5 cards the slow way: the oracle the tables are tested against.
#[cfg(test)]
pub(crate) fn evaluate_reference(cards: &[Card], wheel: Wheel) -> HandValue {
    let mut counts = [0u8; 13];
    for card in cards {
        counts[usize::from(card.rank().index())] += 1;
    }
    let flush = cards.len() == 5 && cards.iter().all(|c| c.suit() == cards[0].suit());
    reference_value(&counts, flush).for_wheel(wheel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::parse_cards;
    use std::collections::{HashMap, HashSet};

    fn five(text: &str) -> [Card; 5] {
        parse_cards(text)
            .expect("cards")
            .try_into()
            .expect("five cards")
    }

    fn three(text: &str) -> [Card; 3] {
        parse_cards(text)
            .expect("cards")
            .try_into()
            .expect("three cards")
    }

    fn all_five_card_hands(mut visit: impl FnMut([u8; 5])) {
        for a in 0..52u8 {
            for b in a + 1..52 {
                for c in b + 1..52 {
                    for d in c + 1..52 {
                        for e in d + 1..52 {
                            visit([a, b, c, d, e]);
                        }
                    }
                }
            }
        }
    }

    fn cards_of(indices: [u8; 5]) -> [Card; 5] {
        indices.map(|i| Card::from_index(i).expect("index below 52"))
    }

    #[test]
    fn the_tables_are_built_from_every_rank_multiset_once_with_at_most_four_of_a_rank() {
        // 6,175 multisets of five ranks and 455 of three (C(17, 5) and C(15, 3), less those
        // with five of a rank: 13 and 0).
        for (size, expected) in [(5, 6_175), (3, 455)] {
            let mut counts = [0u8; 13];
            let mut seen = HashSet::new();
            for_each_multiset(&mut counts, 0, size, &mut |counts| {
                assert!(counts.iter().all(|&n| n <= 4), "{counts:?}");
                assert_eq!(counts.iter().sum::<u8>(), size, "{counts:?}");
                assert!(seen.insert(*counts), "{counts:?} twice");
            });
            assert_eq!(seen.len(), expected, "{size} cards");
        }
    }

    #[test]
    fn all_five_card_hands_fall_into_the_known_category_counts_and_7462_values() {
        for wheel in [Wheel::Lowest, Wheel::Second] {
            let evaluator = Evaluator::new(wheel);
            let mut by_category = [0u32; 9];
            let mut distinct = HashSet::new();
            all_five_card_hands(|hand| {
                let value = evaluator.evaluate_indices(hand);
                by_category[value.category() as usize] += 1;
                distinct.insert(value);
            });
            assert_eq!(
                by_category,
                [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40],
                "{wheel:?}"
            );
            assert_eq!(distinct.len(), 7462, "{wheel:?}");
        }
    }

    #[test]
    fn the_tables_agree_with_the_reference_evaluation_and_names_on_every_hand() {
        let evaluator = Evaluator::new(Wheel::Lowest);
        let mut mismatches = 0;
        all_five_card_hands(|hand| {
            let cards = cards_of(hand);
            let value = evaluator.evaluate_indices(hand);
            if value != evaluate_reference(&cards, Wheel::Lowest)
                || value.name_str() != value.name()
            {
                mismatches += 1;
            }
        });
        assert_eq!(mismatches, 0);
    }

    #[test]
    fn our_order_matches_the_pokers_crate_on_every_hand() {
        let evaluator = Evaluator::new(Wheel::Lowest);
        let mut theirs_by_ours: HashMap<HandValue, u16> = HashMap::new();
        all_five_card_hands(|hand| {
            let ours = evaluator.evaluate_indices(hand);
            let theirs = hand
                .iter()
                .fold(pokers::Hand::default(), |h, &c| {
                    h + pokers::CARDS[usize::from(c)]
                })
                .evaluate();
            let previous = theirs_by_ours.insert(ours, theirs);
            assert!(previous.is_none_or(|p| p == theirs), "{}", ours.name());
        });
        let mut pairs: Vec<(HandValue, u16)> = theirs_by_ours.into_iter().collect();
        pairs.sort();
        assert!(pairs.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn all_three_card_fronts_fall_into_the_known_counts_and_455_values() {
        let mut by_category = [0u32; 9];
        let mut distinct = HashSet::new();
        for a in Card::all() {
            for b in Card::all().filter(|b| b > &a) {
                for c in Card::all().filter(|c| c > &b) {
                    let value = evaluate_front([a, b, c]);
                    assert_eq!(value, evaluate_reference(&[a, b, c], Wheel::Lowest));
                    by_category[value.category() as usize] += 1;
                    distinct.insert(value);
                }
            }
        }
        assert_eq!(by_category[..4], [18_304, 3_744, 0, 52]);
        assert_eq!(by_category.iter().sum::<u32>(), 22_100);
        assert_eq!(distinct.len(), 455);
    }

    #[test]
    fn every_front_has_its_names_in_the_table() {
        for a in Card::all() {
            for b in Card::all().filter(|b| b > &a) {
                for c in Card::all().filter(|c| c > &b) {
                    let value = evaluate_front([a, b, c]);
                    assert_eq!(value.name_str(), value.name());
                    assert_eq!(value.short_name_str(), value.short_name());
                }
            }
        }
    }

    #[test]
    fn both_wheel_options_name_every_hand_alike_and_no_name_needs_json_escaping() {
        let lowest = Evaluator::new(Wheel::Lowest);
        let second = Evaluator::new(Wheel::Second);
        let mut names = HashSet::new();
        all_five_card_hands(|hand| {
            let (low, high) = (lowest.evaluate_indices(hand), second.evaluate_indices(hand));
            assert_eq!(high, low.for_wheel(Wheel::Second));
            assert_eq!(high.name_str(), low.name_str());
            assert_eq!(high.short_name_str(), low.short_name());
            names.insert(low.name_str());
        });
        assert_eq!(names.len(), 7462);
        // The CLI's JSON writer copies names without escaping them.
        let table = super::names();
        for slot in table.slots.iter().filter(|slot| slot.key != 0) {
            let (full, short) = table.get(slot.key).expect("a stored key");
            for name in [full, short] {
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_lowercase() || b" ,-".contains(&b)),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn hands_have_human_names() {
        let cases = [
            ("As Ks Qs Js Ts", "straight flush, ace high"),
            ("5d 4d 3d 2d Ad", "straight flush, five high"),
            ("Kc Kd Kh Ks 7c", "four of a kind, kings, seven kicker"),
            ("Kc Kd Kh 4s 4c", "full house, kings over fours"),
            ("Ah Kh 9h 7h 4h", "flush, ace-king-nine-seven-four"),
            ("5d 4c 3h 2s Ac", "straight, five high"),
            ("9c 9d 9h Ks 2c", "three of a kind, nines, king-two kickers"),
            ("Kc Kd 4h 4s 7c", "two pair, kings and fours, seven kicker"),
            ("Qc Qd 7h 5s 3c", "pair of queens, seven-five-three kickers"),
            ("Ac Kd 9h 7s 4c", "high card, ace-king-nine-seven-four"),
        ];
        for (cards, name) in cases {
            assert_eq!(evaluate(five(cards), Wheel::Lowest).name(), name, "{cards}");
            assert_eq!(evaluate(five(cards), Wheel::Second).name(), name, "{cards}");
            assert_eq!(
                evaluate(five(cards), Wheel::Second).name_str(),
                name,
                "{cards}"
            );
        }
        let fronts = [
            ("Qh Qs 7d", "pair of queens, seven kicker", "pair of queens"),
            ("Ad Kd 2c", "high card, ace-king-two", "ace high"),
            (
                "9c 9d 9s",
                "three of a kind, nines",
                "three of a kind, nines",
            ),
            ("Qs Ks As", "high card, ace-king-queen", "ace high"),
        ];
        for (cards, name, short) in fronts {
            assert_eq!(evaluate_front(three(cards)).name(), name, "{cards}");
            assert_eq!(evaluate_front(three(cards)).short_name(), short, "{cards}");
            assert_eq!(evaluate_front(three(cards)).name_str(), name, "{cards}");
            assert_eq!(
                evaluate_front(three(cards)).short_name_str(),
                short,
                "{cards}"
            );
        }
    }

    #[test]
    fn the_wheel_is_the_lowest_straight_or_the_second_highest_as_the_option_says() {
        // (lower, higher, wheel)
        let cases = [
            ("5d 4c 3h 2s Ac", "6c 5h 4d 3s 2d", Wheel::Lowest),
            ("6c 5h 4d 3s 2d", "5d 4c 3h 2s Ac", Wheel::Second),
            ("5d 4c 3h 2s Ac", "Kc Qh Jd Ts 9d", Wheel::Lowest),
            ("Kc Qh Jd Ts 9d", "5d 4c 3h 2s Ac", Wheel::Second),
            ("5d 4c 3h 2s Ac", "Ac Kh Qd Js Td", Wheel::Second),
            ("5h 4h 3h 2h Ah", "6c 5c 4c 3c 2c", Wheel::Lowest),
            ("Kc Qc Jc Tc 9c", "5h 4h 3h 2h Ah", Wheel::Second),
            ("5h 4h 3h 2h Ah", "Ac Kc Qc Jc Tc", Wheel::Second),
            ("Kc Kd Kh Ks Qc", "5h 4h 3h 2h Ah", Wheel::Lowest),
            ("Ac Kh Qd Js 9d", "5d 4c 3h 2s Ac", Wheel::Lowest),
        ];
        for (lower, higher, wheel) in cases {
            assert!(
                evaluate(five(lower), wheel) < evaluate(five(higher), wheel),
                "{lower} < {higher} with {wheel:?}"
            );
        }
    }

    #[test]
    fn q_k_a_is_no_straight_and_no_wrap_around() {
        let cases = [("Qc Kd Ah 2s 3c", Category::HighCard)];
        for (cards, category) in cases {
            assert_eq!(evaluate(five(cards), Wheel::Lowest).category(), category);
        }
        assert_eq!(
            evaluate_front(three("Qs Ks As")).category(),
            Category::HighCard
        );
        assert_eq!(
            evaluate_front(three("2h 3h 4h")).category(),
            Category::HighCard
        );
    }

    #[test]
    fn ties_inside_a_category_break_as_in_standard_poker() {
        // (lower, higher)
        let cases = [
            ("Kc Kd Kh Ks 2c", "Ac Ad Ah As 2d"),
            ("Kc Kd Kh Ks 2c", "Kc Kd Kh Ks 3c"),
            ("Qc Qd Qh As Ac", "Kc Kd Kh 2s 2c"),
            ("Kc Kd Kh 2s 2c", "Kc Kd Kh 3s 3c"),
            ("Ah Kh 9h 7h 4h", "Ac Kc 9c 7c 5c"),
            ("9c 9d 9h Ks Qc", "9c 9d 9h As 2c"),
            ("Kc Kd 4h 4s Ac", "Kc Kd 5h 5s 2c"),
            ("Kc Kd 4h 4s 7c", "Kc Kd 4h 4s 8c"),
            ("Qc Qd 7h 5s 3c", "Qc Qd 7h 5s 4c"),
            ("Ac Kd 9h 7s 4c", "Ac Kd 9h 7s 5c"),
        ];
        for (lower, higher) in cases {
            let wheel = Wheel::Lowest;
            assert!(
                evaluate(five(lower), wheel) < evaluate(five(higher), wheel),
                "{lower} < {higher}"
            );
        }
    }

    #[test]
    fn a_front_compares_with_a_middle_on_the_fronts_ranks_only() {
        let cases = [
            ("Kc Kd 7h", "Ks Kh 7c 5s 3c", Ordering::Equal),
            ("Qh Qs 7d", "Qc Qd 5h 4s 3c", Ordering::Greater),
            ("Qh Qs 7d", "Qc Qd 8h 4s 3c", Ordering::Less),
            ("Ah Kd 9c", "As Kc 9h 3s 2c", Ordering::Equal),
            ("Ah Kd 9c", "As Kc 8h 3s 2c", Ordering::Greater),
            ("9h 9d 9c", "2s 2c 2h Ks Ac", Ordering::Greater),
            ("9h 9d 9c", "2s 2c 2h 3s 3c", Ordering::Less),
            ("Ah Ad 2c", "3s 3c 2h 2s 4c", Ordering::Less),
            ("Ah Ad Kc", "5s 4c 3h 2s Ac", Ordering::Less),
        ];
        for (front, middle, expected) in cases {
            let ordering = compare_front_with_middle(
                evaluate_front(three(front)),
                evaluate(five(middle), Wheel::Lowest),
            );
            assert_eq!(ordering, expected, "{front} against {middle}");
        }
    }

    #[test]
    fn a_suit_tie_goes_to_the_strongest_card_of_the_main_group() {
        let order = SuitOrder::default();
        // (cards, expected strength under d > c > h > s)
        let cases = [
            ("Qh Qs 7d 5d 3d", 1),
            ("Qh Qd 7c 5c 3c", 3),
            ("9c 9d Kh Ks 2c", 1),
            ("5s 4d 3d 2d Ad", 0),
            ("Ac Kd 9h 7s 4c", 2),
        ];
        for (cards, strength) in cases {
            let cards = five(cards);
            let value = evaluate(cards, Wheel::Lowest);
            assert_eq!(tie_strength(value, &cards, &order), strength, "{cards:?}");
        }
    }

    #[test]
    fn the_raw_bits_of_a_value_are_ordered_like_the_value_and_tell_values_apart() {
        // Storage and the house way's tables keep values as their bits.
        let ascending = [
            "Ac Kd 9h 7s 4c",
            "Qc Qd 7h 5s 3c",
            "Kc Kd 4h 4s 7c",
            "9c 9d 9h Ks 2c",
            "5d 4c 3h 2s Ac",
            "Ah Kh 9h 7h 4h",
            "Kc Kd Kh 4s 4c",
            "Kc Kd Kh Ks 7c",
            "As Ks Qs Js Ts",
        ]
        .map(|cards| evaluate(five(cards), Wheel::Lowest));
        for pair in ascending.windows(2) {
            assert!(
                pair[0].bits() < pair[1].bits(),
                "{} < {}",
                pair[0].name(),
                pair[1].name()
            );
        }
        let (front, middle) = (evaluate_front(three("Kc Kd 7h")), ascending[1]);
        assert_ne!(front.bits(), middle.bits());
        assert_eq!(front.bits() & 15, 3);
        assert_eq!(middle.bits() & 15, 5);
    }
}
