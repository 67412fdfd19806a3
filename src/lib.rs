//! pusoy-pit: the back office for casino Pusoy tables.
pub mod cli;
pub mod rules;
