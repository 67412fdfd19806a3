//! A round of the banking game (RULES.md sections 4 and 5): validation of what was dealt,
//! declared and set, then settlement of every seat against the dealer.
//!
//! [`Round::new`] checks everything once (bets, cards, declarations against the profile);
//! [`settle`] on a validated round does no allocation and only fails on arithmetic overflow.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::card::Card;
use crate::rules::hand::tie_strength;
use crate::rules::money::Money;
use crate::rules::place::{Place, SeatNo};
use crate::rules::profile::{BothFouled, RuleProfile, TieRule};
use crate::rules::royalty::{self, Royalty};
use crate::rules::set_hand::{SetHand, Slot};

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

/// Cards that cannot have been dealt that way.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealError {
    #[error("{card} was dealt to both the {first} and {second}")]
    DuplicateCard {
        card: Card,
        first: Place,
        second: Place,
    },
    #[error("{place} was dealt {card} twice")]
    RepeatedInDealt { place: Place, card: Card },
    #[error("{place} set {card}, which was not dealt to {place}")]
    SetNotDealt { place: Place, card: Card },
    #[error("{place} was dealt {count} cards; a deal is 13")]
    WrongDealtCount { place: Place, count: usize },
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

/// A validated round: every check of RULES.md passed, ready to settle.
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
        check_cards(&dealer, &seats)?;

        let mut royalties = [None; 4];
        for play in seats.iter().flatten() {
            let place = Place::Seat(play.seat);
            royalties[play.seat.slot()] =
                check_declaration(&profile, place, play.declaration, play.dealt)?;
        }
        royalties[3] = check_declaration(&profile, Place::Dealer, dealer.declaration, dealer.dealt)?;

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
                Declaration::Royalty(_) => {
                    forbid_hands(place, play.hands, "a seat that declared a royalty is out of the round")?
                }
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
            Declaration::Surrender => {
                forbid_hands(Place::Dealer, dealer.hands, "a dealer who surrenders sets no hands")?
            }
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

/// Every card seen is seen once in the round, and a set matches its place's deal.
fn check_cards(dealer: &DealerPlay, seats: &[Option<SeatPlay>; 3]) -> Result<(), DealError> {
    let mut owner: [Option<Place>; 64] = [None; 64];
    let places = std::iter::once((Place::Dealer, dealer.hands, dealer.dealt)).chain(
        seats
            .iter()
            .flatten()
            .map(|play| (Place::Seat(play.seat), play.hands, play.dealt)),
    );
    for (place, hands, dealt) in places {
        let mut dealt_mask = 0u64;
        if let Some(dealt) = dealt {
            for card in dealt {
                let bit = 1u64 << card.index();
                if dealt_mask & bit != 0 {
                    return Err(DealError::RepeatedInDealt { place, card });
                }
                dealt_mask |= bit;
            }
        }
        let set_cards = hands.iter().flat_map(|set| set.all_cards());
        for card in set_cards {
            if dealt.is_some() && dealt_mask & (1u64 << card.index()) == 0 {
                return Err(DealError::SetNotDealt { place, card });
            }
        }
        let seen = dealt
            .map(|cards| cards.to_vec())
            .or_else(|| hands.map(|set| set.all_cards().collect()))
            .unwrap_or_default();
        for card in seen {
            let entry = &mut owner[usize::from(card.index())];
            match *entry {
                Some(first) => {
                    return Err(DealError::DuplicateCard {
                        card,
                        first,
                        second: place,
                    })
                }
                None => *entry = Some(place),
            }
        }
    }
    Ok(())
}

/// How a player seat's round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Played,
    Surrendered,
    Royalty,
    DealerRoyalty,
    DealerSurrendered,
}

/// Who took one of the three hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Winner {
    Player,
    Dealer,
}

/// Who won the back, the middle and the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandWinners {
    pub back: Winner,
    pub middle: Winner,
    pub front: Winner,
}

/// One seat's settlement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatResult {
    pub seat: SeatNo,
    pub outcome: Outcome,
    /// Whether the seat fouled, when it set hands.
    pub fouled: Option<bool>,
    /// Hands won (0..=3), when both sides set and neither fouled.
    pub hands_won: Option<u8>,
    pub winners: Option<HandWinners>,
    pub result: Money,
}

/// The dealer's settlement: minus the sum of the seats' results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealerResult {
    /// Whether the dealer fouled, when the dealer set hands.
    pub fouled: Option<bool>,
    pub result: Money,
}

