//! Dealer shifts: who deals where, signing on at a table and signing off (a dealer themself, or
//! a pit manager for whoever deals there). A refusal a person can act on is answered in words.

use crate::config::Zone;
use chrono::NaiveDate;

use crate::db::audit_log::Actor;
use crate::db::checkpoints;
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::seal_file::SealFiles;
use crate::db::shifts::{self, CurrentShift, ShiftError, ShiftSummary};
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
        Ok(match shifts::sign_on(conn, table.id, &actor, day) {
            Ok(_) => Ok(SignedOn {
                message: format!("You are signed on at {} for gaming day {day}.", table.code),
                code: table.code,
            }),
            Err(ShiftError::TableTaken {
                code,
                dealer_name,
                since,
            }) => Err(format!(
                "{code} already has {dealer_name} signed on since {}.",
                zone.time(since)
            )),
            Err(refused @ (ShiftError::DealerBusy { .. } | ShiftError::DayClosed { .. })) => {
                Err(refused.to_string())
            }
            Err(other) => return Err(other.into()),
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
            shifts::sign_off(conn, table.id, &actor)
                .map(|_| format!("You are signed off at {}.", table.code))
        } else {
            shifts::sign_off_anyone(conn, table.id, &actor)
                .map(|_| format!("The dealer is signed off at {}.", table.code))
        };
        if signed_off.is_ok() {
            checkpoints::at_sign_off(conn, &seals);
        }
        Ok(match signed_off {
            Ok(message) => Ok(message),
            Err(refused @ (ShiftError::NotSignedOn { .. } | ShiftError::NobodySignedOn { .. })) => {
                Err(refused.to_string())
            }
            Err(other) => return Err(other.into()),
        })
    })
    .await
}
