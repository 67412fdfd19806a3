//! Configuration, read from the environment with safe defaults for local use. In production
//! mode (`PUSOY_ENV=production`) it refuses to start without a real session key or with
//! cookies that could travel over plain HTTP.

use std::path::PathBuf;
use std::str::FromStr;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeDelta, Utc};
use rand::RngCore;

use crate::password::HashParams;

/// Bytes in the session key that signs session cookies.
pub const SESSION_KEY_BYTES: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    Development,
    Production,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginRateLimit {
    /// Sign-in attempts one client address may make in a burst.
    pub burst: u32,
    /// Attempts regained per minute after the burst.
    pub per_minute: u32,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub environment: Environment,
    /// Address to listen on.
    pub bind: String,
    /// The database; `None` means the private cluster under `data_dir`.
    pub database_url: Option<String>,
    /// Where exports, verification, reports and the review queue read
    /// (`PUSOY_READ_DATABASE_URL`: a streaming replica); `None` means the primary.
    pub read_database_url: Option<String>,
    /// Where the private cluster lives when `database_url` is `None`.
    pub data_dir: PathBuf,
    pub session_key: Vec<u8>,
    /// Whether `session_key` was made up at start (development only).
    pub session_key_generated: bool,
    /// Cookies marked Secure and named with the `__Host-` prefix (needs HTTPS).
    pub secure_cookies: bool,
    /// Send Strict-Transport-Security (the app is reached over HTTPS).
    pub hsts: bool,
    pub timeouts: Timeouts,
    pub login_rate_limit: LoginRateLimit,
    /// The reverse proxies whose `X-Forwarded-For` is believed (`PUSOY_TRUSTED_PROXIES`, IP
    /// addresses separated by commas; none by default): a request from one of them is taken to
    /// come from the address it forwarded for.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    pub password_hash: HashParams,
    pub db_pool_size: u32,
    pub workers: usize,
    /// The casino's offset from UTC (`PUSOY_UTC_OFFSET`, default `+08:00`).
    pub utc_offset: FixedOffset,
    /// The name staff know the local time by (`PUSOY_TIME_ZONE_NAME`, e.g. `PHT`); `None`: the
    /// name of the offset where it is one of ours (see [`Zone`]), else none.
    pub zone_name: Option<&'static str>,
    /// Local time a gaming day starts (`PUSOY_GAMING_DAY_START`, default `06:00`).
    pub gaming_day_start: NaiveTime,
    /// Where each day seal is copied outside the database (`PUSOY_SEAL_FILE`, default
    /// `day-seals.jsonl` in `data_dir`, beside the private cluster's `pg` directory, not in it).
    pub seal_file: PathBuf,
    /// A second place every seal and checkpoint line is appended to (`PUSOY_SEAL_COPY`; none by
    /// default): a path the database's superuser cannot write, on another disk or host.
    pub seal_copy: Option<PathBuf>,
    /// The key signing PINs are kept under (`PUSOY_PIN_KEY_FILE`, default `signing-pin.key` in
    /// `data_dir`): made at first start, never in the database; every app instance of one
    /// installation needs the same file (`password::pin`).
    pub pin_key_file: PathBuf,
    /// How often `serve` writes a checkpoint of every chain head to the seal file while events
    /// are written (`PUSOY_CHECKPOINT_MINUTES`, default 5).
    pub checkpoint_every: TimeDelta,
    /// Deals `serve` simulates, in the background after it starts, for the house edge of each
    /// rule profile version that has none yet (`PUSOY_HOUSE_EDGE_DEALS`, default 100000; 0:
    /// none; docs/players.md).
    pub house_edge_deals: u32,
    /// The pit board flags a table with a dealer on and no round, or a round open, for this
    /// long (`PUSOY_PIT_QUIET_MINUTES`, default 10).
    pub pit_quiet_after: TimeDelta,
    /// Apply pending migrations at start (`PUSOY_MIGRATE`, default `true`). `false` for an app
    /// that runs as a role without DDL rights (`scripts/app-role.sql`): it then only checks that
    /// none is pending.
    pub migrate_at_start: bool,
    /// An opener whose chips differ from the table's previous closer by more than this (the
    /// value that does not match, in the table's currency) holds the table until a supervisor
    /// explains it (`PUSOY_OPENER_DIFFERENCE_LIMIT`, major units, default 1,000). One figure
    /// for the property: the internal controls a casino files name one.
    pub opener_difference_limit: crate::rules::money::Money,
    /// How far a table's win by inventory may be from its win by rounds before its day is
    /// flagged and an investigation opened: `PUSOY_VARIANCE_AMOUNT` (major units, default 1,000)
    /// or `PUSOY_VARIANCE_PERCENT` of the drop (default 2), whichever is greater.
    pub variance_tolerance: crate::rules::reconciliation::Tolerance,
    /// A day's hold further than this from the table's hold over the 30 days before it is
    /// flagged on the accounting report (`PUSOY_HOLD_BAND_POINTS`, percentage points, default 4),
    /// in basis points.
    pub hold_band: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{var}={value:?} is not valid: {reason}")]
    Invalid {
        var: &'static str,
        value: String,
        reason: String,
    },
    #[error(
        "PUSOY_ENV=production needs SESSION_KEY: {SESSION_KEY_BYTES} or more random bytes as hex \
         (e.g. `openssl rand -hex 64`)"
    )]
    MissingSessionKey,
    #[error("PUSOY_ENV=production refuses PUSOY_SECURE_COOKIES=false: serve over HTTPS")]
    InsecureCookiesInProduction,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup` (the environment, or a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let environment = match get("PUSOY_ENV").as_deref() {
            None | Some("development") => Environment::Development,
            Some("production") => Environment::Production,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    var: "PUSOY_ENV",
                    value: other.to_owned(),
                    reason: "expected development or production".to_owned(),
                })
            }
        };
        let production = environment == Environment::Production;

        let (session_key, session_key_generated) = match get("SESSION_KEY") {
            Some(hex_key) => (parse_session_key(&hex_key)?, false),
            None if production => return Err(ConfigError::MissingSessionKey),
            None => {
                let mut key = vec![0_u8; SESSION_KEY_BYTES];
                rand::rng().fill_bytes(&mut key);
                (key, true)
            }
        };
        let secure_cookies = parse_or(&get, "PUSOY_SECURE_COOKIES", production)?;
        if production && !secure_cookies {
            return Err(ConfigError::InsecureCookiesInProduction);
        }
        let minutes = |var: &'static str, default: i64| -> Result<TimeDelta, ConfigError> {
            in_range(&get, var, default, 1, 24 * 60).map(TimeDelta::minutes)
        };
        let timeouts = Timeouts {
            dealer_idle: minutes("PUSOY_DEALER_IDLE_MINUTES", 15)?,
            staff_idle: minutes("PUSOY_STAFF_IDLE_MINUTES", 30)?,
            absolute: TimeDelta::hours(in_range(&get, "PUSOY_SESSION_HOURS", 8, 1, 24 * 7)?),
            anonymous: TimeDelta::hours(1),
        };
        let password_hash = HashParams {
            memory_kib: parse_or(
                &get,
                "PUSOY_ARGON2_MEMORY_KIB",
                HashParams::FLOOR.memory_kib,
            )?,
            iterations: parse_or(
                &get,
                "PUSOY_ARGON2_ITERATIONS",
                HashParams::FLOOR.iterations,
            )?,
            parallelism: parse_or(
                &get,
                "PUSOY_ARGON2_PARALLELISM",
                HashParams::FLOOR.parallelism,
            )?,
        };
        if !password_hash.meets_floor() {
            return Err(ConfigError::Invalid {
                var: "PUSOY_ARGON2_*",
                value: format!("{password_hash:?}"),
                reason: "below the floor m=19456 KiB, t=2, p=1".to_owned(),
            });
        }
        // Read once per process: the name lives as long as the program.
        let zone_name = match get("PUSOY_TIME_ZONE_NAME") {
            None => None,
            Some(name) => Some(zone_name(&name).ok_or_else(|| {
                ConfigError::Invalid {
                    var: "PUSOY_TIME_ZONE_NAME",
                    value: name.clone(),
                    reason: "expected a short name such as PHT or HST (letters, digits, spaces, \
                         '/', '_', '+', '-'; at most 40)"
                        .to_owned(),
                }
            })?),
        };
        let utc_offset = match get("PUSOY_UTC_OFFSET") {
            None => FixedOffset::east_opt(8 * 3600).ok_or_else(|| ConfigError::Invalid {
                var: "PUSOY_UTC_OFFSET",
                value: "+08:00".to_owned(),
                reason: "out of range".to_owned(),
            })?,
            Some(value) => {
                value
                    .trim()
                    .parse::<FixedOffset>()
                    .map_err(|e| ConfigError::Invalid {
                        var: "PUSOY_UTC_OFFSET",
                        value: value.clone(),
                        reason: format!("{e}; expected e.g. +08:00"),
                    })?
            }
        };
        let gaming_day_start = match get("PUSOY_GAMING_DAY_START") {
            None => NaiveTime::from_hms_opt(6, 0, 0).unwrap_or(NaiveTime::MIN),
            Some(value) => NaiveTime::parse_from_str(value.trim(), "%H:%M").map_err(|e| {
                ConfigError::Invalid {
                    var: "PUSOY_GAMING_DAY_START",
                    value: value.clone(),
                    reason: format!("{e}; expected HH:MM, e.g. 06:00"),
                }
            })?,
        };
        let workers = std::thread::available_parallelism().map_or(2, usize::from);
        let data_dir = PathBuf::from(get("PUSOY_DATA_DIR").unwrap_or_else(|| "var".to_owned()));
        let seal_file =
            get("PUSOY_SEAL_FILE").map_or_else(|| data_dir.join("day-seals.jsonl"), PathBuf::from);
        let pin_key_file = get("PUSOY_PIN_KEY_FILE")
            .map_or_else(|| data_dir.join("signing-pin.key"), PathBuf::from);
        Ok(Config {
            environment,
            bind: get("BIND").unwrap_or_else(|| "127.0.0.1:8080".to_owned()),
            database_url: get("DATABASE_URL"),
            read_database_url: get("PUSOY_READ_DATABASE_URL"),
            data_dir,
            seal_file,
            seal_copy: get("PUSOY_SEAL_COPY").map(PathBuf::from),
            pin_key_file,
            checkpoint_every: minutes("PUSOY_CHECKPOINT_MINUTES", 5)?,
            house_edge_deals: in_range(&get, "PUSOY_HOUSE_EDGE_DEALS", 100_000, 0, 10_000_000)?,
            migrate_at_start: parse_or(&get, "PUSOY_MIGRATE", true)?,
            session_key,
            session_key_generated,
            secure_cookies,
            hsts: parse_or(&get, "PUSOY_HSTS", production)?,
            timeouts,
            login_rate_limit: LoginRateLimit {
                burst: in_range(&get, "PUSOY_LOGIN_BURST", 10, 1, 10_000)?,
                // The limiter refills one attempt every 60000/n ms: at most one per millisecond.
                per_minute: in_range(&get, "PUSOY_LOGIN_PER_MINUTE", 10, 1, 60_000)?,
            },
            trusted_proxies: match get("PUSOY_TRUSTED_PROXIES") {
                None => Vec::new(),
                Some(list) => list
                    .split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(|a| {
                        a.parse().map_err(|_| ConfigError::Invalid {
                            var: "PUSOY_TRUSTED_PROXIES",
                            value: list.clone(),
                            reason: format!("{a:?} is not an IP address"),
                        })
                    })
                    .collect::<Result<_, _>>()?,
            },
            password_hash,
            db_pool_size: in_range(&get, "PUSOY_DB_POOL_SIZE", 10, 1, 1_000)?,
            workers: in_range(&get, "PUSOY_WORKERS", workers.min(1_024), 1, 1_024)?,
            utc_offset,
            zone_name,
            gaming_day_start,
            pit_quiet_after: minutes("PUSOY_PIT_QUIET_MINUTES", 10)?,
            opener_difference_limit: amount(&get, "PUSOY_OPENER_DIFFERENCE_LIMIT", 100_000)?,
            variance_tolerance: crate::rules::reconciliation::Tolerance {
                amount: amount(&get, "PUSOY_VARIANCE_AMOUNT", 100_000)?,
                // Hundredths of a percent are the amount's minor units: "2.5" is 250.
                share_of_drop: amount(&get, "PUSOY_VARIANCE_PERCENT", 200)?.minor_units(),
            },
            hold_band: amount(&get, "PUSOY_HOLD_BAND_POINTS", 400)?.minor_units(),
        })
    }

    /// The casino's local time as pages show it: its offset and name.
    pub fn zone(&self) -> Zone {
        Zone {
            offset: self.utc_offset,
            name: self.zone_name.or_else(|| Zone::known_name(self.utc_offset)),
        }
    }

    /// The gaming day `now` belongs to at this casino.
    pub fn gaming_day(&self, now: DateTime<Utc>) -> NaiveDate {
        crate::rules::gaming_day::gaming_day(now, self.utc_offset, self.gaming_day_start)
    }

    /// The moment gaming day `day` ends at this casino (where the next one begins).
    pub fn gaming_day_end(&self, day: NaiveDate) -> DateTime<Utc> {
        crate::rules::gaming_day::gaming_day_end(day, self.utc_offset, self.gaming_day_start)
    }

    /// The session cookie's name. Browsers accept `__Host-` cookies only when Secure, so plain
    /// HTTP local mode uses the bare name.
    pub fn session_cookie_name(&self) -> &'static str {
        if self.secure_cookies {
            "__Host-pusoy_session"
        } else {
            "pusoy_session"
        }
    }
}

fn parse_session_key(text: &str) -> Result<Vec<u8>, ConfigError> {
    let invalid = |reason: &str| ConfigError::Invalid {
        var: "SESSION_KEY",
        value: "(hidden)".to_owned(),
        reason: reason.to_owned(),
    };
    let key = hex::decode(text.trim()).map_err(|_| invalid("expected hex digits"))?;
    if key.len() < SESSION_KEY_BYTES {
        return Err(invalid("expected at least 64 bytes (128 hex digits)"));
    }
    Ok(key)
}

/// A non-negative amount in major units with up to two decimals (`1000`, `1,000.00`, `2.5`),
/// as minor units (hundredths); `default` when `var` is not set.
fn amount(
    get: &impl Fn(&str) -> Option<String>,
    var: &'static str,
    default: i64,
) -> Result<crate::rules::money::Money, ConfigError> {
    match get(var) {
        None => Ok(crate::rules::money::Money::from_minor_units(default)),
        Some(value) => crate::rules::money::Money::parse_major(value.trim())
            .filter(|limit| limit.minor_units() >= 0)
            .ok_or_else(|| ConfigError::Invalid {
                var,
                value: value.clone(),
                reason: "expected an amount such as 1000 or 1,000.00".to_owned(),
            }),
    }
}

fn parse_or<T: FromStr>(
    get: &impl Fn(&str) -> Option<String>,
    var: &'static str,
    default: T,
) -> Result<T, ConfigError>
where
    T::Err: std::fmt::Display,
{
    match get(var) {
        None => Ok(default),
        Some(value) => value
            .trim()
            .parse()
            .map_err(|e: T::Err| ConfigError::Invalid {
                var,
                value,
                reason: e.to_string(),
            }),
    }
}

/// A whole number from `min` to `max` (both included), or the variable's name and the range.
fn in_range<T>(
    get: &impl Fn(&str) -> Option<String>,
    var: &'static str,
    default: T,
    min: T,
    max: T,
) -> Result<T, ConfigError>
where
    T: FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let out_of_range = |value: String| ConfigError::Invalid {
        var,
        value,
        reason: format!("must be a whole number from {min} to {max}"),
    };
    let value = match get(var) {
        None => default,
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| out_of_range(text.clone()))?,
    };
    if value < min || value > max {
        return Err(out_of_range(value.to_string()));
    }
    Ok(value)
}

/// How long sessions may live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Idle limit for dealers (shared table-side tablets).
    pub dealer_idle: TimeDelta,
    /// Idle limit for every other role.
    pub staff_idle: TimeDelta,
    /// Limit from sign-in, whatever the activity.
    pub absolute: TimeDelta,
    /// Lifetime of a session with nobody signed in (it only carries the sign-in form's token).
    pub anonymous: TimeDelta,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            dealer_idle: TimeDelta::minutes(15),
            staff_idle: TimeDelta::minutes(30),
            absolute: TimeDelta::hours(8),
            anonymous: TimeDelta::hours(1),
        }
    }
}

/// The casino's local time: its offset from UTC and the name staff know it by, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    pub offset: FixedOffset,
    pub name: Option<&'static str>,
}

impl Zone {
    /// The name of the local time where the product runs, by offset: Philippine Time
    /// (`+08:00`) and Hawaii-Aleutian Standard Time (`-10:00`), neither with daylight saving.
    /// Elsewhere `PUSOY_TIME_ZONE_NAME` names it.
    pub fn known_name(offset: FixedOffset) -> Option<&'static str> {
        match offset.local_minus_utc() {
            28_800 => Some("PHT"),
            -36_000 => Some("HST"),
            _ => None,
        }
    }

    /// A time as people read it here: in this local time with the zone named,
    /// `2026-03-01 22:05 (PHT, UTC+08:00)`.
    pub fn time(&self, at: DateTime<Utc>) -> String {
        format!(
            "{} ({self})",
            at.with_timezone(&self.offset).format("%Y-%m-%d %H:%M")
        )
    }

    /// The zone as a time's label: `PHT, UTC+08:00`, or `UTC-05:00` without a name.
    pub fn label(&self) -> String {
        match self.name {
            Some(name) => format!("{name}, UTC{}", self.offset),
            None => format!("UTC{}", self.offset),
        }
    }
}

impl std::fmt::Display for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

/// A configured zone name, kept for the life of the process, if it reads as one.
fn zone_name(typed: &str) -> Option<&'static str> {
    let name = typed.trim();
    let fits = !name.is_empty()
        && name.chars().count() <= 40
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '/' | '_' | '+' | '-'));
    fits.then(|| &*Box::leak(name.to_owned().into_boxed_str()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn development_defaults_are_local_and_plain_http() {
        let c = config(&[]).unwrap();
        assert_eq!(c.environment, Environment::Development);
        assert_eq!(c.bind, "127.0.0.1:8080");
        assert!(!c.secure_cookies);
        assert!(c.session_key_generated);
        assert_eq!(c.session_cookie_name(), "pusoy_session");
        assert_eq!(c.timeouts.dealer_idle, TimeDelta::minutes(15));
        assert_eq!(c.timeouts.absolute, TimeDelta::hours(8));
        assert_eq!(c.checkpoint_every, TimeDelta::minutes(5));
        assert_eq!(c.seal_copy, None);
    }

    #[test]
    fn checkpoints_every_few_minutes_to_the_seal_file_and_its_copy() {
        let c = config(&[
            ("PUSOY_CHECKPOINT_MINUTES", "2"),
            ("PUSOY_SEAL_COPY", "/mnt/other/seals.jsonl"),
        ])
        .unwrap();
        assert_eq!(c.checkpoint_every, TimeDelta::minutes(2));
        assert_eq!(c.seal_copy, Some(PathBuf::from("/mnt/other/seals.jsonl")));
        for bad in ["0", "1441", "soon"] {
            let err = config(&[("PUSOY_CHECKPOINT_MINUTES", bad)]).unwrap_err();
            assert!(
                err.to_string().starts_with("PUSOY_CHECKPOINT_MINUTES="),
                "{err}"
            );
        }
    }

    #[test]
    fn production_refuses_to_start_without_a_session_key() {
        assert_eq!(
            config(&[("PUSOY_ENV", "production")]).unwrap_err(),
            ConfigError::MissingSessionKey
        );
    }

    #[test]
    fn production_refuses_plain_http_cookies_and_short_keys() {
        let key = "ab".repeat(64);
        assert_eq!(
            config(&[
                ("PUSOY_ENV", "production"),
                ("SESSION_KEY", &key),
                ("PUSOY_SECURE_COOKIES", "false")
            ])
            .unwrap_err(),
            ConfigError::InsecureCookiesInProduction
        );
        assert!(config(&[("PUSOY_ENV", "production"), ("SESSION_KEY", "abcd")]).is_err());
        let c = config(&[("PUSOY_ENV", "production"), ("SESSION_KEY", &key)]).unwrap();
        assert!(c.secure_cookies && c.hsts);
        assert_eq!(c.session_cookie_name(), "__Host-pusoy_session");
    }

    #[test]
    fn the_gaming_day_defaults_to_manila_from_six_and_can_be_changed() {
        let c = config(&[]).unwrap();
        assert_eq!(c.utc_offset, FixedOffset::east_opt(8 * 3600).unwrap());
        assert_eq!(
            c.gaming_day_start,
            NaiveTime::from_hms_opt(6, 0, 0).unwrap()
        );
        let c = config(&[
            ("PUSOY_UTC_OFFSET", "-05:00"),
            ("PUSOY_GAMING_DAY_START", "04:30"),
        ])
        .unwrap();
        assert_eq!(c.utc_offset, FixedOffset::west_opt(5 * 3600).unwrap());
        assert_eq!(
            c.gaming_day_start,
            NaiveTime::from_hms_opt(4, 30, 0).unwrap()
        );
        assert!(config(&[("PUSOY_UTC_OFFSET", "Manila")]).is_err());
        assert!(config(&[("PUSOY_GAMING_DAY_START", "25:00")]).is_err());
    }

    #[test]
    fn the_local_time_is_named_by_its_offset_or_as_configured() {
        assert_eq!(config(&[]).unwrap().zone().label(), "PHT, UTC+08:00");
        let hawaii = config(&[("PUSOY_UTC_OFFSET", "-10:00")]).unwrap();
        assert_eq!(hawaii.zone().label(), "HST, UTC-10:00");
        let elsewhere = config(&[("PUSOY_UTC_OFFSET", "-05:00")]).unwrap();
        assert_eq!(elsewhere.zone().label(), "UTC-05:00", "no name is made up");
        let named = config(&[
            ("PUSOY_UTC_OFFSET", "-05:00"),
            ("PUSOY_TIME_ZONE_NAME", " Eastern "),
        ])
        .unwrap();
        assert_eq!(named.zone().label(), "Eastern, UTC-05:00");
        let manila = config(&[("PUSOY_TIME_ZONE_NAME", "Asia/Manila")]).unwrap();
        assert_eq!(manila.zone().label(), "Asia/Manila, UTC+08:00");
        for bad in ["<b>PHT</b>", "PHT;", &"X".repeat(41)] {
            let err = config(&[("PUSOY_TIME_ZONE_NAME", bad)]).unwrap_err();
            let err = err.to_string();
            assert!(
                err.contains("PUSOY_TIME_ZONE_NAME")
                    && err.contains("digits, spaces, '/', '_', '+', '-'; at most 40"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn numbers_out_of_range_are_refused_naming_the_variable_and_the_range() {
        let refused = |var: &str, value: &str| config(&[(var, value)]).unwrap_err().to_string();
        let message = refused("PUSOY_LOGIN_PER_MINUTE", "60001");
        assert!(message.contains("PUSOY_LOGIN_PER_MINUTE"), "{message}");
        assert!(message.contains("from 1 to 60000"), "{message}");
        assert!(refused("PUSOY_LOGIN_PER_MINUTE", "0").contains("from 1 to 60000"));
        assert!(refused("PUSOY_LOGIN_BURST", "-3").contains("PUSOY_LOGIN_BURST"));
        assert!(refused("PUSOY_DB_POOL_SIZE", "99999999999").contains("from 1 to 1000"));
        assert!(refused("PUSOY_WORKERS", "many").contains("PUSOY_WORKERS"));
        assert!(refused("PUSOY_DEALER_IDLE_MINUTES", "100000").contains("from 1 to 1440"));
        let c = config(&[("PUSOY_LOGIN_PER_MINUTE", "60000")]).unwrap();
        assert_eq!(c.login_rate_limit.per_minute, 60_000);
    }

    #[test]
    fn argon2_parameters_below_the_floor_are_refused() {
        assert!(config(&[("PUSOY_ARGON2_MEMORY_KIB", "1024")]).is_err());
    }
}
