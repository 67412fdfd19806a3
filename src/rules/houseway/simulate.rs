//! Simulated play for the house way: building the win table from deals (every place sets by
//! the previous table's house way until the table stops changing), and playing a dealer
//! strategy against players who follow the house way.
//!
//! Pure: the deals come from the caller (the CLI shuffles them from a seed), and so does the
//! way a tally is spread over threads.

use crate::rules::card::{Card, Rank, Suit};
use crate::rules::money::Money;
use crate::rules::place::SeatNo;
use crate::rules::profile::{RuleProfile, Wheel};
use crate::rules::round::{DealerPlay, Declaration, Round, SeatPlay};
use crate::rules::set_hand::SetHand;
use crate::rules::settle::settle;

use super::split::{Split, Subsets};
use super::tables::{Counts, Lookup, TableInfo, WinTable, FORMAT_VERSION};
use super::{best_back_first, best_split, Chances, Side};

/// One round's deal: the dealer's 13 cards, then seats 1, 2 and 3.
pub type Deal = [[Card; 13]; 4];

/// The deal of a shuffled deck: cards 0..13 to the dealer, then 13 to each seat.
pub fn deal_of(deck: &[Card; 52]) -> Deal {
    let mut deal = [[deck[0]; 13]; 4];
    for (place, hand) in deal.iter_mut().enumerate() {
        hand.copy_from_slice(&deck[13 * place..13 * (place + 1)]);
    }
    deal
}

/// A fixed shuffle of the deck from a seed (xorshift64* driving Fisher-Yates), for tests and
/// benches that need the same deals on every run; real deals come from the CLI's ChaCha8.
pub fn fixed_shuffle(seed: u64) -> [Card; 52] {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut deck = [Card::new(Rank::Two, Suit::Clubs); 52];
    for (slot, card) in deck.iter_mut().zip(Card::all()) {
        *slot = card;
    }
    for i in (1..deck.len()).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let j = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % (i as u64 + 1)) as usize;
        deck.swap(i, j);
    }
    deck
}

/// How the places set their cards while a table is built.
#[derive(Debug, Clone, Copy)]
pub enum Strategy<'a> {
    BestBackFirst,
    HouseWay(&'a Lookup),
}

/// The split a place makes under a strategy (the default profile: the build's rules).
fn set_by(subsets: &Subsets, strategy: Strategy<'_>, side: Side) -> Split {
    match strategy {
        Strategy::BestBackFirst => best_back_first(subsets),
        Strategy::HouseWay(lookup) => best_split(subsets, &Chances::new(subsets, lookup, side)).0,
    }
}

/// Every place of every deal sets by the strategy; counts the values of all the sets.
pub fn tally(deals: &[Deal], strategy: Strategy<'_>) -> Counts {
    let profile = RuleProfile::default();
    let mut counts = Counts::zero();
    for deal in deals {
        for (place, cards) in deal.iter().enumerate() {
            let side = if place == 0 {
                Side::Dealer
            } else {
                Side::Player
            };
            // A deal's hands are 13 distinct cards (they come from one deck).
            let Ok(subsets) = Subsets::new(cards, &profile) else {
                continue;
            };
            counts.add(subsets.values(set_by(&subsets, strategy, side)));
        }
    }
    counts
}

/// The build's knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildSettings {
    /// The seed the deals were shuffled from (recorded in the table).
    pub seed: u64,
    /// At most this many house-way rounds after the first (best back first) tally.
    pub max_iterations: u32,
    /// Stop once no position's distribution moved more than this (parts per million).
    pub tolerance_ppm: u64,
}

/// Builds a table from deals by fictitious play: a first tally with every place setting best
/// back first, then rounds in which every place sets by the house way of the current table and
/// the table becomes the sum of all house-way tallies so far. (Answering only the latest
/// table see-saws: strong fronts everywhere make fronts worth less, and back; the running sum
/// damps that.) It stops when a round's sets differ from the previous round's by at most the
/// tolerance, the strategy having settled, or when the rounds run out. `tally` counts a slice
/// of deals (the caller may split it over threads; counts add up the same in any order).
/// `progress` hears each round's number and change.
pub fn build(
    deals: &[Deal],
    settings: &BuildSettings,
    tally: &dyn Fn(&[Deal], Strategy<'_>) -> Counts,
    progress: &mut dyn FnMut(u32, u64),
) -> WinTable {
    let table = |counts: Counts, iterations: u32, last_change_ppm: u64| WinTable {
        info: TableInfo {
            version: FORMAT_VERSION,
            seed: settings.seed,
            rounds: deals.len() as u64,
            iterations,
            last_change_ppm,
        },
        counts,
    };
    let mut previous = table(tally(deals, Strategy::BestBackFirst), 0, 1_000_000);
    let mut current = previous.clone();
    let mut sum = Counts::zero();
    for iteration in 1..=settings.max_iterations {
        let lookup = Lookup::new(&current, Wheel::Lowest);
        let response = table(tally(deals, Strategy::HouseWay(&lookup)), iteration, 0);
        let change = response.distance_ppm(&previous);
        sum.merge(&response.counts);
        current = table(sum.clone(), iteration, change);
        previous = response;
        progress(iteration, change);
        if change <= settings.tolerance_ppm {
            break;
        }
    }
    current
}

/// How a dealer sets in [`play_dealer`].
#[derive(Debug, Clone, Copy)]
pub enum DealerStrategy {
    HouseWay,
    BestBackFirst,
    /// A legal split picked by the given number (taken modulo the count of legal splits).
    RandomLegal(u64),
}

/// Plays one deal under the default profile: the three seats set by the house way (player
/// side, shipped table) and bet 1; the dealer sets by `strategy`. Returns the dealer's result
/// from the settlement engine, in bet units.
pub fn play_dealer(deal: &Deal, strategy: DealerStrategy) -> i64 {
    let profile = RuleProfile::default();
    let lookup = WinTable::shipped_lookup(profile.wheel);
    let set_of = |cards: &[Card; 13], side: Side, strategy: DealerStrategy| -> Option<SetHand> {
        let subsets = Subsets::new(cards, &profile).ok()?;
        let split = match strategy {
            DealerStrategy::HouseWay => {
                best_split(&subsets, &Chances::new(&subsets, lookup, side)).0
            }
            DealerStrategy::BestBackFirst => best_back_first(&subsets),
            DealerStrategy::RandomLegal(pick) => {
                let count = subsets.legal_splits().count() as u64;
                subsets.legal_splits().nth((pick % count.max(1)) as usize)?
            }
        };
        Some(subsets.set_hand(split))
    };
    let Some(dealer) = set_of(&deal[0], Side::Dealer, strategy) else {
        return 0;
    };
    let seats = SeatNo::ALL
        .iter()
        .zip(&deal[1..])
        .filter_map(|(&seat, cards)| {
            Some(SeatPlay {
                seat,
                bet: Money::from_minor_units(1),
                declaration: Declaration::Play,
                hands: Some(set_of(cards, Side::Player, DealerStrategy::HouseWay)?),
                dealt: None,
            })
        });
    let dealer = DealerPlay {
        declaration: Declaration::Play,
        hands: Some(dealer),
        dealt: None,
    };
    match Round::new(profile, dealer, seats.collect::<Vec<_>>()).and_then(|round| settle(&round)) {
        Ok(settlement) => settlement.dealer.result.minor_units(),
        // Sets of dealt cards with bets of 1 always make a valid round.
        Err(error) => unreachable!("a simulated round settles: {error}"),
    }
}
