//! Dealer shifts: who deals where, signing on at a table and signing off (a dealer themself, or
//! a pit manager for whoever deals there). A refusal a person can act on is answered in words.

use crate::config::Zone;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::{Connection, PgConnection};

use crate::db::audit_log::Actor;
use crate::db::checkpoints;
use crate::db::days;
use crate::db::handle::Db;
use crate::db::ids::{TableId, UserId};
use crate::db::seal_file::SealFiles;
use crate::db::shifts::{self, CurrentShift, Shift, ShiftError, ShiftSummary};
use crate::db::tables::{self, GamingTable, TableListing};
use crate::db::users::Role;
use crate::pit::{PitError, Refusable};

/// Every table, with its open shift if a dealer is on.
pub async fn tables_with_dealers(
    db: &Db,
) -> Result<Vec<(TableListing, Option<CurrentShift>)>, PitError> {
    db.run(|conn| Ok(shifts::tables_with_dealers(conn)?)).await
}

/// A dealer signed on at a table: the message to show, and the table's code.
pub struct SignedOn {
    pub message: String,
    pub code: String,
}

/// Why a dealer was not signed on: refused (the table taken, the dealer on elsewhere, the day
/// closed), or failed.
#[derive(Debug, thiserror::Error)]
pub enum SignOnError {
    /// Taken since `since` (pages say when in local time).
    #[error("{code} already has {dealer_name} signed on.")]
    TableTaken {
        code: String,
        dealer_name: String,
        since: DateTime<Utc>,
    },
    #[error("You are already signed on at {code}; sign off there first.")]
    DealerBusy { code: String },
    #[error("{}", crate::rules::gaming_day::closed_day_message(*.day))]
    DayClosed { day: NaiveDate },
    #[error(transparent)]
    Failed(ShiftError),
}

impl From<ShiftError> for SignOnError {
    /// The database's own refusals are the same refusals: a sign-on at another table in the
    /// same instant, a shift on a closed gaming day.
    fn from(err: ShiftError) -> Self {
        match err {
            ShiftError::DealerOnShift => SignOnError::DealerBusy {
                code: "another table".to_owned(),
            },
            ShiftError::DayClosed { day } => SignOnError::DayClosed { day },
            other => SignOnError::Failed(other),
        }
    }
}

impl From<diesel::result::Error> for SignOnError {
    fn from(err: diesel::result::Error) -> Self {
        ShiftError::from(err).into()
    }
}

/// Signs `dealer` on at table `table_id` for `gaming_day`, in a transaction of its own: refused
/// when the table has a dealer on, the dealer is on at another table, or the day is closed.
/// The table's row lock makes concurrent sign-ons at one table wait, so the second sees the
/// first.
pub fn sign_on_at(
    conn: &mut PgConnection,
    table_id: TableId,
    dealer: &Actor,
    gaming_day: NaiveDate,
) -> Result<Shift, SignOnError> {
    let dealer_id = dealer.user_id.ok_or(ShiftError::NotAUser)?;
    conn.transaction(|conn| {
        let table = shifts::lock_table(conn, table_id)?;
        if let Some(current) = shifts::current_shift(conn, table_id)? {
            return Err(SignOnError::TableTaken {
                code: table.code,
                dealer_name: current.dealer_name,
                since: current.shift.signed_on_at,
            });
        }
        if let Some((_, other)) = shifts::dealer_table(conn, dealer_id)? {
            return Err(SignOnError::DealerBusy { code: other.code });
        }
        if days::find_close(conn, gaming_day)?.is_some() {
            return Err(SignOnError::DayClosed { day: gaming_day });
        }
        Ok(shifts::start(conn, &table, dealer_id, dealer, gaming_day)?)
    })
}

/// Signs the dealer `actor` on at table `code` for gaming day `day`; refused (in words) when the
/// table is taken, the dealer is on elsewhere, or the day is closed.
pub async fn sign_on(
    db: &Db,
    code: String,
    actor: Actor,
    day: NaiveDate,
    zone: Zone,
) -> Result<Refusable<SignedOn>, PitError> {
    db.run(move |conn| {
        let table = tables::find_by_code(conn, &code)?.ok_or(PitError::NotFound)?;
        Ok(match sign_on_at(conn, table.id, &actor, day) {
            Ok(_) => Ok(SignedOn {
                message: format!("You are signed on at {} for gaming day {day}.", table.code),
                code: table.code,
            }),
            Err(SignOnError::TableTaken {
                code,
                dealer_name,
                since,
            }) => Err(format!(
                "{code} already has {dealer_name} signed on since {}.",
                zone.time(since)
            )),
            Err(SignOnError::Failed(err)) => return Err(err.into()),
            Err(refused) => Err(refused.to_string()),
        })
    })
    .await
}

