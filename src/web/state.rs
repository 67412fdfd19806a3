//! What every handler can reach: the pool, the settings, and what the process keeps for
//! round entry.

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::Config;
use crate::db::handle::Db;
use crate::db::PgPool;
use crate::password::pin::{PinKey, PinKeyError};
use crate::password::Secrets;
use crate::pit::clock::Clock;
use crate::recording::memory::TableMemos;
use crate::recording::tokens::RememberedTokens;
use crate::recording::writer::RoundWriter;
use crate::reports::checks::{Checks, Rechecks};
use crate::web::refusals::Refusals;
use crate::web::user::CurrentUser;

/// Refused requests one signed-in account may make a minute before it is answered 429.
pub const DENIALS_PER_MINUTE: NonZeroU32 = NonZeroU32::new(60).unwrap();

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The primary database, in turns: what the use-cases run on.
    pub db: Db,
    /// Where exports, verification, reports and the review queue read: a streaming replica
    /// (`PUSOY_READ_DATABASE_URL`), or the primary's pool.
    pub read_db: Db,
    pub config: Arc<Config>,
    /// The time the use-cases go by (the gaming day's close): the system's, unless a test
    /// harness moves it.
    pub clock: Clock,
    /// Requests refused for a bad API token, per client address (limited like sign-ins).
    pub refused_tokens: Arc<DefaultKeyedRateLimiter<String>>,
    /// Refused requests by client address and minute, so that a flood is recorded as a count.
    pub refusals: Arc<Refusals>,
    /// The log lines of refused requests, by client address, route and what was refused: the
    /// first of a minute is logged, the rest counted ([`crate::web::refusals::log`]).
    pub refusal_log: Arc<Refusals>,
    /// Requests of signed-in accounts refused for their role, by account, route and minute
    /// (recorded as `authz.denied` once a minute, the rest as a count).
    pub denials: Arc<Refusals>,
    /// Refused requests per account: beyond [`DENIALS_PER_MINUTE`] the answer is 429.
    pub denied_accounts: Arc<DefaultKeyedRateLimiter<i64>>,
    /// Each table's state after this process's last whole round there.
    pub table_memos: Arc<TableMemos>,
    /// Writes whole rounds made from `table_memos`, many tables at a time.
    pub round_writer: Arc<RoundWriter>,
    /// API tokens found good, for whole rounds written from memory.
    pub checked_tokens: Arc<RememberedTokens<CurrentUser>>,
    /// The audit verification running in the background, if any.
    pub audit_checks: Arc<Checks>,
    /// The recompute check of a gaming day running in the background, if any.
    pub day_rechecks: Arc<Rechecks>,
    /// The key signing PINs are kept under (`Config::pin_key_file`).
    pub pin_key: Arc<PinKey>,
}

impl AppState {
    /// The state of an app on `pool`; reads the signing-PIN key (making it at first start).
    pub fn new(pool: PgPool, config: Config) -> Result<Self, PinKeyError> {
        let pin_key = Arc::new(PinKey::load_or_create(&config.pin_key_file)?);
        let connections = usize::try_from(pool.max_size()).unwrap_or(1);
        // Two round writers from 8 connections up, one below; the other connections serve
        // requests in turn.
        let writers = (connections / 4).clamp(1, 2);
        let turns = connections.saturating_sub(writers).max(1);
        let table_memos = Arc::new(TableMemos::default());
        let limit = &config.login_rate_limit;
        let quota = Quota::per_minute(NonZeroU32::new(limit.per_minute).unwrap_or(NonZeroU32::MIN))
            .allow_burst(NonZeroU32::new(limit.burst).unwrap_or(NonZeroU32::MIN));
        Ok(AppState {
            round_writer: Arc::new(RoundWriter::new(pool.clone(), table_memos.clone(), writers)),
            read_db: Db::new(pool.clone(), connections),
            db: Db::new(pool, turns),
            config: Arc::new(config),
            clock: Clock::default(),
            refused_tokens: Arc::new(RateLimiter::keyed(quota)),
            refusals: Arc::new(Refusals::default()),
            refusal_log: Arc::new(Refusals::default()),
            denials: Arc::new(Refusals::default()),
            denied_accounts: Arc::new(RateLimiter::keyed(
                Quota::per_minute(DENIALS_PER_MINUTE).allow_burst(DENIALS_PER_MINUTE),
            )),
            table_memos,
            checked_tokens: Arc::new(RememberedTokens::default()),
            audit_checks: Arc::new(Checks::default()),
            day_rechecks: Arc::new(Rechecks::default()),
            pin_key,
        })
    }

    /// What checks a second signer's password or PIN.
    pub fn secrets(&self) -> Secrets {
        Secrets {
            params: self.config.password_hash,
            pin_key: self.pin_key.clone(),
        }
    }

    /// Reads go to `read_pool` (a replica) instead of the primary.
    pub fn with_read_pool(mut self, read_pool: PgPool) -> Self {
        let connections = usize::try_from(read_pool.max_size()).unwrap_or(1);
        self.read_db = Db::new(read_pool, connections);
        self
    }
}
