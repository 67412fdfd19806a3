//! Table accounting's use-cases (docs/accounting.md, issue 31): chip sets and their versions,
//! each table's par, two people's signatures. Web handlers call one function each; it takes the `Db` handle and runs its
//! database work in one turn. Every decision and every message a person reads is made here; the
//! rows and queries are `db::accounting`'s, the arithmetic `rules::accounting`'s.

pub mod cage;
pub mod cash;
pub mod chips;
pub mod counts;
pub mod drop;
pub mod history;
pub mod par;
pub mod reconcile;
pub mod record;
pub mod signatures;
pub mod slips;

use diesel::PgConnection;

use crate::db::handle::Failure;
use crate::db::DbError;

/// Why an accounting request was not done.
#[derive(Debug, thiserror::Error)]
pub enum AccountingError {
    /// What was entered is refused: the reason, for the form that sent it.
    #[error("{0}")]
    Refused(String),
    #[error("there is no such {0}")]
    NotFound(&'static str),
    /// A stored row that its database checks should have refused.
    #[error("{0} as stored does not hold")]
    BadStored(String),
    #[error(transparent)]
    Db(#[from] DbError),
    /// A stored password hash that does not read.
    #[error(transparent)]
    Password(#[from] crate::password::HashError),
}

impl From<diesel::result::Error> for AccountingError {
    /// A database error; the database's refusal of a document on a closed gaming day (its
    /// triggers: a slip, void, explanation or fill or credit step of a closed day) in the app's
    /// words, as a refusal, should a use-case not have checked first.
    fn from(err: diesel::result::Error) -> Self {
        match crate::db::days::closed_day_refused(&err) {
            Some(day) => {
                AccountingError::Refused(crate::rules::gaming_day::closed_day_message(day))
            }
            None => AccountingError::Db(DbError::Query(err)),
        }
    }
}

/// What a form's use-case answers: done, or refused with the reason and what the form's page
/// shows, read after the refusal (so that the handler renders it without a second call).
#[derive(Debug)]
pub enum Saved<T, P> {
    Done(T),
    Refused { reason: String, page: P },
}

/// Runs `change`, in a transaction; if it is refused, reads the page to show with the reason.
fn save<T, P>(
    conn: &mut PgConnection,
    change: impl FnOnce(&mut PgConnection) -> Result<T, AccountingError>,
    page: impl FnOnce(&mut PgConnection) -> Result<P, AccountingError>,
) -> Result<Saved<T, P>, AccountingError> {
    use diesel::Connection;
    match conn.transaction(change) {
        Ok(done) => Ok(Saved::Done(done)),
        Err(AccountingError::Refused(reason)) => Ok(Saved::Refused {
            reason,
            page: page(conn)?,
        }),
        Err(other) => Err(other),
    }
}

impl Failure for AccountingError {
    fn query_error(&self) -> Option<&diesel::result::Error> {
        match self {
            AccountingError::Db(err) => err.query_error(),
            _ => None,
        }
    }
}
