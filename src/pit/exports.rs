//! The auditor's exports, read from the read database (a replica, or the primary): the tables
//! to choose from, whether a query can be answered there (a table that exists, a replica that
//! has replayed the range), and the export itself, written on the blocking thread pool as it is
//! read. Reads take no turn: they do not hold up the primary's requests. Which kinds a role
//! may export ([`kinds_for`]): auditors every kind; administrators all but players' ratings
//! (they see no players); those who read players' ratings (hosts, compliance officers, pit
//! managers) the ratings.

use std::io::Write;

use crate::db::export as rows;
use crate::db::handle::Db;
use crate::db::users::Role;
use crate::pit::PitError;
use crate::players::Sight;
use crate::reports::export::{self, Clock, ExportError, Format, Kind, Query, Source};

/// Every kind, in the order the Exports page offers them.
const KINDS: [Kind; 6] = [
    Kind::Rounds,
    Kind::Events,
    Kind::Report,
    Kind::Accounting,
    Kind::Compliance,
    Kind::Ratings,
];

/// Whether `role` may export `kind`: the ratings name players by card number and name, so
/// they go to those who read players' ratings (docs/players.md); the rest to auditors and
/// administrators.
pub fn may_export(role: Role, kind: Kind) -> bool {
    match kind {
        Kind::Ratings => Sight::of(role) >= Sight::NameAndStatus,
        _ => matches!(role, Role::Auditor | Role::Admin),
    }
}

/// The kinds `role` may export, in the page's order (none: the page is not theirs).
pub fn kinds_for(role: Role) -> Vec<Kind> {
    KINDS
        .into_iter()
        .filter(|&kind| may_export(role, kind))
        .collect()
}

/// Why `role` may not export `kind`, in the words of the refusal.
pub fn refusal(kind: Kind) -> &'static str {
    match kind {
        Kind::Ratings => {
            "Players' ratings are exported by those who read them: hosts, compliance officers, \
             pit managers and auditors."
        }
        _ => "This export is for auditors and administrators.",
    }
}

/// Every table's code.
pub async fn table_codes(read: &Db) -> Result<Vec<String>, PitError> {
    read.run_now(|conn| {
        let tables = rows::tables(conn, None)?;
        Ok(tables.into_iter().map(|(_, code)| code).collect())
    })
    .await
}

/// Where `query` can be read from (the primary's position, when `replica`, checked against
/// the replica's replay on `primary`), or why it cannot be answered.
pub async fn source(
    read: &Db,
    primary: &Db,
    replica: bool,
    query: Query,
    wait: std::time::Duration,
) -> Result<Result<Source, ExportError>, PitError> {
    let primary = primary.pool().clone();
    read.run_now(move |conn| {
        if let Some(code) = &query.table {
            if rows::tables(conn, Some(code))?.is_empty() {
                return Ok(Err(ExportError::BadQuery(format!(
                    "There is no table {code}."
                ))));
            }
        }
        if !replica {
            return Ok(Ok(Source::primary()));
        }
        let mut primary = primary.get().ok();
        match export::replay_check(conn, primary.as_deref_mut(), &query, wait) {
            Err(ExportError::Db(error)) => Err(error.into()),
            answer => Ok(answer),
        }
    })
    .await
}

/// Writes the export of `query` to `out` on the blocking thread pool, from `source`; an export
/// that ends early (the download cancelled, the database gone) is handed to `failed`.
pub fn start<W: Write + Send + 'static>(
    read: &Db,
    query: Query,
    clock: Clock,
    source: Source,
    format: Format,
    mut out: W,
    failed: impl FnOnce(W, ExportError) + Send + 'static,
) {
    let read = read.pool().clone();
    tokio::task::spawn_blocking(move || {
        let done = read
            .get()
            .map_err(|e| ExportError::Io(std::io::Error::other(e)))
            .and_then(|mut conn| {
                export::export(&mut conn, &query, clock, source, format, &mut out)
            });
        if let Err(error) = done {
            failed(out, error);
        }
    });
}
