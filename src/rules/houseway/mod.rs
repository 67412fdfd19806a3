//! The house way: how the house sets a dealer's 13 cards, the same way every time, and how far
//! any recorded set fell short of the best arrangement by that measure.
//!
//! A set's expected result comes from per-position win probabilities ([`tables`]): with `b`,
//! `m`, `f` the chances of taking the back, middle and front, and the hands taken independently,
//! the result per unit bet (3 hands +2, 2 hands +1, 1 hand -1, none -2) has the expectation
//! `b + m + f + bm + bf + mf - 2bmf - 2`. The house way is the legal split with the highest
//! expectation, found by branch and bound over the 1,287 backs ([`split`] enumerates them).

pub mod simulate;
pub mod split;
pub mod tables;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::card::{format_cards, parse_cards_into, Card, ParseCardError, Rank, Suit};
use crate::rules::hand::{compare_front_with_middle, HandValue};
use crate::rules::profile::{RuleProfile, TieRule};
use crate::rules::round::Round;
use crate::rules::set_hand::{SetHand, Slot};
use split::{
    DealtError, Layout, Split, Subsets, FIVE_CARD_SUBSETS, MIDDLES_PER_BACK, THREE_CARD_SUBSETS,
};
use tables::{Lookup, WinTable};

/// Whose hands are being set: the dealer takes exact ties (unless suits decide), a player
/// does not, so the same value is worth a little more to the dealer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Dealer,
    Player,
}

impl Side {
    /// The part of an exact tie this side takes under the profile.
    fn tie_share(self, profile: &RuleProfile) -> f32 {
        match (profile.ties, self) {
            (TieRule::SuitOrder, _) => 0.5,
            (TieRule::DealerWins, Side::Dealer) => 1.0,
            (TieRule::DealerWins, Side::Player) => 0.0,
        }
    }
}

/// The expected result per unit bet for a side that takes the back, middle and front with
/// these probabilities, each independently (docs/rules.md §6.3: +2, +1, -1, -2 for 3..0 hands).
#[inline]
pub fn expected_result(back: f32, middle: f32, front: f32) -> f32 {
    back + middle + front + back * middle + back * front + middle * front
        - 2.0 * back * middle * front
        - 2.0
}

/// A fouled set's expected result: it pays double against a legal opponent.
pub const FOULED_RESULT: f32 = -2.0;

/// The win probability of every subset of one deal at the positions it can take.
pub struct Chances {
    back: [f32; FIVE_CARD_SUBSETS],
    middle: [f32; FIVE_CARD_SUBSETS],
    front: [f32; THREE_CARD_SUBSETS],
}

impl Chances {
    pub fn new(subsets: &Subsets, lookup: &Lookup, side: Side) -> Chances {
        let share = side.tie_share(subsets.profile());
        let mut chances = Chances {
            back: [0.0; FIVE_CARD_SUBSETS],
            middle: [0.0; FIVE_CARD_SUBSETS],
            front: [0.0; THREE_CARD_SUBSETS],
        };
        for ((&value, back), middle) in subsets
            .five
            .iter()
            .zip(&mut chances.back)
            .zip(&mut chances.middle)
        {
            (*back, *middle) = lookup.win_back_and_middle(value, share);
        }
        for (&value, front) in subsets.three.iter().zip(&mut chances.front) {
            *front = lookup.win(Slot::Front, value, share);
        }
        chances
    }

    /// The expected result of a split, legal or not (see [`Choice::ev`] for fouls).
    #[inline]
    pub fn of(&self, split: Split) -> f32 {
        expected_result(
            self.back[usize::from(split.back)],
            self.middle[usize::from(split.middle)],
            self.front[usize::from(split.front)],
        )
    }
}

/// The best split found so far, under the house way's total order: higher expected result,
/// then the higher back, middle and front values, then the lower subset indices (the cards are
/// sorted, so that last step never depends on the order the cards came in).
#[derive(Debug, Clone, Copy)]
struct Best {
    ev: f32,
    split: Option<Split>,
    values: [HandValue; 3],
}

