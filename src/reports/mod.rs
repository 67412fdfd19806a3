//! What reads many rows: audit-trail verification (and, beside it, the reports and exports).
//! Reads only: nothing here writes.

pub mod checks;
pub mod events;
pub mod verify;
