//! The game of Pusoy: cards, hand ranking, fouls, royalties and settlement.
//! Pure: no database, web, clock, randomness or I/O.

pub mod card;
pub mod hand;
pub mod houseway;
pub mod money;
pub mod place;
pub mod profile;
pub mod royalty;
pub mod set_hand;
pub mod settle;
pub mod wire;
