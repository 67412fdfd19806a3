//! A round of the points game as dealt, declared and set (docs/rules.md §8), validated once:
//! [`PointsRound::new`] checks the players, the cards and every declaration against the
//! profile, so a [`PointsRound`] that exists can be settled.

use thiserror::Error;

use crate::rules::card::Card;
use crate::rules::money::Money;
use crate::rules::place::PlayerSeat;
use crate::rules::points::natural::{self, Missing, Natural};
use crate::rules::points::profile::PointsProfile;
use crate::rules::round::{check_cards, DealError};
use crate::rules::set_hand::SetHand;

/// What a player did before setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointsDeclaration {
    /// Set hands.
    Play,
    /// Showed this natural and is out of the comparisons.
    Natural(Natural),
    /// Folded before setting.
    Surrender,
}

/// One player's part of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerPlay {
    pub seat: PlayerSeat,
    pub declaration: PointsDeclaration,
    pub hands: Option<SetHand>,
    pub dealt: Option<[Card; 13]>,
}

/// A points round that breaks the rules, or whose results cannot be paid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PointsError {
    #[error(transparent)]
    Deal(#[from] DealError<PlayerSeat>),
    #[error("{0} appears twice in the round")]
    DuplicateSeat(PlayerSeat),
    #[error("a points round has two to four players, not {0}")]
    PlayerCount(usize),
    #[error("the unit is {0}; a point must be worth more than 0")]
    NonPositiveUnit(Money),
    #[error("{0} surrendered, but surrender is off at this table")]
    SurrenderOff(PlayerSeat),
    #[error("{seat} showed {natural}, but naturals are off at this table")]
    NaturalsOff { seat: PlayerSeat, natural: Natural },
    #[error("{seat} showed {natural}, but {natural} is not a natural at this table")]
    NotANaturalHere { seat: PlayerSeat, natural: Natural },
    #[error("{seat} showed {natural}, but the 13 cards dealt were not recorded")]
    NaturalWithoutDeal { seat: PlayerSeat, natural: Natural },
    #[error("{seat} showed {natural}, but the cards dealt do not hold it: {missing}")]
    NaturalNotHeld {
        seat: PlayerSeat,
        natural: Natural,
        missing: Missing,
    },
    #[error("{seat} set hands, but {reason}")]
    HandsNotSet {
        seat: PlayerSeat,
        reason: &'static str,
    },
    #[error("{0} plays but set no hands")]
    MissingHands(PlayerSeat),
    #[error("{0}'s result does not fit in the money range")]
    Overflow(PlayerSeat),
}

/// A validated points round: every check of docs/rules.md §8 passed, ready to settle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointsRound {
    profile: PointsProfile,
    unit: Money,
    /// Indexed by `PlayerSeat::slot`; empty seats are `None`.
    players: [Option<PlayerPlay>; 4],
}

impl PointsRound {
    /// Validates a round. Players may come in any order.
    pub fn new(
        profile: PointsProfile,
        unit: Money,
        plays: impl IntoIterator<Item = PlayerPlay>,
    ) -> Result<PointsRound, PointsError> {
        if !unit.is_positive() {
            return Err(PointsError::NonPositiveUnit(unit));
        }
        let mut players: [Option<PlayerPlay>; 4] = [None; 4];
        let mut count = 0;
        for play in plays {
            let slot = &mut players[play.seat.slot()];
            if slot.is_some() {
                return Err(PointsError::DuplicateSeat(play.seat));
            }
            *slot = Some(play);
            count += 1;
        }
        if !(2..=4).contains(&count) {
            return Err(PointsError::PlayerCount(count));
        }
        check_cards(
            players
                .iter()
                .flatten()
                .map(|play| (play.seat, play.hands.as_ref(), play.dealt.as_ref())),
        )?;
        for play in players.iter().flatten() {
            check_declaration(&profile, play)?;
        }
        Ok(PointsRound {
            profile,
            unit,
            players,
        })
    }

    pub fn profile(&self) -> &PointsProfile {
        &self.profile
    }

    /// What one point is worth.
    pub fn unit(&self) -> Money {
        self.unit
    }

    /// The players in seat order.
    pub fn players(&self) -> impl Iterator<Item = &PlayerPlay> {
        self.players.iter().flatten()
    }

    /// The players indexed by `PlayerSeat::slot`.
    pub fn seats(&self) -> &[Option<PlayerPlay>; 4] {
        &self.players
    }
}

fn check_declaration(profile: &PointsProfile, play: &PlayerPlay) -> Result<(), PointsError> {
    let seat = play.seat;
    let forbid_hands = |reason| match play.hands {
        Some(_) => Err(PointsError::HandsNotSet { seat, reason }),
        None => Ok(()),
    };
    match play.declaration {
        PointsDeclaration::Play if play.hands.is_none() => Err(PointsError::MissingHands(seat)),
        PointsDeclaration::Play => Ok(()),
        PointsDeclaration::Surrender if !profile.surrender => Err(PointsError::SurrenderOff(seat)),
        PointsDeclaration::Surrender => forbid_hands("a player who surrenders sets no hands"),
        PointsDeclaration::Natural(natural) => {
            if !profile.naturals {
                return Err(PointsError::NaturalsOff { seat, natural });
            }
            if profile.natural_points.points(natural) == 0 {
                return Err(PointsError::NotANaturalHere { seat, natural });
            }
            let dealt = play
                .dealt
                .ok_or(PointsError::NaturalWithoutDeal { seat, natural })?;
            natural::check(&dealt, natural).map_err(|missing| PointsError::NaturalNotHeld {
                seat,
                natural,
                missing,
            })?;
            forbid_hands("a player who shows a natural does not set hands")
        }
    }
}
