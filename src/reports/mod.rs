//! What reads many rows and decides nothing new: checks and summaries over settled rounds.
//! Above `db` and `rules`, beside `recording`; web handlers and the command line call it.

pub mod recheck;