impl Best {
    #[inline]
    fn offer(&mut self, ev: f32, split: Split, values: [HandValue; 3]) {
        let better = match self.split {
            None => true,
            Some(current) => match ev.total_cmp(&self.ev) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => match values.cmp(&self.values) {
                    Ordering::Greater => true,
                    Ordering::Less => false,
                    Ordering::Equal => (split.back, split.middle) < (current.back, current.middle),
                },
            },
        };
        if better {
            *self = Best {
                ev,
                split: Some(split),
                values,
            };
        }
    }
}

/// Slack on the bound, for float rounding: a back is skipped only when its bound is this much
/// below the best found.
const BOUND_SLACK: f32 = 1e-4;

/// The house way's split of a deal for one side, and its expected result: the legal split with
/// the highest [`expected_result`] (ties as [`Best`] orders them).
///
/// Branch and bound over backs: a back's splits cannot beat `expected_result(back, middle
/// bound, best front)`, where the middle bound is the back's own value read as a middle (a
/// legal middle is never above the back, and win probabilities rise with value). Backs are
/// tried from the highest bound down, after the strongest back as a first incumbent, and the
/// search stops at the first bound below the best found. A back taken from the heap is walked
/// only if its own, tighter bound ([`back_bound`]: the best middle and front of the cards it
/// leaves) still reaches the best found.
pub fn best_split(subsets: &Subsets, chances: &Chances) -> (Split, f32) {
    let layout = Layout::get();
    let best_front = largest(&chances.front);
    let best_middle = largest(&chances.middle);
    let mut best = Best {
        ev: f32::NEG_INFINITY,
        split: None,
        values: [subsets.five[0], subsets.five[0], subsets.three[0]],
    };
    let strongest = (0..FIVE_CARD_SUBSETS)
        .max_by_key(|&i| (subsets.five[i], std::cmp::Reverse(i)))
        .unwrap_or(0);
    search_back(subsets, chances, layout, strongest as u16, &mut best);

    // Candidates in a max-heap keyed by bound: a bound is at least -2, so the bits of
    // `bound + 2` order like the bound, and the low bits carry the back's index.
    let key =
        |bound: f32, back: usize| u64::from((bound + 2.0).max(0.0).to_bits()) << 16 | back as u64;
    let mut candidates: Vec<u64> = Vec::with_capacity(512);
    let front_terms = WithOne::new(best_front);
    for i in 0..FIVE_CARD_SUBSETS {
        let bound = front_terms.result(chances.back[i], smaller(chances.middle[i], best_middle));
        if bound + BOUND_SLACK >= best.ev && i != strongest {
            candidates.push(key(bound, i));
        }
    }
    let mut candidates = BinaryHeap::from(candidates);
    while let Some(top) = candidates.pop() {
        let bound = f32::from_bits((top >> 16) as u32) - 2.0;
        if bound + BOUND_SLACK < best.ev {
            break;
        }
        let back = (top & 0xFFFF) as u16;
        if back_bound(chances, layout, back) + BOUND_SLACK >= best.ev {
            search_back(subsets, chances, layout, back, &mut best);
        }
    }
    match best.split {
        Some(split) => (split, best.ev),
        // Every deal has a legal split (the strongest back, the strongest 5 of the rest as the
        // middle, the last 3 as the front; with suit ties, the stronger-suited of two equal
        // hands behind), and the strongest back is always searched, so `best` is set.
        None => unreachable!("a deal always has a legal split"),
    }
}

