//! Places at the table: the dealer and player seats 1 to 3.

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
    fn places_read_as_words() {
        assert_eq!(Place::Dealer.to_string(), "dealer");
        assert_eq!(Place::Seat(SeatNo::ALL[1]).to_string(), "seat 2");
    }
}
