//! The game of Pusoy: cards, hand ranking, fouls, royalties and settlement.
//! Pure: no database, web, clock, randomness or I/O.

pub mod accounting;
pub mod card;
pub mod compliance;
pub mod drop;
pub mod game;
pub mod gaming_day;
pub mod hand;
pub mod house_edge;
pub mod houseway;
pub mod money;
pub mod place;
pub mod points;
pub mod profile;
pub mod rating;
pub mod reconciliation;
pub mod round;
pub mod royalty;
pub mod set_hand;
pub mod settle;
#[cfg(test)]
pub(crate) mod test_support;
pub mod wire;