/// The larger of two chances: `f32::max` without its NaN handling (chances are never NaN), one
/// instruction in the search's loops.
#[inline]
fn larger(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// The smaller of two chances (see [`larger`]).
#[inline]
fn smaller(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// Running maxima kept side by side in the search's loops: one chain of [`larger`] would wait
/// on its own last result at every step, these lanes do not wait on each other. The maximum
/// does not depend on the grouping, so the answers are the same as with one chain.
const LANES: usize = 4;
const _: () = assert!(MIDDLES_PER_BACK.is_multiple_of(LANES));

/// The largest of the chances, or 0 (see [`LANES`]).
#[inline]
fn largest(chances: &[f32]) -> f32 {
    let (groups, rest) = chances.as_chunks::<LANES>();
    let mut lanes = [0.0f32; LANES];
    for group in groups {
        for (lane, &chance) in lanes.iter_mut().zip(group) {
            *lane = larger(*lane, chance);
        }
    }
    rest.iter()
        .copied()
        .fold(lanes.into_iter().fold(0.0, larger), larger)
}

/// [`expected_result`] with one chance fixed, written as `c0 + c1 (x + y) + c2 x y`: half its
/// operations, for the search's bounds. It rounds differently from [`expected_result`] by a few
/// units in the last place, far inside [`BOUND_SLACK`], so it serves only as a bound: every
/// result that is compared or reported comes from [`expected_result`].
#[derive(Clone, Copy)]
struct WithOne {
    constant: f32,
    linear: f32,
    product: f32,
}

impl WithOne {
    #[inline]
    fn new(fixed: f32) -> WithOne {
        WithOne {
            constant: fixed - 2.0,
            linear: 1.0 + fixed,
            product: 1.0 - 2.0 * fixed,
        }
    }

    #[inline]
    fn result(self, x: f32, y: f32) -> f32 {
        self.constant + self.linear * (x + y) + self.product * (x * y)
    }
}

/// A back's own bound, tighter than the one the backs are ordered by: its splits cannot beat
/// `expected_result(back, best middle, best front)` over the 8 cards it leaves, where a middle
/// counts only if its chance is not above the back's own value read as a middle (as in
/// [`best_split`]). Two maxima over the back's 56 (middle, front) pairs, without branches.
#[inline]
fn back_bound(chances: &Chances, layout: &Layout, back: u16) -> f32 {
    let own_middle = chances.middle[usize::from(back)];
    let (mut middle_bound, mut front_bound) = ([0.0f32; LANES], [0.0f32; LANES]);
    let (groups, _) = layout.rest[usize::from(back)].as_chunks::<LANES>();
    for group in groups {
        for (lane, &(middle, front)) in group.iter().enumerate() {
            let middle = chances.middle[usize::from(middle)];
            let middle = if middle <= own_middle { middle } else { 0.0 };
            middle_bound[lane] = larger(middle_bound[lane], middle);
            front_bound[lane] = larger(front_bound[lane], chances.front[usize::from(front)]);
        }
    }
    expected_result(
        chances.back[usize::from(back)],
        middle_bound.into_iter().fold(0.0, larger),
        front_bound.into_iter().fold(0.0, larger),
    )
}

/// Offers every legal split with this back to `best`.
///
/// Most backs searched have no split as good as the best found: a first pass takes the highest
/// result (as a bound, [`WithOne`]) of the splits whose middle's chance is not above the back's
/// own value read as a middle (every legal split's is not), and only a back where that reaches
/// the best is walked split by split. The pass discards the others by setting their result's
/// bits to a NaN, which no comparison takes, rather than by a branch the processor would
/// mispredict.
#[inline]
fn search_back(subsets: &Subsets, chances: &Chances, layout: &Layout, back: u16, best: &mut Best) {
    let back_value = subsets.five[usize::from(back)];
    let back_chance = chances.back[usize::from(back)];
    let own_middle = chances.middle[usize::from(back)];
    let pairs = &layout.rest[usize::from(back)];
    let back_terms = WithOne::new(back_chance);
    let mut highest = [f32::NEG_INFINITY; LANES];
    let (groups, _) = pairs.as_chunks::<LANES>();
    for group in groups {
        for (lane, &(middle, front)) in group.iter().enumerate() {
            let middle = chances.middle[usize::from(middle)];
            let ev = back_terms.result(middle, chances.front[usize::from(front)]);
            let discard = u32::from(middle > own_middle).wrapping_neg() & 0xFFC0_0000;
            let ev = f32::from_bits(ev.to_bits() | discard);
            highest[lane] = if ev > highest[lane] {
                ev
            } else {
                highest[lane]
            };
        }
    }
    let highest = highest
        .into_iter()
        .fold(f32::NEG_INFINITY, |a, b| if b > a { b } else { a });
    if highest + BOUND_SLACK < best.ev {
        return;
    }
    for &(middle, front) in pairs {
        let middle_value = subsets.five[usize::from(middle)];
        if middle_value > back_value {
            continue;
        }
        let ev = expected_result(
            back_chance,
            chances.middle[usize::from(middle)],
            chances.front[usize::from(front)],
        );
        if ev < best.ev {
            continue;
        }
        let front_value = subsets.three[usize::from(front)];
        if compare_front_with_middle(front_value, middle_value) == Ordering::Greater
            || !subsets.middle_fits(back, back_value, middle, middle_value)
        {
            continue;
        }
        let split = Split {
            back,
            middle,
            front,
        };
        best.offer(ev, split, [back_value, middle_value, front_value]);
    }
}

/// The set the house way chose and its expected result per unit bet (against one opposing
/// hand that sets by the same house way).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    pub set: SetHand,
    pub ev: f64,
}

/// The house way for a deal, with the shipped table.
pub fn house_way(cards: &[Card], profile: &RuleProfile, side: Side) -> Result<Choice, DealtError> {
    let subsets = Subsets::new(cards, profile)?;
    let chances = Chances::new(&subsets, WinTable::shipped_lookup(profile.wheel), side);
    let (split, ev) = best_split(&subsets, &chances);
    Ok(Choice {
        set: subsets.set_hand(split),
        ev: f64::from(ev),
    })
}

/// A recorded set measured against the house way of its 13 cards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Analysis {
    /// The house way's set of the same cards.
    pub best: SetHand,
    pub best_ev: f64,
    /// The recorded set's expected result by the same measure ([`FOULED_RESULT`] if fouled).
    pub recorded_ev: f64,
    pub recorded_fouled: bool,
    /// `best_ev - recorded_ev`: never negative.
    pub ev_given_up: f64,
    /// Whether the recorded hands have the house way's values at all three positions (cards of
    /// equal rank may have been swapped).
    pub same_as_house_way: bool,
}

