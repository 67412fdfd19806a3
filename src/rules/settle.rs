//! A round of the banking game (RULES.md sections 4 and 5): validation of what was dealt,
//! declared and set, then settlement of every seat against the dealer.
//!
//! [`Round::new`] checks everything once (bets, cards, declarations against the profile);
//! [`settle`] on a validated round does no allocation and only fails on arithmetic overflow.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::card::{Card, Rank, Suit};
use crate::rules::hand::{tie_strength, HandValue};
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
    #[error("{card} was dealt twice: to {first} and to {second}")]
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

/// Every card seen is seen once in the round, and a set matches its place's deal.
fn check_cards(dealer: &DealerPlay, seats: &[Option<SeatPlay>; 3]) -> Result<(), DealError> {
    // Cards as bit masks (`1 << Card::index`); the errors are worked out only on a clash.
    let mut taken = 0u64;
    let mut owners: [(Place, u64); 4] = [(Place::Dealer, 0); 4];
    let places = std::iter::once((Place::Dealer, &dealer.hands, &dealer.dealt)).chain(
        seats
            .iter()
            .flatten()
            .map(|play| (Place::Seat(play.seat), &play.hands, &play.dealt)),
    );
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
        let set_mask = hands.as_ref().map_or(0, |set| {
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
            None => (hands.as_ref().map(set_cards), set_mask),
        };
        if taken & held_mask != 0 {
            // The first card (in this place's order) that an earlier place already holds.
            for card in held.into_iter().flatten() {
                let bit = 1u64 << card.index();
                if let Some(&(first, _)) = owners[..i].iter().find(|(_, mask)| mask & bit != 0) {
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
            *owner = (place, held_mask);
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
}

/// Settles a validated round (RULES.md sections 4 and 5).
pub fn settle(round: &Round) -> Result<Settlement, SettlementError> {
    let profile = &round.profile;
    let dealer_fouled = round
        .dealer
        .hands
        .as_ref()
        .map(|set| set.is_fouled(profile));
    let mut seats = [None; 3];
    let mut dealer_result = Money::ZERO;
    for play in round.seats.iter().flatten() {
        let result = settle_seat(profile, &round.dealer, dealer_fouled, play)?;
        dealer_result =
            dealer_result
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
    let fouled = play.hands.as_ref().map(|set| set.is_fouled(profile));
    let mut hands_won = None;
    let mut winners = None;
    let (outcome, multiple) = match (play.declaration, dealer.declaration) {
        (Declaration::Royalty(_), _) => (Outcome::Royalty, 1),
        (Declaration::Surrender, _) => (Outcome::Surrendered, -1),
        (Declaration::Play, Declaration::Royalty(_)) => (Outcome::DealerRoyalty, -1),
        (Declaration::Play, Declaration::Surrender) => (Outcome::DealerSurrendered, 1),
        (Declaration::Play, Declaration::Play) => match (&play.hands, &dealer.hands) {
            (Some(player), Some(banker)) => {
                let multiple = match (fouled == Some(true), dealer_fouled == Some(true)) {
                    (true, false) => -2,
                    (false, true) => 2,
                    (true, true) => match profile.both_fouled {
                        BothFouled::Push => 0,
                        BothFouled::PlayerLoses => -2,
                    },
                    (false, false) => {
                        let won = compare_sets(profile, player, banker);
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

#[inline]
fn compare_sets(profile: &RuleProfile, player: &SetHand, dealer: &SetHand) -> HandWinners {
    let ours = player.values(profile.wheel);
    let theirs = dealer.values(profile.wheel);
    let winner = |slot: Slot| {
        let i = slot as usize;
        let ordering = match ours[i].cmp(&theirs[i]) {
            Ordering::Equal if profile.ties == TieRule::SuitOrder => {
                suit_tie(profile, ours[i], player.cards(slot), dealer.cards(slot))
            }
            ordering => ordering,
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

/// An exact tie under `ties = suit_order`: the player's suit strength against the dealer's.
#[inline(never)]
fn suit_tie(profile: &RuleProfile, value: HandValue, player: &[Card], dealer: &[Card]) -> Ordering {
    let order = &profile.suit_order;
    tie_strength(value, player, order).cmp(&tie_strength(value, dealer, order))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::hand::Evaluator;
    use crate::rules::profile::{SuitOrder, Wheel};
    use crate::rules::wire::{settle_json, settle_json_into, write_settlement_json, SettlementOut};
    use proptest::prelude::*;

    // A middling dealer and player sets against it, all from distinct cards.
    const DEALER: &str =
        r#""back": "Kc Kd 8h 8s 3c", "middle": "Qc Qd 7h 5s 2c", "front": "Jc Td 4h""#;
    const WINS_ALL: &str =
        r#""back": "As Ah Ac 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "Kh Ks 7d""#;
    const WINS_TWO: &str =
        r#""back": "As Ah Ac 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "9s 7d 2h""#;
    const WINS_ONE: &str =
        r#""back": "As Ah Ac 9d 9c", "middle": "Js Jh 5d 3h 2h", "front": "9s 7d 4d""#;
    const WINS_NONE: &str =
        r#""back": "Ks Kh 6h 6d 2d", "middle": "Js Jh 5d 3h 2h", "front": "9s 7d 4d""#;
    const FOULED: &str =
        r#""back": "2d 2h 5h 7s 9c", "middle": "3d 3h 4s 8c Tc", "front": "Ah Kh Qh""#;
    // A fouled dealer (section 6) and sets that avoid its cards.
    const DEALER_FOULED: &str =
        r#""back": "2c 2d 5h 7s 9c", "middle": "3c 3d 4h 8s Tc", "front": "Ah Kh Qh""#;
    const LEGAL_VS_FOULED: &str =
        r#""back": "As Ac Ad 9d 9h", "middle": "6s 6h 6d 2h 2s", "front": "Ks Kd 7d""#;
    const FOULED_VS_FOULED: &str =
        r#""back": "Js Jh 5d 7c 9s", "middle": "Qs Qc 4d 8c Td", "front": "Kc Kd 2s""#;
    // Middle hands that tie exactly: the player holds Qd, the dealer Qs.
    const DEALER_TIE: &str =
        r#""back": "Kc Kd 8h 8s 3c", "middle": "Qh Qs 7h 5c 2c", "front": "Jc Td 4h""#;
    const PLAYER_TIE: &str =
        r#""back": "As Ah Ac 9d 9c", "middle": "Qc Qd 7c 5d 2d", "front": "9s 7d 4d""#;
    // Straights around the wheel.
    const DEALER_SIX_HIGH: &str =
        r#""back": "6c 5h 4d 3s 2d", "middle": "Kc Kd 8h 8s 3c", "front": "Jc Td 4h""#;
    const PLAYER_WHEEL: &str =
        r#""back": "5d 4c 3h 2s Ac", "middle": "Qc Qd 7h 5s 2c", "front": "9s 7d 4s""#;
    const QUADS_DEALT: &str = "6c 6d 6h 6s 9h 9s Th Ts Jd Jh Js Ah Ad";
    const SIX_PAIRS_DEALT: &str = "Ks Kh Qh Qs Js Jh Tc Th 8c 8d 7c 7s Ad";
    const OTHER_SIX_PAIRS_DEALT: &str = "Ks Kc Qs Qc Js Jc Ts Th 9s 9h 8s 8h As";
    const STRAIGHT_FLUSH_DEALT: &str = "2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qh Kh Ah";

    type Expected = Result<(Vec<(u8, Outcome, i64)>, i64), &'static str>;

    fn line(rules: &str, dealer: &str, seats: &[String]) -> String {
        format!(
            r#"{{"rules": {{{rules}}}, "dealer": {{{dealer}}}, "seats": [{}]}}"#,
            seats.join(", ")
        )
    }

    fn seat(seat: u8, bet: i64, rest: &str) -> String {
        format!(r#"{{"seat": {seat}, "bet": {bet}, {rest}}}"#)
    }

    fn check(name: &str, json: &str, expected: Expected) {
        // The CLI's direct writer prints exactly what serde_json prints, and nothing on errors.
        let mut direct = Vec::new();
        let direct_result = settle_json_into(json, &mut direct);
        match settle_json(json) {
            Ok(out) => {
                assert!(direct_result.is_ok(), "{name}");
                let serde = serde_json::to_vec(&out).expect("serialises");
                assert_eq!(
                    String::from_utf8_lossy(&direct),
                    String::from_utf8_lossy(&serde),
                    "{name}"
                );
            }
            Err(error) => {
                assert!(direct.is_empty(), "{name}");
                let direct_error = direct_result.expect_err("fails too");
                assert_eq!(direct_error.to_string(), error.to_string(), "{name}");
            }
        }
        match (settle_json(json), expected) {
            (Ok(out), Ok((seats, dealer))) => {
                let got: Vec<(u8, Outcome, i64)> = out
                    .seats
                    .iter()
                    .map(|s| (s.seat.number(), s.outcome, s.result.minor_units()))
                    .collect();
                assert_eq!(got, seats, "{name}");
                assert_eq!(out.dealer.result.minor_units(), dealer, "{name}");
            }
            (Err(error), Err(message)) => {
                assert_eq!(error.to_string(), message, "{name}")
            }
            (got, expected) => panic!("{name}: got {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn every_outcome_and_every_option_settles_as_the_rules_say() {
        use Outcome::*;
        let dealer_royalty = format!(r#""action": "royalty", "dealt": "{STRAIGHT_FLUSH_DEALT}""#);
        let seat_royalty = format!(r#""action": "royalty", "dealt": "{QUADS_DEALT}""#);
        let six_pairs = format!(r#""action": "royalty", "dealt": "{SIX_PAIRS_DEALT}""#);
        let other_six_pairs = format!(r#""action": "royalty", "dealt": "{OTHER_SIX_PAIRS_DEALT}""#);
        let cases: Vec<(&str, String, Expected)> = vec![
            ("three hands won is pusoy, +2x", line("", DEALER, &[seat(1, 100, WINS_ALL)]), Ok((vec![(1, Played, 200)], -200))),
            ("two hands won is +1x", line("", DEALER, &[seat(1, 100, WINS_TWO)]), Ok((vec![(1, Played, 100)], -100))),
            ("one hand won is -1x", line("", DEALER, &[seat(2, 100, WINS_ONE)]), Ok((vec![(2, Played, -100)], 100))),
            ("no hand won is pusoy, -2x", line("", DEALER, &[seat(3, 100, WINS_NONE)]), Ok((vec![(3, Played, -200)], 200))),
            ("a fouled player against a legal dealer loses double", line("", DEALER, &[seat(1, 100, FOULED)]), Ok((vec![(1, Played, -200)], 200))),
            ("a fouled dealer pays a legal player double", line("", DEALER_FOULED, &[seat(1, 100, LEGAL_VS_FOULED)]), Ok((vec![(1, Played, 200)], -200))),
            ("both fouled pushes by default", line("", DEALER_FOULED, &[seat(1, 100, FOULED_VS_FOULED)]), Ok((vec![(1, Played, 0)], 0))),
            ("both fouled pushes when asked", line(r#""both_fouled": "push""#, DEALER_FOULED, &[seat(1, 100, FOULED_VS_FOULED)]), Ok((vec![(1, Played, 0)], 0))),
            ("both fouled costs the player double under player_loses", line(r#""both_fouled": "player_loses""#, DEALER_FOULED, &[seat(1, 100, FOULED_VS_FOULED)]), Ok((vec![(1, Played, -200)], 200))),
            ("player_loses changes nothing for a legal player", line(r#""both_fouled": "player_loses""#, DEALER_FOULED, &[seat(1, 100, LEGAL_VS_FOULED)]), Ok((vec![(1, Played, 200)], -200))),
            ("an exact tie is the dealer's by default", line("", DEALER_TIE, &[seat(1, 100, PLAYER_TIE)]), Ok((vec![(1, Played, -100)], 100))),
            ("an exact tie is the dealer's under dealer_wins", line(r#""ties": "dealer_wins""#, DEALER_TIE, &[seat(1, 100, PLAYER_TIE)]), Ok((vec![(1, Played, -100)], 100))),
            ("under suit_order the stronger queen takes the tie", line(r#""ties": "suit_order""#, DEALER_TIE, &[seat(1, 100, PLAYER_TIE)]), Ok((vec![(1, Played, 100)], -100))),
            ("the suit order decides which queen is stronger", line(r#""ties": "suit_order", "suit_order": "shdc""#, DEALER_TIE, &[seat(1, 100, PLAYER_TIE)]), Ok((vec![(1, Played, -100)], 100))),
            ("a wheel loses to six high when the wheel is lowest", line(r#""wheel": "lowest""#, DEALER_SIX_HIGH, &[seat(1, 100, PLAYER_WHEEL)]), Ok((vec![(1, Played, -200)], 200))),
            ("a wheel beats six high when the wheel is second", line(r#""wheel": "second""#, DEALER_SIX_HIGH, &[seat(1, 100, PLAYER_WHEEL)]), Ok((vec![(1, Played, -100)], 100))),
            ("a surrender costs 1x", line("", DEALER, &[seat(1, 100, WINS_ALL), seat(2, 50, r#""action": "surrender""#)]), Ok((vec![(1, Played, 200), (2, Surrendered, -50)], -150))),
            ("a surrender costs 1x with surrender on", line(r#""surrender": true"#, DEALER, &[seat(3, 70, r#""action": "surrender""#)]), Ok((vec![(3, Surrendered, -70)], 70))),
            ("a surrender is refused when surrender is off", line(r#""surrender": false"#, DEALER, &[seat(2, 50, r#""action": "surrender""#)]), Err("seat 2 surrendered, but surrender is off at this table")),
            ("a dealer surrender is refused when surrender is off", line(r#""surrender": false"#, r#""action": "surrender""#, &[seat(1, 50, r#""action": "play""#)]), Err("dealer surrendered, but surrender is off at this table")),
            ("a royalty wins 1x", line("", DEALER, &[seat(1, 100, WINS_TWO), seat(3, 200, &six_pairs)]), Ok((vec![(1, Played, 100), (3, Royalty, 200)], -300))),
            ("a royalty wins 1x when the claim names it", line("", DEALER, &[seat(3, 10, &format!(r#"{seat_royalty}, "royalty": "six_pairs""#))]), Ok((vec![(3, Royalty, 10)], -10))),
            ("a royalty is refused when royalties are off", line(r#""royalties": false"#, DEALER, &[seat(3, 200, &seat_royalty)]), Err("seat 3 declared a royalty, but royalties are off at this table")),
            ("a royalty the cards do not hold is refused", line("", DEALER, &[seat(3, 200, &format!(r#"{seat_royalty}, "royalty": "straight_flush""#))]), Err("seat 3 declared a royalty (straight flush), but the cards dealt do not hold it")),
            ("a royalty without the deal is refused", line("", DEALER, &[seat(3, 200, r#""action": "royalty""#)]), Err("seat 3 declared a royalty, but the 13 cards dealt were not recorded")),
            ("a dealer royalty takes 1x from every player still in", line("", &dealer_royalty, &[seat(1, 100, r#""action": "play""#), seat(2, 40, "\"action\": \"play\"")]), Ok((vec![(1, DealerRoyalty, -100), (2, DealerRoyalty, -40)], 140))),
            ("a player royalty still counts before the dealer's", line("", &dealer_royalty, &[seat(1, 100, "\"action\": \"play\""), seat(3, 25, &other_six_pairs)]), Ok((vec![(1, DealerRoyalty, -100), (3, Royalty, 25)], 75))),
            ("a dealer royalty is refused when dealer royalties are off", line(r#""dealer_royalties": false"#, &dealer_royalty, &[seat(1, 100, "\"action\": \"play\"")]), Err("dealer declared a royalty, but royalties are off at this table")),
            ("a surrender after the dealer's royalty is refused", line("", &dealer_royalty, &[seat(2, 100, r#""action": "surrender""#)]), Err("seat 2 surrendered after the dealer's royalty had ended the round")),
            ("a dealer surrender pays 1x to every player still in", line("", r#""action": "surrender""#, &[seat(1, 100, "\"action\": \"play\""), seat(2, 30, r#""action": "surrender""#)]), Ok((vec![(1, DealerSurrendered, 100), (2, Surrendered, -30)], -70))),
            ("a dealer surrender pays a lone player 1x", line("", r#""action": "surrender""#, &[seat(3, 5, "\"action\": \"play\"")]), Ok((vec![(3, DealerSurrendered, 5)], -5))),
            ("a zero bet is refused", line("", DEALER, &[seat(1, 0, WINS_ALL)]), Err("seat 1 bet 0; a bet must be more than 0")),
            ("a negative bet is refused", line("", DEALER, &[seat(2, -5, WINS_ALL)]), Err("seat 2 bet -5; a bet must be more than 0")),
            ("a card in two places is refused naming both", line("", DEALER, &[seat(1, 100, WINS_ALL), seat(2, 100, WINS_TWO)]), Err("As was dealt twice: to seat 1 and to seat 2")),
            ("a set that does not match the deal is refused", line("", DEALER, &[seat(1, 100, &format!(r#"{WINS_ALL}, "dealt": "{QUADS_DEALT}""#))]), Err("seat 1 set As, which was not dealt to seat 1")),
            ("a seat listed twice is refused", line("", DEALER, &[seat(1, 100, WINS_ALL), seat(1, 100, r#""action": "surrender""#)]), Err("seat 1 appears twice in the round")),
            ("a seat still in must set", line("", DEALER, &[seat(1, 100, "\"action\": \"play\"")]), Err("seat 1 is still in the round but set no hands")),
            ("a bad card names the place, hand, token and position", line("", DEALER, &[seat(2, 100, r#""back": "As Ah 1x 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "Kh Ks 7d""#)]), Err("seat 2 back: card 3 `1x`: `1` is not a rank (2-9, T or 10, J, Q, K, A)")),
            ("a short hand names the place and the hand", line("", DEALER, &[seat(2, 100, r#""back": "As Ah 9d 9c", "middle": "6s 6h 6d 2d 3d", "front": "Kh Ks 7d""#)]), Err("seat 2: the back needs 5 cards, not 4")),
            ("the overflowing result of a huge bet is refused", line("", DEALER, &[seat(1, i64::MAX, WINS_ALL)]), Err("seat 1's result does not fit in the money range")),
        ];
        for (name, json, expected) in cases {
            check(name, &json, expected);
        }
    }

    #[test]
    fn the_worked_settlement_examples_of_section_6_hold() {
        // Back won, middle an exact tie, front lost: one hand won, -1x.
        let out = settle_json(&line("", DEALER_TIE, &[seat(1, 100, PLAYER_TIE)])).expect("settles");
        let first = &out.seats[0];
        assert_eq!(first.hands_won, Some(1));
        let winners = first.winners.expect("winners");
        assert_eq!(
            (winners.back, winners.middle, winners.front),
            (Winner::Player, Winner::Dealer, Winner::Dealer)
        );
        // A fouled player against a legal dealer: -200 on 100; both fouled with push: 0.
        check(
            "fouled",
            &line("", DEALER, &[seat(1, 100, FOULED)]),
            Ok((vec![(1, Outcome::Played, -200)], 200)),
        );
        check(
            "both",
            &line(
                r#""both_fouled": "push""#,
                DEALER_FOULED,
                &[seat(1, 100, FOULED_VS_FOULED)],
            ),
            Ok((vec![(1, Outcome::Played, 0)], 0)),
        );
        let fouled = settle_json(&line("", DEALER, &[seat(1, 100, FOULED)])).expect("settles");
        assert_eq!(
            fouled.seats[0].foul.as_deref(),
            Some("middle (pair of threes) ranks above back (pair of twos)")
        );
        assert_eq!(fouled.seats[0].hands_won, None);
    }

    #[test]
    fn a_settled_round_recomputes_the_same_from_its_record() {
        let json = line(
            r#""ties": "suit_order""#,
            DEALER_TIE,
            &[
                seat(1, 100, PLAYER_TIE),
                seat(2, 5, r#""action": "surrender""#),
            ],
        );
        let first = settle_json(&json).expect("settles");
        let round = serde_json::from_str::<crate::rules::wire::RoundIn<'_>>(&json)
            .expect("parses")
            .to_round()
            .expect("valid");
        let record = serde_json::to_string(&crate::rules::wire::RoundIn::from_round(&round))
            .expect("record");
        assert_eq!(settle_json(&record).expect("settles again"), first);
    }

    /// A legal set from 13 cards: the best back of all 13, the best middle of the rest.
    fn legal_set(cards: &[Card], profile: &RuleProfile) -> SetHand {
        let evaluator = Evaluator::new(profile.wheel);
        let best = |pool: &[Card]| -> Vec<Card> {
            let n = pool.len();
            let mut best: Option<(crate::rules::hand::HandValue, Vec<Card>)> = None;
            for a in 0..n {
                for b in a + 1..n {
                    for c in b + 1..n {
                        for d in c + 1..n {
                            for e in d + 1..n {
                                let hand = [pool[a], pool[b], pool[c], pool[d], pool[e]];
                                let value = evaluator.evaluate(hand);
                                if best.as_ref().is_none_or(|(v, _)| value > *v) {
                                    best = Some((value, hand.to_vec()));
                                }
                            }
                        }
                    }
                }
            }
            best.map(|(_, hand)| hand).unwrap_or_default()
        };
        let back = best(cards);
        let rest: Vec<Card> = cards
            .iter()
            .copied()
            .filter(|c| !back.contains(c))
            .collect();
        let middle = best(&rest);
        let front: Vec<Card> = rest
            .iter()
            .copied()
            .filter(|c| !middle.contains(c))
            .collect();
        let set = SetHand::new(&back, &middle, &front).expect("13 distinct cards");
        if set.is_fouled(profile) {
            // Only an exact back/middle tie lost on suit: swap them.
            SetHand::new(&middle, &back, &front).expect("13 distinct cards")
        } else {
            set
        }
    }

    fn split_set(cards: &[Card]) -> SetHand {
        SetHand::new(&cards[0..5], &cards[5..10], &cards[10..13]).expect("13 distinct cards")
    }

    fn profile_strategy() -> impl Strategy<Value = RuleProfile> {
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            Just(Suit::ALL).prop_shuffle(),
        )
            .prop_map(|(suit_ties, player_loses, second, suits)| RuleProfile {
                ties: if suit_ties {
                    TieRule::SuitOrder
                } else {
                    TieRule::DealerWins
                },
                both_fouled: if player_loses {
                    BothFouled::PlayerLoses
                } else {
                    BothFouled::Push
                },
                wheel: if second { Wheel::Second } else { Wheel::Lowest },
                suit_order: SuitOrder::new([suits[0], suits[1], suits[2], suits[3]])
                    .expect("four suits"),
                ..RuleProfile::default()
            })
    }

    fn deck_strategy() -> impl Strategy<Value = Vec<Card>> {
        Just(Card::all().collect::<Vec<Card>>()).prop_shuffle()
    }

    fn build_round(
        profile: RuleProfile,
        deck: &[Card],
        bets: &[i64],
        surrender: &[bool],
        legal: bool,
    ) -> Round {
        let set = |cards: &[Card]| {
            if legal {
                legal_set(cards, &profile)
            } else {
                split_set(cards)
            }
        };
        let dealer = DealerPlay {
            declaration: Declaration::Play,
            hands: Some(set(&deck[0..13])),
            dealt: None,
        };
        let seats = SeatNo::ALL.iter().enumerate().map(|(i, &seat)| {
            let cards = &deck[13 * (i + 1)..13 * (i + 2)];
            SeatPlay {
                seat,
                bet: Money(bets[i]),
                declaration: if surrender[i] {
                    Declaration::Surrender
                } else {
                    Declaration::Play
                },
                hands: (!surrender[i]).then(|| set(cards)),
                dealt: Some(cards.try_into().expect("13 cards")),
            }
        });
        Round::new(profile, dealer, seats).expect("a legal round")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn a_random_deal_into_four_legal_sets_settles_and_balances(
            profile in profile_strategy(),
            deck in deck_strategy(),
            bets in proptest::collection::vec(1i64..1_000_000_000_000, 3),
        ) {
            let round = build_round(profile, &deck, &bets, &[false; 3], true);
            let settlement = settle(&round).expect("settles");
            prop_assert_eq!(settlement.dealer.fouled, Some(false));
            for seat in settlement.seats() {
                prop_assert_eq!(seat.fouled, Some(false));
                prop_assert!(seat.hands_won.is_some());
            }
            let total: i64 = settlement.seats().map(|s| s.result.minor_units()).sum();
            prop_assert_eq!(total + settlement.dealer.result.minor_units(), 0);
        }

        #[test]
        fn the_direct_json_writer_prints_what_serde_json_prints(
            profile in profile_strategy(),
            deck in deck_strategy(),
            // Up to 19 digits, and results of both signs; three doubled bets still fit an i64.
            bets in proptest::collection::vec(1i64..i64::MAX / 8, 3),
            surrender in proptest::collection::vec(any::<bool>(), 3),
            legal in any::<bool>(),
        ) {
            let round = build_round(profile, &deck, &bets, &surrender, legal);
            let settlement = settle(&round).expect("settles");
            let mut direct = Vec::new();
            write_settlement_json(&round, &settlement, &mut direct);
            let serde = serde_json::to_vec(&SettlementOut::new(&round, &settlement)).expect("serialises");
            prop_assert_eq!(String::from_utf8_lossy(&direct), String::from_utf8_lossy(&serde));
        }

        #[test]
        fn every_settlement_balances_to_zero(
            profile in profile_strategy(),
            deck in deck_strategy(),
            bets in proptest::collection::vec(1i64..1_000_000_000_000, 3),
            surrender in proptest::collection::vec(any::<bool>(), 3),
        ) {
            let round = build_round(profile, &deck, &bets, &surrender, false);
            let settlement = settle(&round).expect("settles");
            let total: i64 = settlement.seats().map(|s| s.result.minor_units()).sum();
            prop_assert_eq!(total + settlement.dealer.result.minor_units(), 0);
        }

        #[test]
        fn relabelling_suits_changes_no_result_when_ties_go_to_the_dealer(
            profile in profile_strategy(),
            deck in deck_strategy(),
            suits in Just(Suit::ALL).prop_shuffle(),
            bets in proptest::collection::vec(1i64..1_000_000, 3),
            legal in any::<bool>(),
        ) {
            let profile = RuleProfile { ties: TieRule::DealerWins, ..profile };
            let relabelled: Vec<Card> = deck
                .iter()
                .map(|c| Card::new(c.rank(), suits[usize::from(c.suit().index())]))
                .collect();
            let original = settle(&build_round(profile, &deck, &bets, &[false; 3], legal)).expect("settles");
            let renamed = settle(&build_round(profile, &relabelled, &bets, &[false; 3], legal)).expect("settles");
            prop_assert_eq!(original, renamed);
        }
    }

    #[test]
    fn a_place_out_of_the_round_before_setting_may_not_set_hands() {
        const AWAY_FROM_STRAIGHT_FLUSH: &str =
            r#""back": "As Ks Qs Js 9s", "middle": "2h 3h 4h 5h 7h", "front": "8c 9c Tc""#;
        let surrender = format!(r#""action": "surrender", {WINS_ALL}"#);
        let royalty = format!(
            r#""action": "royalty", "dealt": "{QUADS_DEALT}", "back": "6c 6d 6h 6s 9h", "middle": "9s Th Ts Jd Jh", "front": "Js Ah Ad""#
        );
        let dealer_royalty = format!(r#""action": "royalty", "dealt": "{STRAIGHT_FLUSH_DEALT}""#);
        let dealer_royalty_set = format!(
            r#"{dealer_royalty}, "back": "2c 3c 4c 5c 6c", "middle": "7d 8d 9d Td Jd", "front": "Qh Kh Ah""#
        );
        let dealer_surrender_set = format!(r#""action": "surrender", {DEALER}"#);
        let cases: Vec<(&str, String, Expected)> = vec![
            (
                "a surrendered seat",
                line("", DEALER, &[seat(2, 50, &surrender)]),
                Err("seat 2 set hands, but a surrendered seat sets no hands"),
            ),
            (
                "a seat that declared a royalty",
                line("", DEALER, &[seat(3, 50, &royalty)]),
                Err("seat 3 set hands, but a seat that declared a royalty is out of the round"),
            ),
            (
                "a seat after the dealer surrendered",
                line("", r#""action": "surrender""#, &[seat(1, 50, WINS_ALL)]),
                Err("seat 1 set hands, but the dealer's surrender ended the round before setting"),
            ),
            (
                "a seat after the dealer's royalty",
                line(
                    "",
                    &dealer_royalty,
                    &[seat(1, 50, AWAY_FROM_STRAIGHT_FLUSH)],
                ),
                Err("seat 1 set hands, but the dealer's royalty ended the round before setting"),
            ),
            (
                "a surrendered dealer",
                line(
                    "",
                    &dealer_surrender_set,
                    &[seat(1, 50, r#""action": "play""#)],
                ),
                Err("dealer set hands, but a dealer who surrenders sets no hands"),
            ),
            (
                "a dealer who declared a royalty",
                line(
                    "",
                    &dealer_royalty_set,
                    &[seat(1, 50, r#""action": "play""#)],
                ),
                Err("dealer set hands, but a dealer who declares a royalty ends the round"),
            ),
        ];
        for (name, json, expected) in cases {
            check(name, &json, expected);
        }
    }

    #[test]
    fn a_dealer_still_in_must_set_unless_every_seat_is_out() {
        check(
            "a seat plays",
            &line("", r#""action": "play""#, &[seat(1, 50, WINS_ALL)]),
            Err("dealer is still in the round but set no hands"),
        );
        check(
            "every seat surrendered",
            &line(
                "",
                r#""action": "play""#,
                &[seat(1, 50, r#""action": "surrender""#)],
            ),
            Ok((vec![(1, Outcome::Surrendered, -50)], 50)),
        );
    }

    #[test]
    fn a_declared_royalty_is_recorded_as_claimed_or_as_the_best_the_cards_hold() {
        let royalty = |rest: &str, seat_number: u8| {
            let out =
                settle_json(&line("", DEALER, &[seat(seat_number, 10, rest)])).expect("settles");
            out.seats[0].royalty
        };
        let quads = format!(r#""action": "royalty", "dealt": "{QUADS_DEALT}""#);
        assert_eq!(royalty(&quads, 2), Some(Royalty::FourOfAKind));
        // Four sixes and four more pairs hold six pairs too: the claim is what is recorded.
        let claimed =
            format!(r#""action": "royalty", "royalty": "six_pairs", "dealt": "{QUADS_DEALT}""#);
        assert_eq!(royalty(&claimed, 3), Some(Royalty::SixPairs));
        assert_eq!(royalty(WINS_ALL, 1), None);

        let dealer_royalty = format!(r#""action": "royalty", "dealt": "{STRAIGHT_FLUSH_DEALT}""#);
        let out = settle_json(&line(
            "",
            &dealer_royalty,
            &[seat(1, 10, r#""action": "play""#)],
        ))
        .expect("settles");
        assert_eq!(out.dealer.royalty, Some(Royalty::StraightFlush));
        assert_eq!(out.seats[0].royalty, None);
    }

    #[test]
    fn a_set_must_be_made_of_its_places_deal_and_the_first_stray_card_is_named() {
        // Cards neither in WINS_ALL nor in DEALER.
        let disjoint = format!(r#"{WINS_ALL}, "dealt": "2h 2s 3h 3s 4c 4d 4s 5c 5d 5h 6c 7c 7s""#);
        // WINS_ALL's cards with 7c dealt instead of 7d, the last card set.
        let one_stray = format!(r#"{WINS_ALL}, "dealt": "As Ah Ac 9d 9c 6s 6h 6d 2d 3d Kh Ks 7c""#);
        let cases: Vec<(&str, String, Expected)> = vec![
            (
                "a set sharing no card with its deal",
                line("", DEALER, &[seat(1, 100, &disjoint)]),
                Err("seat 1 set As, which was not dealt to seat 1"),
            ),
            (
                "a set with one card not dealt",
                line("", DEALER, &[seat(1, 100, &one_stray)]),
                Err("seat 1 set 7d, which was not dealt to seat 1"),
            ),
        ];
        for (name, json, expected) in cases {
            check(name, &json, expected);
        }
    }

    #[test]
    fn a_seat_holding_exactly_the_dealers_cards_is_refused() {
        check(
            "the dealer's set again",
            &line("", DEALER, &[seat(1, 100, DEALER)]),
            Err("Kc was dealt twice: to dealer and to seat 1"),
        );
    }
}
