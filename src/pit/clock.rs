//! The time the use-cases go by: the system's clock, which only code (the test harness) can move
//! ahead, never a setting an operator could leave on in production.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

/// The system's time, moved ahead by a set number of seconds (none unless code sets it). Clones
/// share the setting, so a harness keeps one and moves the app's.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    ahead_seconds: Arc<AtomicI64>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + Duration::seconds(self.ahead_seconds.load(Ordering::Relaxed))
    }

    /// From now on, this clock (and its clones) reads `by` ahead of the system's.
    pub fn set_ahead(&self, by: Duration) {
        self.ahead_seconds
            .store(by.num_seconds(), Ordering::Relaxed);
    }
}
