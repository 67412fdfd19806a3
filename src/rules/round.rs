//! A round of the banking game as dealt, declared and set (docs/rules.md §1-2, §4 and §5),
//! validated once: [`Round::new`] checks bets, cards and declarations against the profile, so
//! a [`Round`] that exists can be settled (see `settle`).

use std::fmt;

use thiserror::Error;

use crate::rules::card::{Card, Rank, Suit};
use crate::rules::money::Money;
use crate::rules::place::{Place, SeatNo};
use crate::rules::profile::RuleProfile;
use crate::rules::royalty::{self, Royalty};
use crate::rules::set_hand::SetHand;

/// What a place did before setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Declaration {
    /// Stayed in (and set hands if the round got that far).
    Play,
    Surrender,
    /// Exposed a royalty; `Some` names the claim, `None` means whatever the cards hold.
    Royalty(Option<Royalty>),
}

/// The dealer's part of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealerPlay {
    pub declaration: Declaration,
    pub hands: Option<SetHand>,
    pub dealt: Option<[Card; 13]>,
}

/// One occupied player seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatPlay {
    pub seat: SeatNo,
    pub bet: Money,
    pub declaration: Declaration,
    pub hands: Option<SetHand>,
    pub dealt: Option<[Card; 13]>,
}

/// Cards that cannot have been dealt that way. `P` names a place: the dealer or a seat in the
/// banking game, a player seat in the points game.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealError<P: fmt::Display = Place> {
    #[error("{card} was dealt twice: to {first} and to {second}")]
    DuplicateCard { card: Card, first: P, second: P },
    #[error("{place} was dealt {card} twice")]
    RepeatedInDealt { place: P, card: Card },
    #[error("{place} set {card}, which was not dealt to {place}")]
    SetNotDealt { place: P, card: Card },
    #[error("{place} was dealt {count} cards; a deal is 13")]
    WrongDealtCount { place: P, count: usize },
}

/// A round that breaks the rules, or cannot be paid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettlementError {
    #[error(transparent)]
    Deal(#[from] DealError),
    #[error("seat {0} appears twice in the round")]
    DuplicateSeat(SeatNo),
    #[error("seat {seat} bet {bet}; a bet must be more than 0")]
    NonPositiveBet { seat: SeatNo, bet: Money },
    #[error("{place} surrendered, but surrender is off at this table")]
    SurrenderOff { place: Place },
    #[error("{place} declared a royalty, but royalties are off at this table")]
    RoyaltiesOff { place: Place },
    #[error("{place} declared a royalty, but the 13 cards dealt were not recorded")]
    RoyaltyWithoutDeal { place: Place },
    #[error("{place} declared {}, but the cards dealt do not hold it", claim_words(*.claim))]
    RoyaltyNotHeld {
        place: Place,
        claim: Option<Royalty>,
    },
    #[error("seat {seat} surrendered after the dealer's royalty had ended the round")]
    SurrenderAfterDealerRoyalty { seat: SeatNo },
    #[error("{place} set hands, but {reason}")]
    HandsNotSet { place: Place, reason: &'static str },
    #[error("{place} is still in the round but set no hands")]
    MissingHands { place: Place },
    #[error("{place}'s result does not fit in the money range")]
    Overflow { place: Place },
}

fn claim_words(claim: Option<Royalty>) -> String {
    match claim {
        Some(royalty) => format!("a royalty ({royalty})"),
        None => "a royalty (straight flush, four of a kind or six pairs)".to_string(),
    }
}

/// A validated round: every check of docs/rules.md §2.3, §4 and §5 passed, ready to settle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    profile: RuleProfile,
    dealer: DealerPlay,
    seats: [Option<SeatPlay>; 3],
    /// The royalty each place holds when it declared one (seats 1..3, then the dealer).
    royalties: [Option<Royalty>; 4],
}

impl Round {
    /// Validates a round. Seats may come in any order; empty seats are simply absent.
    pub fn new(
        profile: RuleProfile,
        dealer: DealerPlay,
        seat_plays: impl IntoIterator<Item = SeatPlay>,
    ) -> Result<Round, SettlementError> {
        let mut seats: [Option<SeatPlay>; 3] = [None; 3];
        for play in seat_plays {
            let slot = &mut seats[play.seat.slot()];
            if slot.is_some() {
                return Err(SettlementError::DuplicateSeat(play.seat));
            }
            if !play.bet.is_positive() {
                return Err(SettlementError::NonPositiveBet {
                    seat: play.seat,
                    bet: play.bet,
                });
            }
            *slot = Some(play);
        }
        let places = std::iter::once((Place::Dealer, dealer.hands.as_ref(), dealer.dealt.as_ref()))
            .chain(seats.iter().flatten().map(|play| {
                (
                    Place::Seat(play.seat),
                    play.hands.as_ref(),
                    play.dealt.as_ref(),
                )
            }));
        check_cards(places)?;

        let mut royalties = [None; 4];
        for play in seats.iter().flatten() {
            let place = Place::Seat(play.seat);
            royalties[play.seat.slot()] =
                check_declaration(&profile, place, play.declaration, play.dealt)?;
        }
        royalties[3] =
            check_declaration(&profile, Place::Dealer, dealer.declaration, dealer.dealt)?;

        let dealer_ended = match dealer.declaration {
            Declaration::Play => None,
            Declaration::Surrender => Some("the dealer's surrender ended the round before setting"),
            Declaration::Royalty(_) => Some("the dealer's royalty ended the round before setting"),
        };
        let mut anyone_plays = false;
        for play in seats.iter().flatten() {
            let place = Place::Seat(play.seat);
            match play.declaration {
                Declaration::Surrender if matches!(dealer.declaration, Declaration::Royalty(_)) => {
                    return Err(SettlementError::SurrenderAfterDealerRoyalty { seat: play.seat })
                }
                Declaration::Surrender => {
                    forbid_hands(place, play.hands, "a surrendered seat sets no hands")?
                }
                Declaration::Royalty(_) => forbid_hands(
                    place,
                    play.hands,
                    "a seat that declared a royalty is out of the round",
                )?,
                Declaration::Play => match dealer_ended {
                    Some(reason) => forbid_hands(place, play.hands, reason)?,
                    None if play.hands.is_none() => {
                        return Err(SettlementError::MissingHands { place })
                    }
                    None => anyone_plays = true,
                },
            }
        }
        match dealer.declaration {
            Declaration::Play if anyone_plays && dealer.hands.is_none() => {
                return Err(SettlementError::MissingHands {
                    place: Place::Dealer,
                })
            }
            Declaration::Surrender => forbid_hands(
                Place::Dealer,
                dealer.hands,
                "a dealer who surrenders sets no hands",
            )?,
            Declaration::Royalty(_) => forbid_hands(
                Place::Dealer,
                dealer.hands,
                "a dealer who declares a royalty ends the round",
            )?,
            Declaration::Play => {}
        }
        Ok(Round {
            profile,
            dealer,
            seats,
            royalties,
        })
    }

