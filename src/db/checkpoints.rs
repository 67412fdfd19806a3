//! Checkpoints of the chain heads between day closes: every chain's last sequence number and
//! hash, appended to the seal files ([`SealFiles`]) at each shift sign-off and by `serve` every
//! few minutes while events are written ([`Checkpointer`]). A rewrite of events a checkpoint
//! covers (a re-hashed tail, an event slipped in, a cut tail, each with the chain's head moved to
//! match) no longer agrees with it: `audit verify` names it, and the close refuses to seal it
//! ([`check_last`]).

use std::collections::BTreeSet;

use chrono::Utc;
use diesel::pg::PgConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Text};

use crate::db::schema::audit_events;
use crate::db::seal_file::{self, Checkpoint, SealFileError, SealFiles, SealedHead, SealedHeads};

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("the audit trail disagrees with what was written outside the database: {}", list(.0))]
    Rewritten(Vec<Disagreement>),
    #[error(transparent)]
    File(#[from] SealFileError),
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

/// A chain whose events disagree with the last checkpoint (or seal) of it in a seal file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    pub chain: String,
    pub seq: i64,
    /// What differs, naming the checkpoint and its time.
    pub what: String,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} seq {}: {}", self.chain, self.seq, self.what)
    }
}

fn list(disagreements: &[Disagreement]) -> String {
    disagreements
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

#[derive(QueryableByName)]
struct HeadRow {
    #[diesel(sql_type = Text)]
    chain: String,
    #[diesel(sql_type = BigInt)]
    last_seq: i64,
    #[diesel(sql_type = Bytea)]
    last_hash: Vec<u8>,
}

/// Every chain's head, as `audit_chain_heads` holds it.
pub fn heads(conn: &mut PgConnection) -> QueryResult<SealedHeads> {
    let rows: Vec<HeadRow> = diesel::sql_query(
        "SELECT chain, last_seq, last_hash FROM audit_chain_heads ORDER BY chain",
    )
    .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.chain,
                SealedHead {
                    seq: r.last_seq,
                    hash: hex::encode(r.last_hash),
                },
            )
        })
        .collect())
}

/// The advisory lock under which a checkpoint is taken and appended: several app instances on
/// one database (sharing one seal file) write one at a time.
pub const CHECKPOINT_LOCK: i64 = 0x7075_736f_7901;

/// Runs `f` holding [`CHECKPOINT_LOCK`] (for the session: it is held past the reading
/// transaction's commit, while the file is written); `None` when another instance holds it.
fn one_at_a_time<T>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, CheckpointError>,
) -> Result<Option<T>, CheckpointError> {
    if !crate::db::try_advisory_lock(conn, CHECKPOINT_LOCK)? {
        return Ok(None);
    }
    let done = f(conn);
    let unlocked = crate::db::advisory_unlock(conn, CHECKPOINT_LOCK);
    let done = done?;
    unlocked?;
    Ok(Some(done))
}

/// Every chain's head, once the heads are sure to outlive the primary: the reading
/// transaction takes an id and commits, so that with a synchronous standby its commit (and
/// with it every commit the heads show, which came before) is on the standby's disk before
/// the heads go to a seal file. (A commit is visible on the primary before its standby has
/// acknowledged it; a checkpoint of a head that a failover then lost would read as a cut tail.)
fn lasting_heads(conn: &mut PgConnection) -> Result<SealedHeads, CheckpointError> {
    conn.transaction(|conn| {
        let now = heads(conn)?;
        diesel::sql_query("SELECT pg_current_xact_id()").execute(conn)?;
        Ok(now)
    })
}