/// The open shift at a table as its sign-off page shows it.
pub struct OpenShift {
    pub table: GamingTable,
    pub open: CurrentShift,
    pub summary: ShiftSummary,
}

/// The shift open at table `code` and its summary, for `viewer` to sign off: refused (in
/// words) when nobody is on, or when a dealer (`by_pit` false) asks for another's shift.
pub async fn open_shift(
    db: &Db,
    code: String,
    viewer: UserId,
    by_pit: bool,
) -> Result<Refusable<OpenShift>, PitError> {
    db.run(move |conn| {
        let table = tables::find_by_code(conn, &code)?.ok_or(PitError::NotFound)?;
        let Some(open) = shifts::current_shift(conn, table.id)? else {
            return Ok(Err(format!("Nobody is signed on at {}.", table.code)));
        };
        if !by_pit && open.shift.dealer_id != viewer {
            return Ok(Err(format!("You are not signed on at {}.", table.code)));
        }
        let summary = shifts::summary(conn, &open.shift)?;
        Ok(Ok(OpenShift {
            table,
            open,
            summary,
        }))
    })
    .await
}

/// Why nobody was signed off: refused, or failed.
#[derive(Debug, thiserror::Error)]
pub enum SignOffError {
    #[error("You are not signed on at {code}.")]
    NotSignedOn { code: String },
    #[error("Nobody is signed on at {code}.")]
    NobodySignedOn { code: String },
    #[error(transparent)]
    Failed(#[from] ShiftError),
}

impl From<diesel::result::Error> for SignOffError {
    fn from(err: diesel::result::Error) -> Self {
        ShiftError::from(err).into()
    }
}

/// Ends `dealer`'s open shift at table `table_id`, in a transaction of its own holding the
/// table's row; records `table.sign_off` on the table chain. Refused when they are not on there.
pub fn sign_off_at(
    conn: &mut PgConnection,
    table_id: TableId,
    dealer: &Actor,
) -> Result<Shift, SignOffError> {
    let dealer_id = dealer.user_id.ok_or(ShiftError::NotAUser)?;
    conn.transaction(|conn| {
        let table = shifts::lock_table(conn, table_id)?;
        match shifts::current_shift(conn, table_id)? {
            Some(open) if open.shift.dealer_id == dealer_id => Ok(shifts::close(
                conn,
                &table,
                &open.shift,
                dealer,
                "signed off",
            )?),
            _ => Err(SignOffError::NotSignedOn { code: table.code }),
        }
    })
}

/// Ends whoever's shift is open at table `table_id`, as a pit manager may (a dealer who left, or
/// whose account is about to be disabled), in a transaction of its own holding the table's row;
/// records `table.sign_off` with `by` as the actor. Refused when nobody is on there.
pub fn sign_off_anyone_at(
    conn: &mut PgConnection,
    table_id: TableId,
    by: &Actor,
) -> Result<Shift, SignOffError> {
    conn.transaction(|conn| {
        let table = shifts::lock_table(conn, table_id)?;
        match shifts::current_shift(conn, table_id)? {
            Some(open) => Ok(shifts::close(
                conn,
                &table,
                &open.shift,
                by,
                "signed off by a pit manager",
            )?),
            None => Err(SignOffError::NobodySignedOn { code: table.code }),
        }
    })
}

/// Signs off at table `code`: a dealer themself, a pit manager whoever deals there. The
/// message says what was done, or why not.
pub async fn sign_off(
    db: &Db,
    code: String,
    role: Role,
    actor: Actor,
    seals: SealFiles,
) -> Result<Refusable<String>, PitError> {
    db.run(move |conn| {
        let table = tables::find_by_code(conn, &code)?.ok_or(PitError::NotFound)?;
        let signed_off = if role == Role::Dealer {
            sign_off_at(conn, table.id, &actor)
                .map(|_| format!("You are signed off at {}.", table.code))
        } else {
            sign_off_anyone_at(conn, table.id, &actor)
                .map(|_| format!("The dealer is signed off at {}.", table.code))
        };
        if signed_off.is_ok() {
            checkpoints::at_sign_off(conn, &seals);
        }
        Ok(match signed_off {
            Ok(message) => Ok(message),
            Err(SignOffError::Failed(err)) => return Err(err.into()),
            Err(refused) => Err(refused.to_string()),
        })
    })
    .await
}
