//! The house way's win-probability tables: for each position (back, middle, front), how the
//! opposing hands at that position are spread over value buckets, as counted by
//! `pusoy-pit houseway build` (simulated deals, every place setting by the house way of the
//! previous table, until the table stops changing).
//!
//! A bucket is a hand category and its leading ranks: one bucket per straight, straight flush,
//! four of a kind, full house and three of a kind by its main rank; per pair, two pair, flush
//! and high card by its first two ranks. That keeps the committed file at about a thousand
//! counts while separating what a player weighs (a pair of nines with an ace against one with a
//! six). Within a bucket the win probability is interpolated linearly between the bucket's
//! lowest and highest value, so it rises with the hand's value everywhere.

use std::fmt::Write as _;
use std::sync::OnceLock;

use thiserror::Error;

use crate::rules::card::{Card, Rank, Suit};
use crate::rules::hand::{evaluate_front, for_each_multiset, Category, Evaluator, HandValue};
use crate::rules::profile::Wheel;
use crate::rules::set_hand::Slot;

/// The table file shipped with the binary; regenerate it with the command in its header.
const SHIPPED: &str = include_str!("table-v1.txt");

/// The file format's version (the first field of the `version` line).
pub const FORMAT_VERSION: u32 = 1;

/// Why a table file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TableError {
    #[error("table line {line}: {problem}")]
    Line { line: usize, problem: String },
    #[error("the table has no {0} line")]
    Missing(&'static str),
    #[error("the {position} line has {found} counts; this program's buckets need {expected}")]
    BucketCount {
        position: Slot,
        found: usize,
        expected: usize,
    },
    #[error("the {0} counts are all zero")]
    Empty(Slot),
}

/// How a table was made: written in its header, shown with the house way's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    pub version: u32,
    pub seed: u64,
    pub rounds: u64,
    pub iterations: u32,
    /// The largest change of any position's distribution in the last iteration, in parts per
    /// million of the deals (0 = the strategy reproduced its own table exactly).
    pub last_change_ppm: u64,
}

/// Per position, the number of sets whose hand there fell in each bucket, buckets in their
/// canonical order (lowest first, wheel lowest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    pub back: Vec<u64>,
    pub middle: Vec<u64>,
    pub front: Vec<u64>,
}

impl Counts {
    /// All zero, one entry per bucket.
    pub fn zero() -> Counts {
        let buckets = Buckets::get();
        Counts {
            back: vec![0; buckets.five.len()],
            middle: vec![0; buckets.five.len()],
            front: vec![0; buckets.three.len()],
        }
    }

    /// Counts one set's back, middle and front values (evaluated with the wheel lowest).
    pub fn add(&mut self, [back, middle, front]: [HandValue; 3]) {
        let buckets = Buckets::get();
        self.back[buckets.five_bucket(back)] += 1;
        self.middle[buckets.five_bucket(middle)] += 1;
        self.front[buckets.three_bucket(front)] += 1;
    }

    /// Adds another tally (from another chunk of deals).
    pub fn merge(&mut self, other: &Counts) {
        for (ours, theirs) in [
            (&mut self.back, &other.back),
            (&mut self.middle, &other.middle),
            (&mut self.front, &other.front),
        ] {
            for (a, b) in ours.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    fn position(&self, slot: Slot) -> &[u64] {
        match slot {
            Slot::Back => &self.back,
            Slot::Middle => &self.middle,
            Slot::Front => &self.front,
        }
    }
}

/// A win-probability table: its making and its counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinTable {
    pub info: TableInfo,
    pub counts: Counts,
}

impl WinTable {
    /// The table shipped with this binary.
    pub fn shipped() -> &'static WinTable {
        match WinTable::try_shipped() {
            Ok(table) => table,
            // The file is compiled in and `the_shipped_table_is_readable_and_round_trips`
            // parses it, so a failure here cannot reach a release.
            Err(error) => panic!("the shipped house-way table is unreadable: {error}"),
        }
    }

    /// The table shipped with this binary, or why it cannot be read (for texts that must not
    /// fail, such as `--help`).
    pub fn try_shipped() -> Result<&'static WinTable, &'static TableError> {
        static TABLE: OnceLock<Result<WinTable, TableError>> = OnceLock::new();
        TABLE.get_or_init(|| WinTable::parse(SHIPPED)).as_ref()
    }

