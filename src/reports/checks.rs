//! Verifications run in the background (the auditor's "verify now"): at most one at a time per
//! process, on its own thread and connection, with its progress readable while it runs. What a
//! finished check found is handed to the caller's `done` (which records it in the trail).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use diesel::PgConnection;

use crate::db::PgPool;
use crate::reports::verify::{self, Progress, Scope, Verification};

/// A check under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    pub started_at: DateTime<Utc>,
    pub started_by: String,
    pub progress: Progress,
}

/// The process's background check: none, or the one running.
#[derive(Debug, Default)]
pub struct Checks {
    running: Mutex<Option<Running>>,
}

/// What to do with a finished check's verdict (or the reason it could not finish).
pub type Done = Box<dyn FnOnce(&mut PgConnection, Result<&Verification, String>) + Send>;

impl Checks {
    /// The check running now, if any.
    pub fn running(&self) -> Option<Running> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, value: Option<Running>) {
        *self.running.lock().unwrap_or_else(PoisonError::into_inner) = value;
    }

    /// Starts a check of every chain and seal on a thread of its own; `false` (and nothing
    /// started) when one is already running.
    pub fn start(self: &Arc<Self>, pool: PgPool, seal_file: PathBuf, by: &str, done: Done) -> bool {
        {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            if running.is_some() {
                return false;
            }
            *running = Some(Running {
                started_at: Utc::now(),
                started_by: by.to_owned(),
                progress: Progress::default(),
            });
        }
        let checks = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("audit-verify".to_owned())
            .spawn(move || {
                let outcome = (|| -> Result<(), String> {
                    let mut conn = pool.get().map_err(|e| format!("no connection: {e}"))?;
                    let mut report = |progress: Progress| {
                        let mut running = checks
                            .running
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        if let Some(running) = running.as_mut() {
                            running.progress = progress;
                        }
                    };
                    let found =
                        verify::verify(&mut conn, &Scope::default(), &seal_file, &mut report)
                            .map_err(|e| format!("{e}: {e:?}"));
                    done(&mut conn, found.as_ref().map_err(Clone::clone));
                    found.map(|_| ())
                })();
                if let Err(err) = outcome {
                    tracing::error!(error = %err, "a background audit verification failed");
                }
                checks.set(None);
            });
        if let Err(err) = spawned {
            tracing::error!(error = %err, "cannot start an audit verification");
            self.set(None);
            return false;
        }
        true
    }
}
