//! What the accounting documents recorded at a table or the cage share: why a use-case stopped
//! ([`Stop`]), a void beside a record, the names of the people on a list, and the refusal of a
//! record on a closed gaming day. Of its siblings it imports only `slips` (a signer, a
//! [`Person`]), so buy-ins, the cage's cash and ratings can share it.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::{Connection, PgConnection};

use crate::accounting::slips::Person;
use crate::accounting::AccountingError;
use crate::db::accounting::names_of;
use crate::db::days;
use crate::db::ids::UserId;

/// A void beside a record: why, by whom, when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Void {
    pub reason: String,
    pub by: Person,
    pub at: DateTime<Utc>,
}

/// Why a use-case stopped: a refusal in words (about a field of the form, or not), or a
/// failure.
pub(crate) enum Stop {
    Field(&'static str, String),
    Refused(String),
    Failed(AccountingError),
}

impl From<AccountingError> for Stop {
    fn from(err: AccountingError) -> Self {
        match err {
            AccountingError::Refused(reason) => Stop::Refused(reason),
            other => Stop::Failed(other),
        }
    }
}

impl From<diesel::result::Error> for Stop {
    /// The database's refusal of a record on a closed gaming day (its trigger, when the day
    /// was closed after the use-case looked) is that refusal, in words.
    fn from(err: diesel::result::Error) -> Self {
        match days::closed_day_refused(&err) {
            Some(day) => Stop::Refused(crate::rules::gaming_day::closed_day_message(day)),
            None => Stop::Failed(err.into()),
        }
    }
}

pub(crate) fn person(names: &HashMap<UserId, String>, id: UserId) -> Person {
    Person {
        id,
        name: names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("user {id}")),
    }
}

/// The names of everyone who recorded or voided these rows.
pub(crate) fn names(
    conn: &mut PgConnection,
    people: impl Iterator<Item = UserId>,
) -> Result<HashMap<UserId, String>, AccountingError> {
    let mut people: Vec<UserId> = people.collect();
    people.sort();
    people.dedup();
    Ok(names_of(conn, &people)?.into_iter().collect())
}

/// Refuses a record on a closed gaming day, in words (the trigger underneath refuses it too).
pub(crate) fn day_open(conn: &mut PgConnection, day: NaiveDate) -> Result<(), Stop> {
    match days::find_close(conn, day)? {
        Some(_) => Err(Stop::Refused(crate::rules::gaming_day::closed_day_message(
            day,
        ))),
        None => Ok(()),
    }
}

/// A refusal: the field of the form it is about (none: the form as a whole), and why.
pub(crate) type Refusal = (Option<&'static str>, String);

/// Runs `change` in a transaction: done, or refused (nothing written), or failed.
pub(crate) fn attempt<T>(
    conn: &mut PgConnection,
    change: impl FnOnce(&mut PgConnection) -> Result<T, Stop>,
) -> Result<Result<T, Refusal>, AccountingError> {
    match conn.transaction(change) {
        Ok(done) => Ok(Ok(done)),
        Err(Stop::Failed(err)) => Err(err),
        Err(Stop::Field(field, reason)) => Ok(Err((Some(field), reason))),
        Err(Stop::Refused(reason)) => Ok(Err((None, reason))),
    }
}
