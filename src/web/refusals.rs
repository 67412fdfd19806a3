//! How refused requests reach the audit trail without letting anyone fill it: per client address
//! and minute, the first refusal is recorded as it is and the rest only counted; once that
//! minute is over, the count is recorded as one event (written with the next refusal from any
//! address; a count still open when the app stops is lost, and the log has the refusals).
//! Addresses beyond [`MOST_ADDRESSES`] in one minute share one count.

use std::collections::HashMap;
use std::sync::Mutex;

use actix_web::HttpRequest;

/// Addresses tracked at once; more in one minute are counted together under [`MANY`].
pub const MOST_ADDRESSES: usize = 4096;
/// The address of the shared count.
pub const MANY: &str = "(many addresses)";

/// Refusals from one address in one minute, beyond the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeated {
    pub client_addr: String,
    /// Minutes since the Unix epoch.
    pub minute: i64,
    pub count: u64,
}

/// What to record for a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Whether to record this refusal itself (the first from its address this minute).
    pub record: bool,
    /// Counts of minutes now over, to record.
    pub repeated: Vec<Repeated>,
}

#[derive(Debug, Default)]
pub struct Refusals {
    /// Per address: the minute of its last refusal, and how many that minute went unrecorded.
    counts: Mutex<HashMap<String, (i64, u64)>>,
}

impl Refusals {
    /// Notes a refusal from `client_addr` in `minute` (minutes since the epoch).
    pub fn note(&self, client_addr: &str, minute: i64) -> Verdict {
        let Ok(mut counts) = self.counts.lock() else {
            // A panic elsewhere poisoned the lock: record nothing rather than everything.
            return Verdict {
                record: false,
                repeated: Vec::new(),
            };
        };
        let mut repeated = Vec::new();
        if counts.values().any(|(at, _)| *at < minute) {
            counts.retain(|addr, (at, count)| {
                if *at >= minute {
                    return true;
                }
                if *count > 0 {
                    repeated.push(Repeated {
                        client_addr: addr.clone(),
                        minute: *at,
                        count: *count,
                    });
                }
                false
            });
            repeated.sort_by(|a, b| a.client_addr.cmp(&b.client_addr));
        }
        let key = if counts.contains_key(client_addr) || counts.len() < MOST_ADDRESSES {
            client_addr
        } else {
            MANY
        };
        let record = match counts.get_mut(key) {
            Some((_, count)) => {
                *count += 1;
                false
            }
            None => {
                // The shared count has no first refusal recorded: it counts every one.
                counts.insert(key.to_owned(), (minute, u64::from(key == MANY)));
                key != MANY
            }
        };
        Verdict { record, repeated }
    }
}

/// Logs the refusal of `req` (`what` was refused) at most once per client address, route and
/// minute in `lines`: the rest are counted, and each count is logged as one line once its
/// minute is over (with the next refusal logged). A flood of refused requests then grows the
/// log by a few lines a minute, not by a line a request.
pub fn log(lines: &Refusals, req: &HttpRequest, what: &str) {
    let addr = crate::web::user::client_addr(req).unwrap_or_default();
    // By route, not path: a flood of made-up paths is one route.
    let route = format!(
        "{} {}",
        req.method(),
        req.match_pattern().as_deref().unwrap_or("(no route)")
    );
    let minute = chrono::Utc::now().timestamp().div_euclid(60);
    let verdict = lines.note(&format!("{what}; from {addr}, {route}"), minute);
    if verdict.record {
        tracing::warn!(client = %addr, path = %req.path(), %route, "{what}");
    }
    for repeated in verdict.repeated {
        let minute = chrono::DateTime::from_timestamp(repeated.minute * 60, 0).unwrap_or_default();
        tracing::warn!(
            count = repeated.count,
            %minute,
            "{} more refusals in the minute: {}",
            repeated.count,
            repeated.client_addr
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeated(client_addr: &str, minute: i64, count: u64) -> Repeated {
        Repeated {
            client_addr: client_addr.to_owned(),
            minute,
            count,
        }
    }

    #[test]
    fn the_first_refusal_of_a_minute_is_recorded_and_the_rest_counted_once_the_minute_is_over() {
        let refusals = Refusals::default();
        assert!(refusals.note("10.0.0.1", 100).record);
        for _ in 0..499 {
            assert!(!refusals.note("10.0.0.1", 100).record);
        }
        assert!(refusals.note("10.0.0.2", 100).record);
        let next = refusals.note("10.0.0.2", 101);
        assert!(next.record);
        assert_eq!(next.repeated, vec![repeated("10.0.0.1", 100, 499)]);
        // Counted once only.
        assert_eq!(refusals.note("10.0.0.3", 102).repeated, vec![]);
    }

    #[test]
    fn addresses_beyond_the_most_tracked_share_one_count() {
        let refusals = Refusals::default();
        for n in 0..MOST_ADDRESSES {
            assert!(refusals.note(&format!("a{n}"), 7).record);
        }
        for n in 0..1000 {
            assert!(!refusals.note(&format!("b{n}"), 7).record);
        }
        let later = refusals.note("c", 8);
        assert_eq!(later.repeated, vec![repeated(MANY, 7, 1000)]);
    }
}