    /// The lookup for the shipped table under a wheel option.
    pub fn shipped_lookup(wheel: Wheel) -> &'static Lookup {
        static LOOKUPS: [OnceLock<Lookup>; 2] = [OnceLock::new(), OnceLock::new()];
        LOOKUPS[wheel as usize].get_or_init(|| Lookup::new(WinTable::shipped(), wheel))
    }

    /// The table's file text: a header saying how to make it again, then one line per
    /// position.
    pub fn to_text(&self) -> String {
        let info = &self.info;
        let mut text = String::with_capacity(8 * 1024);
        text.push_str(
            "# pusoy-pit house-way win table. Remake it byte for byte with:\n\
             #   pusoy-pit houseway build",
        );
        // Exactly this many rounds, whatever the tolerance was: the run stopped at the first
        // round within it, and a tolerance of 0 only stops earlier on a change of 0, where
        // that run would have stopped too.
        let _ = writeln!(
            text,
            " --seed {} --rounds {} --max-iterations {} --tolerance-ppm 0",
            info.seed, info.rounds, info.iterations
        );
        text.push_str(
            "# Each position line counts the simulated sets whose hand there fell in each value\n\
             # bucket, lowest bucket first (src/rules/houseway/tables.rs says what a bucket is).\n",
        );
        let _ = writeln!(text, "version {}", info.version);
        let _ = writeln!(text, "seed {}", info.seed);
        let _ = writeln!(text, "rounds {}", info.rounds);
        let _ = writeln!(text, "iterations {}", info.iterations);
        let _ = writeln!(text, "last_change_ppm {}", info.last_change_ppm);
        for slot in Slot::ALL {
            text.push_str(slot.word());
            for count in self.counts.position(slot) {
                let _ = write!(text, " {count}");
            }
            text.push('\n');
        }
        text
    }

    /// Reads a table file (as [`WinTable::to_text`] writes it).
    pub fn parse(text: &str) -> Result<WinTable, TableError> {
        let mut fields: [Option<u64>; 5] = [None; 5];
        const NAMES: [&str; 5] = ["version", "seed", "rounds", "iterations", "last_change_ppm"];
        let mut positions: [Option<Vec<u64>>; 3] = [None, None, None];
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |problem: String| TableError::Line {
                line: number + 1,
                problem,
            };
            let mut words = line.split_ascii_whitespace();
            let key = words.next().unwrap_or_default();
            let numbers = words
                .map(|word| {
                    word.parse::<u64>()
                        .map_err(|_| bad(format!("{word:?} is not a count")))
                })
                .collect::<Result<Vec<u64>, _>>()?;
            if let Some(i) = NAMES.iter().position(|&name| name == key) {
                match numbers.as_slice() {
                    [value] => fields[i] = Some(*value),
                    _ => return Err(bad(format!("{key} takes one number"))),
                }
            } else if let Some(slot) = Slot::ALL.into_iter().find(|slot| slot.word() == key) {
                positions[slot as usize] = Some(numbers);
            } else {
                return Err(bad(format!("unknown key {key:?}")));
            }
        }
        let field = |i: usize| fields[i].ok_or(TableError::Missing(NAMES[i]));
        let version = field(0)?;
        if version != u64::from(FORMAT_VERSION) {
            return Err(TableError::Line {
                line: 0,
                problem: format!("version {version}; this program reads {FORMAT_VERSION}"),
            });
        }
        let info = TableInfo {
            version: FORMAT_VERSION,
            seed: field(1)?,
            rounds: field(2)?,
            iterations: u32::try_from(field(3)?).unwrap_or(u32::MAX),
            last_change_ppm: field(4)?,
        };
        let buckets = Buckets::get();
        let mut take = |slot: Slot, expected: usize| -> Result<Vec<u64>, TableError> {
            let counts = positions[slot as usize]
                .take()
                .ok_or(TableError::Missing(slot.word()))?;
            if counts.len() != expected {
                return Err(TableError::BucketCount {
                    position: slot,
                    found: counts.len(),
                    expected,
                });
            }
            if counts.iter().all(|&n| n == 0) {
                return Err(TableError::Empty(slot));
            }
            Ok(counts)
        };
        let counts = Counts {
            back: take(Slot::Back, buckets.five.len())?,
            middle: take(Slot::Middle, buckets.five.len())?,
            front: take(Slot::Front, buckets.three.len())?,
        };
        Ok(WinTable { info, counts })
    }

    /// The largest difference, over positions and buckets, between the two tables' cumulative
    /// distributions (the Kolmogorov distance), in parts per million.
    pub fn distance_ppm(&self, other: &WinTable) -> u64 {
        Slot::ALL
            .into_iter()
            .map(|slot| {
                let (a, b) = (self.counts.position(slot), other.counts.position(slot));
                let (total_a, total_b) = (a.iter().sum::<u64>(), b.iter().sum::<u64>());
                let (mut sum_a, mut sum_b, mut widest) = (0u64, 0u64, 0u64);
                for (x, y) in a.iter().zip(b) {
                    sum_a += x;
                    sum_b += y;
                    // |sum_a/total_a - sum_b/total_b| in ppm, in integers.
                    let left = u128::from(sum_a) * u128::from(total_b);
                    let right = u128::from(sum_b) * u128::from(total_a);
                    let gap = left.abs_diff(right) * 1_000_000
                        / (u128::from(total_a) * u128::from(total_b)).max(1);
                    widest = widest.max(u64::try_from(gap).unwrap_or(u64::MAX));
                }
                widest
            })
            .max()
            .unwrap_or(0)
    }
}

