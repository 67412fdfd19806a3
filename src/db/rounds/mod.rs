//! Rounds as stored: settled rounds and their places ([`rows`]), the open draft of each table
//! ([`drafts`]), and the statements that confirm rounds ([`confirm`], with their SQL in
//! [`sql`]). What a round must be, and who may enter it, is decided above, in
//! [`crate::recording`].

pub mod confirm;
pub mod drafts;
pub mod rows;
pub mod sql;