/// Measures a place's recorded set against the house way (dealer or player side).
pub fn analyse(recorded: &SetHand, profile: &RuleProfile, side: Side) -> Analysis {
    let cards: Vec<Card> = recorded.all_cards().collect();
    let subsets = match Subsets::new(&cards, profile) {
        Ok(subsets) => subsets,
        // A SetHand holds 13 distinct cards by construction.
        Err(error) => unreachable!("a set hand is a deal: {error}"),
    };
    let chances = Chances::new(&subsets, WinTable::shipped_lookup(profile.wheel), side);
    let (split, best_ev) = best_split(&subsets, &chances);
    let recorded_fouled = recorded.is_fouled(profile);
    let recorded_ev = match subsets.split_of(recorded) {
        Some(own) if !recorded_fouled => chances.of(own),
        _ => FOULED_RESULT,
    };
    let best = subsets.set_hand(split);
    Analysis {
        best,
        best_ev: f64::from(best_ev),
        recorded_ev: f64::from(recorded_ev),
        recorded_fouled,
        ev_given_up: f64::from(best_ev - recorded_ev),
        same_as_house_way: best.values(profile.wheel) == recorded.values(profile.wheel),
    }
}

/// The house way's analysis of the dealer's set when the round's profile requires the dealer
/// to set by the house way and the recorded set differs from it (other values at some
/// position; cards of equal rank swapped are the same set). `None` when the profile does not
/// require it, the dealer set no hands (a surrender or a royalty), or the set is the house way's.
pub fn dealer_departure(round: &Round) -> Option<Analysis> {
    let profile = round.profile();
    if !profile.house_way {
        return None;
    }
    let hands = round.dealer().hands.as_ref()?;
    let analysis = analyse(hands, profile, Side::Dealer);
    (!analysis.same_as_house_way).then_some(analysis)
}

/// A hand's cards high to low, as the house way's sets are written (`As Kd 9c 9h 2s`).
pub fn hand_text(cards: &[Card]) -> String {
    let mut cards = cards.to_vec();
    cards.sort_unstable_by(|a, b| b.cmp(a));
    format_cards(&cards)
}

