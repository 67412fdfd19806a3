//! Places at the table: the dealer and player seats 1 to 3 of the banking game, and the
//! player seats 1 to 4 of the points game.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A player seat number, 1 to 3 (clockwise from the dealer's left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct SeatNo(u8);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("there is no seat {0}: seats are 1, 2 and 3")]
pub struct BadSeat(pub i64);

impl SeatNo {
    /// Seats 1, 2, 3 in settlement order.
    pub const ALL: [SeatNo; 3] = [SeatNo(1), SeatNo(2), SeatNo(3)];

    pub fn new(number: i64) -> Result<SeatNo, BadSeat> {
        match number {
            1..=3 => Ok(SeatNo(number as u8)),
            _ => Err(BadSeat(number)),
        }
    }

    pub const fn number(self) -> u8 {
        self.0
    }

    /// 0 for seat 1 up to 2 for seat 3, for indexing per-seat arrays.
    pub const fn slot(self) -> usize {
        (self.0 - 1) as usize
    }
}

impl TryFrom<u8> for SeatNo {
    type Error = BadSeat;

    fn try_from(number: u8) -> Result<SeatNo, BadSeat> {
        SeatNo::new(i64::from(number))
    }
}

impl From<SeatNo> for u8 {
    fn from(seat: SeatNo) -> u8 {
        seat.0
    }
}

impl fmt::Display for SeatNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A seat of the points game, 1 to 4: there is no dealer hand, so every seat holds a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct PlayerSeat(u8);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("there is no seat {0}: the points game seats players 1, 2, 3 and 4")]
pub struct BadPlayerSeat(pub i64);

impl PlayerSeat {
    /// Seats 1 to 4 in seat order.
    pub const ALL: [PlayerSeat; 4] = [PlayerSeat(1), PlayerSeat(2), PlayerSeat(3), PlayerSeat(4)];

    pub fn new(number: i64) -> Result<PlayerSeat, BadPlayerSeat> {
        match number {
            1..=4 => Ok(PlayerSeat(number as u8)),
            _ => Err(BadPlayerSeat(number)),
        }
    }

    pub const fn number(self) -> u8 {
        self.0
    }

    /// 0 for seat 1 up to 3 for seat 4, for indexing per-seat arrays.
    pub const fn slot(self) -> usize {
        (self.0 - 1) as usize
    }
}

impl TryFrom<u8> for PlayerSeat {
    type Error = BadPlayerSeat;

    fn try_from(number: u8) -> Result<PlayerSeat, BadPlayerSeat> {
        PlayerSeat::new(i64::from(number))
    }
}

impl From<PlayerSeat> for u8 {
    fn from(seat: PlayerSeat) -> u8 {
        seat.0
    }
}

impl fmt::Display for PlayerSeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// Where a hand or a card is: the dealer or a player seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    Dealer,
    Seat(SeatNo),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Dealer => write!(f, "dealer"),
            Place::Seat(seat) => write!(f, "seat {seat}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_seats_one_to_three_exist() {
        for (number, ok) in [(0, false), (1, true), (3, true), (4, false), (-1, false)] {
            assert_eq!(SeatNo::new(number).is_ok(), ok, "seat {number}");
        }
        assert!(serde_json::from_str::<SeatNo>("4").is_err());
    }

    #[test]
    fn the_points_game_seats_players_one_to_four() {
        for (number, ok) in [(0, false), (1, true), (4, true), (5, false)] {
            assert_eq!(PlayerSeat::new(number).is_ok(), ok, "seat {number}");
        }
        assert!(serde_json::from_str::<PlayerSeat>("5").is_err());
        assert_eq!(PlayerSeat::ALL[3].to_string(), "seat 4");
    }

    /// A points seat keeps its number (as `u8` and on the wire) and indexes per-seat arrays
    /// from 0 for seat 1 to 3 for seat 4.
    #[test]
    fn a_points_seat_keeps_its_number_and_indexes_from_zero() {
        for (slot, seat) in PlayerSeat::ALL.into_iter().enumerate() {
            let number = slot as u8 + 1;
            assert_eq!(seat.number(), number);
            assert_eq!(seat.slot(), slot);
            assert_eq!(u8::from(seat), number);
            assert_eq!(serde_json::to_string(&seat).ok(), Some(number.to_string()));
            assert_eq!(PlayerSeat::try_from(number), Ok(seat));
        }
    }

    #[test]
    fn places_read_as_words() {
        assert_eq!(Place::Dealer.to_string(), "dealer");
        assert_eq!(Place::Seat(SeatNo::ALL[1]).to_string(), "seat 2");
    }
}
