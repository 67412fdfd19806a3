//! The points game (docs/rules.md §8): two to four players against each other, no dealer
//! hand, points per hand won, naturals, surrender, mis-sets, scoops and the pusoy bonus.

pub mod natural;
pub mod profile;
pub mod round;
pub mod settle;
pub mod wire;
