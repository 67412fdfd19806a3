//! The house edge of a banking table's rules (docs/rules.md §14), by simulation: the dealer
//! sets by the house way, the three seats are a reference player who also sets by the house
//! way (the player's side of it: exact ties go to the dealer) and never surrenders, every seat
//! bets one unit, and the settlement engine settles the round under the profile. The edge is
//! the dealer's mean result per seat. Pure: the deals come from the caller.

use crate::rules::houseway::simulate::Deal;
use crate::rules::houseway::{house_way, Side};
use crate::rules::money::Money;
use crate::rules::place::SeatNo;
use crate::rules::profile::RuleProfile;
use crate::rules::rating::{edge_of, Edge};
use crate::rules::round::{DealerPlay, Declaration, Round, SeatPlay};
use crate::rules::settle::settle;

/// The dealer's result per seat of one deal under `profile`, in bet units.
pub fn dealer_per_seat(deal: &Deal, profile: &RuleProfile) -> f64 {
    // A deal is four hands of 13 distinct cards from one deck: the house way always finds a
    // set, and the round always settles. Should either fail, the deal counts as even.
    let set = |cards, side| house_way(cards, profile, side).map(|choice| choice.set);
    let Ok(dealer) = set(&deal[0], Side::Dealer) else {
        return 0.0;
    };
    let mut seats = Vec::with_capacity(3);
    for (&seat, cards) in SeatNo::ALL.iter().zip(&deal[1..]) {
        let Ok(hands) = set(cards, Side::Player) else {
            return 0.0;
        };
        seats.push(SeatPlay {
            seat,
            bet: Money::from_minor_units(1),
            declaration: Declaration::Play,
            hands: Some(hands),
            dealt: None,
        });
    }
    let dealer = DealerPlay {
        declaration: Declaration::Play,
        hands: Some(dealer),
        dealt: None,
    };
    match Round::new(*profile, dealer, seats).and_then(|round| settle(&round)) {
        Ok(settlement) => settlement.dealer.result.minor_units() as f64 / 3.0,
        Err(_) => 0.0,
    }
}

/// The edge of `profile` over `deals`.
pub fn house_edge(deals: &[Deal], profile: &RuleProfile) -> Option<Edge> {
    let per_deal: Vec<f64> = deals
        .iter()
        .map(|deal| dealer_per_seat(deal, profile))
        .collect();
    edge_of(&per_deal)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rules::houseway::simulate::{deal_of, fixed_shuffle};
    use crate::rules::profile::TieRule;

    fn deals(n: u64) -> Vec<Deal> {
        (0..n).map(|seed| deal_of(&fixed_shuffle(seed))).collect()
    }

    #[test]
    fn the_edge_is_small_positive_for_the_house_and_known_within_its_interval() {
        let edge = house_edge(&deals(400), &RuleProfile::default()).unwrap();
        assert_eq!(edge.deals, 400);
        // Both sides set alike; the dealer takes exact ties: a few percent at most, and the
        // interval of 400 deals is wide.
        assert!(edge.edge_ppm.abs() < 150_000, "{edge:?}");
        assert!(
            edge.half_width_ppm > 10_000 && edge.half_width_ppm < 200_000,
            "{edge:?}"
        );
    }

    #[test]
    fn ties_to_the_dealer_are_worth_more_to_the_house_than_ties_by_suit() {
        let deals = deals(300);
        let dealer_wins = RuleProfile {
            ties: TieRule::DealerWins,
            ..RuleProfile::default()
        };
        let by_suit = RuleProfile {
            ties: TieRule::SuitOrder,
            ..RuleProfile::default()
        };
        let a = house_edge(&deals, &dealer_wins).unwrap().edge_ppm;
        let b = house_edge(&deals, &by_suit).unwrap().edge_ppm;
        assert!(a > b, "dealer takes ties {a} ppm, ties by suit {b} ppm");
    }
}
