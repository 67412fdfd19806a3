//! What the crash tests (`tests/fault_injection.rs`, `tests/failover.rs`) share: the app as a
//! child process, clients recording whole rounds with retries under the same key, and the count
//! of what was acknowledged against what was stored. Included by `#[path]`.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

/// How long one request may take before the client gives up on it and sends it again.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest the app may take to answer after a start.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The app as a child process on a fixed loopback address.
pub struct App {
    pub child: Option<Child>,
    pub url: String,
    pub database_url: String,
    pub bind: String,
    pub log: PathBuf,
    /// Settings beyond the database and the address (`PUSOY_SEAL_FILE`, ...).
    pub env: Vec<(String, String)>,
}

impl App {
    /// An app to be started on a free loopback port, logging to `log`.
    pub fn new(database_url: &str, log: PathBuf, env: Vec<(String, String)>) -> Result<App> {
        let bind = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0")?;
            probe.local_addr()?.to_string()
        };
        Ok(App {
            child: None,
            url: format!("http://{bind}"),
            database_url: database_url.to_owned(),
            bind,
            log,
            env,
        })
    }

    pub fn start(&mut self) -> Result<()> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)?;
        let program = std::env::var("PUSOY_FAULT_APP")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_pusoy-pit").to_owned());
        let child = Command::new(program)
            .arg("serve")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", &self.database_url)
            .env("BIND", &self.bind)
            .env("PUSOY_WORKERS", "2")
            .env("PUSOY_DB_POOL_SIZE", "8")
            .env("RUST_LOG", "warn")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting pusoy-pit serve")?;
        self.child = Some(child);
        Ok(())
    }

    /// SIGKILL: no shutdown, no flushing, whatever was in flight is cut off.
    pub fn kill(&mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }

    pub async fn wait_until_up(&self, client: &reqwest::Client) -> Result<()> {
        let deadline = Instant::now() + START_TIMEOUT;
        while Instant::now() < deadline {
            if let Ok(res) = client.get(format!("{}/healthz", self.url)).send().await {
                if res.status().is_success() {
                    return Ok(());
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(anyhow!("the app did not answer within {START_TIMEOUT:?}"))
    }
}

/// What the clients saw.
#[derive(Default)]
pub struct Seen {
    /// Keys of rounds a client was told were written (201, or 200 for a key sent again).
    pub acknowledged: Vec<String>,
    /// Keys sent whose fate the client never learned (the run ended first).
    pub in_doubt: Vec<String>,
    /// Answers other than 200/201, and requests that got no answer, by kind.
    pub errors: BTreeMap<String, u64>,
}

/// One table's client: rounds one after another until `until`, each request to the next of
/// `addresses` in turn (as a proxy in front of several instances would); a round that gets no
/// answer or an error is sent again under the same key until it is acknowledged.
pub async fn client(
    addresses: Vec<String>,
    code: String,
    token: String,
    until: Instant,
    seen: Arc<Mutex<Seen>>,
) {
    let http = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .build()
        .unwrap();
    let body = super::load::the_round().to_string();
    let mut n = 1;
    let mut sent_so_far = 0;
    let mut pending: Option<String> = None;
    while Instant::now() < until {
        let key = format!("{code}-{n}");
        pending = Some(key.clone());
        let address = &addresses[sent_so_far % addresses.len()];
        sent_so_far += 1;
        let sent = http
            .put(format!("{address}/api/v1/tables/{code}/rounds/{key}"))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await;
        let kind = match sent {
            Ok(res) if matches!(res.status().as_u16(), 200 | 201) => {
                seen.lock().unwrap().acknowledged.push(key);
                pending = None;
                n += 1;
                continue;
            }
            Ok(res) => format!("HTTP {}", res.status().as_u16()),
            Err(err) if err.is_timeout() => "timed out".to_owned(),
            Err(_) => "no answer (connection refused or cut)".to_owned(),
        };
        *seen.lock().unwrap().errors.entry(kind).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if let Some(key) = pending {
        seen.lock().unwrap().in_doubt.push(key);
    }
}

/// Acknowledged keys not stored, keys stored twice, and rounds stored under a key never sent.
pub fn count_rounds(url: &str, seen: &Seen) -> Result<(u64, u64, u64)> {
    #[derive(QueryableByName)]
    struct Key {
        #[diesel(sql_type = Text)]
        draft_key: String,
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let mut conn = PgConnection::establish(url)?;
    let stored: Vec<Key> =
        diesel::sql_query("SELECT draft_key, count(*) AS n FROM rounds GROUP BY draft_key")
            .load(&mut conn)?;
    let stored: BTreeMap<String, i64> = stored.into_iter().map(|k| (k.draft_key, k.n)).collect();
    let acknowledged: HashSet<&String> = seen.acknowledged.iter().collect();
    let sent: HashSet<&String> = acknowledged
        .iter()
        .copied()
        .chain(seen.in_doubt.iter())
        .collect();
    let lost = acknowledged
        .iter()
        .filter(|key| !stored.contains_key(**key))
        .count();
    let doubled = stored.values().filter(|&&n| n > 1).count();
    let never_sent = stored.keys().filter(|key| !sent.contains(key)).count();
    Ok((lost as u64, doubled as u64, never_sent as u64))
}
