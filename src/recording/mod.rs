//! Entering rounds: the use-cases web handlers and the command line call (open a table's round,
//! save it, check it, confirm it, record a whole round), and what the process keeps to make them
//! fast: the round writer and its threads, the memory of each table, the remembered API tokens.
//! Above `db` (rows, queries, SQL) and `rules` (validation, settlement); below `web`.
//!
//! Every round belongs to a dealer's shift: a dealer enters rounds only at the table they are
//! signed on at, a pit manager at any table with a dealer on shift, for that dealer's shift.

pub mod drafts;
pub mod entry;
pub mod form;
pub mod history;
pub mod memory;
pub mod points;
pub mod problems;
pub mod review;
pub mod screen;
pub mod tokens;
pub mod whole;
pub mod write;
pub mod writer;

use diesel::PgConnection;

use crate::db::ids::{ShiftId, TableId, UserId};
use crate::db::shifts::{self, CurrentShift, Shift};
use crate::db::tables::{PlayingTable, TableRulesError};
use crate::db::users::Role;
use crate::recording::entry::FieldErrors;

/// Why a dealer may not read a round ([`may_read`]).
pub const NOT_YOUR_ROUND: &str = "Dealers may read only the rounds of their own table during \
     their current shift; this round belongs to another table or shift.";

/// Why a round could not be entered.
#[derive(Debug, thiserror::Error)]
pub enum RoundsError {
    #[error("database query failed")]
    Query(diesel::result::Error),
    #[error("{}", crate::rules::gaming_day::closed_day_message(*.day))]
    DayClosed { day: chrono::NaiveDate },
    #[error("{}", .0.summary())]
    Invalid(FieldErrors),
    #[error("there is no round {0}")]
    NoDraft(String),
    #[error("there is no table {0}")]
    NoTable(String),
    #[error("the round was changed elsewhere (it is at revision {current}, not {expected}); reload it and try again")]
    RevisionMismatch { expected: i32, current: i32 },
    #[error("the round is already settled and can no longer be changed")]
    AlreadySettled,
    #[error("{}", not_ready(.0))]
    TableRules(#[from] TableRulesError),
    #[error("You are not signed on at {code}; sign on first.")]
    NotSignedOn { code: String },
    #[error(
        "No dealer is signed on at {code}; a dealer must sign on before rounds are entered there."
    )]
    NobodyOnShift { code: String },
    #[error("the key {0} is already used for another round; send a new key for a new round")]
    KeyTaken(String),
    #[error("table {0} is too busy to take the round now; send it again")]
    Busy(String),
    #[error("{}", NOT_YOUR_ROUND)]
    NotYourRound,
    #[error(
        "{code} takes no rounds: its opener (slip {slip}) differs from the last closer by \
         {difference}, above the limit. A pit manager writes what explains it on \
         /tables/{code}/slips first."
    )]
    OpenerHeld {
        code: String,
        slip: i64,
        difference: String,
    },
}

/// Why a table cannot take rounds, in words (a 409 `table_not_ready` carries them).
fn not_ready(err: &TableRulesError) -> String {
    match err {
        TableRulesError::NoProfileVersion(code) => {
            format!("table {code} has no rule profile version")
        }
        TableRulesError::BadProfile { id, source } => {
            format!("rule profile version {id} cannot be read: {source}")
        }
        TableRulesError::Query(_) => "database query failed".to_owned(),
    }
}

impl From<diesel::result::Error> for RoundsError {
    /// The database's refusal of a round on a closed gaming day is that refusal, not a failure.
    fn from(err: diesel::result::Error) -> Self {
        match crate::db::days::closed_day_refused(&err) {
            Some(day) => RoundsError::DayClosed { day },
            None => RoundsError::Query(err),
        }
    }
}

impl RoundsError {
    /// A round that cannot be taken as a whole (not a field of it).
    pub fn round(message: impl Into<String>) -> Self {
        RoundsError::Invalid(FieldErrors::round(message))
    }
}