/// Appends a checkpoint of every chain's head to the seal files (waiting its turn behind
/// another instance's).
pub fn write(conn: &mut PgConnection, seals: &SealFiles) -> Result<Checkpoint, CheckpointError> {
    loop {
        let written = one_at_a_time(conn, |conn| {
            let checkpoint = Checkpoint::new(Utc::now(), lasting_heads(conn)?);
            seals.append_checkpoint(&checkpoint)?;
            Ok(checkpoint)
        })?;
        if let Some(checkpoint) = written {
            return Ok(checkpoint);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Writes a checkpoint after a shift sign-off. A failure is logged, not returned: the sign-off
/// has committed, and the next periodic checkpoint covers it.
pub fn at_sign_off(conn: &mut PgConnection, seals: &SealFiles) {
    if let Err(err) = write(conn, seals) {
        tracing::error!(error = %err, "no checkpoint of the chain heads at a sign-off");
    }
}

/// What `serve`'s checkpoint task runs every `PUSOY_CHECKPOINT_MINUTES`: a checkpoint when a
/// chain's head moved since the last line of the seal file. Several app instances sharing one
/// seal file each run it, and it runs once: one at a time under an advisory lock, each reading
/// the lines the others appended since its last look, so a head is checkpointed once.
#[derive(Debug)]
pub struct Checkpointer {
    seals: SealFiles,
    /// The heads as the seal file last fixed them, and the file's length when read.
    last: Option<(SealedHeads, u64)>,
}

impl Checkpointer {
    pub fn new(seals: SealFiles) -> Self {
        Checkpointer { seals, last: None }
    }

    /// Writes a checkpoint if any chain's head moved since the seal file's last checkpoint or
    /// seal (the written checkpoint), or nothing (`None`; also while another instance writes
    /// one).
    pub fn tick(&mut self, conn: &mut PgConnection) -> Result<Option<Checkpoint>, CheckpointError> {
        let seals = &self.seals;
        let last = &mut self.last;
        let written = one_at_a_time(conn, |conn| {
            let now = lasting_heads(conn)?;
            let length = file_length(&seals.file)?;
            let known = match last.take() {
                // Another instance appended since: read the file again.
                Some((heads, read_at)) if read_at == length => heads,
                _ => last_heads(seals)?,
            };
            if now
                .iter()
                .all(|(chain, head)| known.get(chain) == Some(head))
            {
                *last = Some((known, length));
                return Ok(None);
            }
            let checkpoint = Checkpoint::new(Utc::now(), now);
            seals.append_checkpoint(&checkpoint)?;
            *last = Some((checkpoint.heads.clone(), file_length(&seals.file)?));
            Ok(Some(checkpoint))
        })?;
        Ok(written.flatten())
    }
}

/// The seal file's length in bytes (0 if it does not exist yet).
fn file_length(path: &std::path::Path) -> Result<u64, SealFileError> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(meta.len()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(source) => Err(SealFileError::Io {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Each chain's head as the seal file's lines last fixed it.
fn last_heads(seals: &SealFiles) -> Result<SealedHeads, SealFileError> {
    let mut last = SealedHeads::new();
    for line in seal_file::read_lines(&seals.file)? {
        last.extend(line.heads().clone());
    }
    Ok(last)
}

/// Checks every chain against the last line (checkpoint or seal) that names it in each seal
/// file: the event at that sequence number exists and has that hash. The close calls it before
/// sealing, so that it never seals a rewritten chain.
pub fn check_last(conn: &mut PgConnection, seals: &SealFiles) -> Result<(), CheckpointError> {
    // (chain, seq, hash, the line's name and file) of each chain's last line in each file.
    let mut marks = BTreeSet::new();
    for (path, file) in seals.paths() {
        let mut last = std::collections::BTreeMap::new();
        for line in seal_file::read_lines(path)? {
            for (chain, head) in line.heads() {
                last.insert(chain.clone(), (head.clone(), line.name(seals.zone)));
            }
        }
        for (chain, (head, name)) in last {
            marks.insert((chain, head.seq, head.hash, format!("{name} in {file}")));
        }
    }
    let mut rewritten = Vec::new();
    for (chain, seq, hash, name) in marks {
        let stored: Option<Vec<u8>> = audit_events::table
            .filter(audit_events::chain.eq(&chain))
            .filter(audit_events::seq.eq(seq))
            .select(audit_events::hash)
            .first(conn)
            .optional()?;
        let what = match stored {
            Some(stored) if hex::encode(&stored) == hash => continue,
            Some(_) => format!("the event differs from {name}"),
            None => {
                let end: Option<i64> = audit_events::table
                    .filter(audit_events::chain.eq(&chain))
                    .select(diesel::dsl::max(audit_events::seq))
                    .first(conn)?;
                format!(
                    "missing: the chain ends at seq {}, before {name} (its tail was cut)",
                    end.unwrap_or(0)
                )
            }
        };
        rewritten.push(Disagreement { chain, seq, what });
    }
    if rewritten.is_empty() {
        Ok(())
    } else {
        Err(CheckpointError::Rewritten(rewritten))
    }
}
