//! The use-cases the web handlers call, one call per request: staff, tables, rule profiles, API
//! tokens, shifts, gaming days, sign-in and sessions, the home page, the audit pages, the
//! reports' and review's reads, and the round use-cases of [`crate::recording`] run in their turn
//! of the database. Each function takes the [`Db`](crate::db::handle::Db) handle and runs its
//! queries in one turn there: a handler parses, calls one of these, and renders.
//!
//! Above `recording` and `reports` (it composes both: the home page reads the latest audit
//! verification, a round's page its recompute check) and below `web`.

pub mod access;
pub mod audit;
pub mod clock;
pub mod days;
pub mod exports;
pub mod home;
pub mod profiles;
pub mod reports;
pub mod review;
pub mod rounds;
pub mod screen;
pub mod sessions;
pub mod shifts;
pub mod sign_in;
pub mod staff;
pub mod tables;
pub mod tokens;

use crate::db::handle::Failure;
use crate::db::profiles::ProfileError;
use crate::db::shifts::ShiftError;
use crate::db::tables::{TableError, TableRulesError};
use crate::db::DbError;
use crate::password::HashError;
use crate::recording::review::ReviewError;
use crate::recording::RoundsError;
use crate::reports::gaming_day::ReportError;

/// Why a use-case failed (a refusal a person can act on is its `Ok` answer, in words).
#[derive(Debug, thiserror::Error)]
pub enum PitError {
    /// What the request names does not exist.
    #[error("not found")]
    NotFound,
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Shift(#[from] ShiftError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Round(#[from] RoundsError),
    #[error(transparent)]
    Review(#[from] ReviewError),
    #[error(transparent)]
    Hash(#[from] HashError),
    /// A report asked for over a range it cannot cover.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A blocking task (a password's hash) ended without an answer.
    #[error("a blocking task failed")]
    Task,
    /// Table accounting's reads beside the table screen (its drop so far) and the pit board.
    #[error(transparent)]
    Accounting(#[from] crate::accounting::AccountingError),
}

impl From<diesel::result::Error> for PitError {
    fn from(err: diesel::result::Error) -> Self {
        PitError::Db(DbError::Query(err))
    }
}

impl From<ProfileError> for PitError {
    fn from(err: ProfileError) -> Self {
        PitError::Table(TableError::from(err))
    }
}

impl From<TableRulesError> for PitError {
    fn from(err: TableRulesError) -> Self {
        PitError::Round(err.into())
    }
}

impl Failure for PitError {
    fn query_error(&self) -> Option<&diesel::result::Error> {
        match self {
            PitError::Db(DbError::Query(err))
            | PitError::Shift(ShiftError::Query(err))
            | PitError::Table(TableError::Query(err))
            | PitError::Round(
                RoundsError::Query(err) | RoundsError::TableRules(TableRulesError::Query(err)),
            )
            | PitError::Review(ReviewError::Query(err))
            | PitError::Report(ReportError::Query(err)) => Some(err),
            PitError::Accounting(err) => err.query_error(),
            _ => None,
        }
    }
}

/// Done, or refused with the reason in words (for the next page's banner or the form).
pub type Refusable<T, R = String> = Result<T, R>;