/// A bucket's identity, the same under both wheel options: size, category and up to two
/// leading ranks (a straight's by its top card).
type BucketId = (u8, u8, u8, u8);

fn bucket_id(value: HandValue) -> BucketId {
    let bits = value.bits();
    let first = ((bits >> 20) & 15) as u8;
    let second = ((bits >> 16) & 15) as u8;
    let category = value.category();
    let ranks = match category {
        // The first nibble is the straight's order under the wheel option; the second its top.
        Category::Straight | Category::StraightFlush => (second, 0),
        Category::FourOfAKind | Category::FullHouse | Category::ThreeOfAKind => (first, 0),
        _ => (first, second),
    };
    (value.size(), category as u8, ranks.0, ranks.1)
}

/// The index of a value's entry in a [`Lookup`] or [`Buckets`] slot table: category and the
/// first two nibbles (the first is up to 13, a straight's order with the wheel second).
#[inline]
fn slot_of(value: HandValue) -> usize {
    let nibble = |shift: u32| (value.bits() >> shift) as usize & 15;
    nibble(24) * 196 + nibble(20) * 14 + nibble(16)
}

const SLOTS: usize = 9 * 196;

/// One bucket under one wheel option: its identity and its lowest and highest value.
#[derive(Debug, Clone, Copy)]
struct BucketRange {
    id: BucketId,
    lo: u32,
    hi: u32,
}

/// Every 5-card and 3-card value, grouped into buckets ordered by value under a wheel option.
fn bucket_ranges(size: u8, wheel: Wheel) -> Vec<BucketRange> {
    let mut ranges: Vec<BucketRange> = Vec::new();
    let mut add = |value: HandValue| {
        let id = bucket_id(value);
        match ranges.iter_mut().find(|range| range.id == id) {
            Some(range) => {
                range.lo = range.lo.min(value.bits());
                range.hi = range.hi.max(value.bits());
            }
            None => ranges.push(BucketRange {
                id,
                lo: value.bits(),
                hi: value.bits(),
            }),
        }
    };
    for_each_value(size, wheel, &mut add);
    ranges.sort_by_key(|range| range.lo);
    ranges
}

/// Calls `visit` with every value of a `size`-card hand (7,462 for 5 cards, 455 for 3).
fn for_each_value(size: u8, wheel: Wheel, visit: &mut dyn FnMut(HandValue)) {
    let evaluator = Evaluator::new(wheel);
    let mut counts = [0u8; 13];
    for_each_multiset(&mut counts, 0, size, &mut |counts| {
        // The k-th card of a rank gets the k-th suit; for five different ranks one card moves
        // to another suit (no flush), and an all-clubs copy gives the flush.
        let mut cards = Vec::with_capacity(5);
        for (rank, &n) in counts.iter().enumerate() {
            for suit in 0..n {
                cards.push(Card::new(
                    Rank::from_index(rank as u8),
                    Suit::from_index(suit),
                ));
            }
        }
        if size == 3 {
            if let Ok(front) = <[Card; 3]>::try_from(cards.as_slice()) {
                visit(evaluate_front(front));
            }
            return;
        }
        if let Ok(mut hand) = <[Card; 5]>::try_from(cards.as_slice()) {
            if counts.iter().all(|&n| n <= 1) {
                visit(evaluator.evaluate(hand));
                hand[0] = Card::new(hand[0].rank(), Suit::Diamonds);
            }
            visit(evaluator.evaluate(hand));
        }
    });
}

