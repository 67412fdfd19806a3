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

/// Appends a checkpoint of every chain's head to the seal files.
pub fn write(conn: &mut PgConnection, seals: &SealFiles) -> Result<Checkpoint, CheckpointError> {
    let checkpoint = Checkpoint::new(Utc::now(), heads(conn)?);
    seals.append_checkpoint(&checkpoint)?;
    Ok(checkpoint)
}

/// Writes a checkpoint after a shift sign-off. A failure is logged, not returned: the sign-off
/// has committed, and the next periodic checkpoint covers it.
pub fn at_sign_off(conn: &mut PgConnection, seals: &SealFiles) {
    if let Err(err) = write(conn, seals) {
        tracing::error!(error = %err, "no checkpoint of the chain heads at a sign-off");
    }
}

/// What `serve`'s checkpoint task runs every `PUSOY_CHECKPOINT_MINUTES`: a checkpoint when a
/// chain's head moved since the last one it knows of. Several app instances each keep their
/// own, so two may write the same heads: a repeated checkpoint checks the same thing twice.
#[derive(Debug)]
pub struct Checkpointer {
    seals: SealFiles,
    /// The heads as last checkpointed; read from the seal file at the first tick.
    last: Option<SealedHeads>,
}

impl Checkpointer {
    pub fn new(seals: SealFiles) -> Self {
        Checkpointer { seals, last: None }
    }

    /// Writes a checkpoint if any chain's head moved since the last checkpoint or seal (the
    /// written checkpoint), or nothing (`None`).
    pub fn tick(&mut self, conn: &mut PgConnection) -> Result<Option<Checkpoint>, CheckpointError> {
        let last = match &mut self.last {
            Some(last) => last,
            None => self.last.insert(last_heads(&self.seals)?),
        };
        let now = heads(conn)?;
        if now
            .iter()
            .all(|(chain, head)| last.get(chain) == Some(head))
        {
            return Ok(None);
        }
        let checkpoint = Checkpoint::new(Utc::now(), now);
        self.seals.append_checkpoint(&checkpoint)?;
        last.clone_from(&checkpoint.heads);
        Ok(Some(checkpoint))
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
                last.insert(chain.clone(), (head.clone(), line.name()));
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
