//! Checks run in the background: the auditor's "verify now" and the pit manager's recompute
//! check of a gaming day. At most one of each kind at a time, on its own thread and connection,
//! with its progress readable while it runs: one per process, and one among the app instances
//! on the database (an advisory lock per kind, held while it runs; a check asked of a second
//! instance meanwhile is not run). What a finished check found is handed
//! to the caller's `done` (which records it in the trail).

use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;

use crate::db::seal_file::SealFiles;
use crate::db::PgPool;
use crate::reports::recheck::{self, DayRecheck};
use crate::reports::verify::{self, Progress, Scope, Verification};

/// The advisory locks of the two kinds of check.
pub const VERIFY_LOCK: i64 = 0x7075_736f_7902;
pub const RECHECK_LOCK: i64 = 0x7075_736f_7903;

/// A check under way: when, by whom, of what, and how far it has gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job<S, P> {
    pub started_at: DateTime<Utc>,
    pub started_by: String,
    pub subject: S,
    pub progress: P,
}

/// The process's background check of one kind: none, or the one running.
#[derive(Debug)]
pub struct Background<S, P> {
    running: Mutex<Option<Job<S, P>>>,
}

impl<S, P> Default for Background<S, P> {
    fn default() -> Self {
        Background {
            running: Mutex::new(None),
        }
    }
}

/// What to do with a finished check's result (or the reason it could not finish).
pub type Done<T> = Box<dyn FnOnce(&mut PgConnection, Result<&T, String>) + Send>;

impl<S, P> Background<S, P>
where
    S: Clone + Send + 'static,
    P: Clone + Default + Send + 'static,
{
    /// The check running now, if any.
    pub fn running(&self) -> Option<Job<S, P>> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, value: Option<Job<S, P>>) {
        *self.running.lock().unwrap_or_else(PoisonError::into_inner) = value;
    }

    /// Runs `work` on a thread named `name` with a connection of `pool` and a way to report its
    /// progress, then hands its result to `done`; `false` (and nothing started) when a check of
    /// this kind is already running.
    #[allow(clippy::too_many_arguments)]
    fn start<T: 'static, E: std::fmt::Display + std::fmt::Debug + 'static>(
        self: &Arc<Self>,
        name: &str,
        lock: i64,
        pool: PgPool,
        by: &str,
        subject: S,
        work: impl FnOnce(&mut PgConnection, &mut dyn FnMut(P)) -> Result<T, E> + Send + 'static,
        done: Done<T>,
    ) -> bool {
        {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            if running.is_some() {
                return false;
            }
            *running = Some(Job {
                started_at: Utc::now(),
                started_by: by.to_owned(),
                subject,
                progress: P::default(),
            });
        }
        let checks = Arc::clone(self);
        let thread = name.to_owned();
        let spawned = std::thread::Builder::new()
            .name(thread.clone())
            .spawn(move || {
                let outcome = (|| -> Result<(), String> {
                    let mut conn = pool.get().map_err(|e| format!("no connection: {e}"))?;
                    let locked = crate::db::try_advisory_lock(&mut conn, lock)
                        .map_err(|e| format!("cannot take the check's lock: {e}"))?;
                    if !locked {
                        tracing::info!(check = %thread, "the check runs on another app instance");
                        return Ok(());
                    }
                    let mut report = |progress: P| {
                        let mut running = checks
                            .running
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        if let Some(running) = running.as_mut() {
                            running.progress = progress;
                        }
                    };
                    let found = work(&mut conn, &mut report).map_err(|e| format!("{e}: {e:?}"));
                    done(&mut conn, found.as_ref().map_err(Clone::clone));
                    // A connection that failed is dropped, and its lock with it.
                    let _ = crate::db::advisory_unlock(&mut conn, lock);
                    found.map(|_| ())
                })();
                if let Err(err) = outcome {
                    tracing::error!(error = %err, check = %thread, "a background check failed");
                }
                checks.set(None);
            });
        if let Err(err) = spawned {
            tracing::error!(error = %err, check = %name, "cannot start a background check");
            self.set(None);
            return false;
        }
        true
    }
}

/// The auditor's verification of every chain and seal.
pub type Checks = Background<(), Progress>;

/// A verification under way.
pub type Running = Job<(), Progress>;

impl Checks {
    /// Starts a check of every chain and seal on a thread of its own; `false` (and nothing
    /// started) when one is already running.
    pub fn start_verify(
        self: &Arc<Self>,
        pool: PgPool,
        seals: SealFiles,
        by: &str,
        done: Done<Verification>,
    ) -> bool {
        self.start(
            "audit-verify",
            VERIFY_LOCK,
            pool,
            by,
            (),
            move |conn, report| verify::verify(conn, &Scope::default(), &seals, report),
            done,
        )
    }
}

/// The recompute check of a gaming day: the day, and the rounds settled again so far.
pub type Rechecks = Background<NaiveDate, usize>;

impl Rechecks {
    /// Starts the recompute check of gaming day `day` on a thread of its own; `false` (and
    /// nothing started) when one is already running.
    pub fn start_recheck(
        self: &Arc<Self>,
        pool: PgPool,
        day: NaiveDate,
        by: &str,
        done: Done<DayRecheck>,
    ) -> bool {
        self.start(
            "day-recheck",
            RECHECK_LOCK,
            pool,
            by,
            day,
            move |conn, report| recheck::recheck_day(conn, day, report),
            done,
        )
    }
}
