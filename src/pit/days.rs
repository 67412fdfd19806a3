//! Gaming days: the recent ones, one day's seal or what keeps it open, and closing a day. The
//! close is decided here: not before the day has ended (at the next day's start, local time),
//! and not while anything of the day is still open ([`Blocker`]); then its seal event, and the
//! seal's copy in the seal file, in one transaction.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::{Connection, PgConnection};

use crate::config::{Config, Zone};
use crate::db::audit_log::Actor;
use crate::db::checkpoints::{self, CheckpointError, Disagreement};
use crate::db::days::{self, DayClose, SealError};
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::seal_file::{SealFileError, SealFiles};
use crate::db::users::{self, User};
use crate::pit::{PitError, Refusable};

/// The last `limit` closes, latest first.
pub async fn recent_closes(db: &Db, limit: i64) -> Result<Vec<DayClose>, PitError> {
    db.run(move |conn| Ok(days::recent_closes(conn, limit)?))
        .await
}

/// Something still open that keeps a gaming day from closing: at which table, what it is in
/// words, and the page where it is dealt with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocker {
    pub table_code: String,
    pub words: String,
    pub link: String,
}

impl std::fmt::Display for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.table_code, self.words)
    }
}

/// What keeps `day` open now, table by table in code order (nothing: it may close). Each kind
/// of open business adds its own blockers here: a dealer still on a shift of the day or an
/// earlier one (they could still record rounds on it), a round being entered on a shift of the
/// day, a table without its closer, a fill or credit not received (once closed, the day's
/// documents are final: it could no longer be received or voided).
fn blockers(
    conn: &mut PgConnection,
    day: NaiveDate,
    zone: Zone,
) -> diesel::QueryResult<Vec<Blocker>> {
    let mut blockers: Vec<Blocker> = days::open_shifts(conn, day)?
        .into_iter()
        .map(|s| Blocker {
            link: format!("/tables/{}/sign-off", s.table_code),
            words: format!(
                "dealer {} ({}) is on shift since {}",
                s.dealer_name,
                s.dealer_username,
                local(s.signed_on_at, zone)
            ),
            table_code: s.table_code,
        })
        .collect();
    blockers.extend(days::open_drafts(conn, day)?.into_iter().map(|d| Blocker {
        link: format!("/tables/{}", d.table_code),
        words: format!(
            "a round is being entered and is not confirmed (saved {} time(s), last at {})",
            d.revision,
            local(d.updated_at, zone)
        ),
        table_code: d.table_code,
    }));
    blockers.extend(
        crate::db::reconciliation::missing_closers(conn, day)?
            .into_iter()
            .map(|m| Blocker {
                link: format!("/tables/{}/slips?day={day}", m.table_code),
                words: "the table took rounds or opened this day and has no closer: count its \
                        chips and sign the closer"
                    .to_owned(),
                table_code: m.table_code,
            }),
    );
    for slip in crate::db::reconciliation::unreceived_slips(conn, day)? {
        // A stored kind the database's check admits; an unknown one is named as stored.
        let number = match slip.kind.parse::<crate::db::cage::Kind>() {
            Ok(kind) => crate::db::cage::number_text(kind, slip.year, slip.number),
            Err(_) => format!("{} {}-{}", slip.kind, slip.year, slip.number),
        };
        blockers.push(Blocker {
            link: format!("/cage/slips/{}", slip.id),
            words: format!(
                "{} {number} is {} and not received: receive it at the table or void it \
                 (the day's documents are final once it closes)",
                slip.kind, slip.step
            ),
            table_code: slip.table_code,
        });
    }
    // Stable: within a table, the kinds keep the order above.
    blockers.sort_by(|a, b| a.table_code.cmp(&b.table_code));
    Ok(blockers)
}

/// A time as staff read it: local, with the zone.
fn local(at: DateTime<Utc>, zone: Zone) -> String {
    format!(
        "{} ({zone})",
        at.with_timezone(&zone.offset).format("%Y-%m-%d %H:%M")
    )
}

/// A gaming day as its page shows it: its close and who closed it, or when it ends and what
/// keeps it open.
pub struct Day {
    pub close: Option<DayClose>,
    pub closer: Option<User>,
    /// When the day ends (where the next one begins): it can be closed from then.
    pub ends_at: DateTime<Utc>,
    /// Whether `ends_at` has passed.
    pub ended: bool,
    pub blockers: Vec<Blocker>,
}