/// The canonical bucket order (wheel lowest) and each value slot's bucket in it.
struct Buckets {
    five: Vec<BucketRange>,
    three: Vec<BucketRange>,
    five_slot: Vec<u16>,
    three_slot: Vec<u16>,
}

impl Buckets {
    fn get() -> &'static Buckets {
        static BUCKETS: OnceLock<Buckets> = OnceLock::new();
        BUCKETS.get_or_init(|| {
            let five = bucket_ranges(5, Wheel::Lowest);
            let three = bucket_ranges(3, Wheel::Lowest);
            let slots = |size: u8, ranges: &[BucketRange]| {
                let mut slots = vec![0u16; SLOTS];
                for_each_value(size, Wheel::Lowest, &mut |value| {
                    let id = bucket_id(value);
                    let bucket = ranges.iter().position(|range| range.id == id);
                    slots[slot_of(value)] = bucket.unwrap_or(0) as u16;
                });
                slots
            };
            Buckets {
                five_slot: slots(5, &five),
                three_slot: slots(3, &three),
                five,
                three,
            }
        })
    }

    /// The canonical bucket of a 5-card value evaluated with the wheel lowest.
    fn five_bucket(&self, value: HandValue) -> usize {
        usize::from(self.five_slot[slot_of(value) % SLOTS])
    }

    fn three_bucket(&self, value: HandValue) -> usize {
        usize::from(self.three_slot[slot_of(value) % SLOTS])
    }
}

/// What the lookup holds for one value slot: the cumulative share of opposing hands below the
/// slot's bucket (`base`) and up to its top (`top`), and the linear step within the bucket.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    base: f32,
    top: f32,
    lo: u32,
    step: f32,
}

impl Entry {
    /// The win probability of a value in this entry's slot (see [`Lookup::win`]).
    #[inline]
    fn win(self, value: HandValue, tie_share: f32) -> f32 {
        let within = value.bits().wrapping_sub(self.lo) as f32 + tie_share;
        let win = self.base + self.step * within;
        // `f32::min` without its NaN handling: none of these is NaN.
        if win < self.top {
            win
        } else {
            self.top
        }
    }
}

/// A table turned into win probabilities under one wheel option: for a value at a position,
/// the probability that it beats the opposing hand there.
#[derive(Debug, Clone)]
pub struct Lookup {
    positions: [Vec<Entry>; 3],
}

impl Lookup {
    pub fn new(table: &WinTable, wheel: Wheel) -> Lookup {
        let canonical = Buckets::get();
        let position = |slot: Slot| -> Vec<Entry> {
            let (size, order) = match slot {
                Slot::Front => (3, &canonical.three),
                _ => (5, &canonical.five),
            };
            let counts = table.counts.position(slot);
            let total = counts.iter().sum::<u64>().max(1) as f64;
            let mut entries = vec![Entry::default(); SLOTS];
            let mut below = 0u64;
            let ranges = bucket_ranges(size, wheel);
            let mut per_bucket = Vec::with_capacity(ranges.len());
            for range in &ranges {
                let count = order
                    .iter()
                    .position(|canon| canon.id == range.id)
                    .and_then(|i| counts.get(i))
                    .copied()
                    .unwrap_or(0);
                let base = (below as f64 / total) as f32;
                below += count;
                let top = (below as f64 / total) as f32;
                let width = f64::from(range.hi - range.lo) + 1.0;
                per_bucket.push((
                    range.id,
                    Entry {
                        base,
                        top,
                        lo: range.lo,
                        step: ((f64::from(top) - f64::from(base)) / width) as f32,
                    },
                ));
            }
            for_each_value(size, wheel, &mut |value| {
                let id = bucket_id(value);
                if let Some((_, entry)) = per_bucket.iter().find(|(bucket, _)| *bucket == id) {
                    entries[slot_of(value)] = *entry;
                }
            });
            entries
        };
        Lookup {
            positions: [
                position(Slot::Back),
                position(Slot::Middle),
                position(Slot::Front),
            ],
        }
    }

