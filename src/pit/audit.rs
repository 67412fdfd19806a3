//! The audit pages' reads and the verification started from them: the last verification, the
//! event search with its chains and actions to choose from, and a check of every chain and
//! seal in the background, its verdict recorded by the one who asked.

use std::sync::Arc;
use std::time::Instant;

use crate::db::audit_log::{self, Actor, AuditEvent, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::TableId;
use crate::db::seal_file::SealFiles;
use crate::db::tables;
use crate::pit::PitError;
use crate::reports::checks::{Checks, Done};
use crate::reports::events::{self, EventFilter, EventPage};
use crate::reports::verify::{chain_names, Verification, VERIFIED};

/// The last verification's event, if any, and every table's id, code and currency (to name
/// its table chains by).
pub async fn last_verification(
    db: &Db,
) -> Result<(Option<AuditEvent>, Vec<(TableId, String, String)>), PitError> {
    db.run(|conn| {
        Ok((
            events::latest(conn, VERIFIED.as_str())?,
            tables::codes_and_currencies(conn)?,
        ))
    })
    .await
}

/// A page of the event search (when the filter reads), with every chain and action to filter
/// by.
pub struct Search {
    pub chains: Vec<String>,
    pub actions: Vec<String>,
    pub page: Option<EventPage>,
    /// Every table's id, code and currency: a table chain (`table:4`) is named by its code.
    pub tables: Vec<(TableId, String, String)>,
}

pub async fn search(
    db: &Db,
    filter: Option<EventFilter>,
    before: Option<i64>,
    size: i64,
) -> Result<Search, PitError> {
    db.run(move |conn| {
        let page = match &filter {
            Some(filter) => Some(events::search(conn, filter, before, size)?),
            None => None,
        };
        Ok(Search {
            chains: chain_names(conn)?,
            actions: events::actions(conn)?,
            page,
            tables: tables::codes_and_currencies(conn)?,
        })
    })
    .await
}

/// Starts a check of every chain, seal and checkpoint (against the seal files) in the background
/// (unless one is running: `false`); its verdict is recorded as `actor`'s (`by` by name).
pub fn start_verification(
    db: &Db,
    checks: &Arc<Checks>,
    seals: SealFiles,
    by: &str,
    actor: Actor,
) -> bool {
    let started = Instant::now();
    let done: Done<Verification> = Box::new(move |conn, found| {
        let Ok(verification) = found else { return };
        let record = verification.record(started.elapsed().as_secs_f64());
        let details = match serde_json::to_value(&record) {
            Ok(details) => details,
            Err(err) => {
                tracing::error!(error = %err, "cannot record a verification");
                return;
            }
        };
        let event = NewAuditEvent::system(&actor, VERIFIED, "audit:all").details(details);
        if let Err(err) = audit_log::append(conn, &event) {
            tracing::error!(error = %err, "cannot record a verification");
        }
    });
    checks.start_verify(db.pool().clone(), seals, by, done)
}