    pub fn profile(&self) -> &RuleProfile {
        &self.profile
    }

    pub fn dealer(&self) -> &DealerPlay {
        &self.dealer
    }

    /// The occupied seats in settlement order.
    pub fn seats(&self) -> impl Iterator<Item = &SeatPlay> {
        self.seats.iter().flatten()
    }

    /// The royalty a place declared and holds, if it declared one.
    pub fn royalty(&self, place: Place) -> Option<Royalty> {
        match place {
            Place::Dealer => self.royalties[3],
            Place::Seat(seat) => self.royalties[seat.slot()],
        }
    }
}

fn forbid_hands(
    place: Place,
    hands: Option<SetHand>,
    reason: &'static str,
) -> Result<(), SettlementError> {
    match hands {
        Some(_) => Err(SettlementError::HandsNotSet { place, reason }),
        None => Ok(()),
    }
}

fn check_declaration(
    profile: &RuleProfile,
    place: Place,
    declaration: Declaration,
    dealt: Option<[Card; 13]>,
) -> Result<Option<Royalty>, SettlementError> {
    match declaration {
        Declaration::Play => Ok(None),
        Declaration::Surrender if profile.surrender => Ok(None),
        Declaration::Surrender => Err(SettlementError::SurrenderOff { place }),
        Declaration::Royalty(claim) => {
            let allowed = profile.royalties && (place != Place::Dealer || profile.dealer_royalties);
            if !allowed {
                return Err(SettlementError::RoyaltiesOff { place });
            }
            let dealt = dealt.ok_or(SettlementError::RoyaltyWithoutDeal { place })?;
            let held = match claim {
                Some(royalty) => royalty::holds(&dealt, royalty).then_some(royalty),
                None => royalty::best_royalty(&dealt),
            };
            held.map(Some)
                .ok_or(SettlementError::RoyaltyNotHeld { place, claim })
        }
    }
}

/// Every card seen is seen once in the round, and a set matches its place's deal. Places come
/// as (place, set hands, cards dealt), at most four of them.
pub(crate) fn check_cards<'a, P: fmt::Display + Copy>(
    places: impl Iterator<Item = (P, Option<&'a SetHand>, Option<&'a [Card; 13]>)>,
) -> Result<(), DealError<P>> {
    // Cards as bit masks (`1 << Card::index`); the errors are worked out only on a clash.
    let mut taken = 0u64;
    let mut owners: [Option<(P, u64)>; 4] = [None; 4];
    for (i, (place, hands, dealt)) in places.enumerate() {
        let mut dealt_mask = 0u64;
        if let Some(dealt) = dealt {
            for &card in dealt {
                let bit = 1u64 << card.index();
                if dealt_mask & bit != 0 {
                    return Err(DealError::RepeatedInDealt { place, card });
                }
                dealt_mask |= bit;
            }
        }
        let set_mask = hands.map_or(0, |set| {
            set.all_cards()
                .fold(0u64, |mask, card| mask | 1u64 << card.index())
        });
        if dealt.is_some() && set_mask & !dealt_mask != 0 {
            let stray = hands
                .iter()
                .flat_map(|set| set.all_cards())
                .find(|card| dealt_mask & (1u64 << card.index()) == 0);
            if let Some(card) = stray {
                return Err(DealError::SetNotDealt { place, card });
            }
        }
        // What this place holds: its deal when recorded, else its set.
        let (held, held_mask) = match dealt {
            Some(cards) => (Some(*cards), dealt_mask),
            None => (hands.map(set_cards), set_mask),
        };
        if taken & held_mask != 0 {
            // The first card (in this place's order) that an earlier place already holds.
            for card in held.into_iter().flatten() {
                let bit = 1u64 << card.index();
                let earlier = owners[..i.min(4)].iter().flatten();
                if let Some(&(first, _)) = earlier.clone().find(|(_, mask)| mask & bit != 0) {
                    return Err(DealError::DuplicateCard {
                        card,
                        first,
                        second: place,
                    });
                }
            }
        }
        taken |= held_mask;
        if let Some(owner) = owners.get_mut(i) {
            *owner = Some((place, held_mask));
        }
    }
    Ok(())
}

/// A set's 13 cards, back then middle then front.
fn set_cards(set: &SetHand) -> [Card; 13] {
    let mut cards = [Card::new(Rank::Two, Suit::Clubs); 13];
    for (slot, card) in cards.iter_mut().zip(set.all_cards()) {
        *slot = card;
    }
    cards
}
