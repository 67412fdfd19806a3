//! Rounds as stored: settled rounds and their places ([`rows`]), the open draft of each table
//! ([`drafts`]), the statements that confirm rounds ([`confirm`], with their SQL in [`sql`]),
//! and the details of a round's audit event ([`payload`]). What a round must be, and who may enter it, is decided above, in
//! [`crate::recording`].

pub mod confirm;
pub mod drafts;
pub mod history;
pub mod payload;
pub mod rows;
pub mod sql;