/// "Best back first": the strongest 5 cards in the back, the strongest legal middle of the
/// rest behind it. The simple strategy the house way is measured against, and the first
/// strategy of the table build.
pub fn best_back_first(subsets: &Subsets) -> Split {
    let layout = Layout::get();
    let mut backs: Vec<u16> = (0..FIVE_CARD_SUBSETS as u16).collect();
    backs.sort_by_key(|&i| (std::cmp::Reverse(subsets.five[usize::from(i)]), i));
    let mut best: Option<(Split, [HandValue; 3])> = None;
    for back in backs {
        for &(middle, front) in &layout.rest[usize::from(back)] {
            let split = Split {
                back,
                middle,
                front,
            };
            let values = subsets.values(split);
            if subsets.is_legal(split) && best.is_none_or(|(_, current)| values > current) {
                best = Some((split, values));
            }
        }
        if let Some((split, _)) = best {
            return split;
        }
    }
    // As in `best_split`: every deal has a legal split, so some back yields one.
    unreachable!("a deal always has a legal split")
}

/// The house way in plain words, with the table's version, for the pit's pages and `--help`.
pub fn description() -> String {
    let version = match WinTable::try_shipped() {
        Ok(WinTable { info, .. }) => format!(
            "table version {}: seed {}, {} simulated deals, {} rounds of refinement, \
             last change {:.2}%",
            info.version,
            info.seed,
            info.rounds,
            info.iterations,
            info.last_change_ppm as f64 / 10_000.0
        ),
        Err(error) => format!("the shipped table cannot be read: {error}"),
    };
    format!(
        "House way ({version}). \
         The house tries every legal way to set the 13 cards into back, middle and front \
         (72,072 ways in all, fouled ones left out) and takes the one with the highest \
         expected result. For each hand it looks up how often a hand of that strength wins \
         its position against the hands players set; the table comes from simulating deals in \
         which every player and the dealer set their cards by the house way itself, repeated \
         until the table stops changing. Taking all three hands is worth +2, two +1, one -1, \
         none -2; the expected result weighs these by the three chances. When two ways are \
         worth the same, the one with the stronger back (then middle, then front) is chosen, \
         so the same cards are always set the same way."
    )
}

/// Why a `houseway --batch` line has no answer.
#[derive(Debug, Error)]
pub enum HouseWayError {
    #[error("not a hand: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cards: {0}")]
    Cards(#[from] ParseCardError),
    #[error("cards: {0}")]
    Dealt(#[from] DealtError),
}

/// One `houseway --batch` line: 13 cards and optional rules, as `settle` takes them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandIn<'a> {
    #[serde(borrow)]
    pub cards: Cow<'a, str>,
    #[serde(default)]
    pub rules: RuleProfile,
}

/// The answer to one line: the house way's hands (cards high to low) and its expected result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HouseWayOut {
    pub back: String,
    pub middle: String,
    pub front: String,
    pub ev: f64,
}

impl HouseWayOut {
    pub fn new(choice: &Choice) -> HouseWayOut {
        HouseWayOut {
            back: hand_text(choice.set.back()),
            middle: hand_text(choice.set.middle()),
            front: hand_text(choice.set.front()),
            ev: rounded_ev(choice.ev),
        }
    }
}

/// The expected result as answers give it: four decimals, as the tables are not finer than that.
pub fn rounded_ev(ev: f64) -> f64 {
    (ev * 10_000.0).round() / 10_000.0
}

/// Answers one `houseway --batch` line (the dealer's house way).
pub fn house_way_json(line: &str) -> Result<HouseWayOut, HouseWayError> {
    house_way_line(line).map(|choice| HouseWayOut::new(&choice))
}

/// The house way's choice for one `houseway --batch` line, without building its text (the
/// batch writes it straight into its output). Nothing is allocated unless the line's cards
/// are written with JSON escapes.
pub fn house_way_line(line: &str) -> Result<Choice, HouseWayError> {
    let hand: HandIn<'_> = serde_json::from_str(line)?;
    // A deal is 13 cards; the cards past the 13th are only counted, for the error.
    let mut cards = [Card::new(Rank::Two, Suit::Clubs); 13];
    let mut count = 0;
    parse_cards_into(&hand.cards, |card| {
        if let Some(slot) = cards.get_mut(count) {
            *slot = card;
        }
        count += 1;
    })?;
    if count != cards.len() {
        return Err(DealtError::WrongCount { count }.into());
    }
    Ok(house_way(&cards, &hand.rules, Side::Dealer)?)
}

#[cfg(test)]
mod tests;
