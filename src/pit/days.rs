//! Gaming days: the recent ones, one day's seal or what keeps it open, and closing a day (its
//! seal event, then the seal's copy in the seal file, in the close's transaction).

use crate::config::Zone;
use chrono::NaiveDate;

use crate::db::audit_log::Actor;
use crate::db::days::{self, Blocker, CloseError, DayClose};
use crate::db::handle::Db;
use crate::db::seal_file::SealFiles;
use crate::db::users::{self, User};
use crate::pit::{PitError, Refusable};

/// The last `limit` closes, latest first.
pub async fn recent_closes(db: &Db, limit: i64) -> Result<Vec<DayClose>, PitError> {
    db.run(move |conn| Ok(days::recent_closes(conn, limit)?))
        .await
}

/// A gaming day as its page shows it: its close and who closed it, or what keeps it open.
pub struct Day {
    pub close: Option<DayClose>,
    pub closer: Option<User>,
    pub blockers: Vec<Blocker>,
}

pub async fn day(db: &Db, day: NaiveDate, zone: Zone) -> Result<Day, PitError> {
    db.run(move |conn| {
        let close = days::find_close(conn, day)?;
        let closer = match &close {
            Some(c) => users::find(conn, c.closed_by)?,
            None => None,
        };
        let blockers = if close.is_none() {
            days::blockers(conn, day, zone)?
        } else {
            Vec::new()
        };
        Ok(Day {
            close,
            closer,
            blockers,
        })
    })
    .await
}

/// Closes gaming day `day` (`today` being the current one) and appends its seal to the seal
/// files; refused when the day has not begun, is closed already, is kept open, its trail
/// disagrees with the last checkpoints, or its seal cannot be copied (logged, and the day stays
/// open).
pub async fn close(
    db: &Db,
    day: NaiveDate,
    today: NaiveDate,
    actor: Actor,
    seals: SealFiles,
    zone: Zone,
) -> Result<Refusable<DayClose>, PitError> {
    let closed = db
        .run(
            move |conn| match days::close_day(conn, day, today, &actor, &seals, zone) {
                Ok((close, _)) => Ok(Ok(close)),
                Err(CloseError::Query(err)) => Err(PitError::from(err)),
                Err(refused) => Ok(Err(refused)),
            },
        )
        .await?;
    Ok(closed.map_err(|refused| {
        match &refused {
            CloseError::SealCopy(err) => {
                tracing::error!(error = %err, "the seal file cannot be written or read");
            }
            CloseError::Rewritten { rewritten, .. } => {
                tracing::error!(?rewritten, "the audit trail disagrees with its checkpoints");
            }
            _ => {}
        }
        refused.to_string()
    }))
}