    /// The probability that `value` at `slot` beats the opposing hand, where `tie_share` is
    /// the part of exact ties it takes (1 for the dealer when ties go to the dealer, 0 for the
    /// player, one half when suits decide). Never decreases as the value rises.
    #[inline]
    pub fn win(&self, slot: Slot, value: HandValue, tie_share: f32) -> f32 {
        self.positions[slot as usize][slot_of(value) % SLOTS].win(value, tie_share)
    }

    /// [`Lookup::win`] at the back and at the middle, for a 5-card value: the house way needs
    /// both for every 5 of a deal's 13 cards, and they share the value's slot.
    #[inline]
    pub fn win_back_and_middle(&self, value: HandValue, tie_share: f32) -> (f32, f32) {
        let slot = slot_of(value) % SLOTS;
        let [back, middle, _] = &self.positions;
        (
            back[slot].win(value, tie_share),
            middle[slot].win(value, tie_share),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::parse_cards;

    #[test]
    fn there_are_7462_five_card_and_455_three_card_values() {
        for wheel in [Wheel::Lowest, Wheel::Second] {
            let mut five = Vec::new();
            for_each_value(5, wheel, &mut |value| five.push(value));
            five.sort_unstable();
            five.dedup();
            assert_eq!(five.len(), 7462);
            let mut three = Vec::new();
            for_each_value(3, wheel, &mut |value| three.push(value));
            three.sort_unstable();
            three.dedup();
            assert_eq!(three.len(), 455);
        }
    }

    #[test]
    fn buckets_do_not_overlap_and_are_the_same_under_both_wheels() {
        for size in [3, 5] {
            let lowest = bucket_ranges(size, Wheel::Lowest);
            for pair in lowest.windows(2) {
                assert!(
                    pair[0].hi < pair[1].lo,
                    "{:?} overlaps {:?}",
                    pair[0],
                    pair[1]
                );
            }
            let mut second: Vec<BucketId> = bucket_ranges(size, Wheel::Second)
                .iter()
                .map(|r| r.id)
                .collect();
            let mut ids: Vec<BucketId> = lowest.iter().map(|r| r.id).collect();
            second.sort_unstable();
            ids.sort_unstable();
            assert_eq!(ids, second);
        }
    }

    #[test]
    fn the_shipped_table_is_readable_and_round_trips() {
        let table = WinTable::parse(SHIPPED).expect("the shipped table parses");
        assert_eq!(
            table.to_text(),
            SHIPPED,
            "the file is exactly what to_text writes"
        );
        assert_eq!(WinTable::parse(&table.to_text()), Ok(table));
    }

    #[test]
    fn a_table_with_the_wrong_number_of_buckets_is_refused() {
        let text = SHIPPED.replacen("front ", "front 7 ", 1);
        assert!(matches!(
            WinTable::parse(&text),
            Err(TableError::BucketCount {
                position: Slot::Front,
                ..
            })
        ));
        let text = SHIPPED.replacen("version 1", "version 2", 1);
        assert!(WinTable::parse(&text).is_err());
    }

    /// A line that does not read is named by its number in the file, counting from 1 with the
    /// comments.
    #[test]
    fn a_line_that_does_not_read_is_named_by_its_number() {
        let seed_line = SHIPPED
            .lines()
            .position(|line| line.starts_with("seed "))
            .expect("a seed line")
            + 1;
        assert!(seed_line > 2, "comments come first");
        let seed = SHIPPED.lines().nth(seed_line - 1).expect("the line");
        let text = SHIPPED.replacen(&format!("\n{seed}\n"), "\nseed twelve\n", 1);
        assert_eq!(
            WinTable::parse(&text),
            Err(TableError::Line {
                line: seed_line,
                problem: "\"twelve\" is not a count".to_owned(),
            })
        );
    }

    /// A set is counted once at each position, in the bucket whose range holds its value there.
    #[test]
    fn a_set_is_counted_in_the_bucket_of_each_of_its_values() {
        let cards = |text: &str| parse_cards(text).expect("cards");
        let evaluator = Evaluator::new(Wheel::Lowest);
        let five = |text: &str| {
            evaluator.evaluate(<[Card; 5]>::try_from(cards(text).as_slice()).expect("5 cards"))
        };
        let three = |text: &str| {
            evaluate_front(<[Card; 3]>::try_from(cards(text).as_slice()).expect("3 cards"))
        };
        let buckets = Buckets::get();
        for (back, middle, front) in [
            ("As Ad Ah Ks Kd", "9c 9d 5h 4s 2c", "Qc Qd 3h"),
            ("7c 8c 9c Tc Jc", "2d 3d 4d 5d 7d", "Ac Kd Jh"),
            ("Kh Qs 9d 6c 4h", "Jh 9s 7d 5c 3h", "4c 3d 2h"),
        ] {
            let values = [five(back), five(middle), three(front)];
            let mut counts = Counts::zero();
            counts.add(values);
            for (slot, value, ranges) in [
                (Slot::Back, values[0], &buckets.five),
                (Slot::Middle, values[1], &buckets.five),
                (Slot::Front, values[2], &buckets.three),
            ] {
                let counted: Vec<usize> = (0..ranges.len())
                    .filter(|&i| counts.position(slot)[i] > 0)
                    .collect();
                assert_eq!(counted.len(), 1, "{slot}: {counted:?}");
                assert_eq!(counts.position(slot)[counted[0]], 1);
                let range = ranges[counted[0]];
                assert!(
                    range.lo <= value.bits() && value.bits() <= range.hi,
                    "{slot}: {} counted in {range:?}",
                    value.name()
                );
            }
        }
    }

    /// The search's bounds rely on this: a higher value never has a lower win probability.
    #[test]
    fn win_probability_rises_with_the_value_at_every_position() {
        for wheel in [Wheel::Lowest, Wheel::Second] {
            let lookup = Lookup::new(WinTable::shipped(), wheel);
            for (slot, size) in [(Slot::Back, 5), (Slot::Middle, 5), (Slot::Front, 3)] {
                let mut values = Vec::new();
                for_each_value(size, wheel, &mut |value| values.push(value));
                values.sort_unstable();
                values.dedup();
                for share in [0.0, 0.5, 1.0] {
                    let probs: Vec<f32> =
                        values.iter().map(|&v| lookup.win(slot, v, share)).collect();
                    for (pair, vs) in probs.windows(2).zip(values.windows(2)) {
                        assert!(
                            pair[0] <= pair[1],
                            "{slot}: {} wins {} but {} only {}",
                            vs[0].name(),
                            pair[0],
                            vs[1].name(),
                            pair[1]
                        );
                    }
                    assert!(probs[0] >= 0.0 && probs[probs.len() - 1] <= 1.0);
                }
            }
        }
    }

    #[test]
    fn a_tie_share_of_one_wins_at_least_as_often_as_none() {
        let lookup = WinTable::shipped_lookup(Wheel::Lowest);
        let cards = parse_cards("9c 9d 5h 4s 2c").expect("cards");
        let value = Evaluator::new(Wheel::Lowest)
            .evaluate(<[Card; 5]>::try_from(cards.as_slice()).expect("5"));
        assert!(lookup.win(Slot::Middle, value, 1.0) > lookup.win(Slot::Middle, value, 0.0));
    }

    #[test]
    fn distance_is_zero_to_itself_and_counts_a_moved_share() {
        let table = WinTable::shipped().clone();
        assert_eq!(table.distance_ppm(&table), 0);
        let mut moved = table.clone();
        // A tenth more fronts in the top bucket.
        let total: u64 = moved.counts.front.iter().sum();
        let last = moved.counts.front.len() - 1;
        moved.counts.front[last] += total / 10;
        assert!(table.distance_ppm(&moved) > 50_000);
    }

    /// The distance in figures: fronts all in the lowest bucket against half of them in the
    /// top one differ by half of all fronts below the top (500,000 ppm); a third moved, by a
    /// third (333,333: rounded down).
    #[test]
    fn the_distance_is_the_widest_gap_between_the_shares_in_millionths() {
        let with_fronts = |low: u64, top: u64| {
            let mut table = WinTable::shipped().clone();
            table.counts = Counts::zero();
            let last = table.counts.front.len() - 1;
            table.counts.front[0] = low;
            table.counts.front[last] = top;
            table
        };
        let all_low = with_fronts(6, 0);
        assert_eq!(all_low.distance_ppm(&with_fronts(3, 3)), 500_000);
        assert_eq!(all_low.distance_ppm(&with_fronts(4, 2)), 333_333);
        assert_eq!(with_fronts(3, 3).distance_ppm(&all_low), 500_000);
    }
}