/// Who is entering a round. A dealer may enter rounds only at the table they are signed on at;
/// a pit manager (supervisor) at any table with a dealer on shift, for that dealer's shift, and
/// an administrator likewise where the route table lets them (a void round's re-entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writer {
    pub user: UserId,
    pub role: Role,
}

impl Writer {
    /// Whether this writer may enter rounds at a table whose open shift is `open`.
    pub fn may_enter(self, open: Option<&Shift>, code: &str) -> Result<(), RoundsError> {
        match (self.role, open) {
            // An administrator reaches only the re-entry of a void round (the route table).
            (Role::Supervisor | Role::Admin, Some(_)) => Ok(()),
            (Role::Supervisor | Role::Admin, None) => Err(RoundsError::NobodyOnShift {
                code: code.to_owned(),
            }),
            (_, Some(shift)) if shift.dealer_id == self.user => Ok(()),
            _ => Err(RoundsError::NotSignedOn {
                code: code.to_owned(),
            }),
        }
    }
}

/// What a round or draft belongs to, for [`may_read`]: a settled round its shift, a draft
/// its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Belongs {
    ToShift(ShiftId),
    ToTable(TableId),
}

/// Least privilege: a dealer reads only the rounds of their own current shift (and the draft
/// open at their table); pit managers and auditors read every round (the route table decides
/// which roles read rounds at all).
pub fn may_read(
    conn: &mut PgConnection,
    user: UserId,
    role: Role,
    what: Belongs,
) -> Result<(), RoundsError> {
    if role != Role::Dealer {
        return Ok(());
    }
    let current = shifts::dealer_table(conn, user)?;
    let allowed = current.is_some_and(|(shift, table)| match what {
        Belongs::ToShift(id) => shift.id == id,
        Belongs::ToTable(id) => table.id == id,
    });
    if allowed {
        Ok(())
    } else {
        Err(RoundsError::NotYourRound)
    }
}

/// The table's open shift that `writer` may enter rounds for (with the dealer's name).
pub fn entry_shift(
    conn: &mut PgConnection,
    table: &PlayingTable,
    writer: Writer,
) -> Result<CurrentShift, RoundsError> {
    let current = shifts::current_shift(conn, table.table.id)?;
    writer.may_enter(current.as_ref().map(|c| &c.shift), &table.table.code)?;
    current.ok_or_else(|| RoundsError::NobodyOnShift {
        code: table.table.code.clone(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::{NaiveDate, Utc};

    use super::*;
    use crate::db::ids::{ShiftId, TableId};

    fn shift_of(dealer: i64) -> Shift {
        Shift {
            id: ShiftId(7),
            table_id: TableId(1),
            dealer_id: UserId(dealer),
            gaming_day: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
            signed_on_at: Utc::now(),
            signed_off_at: None,
        }
    }

    #[test]
    fn only_the_dealer_on_shift_or_a_pit_manager_or_administrator_may_enter_rounds() {
        use Role::{Admin, Auditor, Dealer, Supervisor};
        let on = shift_of(1);
        // (writer, role, open shift, allowed)
        let cases = [
            (1, Dealer, Some(&on), Ok(())),
            (2, Dealer, Some(&on), Err("You are not signed on at T-1; sign on first.")),
            (1, Dealer, None, Err("You are not signed on at T-1; sign on first.")),
            (9, Supervisor, Some(&on), Ok(())),
            (
                9,
                Supervisor,
                None,
                Err("No dealer is signed on at T-1; a dealer must sign on before rounds are entered there."),
            ),
            // An administrator as a pit manager (the route table lets them only re-enter).
            (9, Admin, Some(&on), Ok(())),
            (
                9,
                Admin,
                None,
                Err("No dealer is signed on at T-1; a dealer must sign on before rounds are entered there."),
            ),
            (9, Auditor, Some(&on), Err("You are not signed on at T-1; sign on first.")),
        ];
        for (user, role, open, expected) in cases {
            let writer = Writer {
                user: UserId(user),
                role,
            };
            let got = writer.may_enter(open, "T-1").map_err(|e| e.to_string());
            assert_eq!(
                got,
                expected.map_err(str::to_owned),
                "{user} {role:?} {open:?}"
            );
        }
    }
}