/// Gaming day `day` as it stands at `now`.
pub async fn day(
    db: &Db,
    config: &Config,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<Day, PitError> {
    let zone = config.zone();
    let ends_at = config.gaming_day_end(day);
    db.run(move |conn| {
        let close = days::find_close(conn, day)?;
        let closer = match &close {
            Some(c) => users::find(conn, c.closed_by)?,
            None => None,
        };
        let blockers = if close.is_none() {
            blockers(conn, day, zone)?
        } else {
            Vec::new()
        };
        Ok(Day {
            close,
            closer,
            ends_at,
            ended: ends_at <= now,
            blockers,
        })
    })
    .await
}

/// Why a close was refused, or failed.
#[derive(Debug, thiserror::Error)]
enum CloseError {
    #[error("The gaming day {day} is already closed.")]
    AlreadyClosed { day: NaiveDate },
    #[error("The gaming day {day} runs until {until}: it can be closed from then.")]
    NotEnded { day: NaiveDate, until: String },
    #[error("The gaming day {day} cannot be closed yet: {}.", list(.blockers))]
    Blocked {
        day: NaiveDate,
        blockers: Vec<Blocker>,
    },
    #[error("Only a signed-in user can close a gaming day.")]
    NotAUser,
    #[error("the seal could not be copied outside the database, so the day was not closed: {0}")]
    SealCopy(#[from] SealFileError),
    #[error(
        "The gaming day {day} was not closed: its audit trail disagrees with the checkpoints \
         written outside the database ({}). Nothing was sealed; run `pusoy-pit audit verify` and \
         call the auditor.",
        list(.rewritten)
    )]
    Rewritten {
        day: NaiveDate,
        rewritten: Vec<Disagreement>,
    },
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

impl CloseError {
    /// The close's error for a failed check of the checkpoints of `day`.
    fn checkpoints(day: NaiveDate) -> impl FnOnce(CheckpointError) -> CloseError {
        move |err| match err {
            CheckpointError::Rewritten(rewritten) => CloseError::Rewritten { day, rewritten },
            CheckpointError::File(err) => CloseError::SealCopy(err),
            CheckpointError::Query(err) => CloseError::Query(err),
        }
    }
}

impl From<SealError> for CloseError {
    fn from(err: SealError) -> Self {
        match err {
            SealError::Copy(err) => CloseError::SealCopy(err),
            SealError::Query(err) => CloseError::Query(err),
        }
    }
}

fn list(items: &[impl ToString]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Closes gaming day `day`, which has ended, as `closed_by` (`actor`), in the caller's
/// transaction: holds the day's tables ([`days::lock_day_tables`]), refuses it when it is closed
/// already or anything keeps it open ([`blockers`]), checks the last checkpoints and seals it.
fn close_ended(
    conn: &mut PgConnection,
    zone: Zone,
    day: NaiveDate,
    closed_by: UserId,
    actor: &Actor,
    seals: &SealFiles,
) -> Result<DayClose, CloseError> {
    days::lock_day_tables(conn)?;
    if days::find_close(conn, day)?.is_some() {
        return Err(CloseError::AlreadyClosed { day });
    }
    let blockers = blockers(conn, day, zone)?;
    if !blockers.is_empty() {
        return Err(CloseError::Blocked { day, blockers });
    }
    checkpoints::check_last(conn, seals).map_err(CloseError::checkpoints(day))?;
    let (close, _) = days::seal_day(conn, day, closed_by, actor, seals)?;
    Ok(close)
}

/// The close's refusal of `day` at `now`, before the day has ended (at the next day's start);
/// none once it has.
fn not_ended(config: &Config, day: NaiveDate, now: DateTime<Utc>) -> Option<CloseError> {
    let ends_at = config.gaming_day_end(day);
    (now < ends_at).then(|| CloseError::NotEnded {
        day,
        until: local(ends_at, config.zone()),
    })
}

/// Closes gaming day `day` for `db generate --close-days`, as `closer` (a generated supervisor),
/// in a transaction of its own, as the pit closes it: refused (in words, nothing written) while
/// anything keeps it open or before it has ended at `now`.
pub fn close_generated(
    conn: &mut PgConnection,
    config: &Config,
    day: NaiveDate,
    now: DateTime<Utc>,
    (closer, username): (UserId, &str),
    seals: &SealFiles,
) -> Result<Result<DayClose, String>, diesel::result::Error> {
    if let Some(refused) = not_ended(config, day, now) {
        return Ok(Err(refused.to_string()));
    }
    let actor = Actor::user(closer, username, None);
    match conn.transaction(|conn| close_ended(conn, config.zone(), day, closer, &actor, seals)) {
        Ok(close) => Ok(Ok(close)),
        Err(CloseError::Query(err)) => Err(err),
        Err(refused) => Ok(Err(refused.to_string())),
    }
}

/// Closes gaming day `day` at `now` and appends its seal to the seal files. Refused before the
/// day has ended, when it is closed already, while anything keeps it open ([`blockers`]), when
/// its trail disagrees with the last checkpoints, or when its seal cannot be copied (logged,
/// and the day stays open). The checks and the seal run in one transaction holding the day's
/// tables ([`days::lock_day_tables`]), so nothing of the day slips in between.
pub async fn close(
    db: &Db,
    config: &Config,
    day: NaiveDate,
    now: DateTime<Utc>,
    actor: Actor,
    seals: SealFiles,
) -> Result<Refusable<DayClose>, PitError> {
    let zone = config.zone();
    let decided =
        match (actor.user_id, not_ended(config, day, now)) {
            (None, _) => Err(CloseError::NotAUser),
            (Some(_), Some(refused)) => Err(refused),
            (Some(closed_by), None) => {
                db.run(move |conn| {
                    Ok::<_, PitError>(conn.transaction(|conn| {
                        close_ended(conn, zone, day, closed_by, &actor, &seals)
                    }))
                })
                .await?
            }
        };
    match decided {
        Ok(close) => Ok(Ok(close)),
        Err(CloseError::Query(err)) => Err(PitError::from(err)),
        Err(refused) => {
            match &refused {
                CloseError::SealCopy(err) => {
                    tracing::error!(error = %err, "the seal file cannot be written or read");
                }
                CloseError::Rewritten { rewritten, .. } => {
                    tracing::error!(?rewritten, "the audit trail disagrees with its checkpoints");
                }
                _ => {}
            }
            Ok(Err(refused.to_string()))
        }
    }
}