/// A settled round. Always balances: the dealer's result is minus the sum of the seats'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settlement {
    pub dealer: DealerResult,
    /// Indexed by seat (`SeatNo::slot`); empty seats are `None`.
    pub seats: [Option<SeatResult>; 3],
}

impl Settlement {
    /// The occupied seats' results in seat order.
    pub fn seats(&self) -> impl Iterator<Item = &SeatResult> {
        self.seats.iter().flatten()
    }

    pub fn seat(&self, seat: SeatNo) -> Option<&SeatResult> {
        self.seats[seat.slot()].as_ref()
    }
}

/// Settles a validated round (RULES.md sections 4 and 5).
pub fn settle(round: &Round) -> Result<Settlement, SettlementError> {
    let profile = &round.profile;
    let dealer_fouled = round.dealer.hands.map(|set| set.is_fouled(profile));
    let mut seats = [None; 3];
    let mut dealer_result = Money::ZERO;
    for play in round.seats.iter().flatten() {
        let result = settle_seat(profile, &round.dealer, dealer_fouled, play)?;
        dealer_result = dealer_result
            .checked_sub(result.result)
            .ok_or(SettlementError::Overflow {
                place: Place::Dealer,
            })?;
        seats[play.seat.slot()] = Some(result);
    }
    Ok(Settlement {
        dealer: DealerResult {
            fouled: dealer_fouled,
            result: dealer_result,
        },
        seats,
    })
}

fn settle_seat(
    profile: &RuleProfile,
    dealer: &DealerPlay,
    dealer_fouled: Option<bool>,
    play: &SeatPlay,
) -> Result<SeatResult, SettlementError> {
    let fouled = play.hands.map(|set| set.is_fouled(profile));
    let mut hands_won = None;
    let mut winners = None;
    let (outcome, multiple) = match (play.declaration, dealer.declaration) {
        (Declaration::Royalty(_), _) => (Outcome::Royalty, 1),
        (Declaration::Surrender, _) => (Outcome::Surrendered, -1),
        (Declaration::Play, Declaration::Royalty(_)) => (Outcome::DealerRoyalty, -1),
        (Declaration::Play, Declaration::Surrender) => (Outcome::DealerSurrendered, 1),
        (Declaration::Play, Declaration::Play) => match (play.hands, dealer.hands) {
            (Some(player), Some(banker)) => {
                let multiple = match (fouled == Some(true), dealer_fouled == Some(true)) {
                    (true, false) => -2,
                    (false, true) => 2,
                    (true, true) => match profile.both_fouled {
                        BothFouled::Push => 0,
                        BothFouled::PlayerLoses => -2,
                    },
                    (false, false) => {
                        let won = compare_sets(profile, &player, &banker);
                        let count = [won.back, won.middle, won.front]
                            .iter()
                            .filter(|&&w| w == Winner::Player)
                            .count() as u8;
                        hands_won = Some(count);
                        winners = Some(won);
                        match count {
                            3 => 2,
                            2 => 1,
                            1 => -1,
                            _ => -2,
                        }
                    }
                };
                (Outcome::Played, multiple)
            }
            // Round::new guarantees both sides set hands when the seat played to the end.
            _ => {
                return Err(SettlementError::MissingHands {
                    place: Place::Seat(play.seat),
                })
            }
        },
    };
    let result = play
        .bet
        .checked_mul(multiple)
        .ok_or(SettlementError::Overflow {
            place: Place::Seat(play.seat),
        })?;
    Ok(SeatResult {
        seat: play.seat,
        outcome,
        fouled,
        hands_won,
        winners,
        result,
    })
}

fn compare_sets(profile: &RuleProfile, player: &SetHand, dealer: &SetHand) -> HandWinners {
    let winner = |slot: Slot| {
        let ours = player.value(slot, profile.wheel);
        let theirs = dealer.value(slot, profile.wheel);
        let ordering = match (ours.cmp(&theirs), profile.ties) {
            (Ordering::Equal, TieRule::SuitOrder) => {
                let order = &profile.suit_order;
                tie_strength(ours, player.cards(slot), order)
                    .cmp(&tie_strength(theirs, dealer.cards(slot), order))
            }
            (ordering, _) => ordering,
        };
        if ordering == Ordering::Greater {
            Winner::Player
        } else {
            Winner::Dealer
        }
    };
    HandWinners {
        back: winner(Slot::Back),
        middle: winner(Slot::Middle),
        front: winner(Slot::Front),
    }
}
