//! Fault injection: concurrent clients record whole rounds (`PUT
//! /api/v1/tables/{code}/rounds/{key}`) against the real `pusoy-pit serve` process while the
//! harness terminates database backends, kills the app with SIGKILL and starts it again, and
//! crash-stops PostgreSQL (`pg_ctl stop -m immediate`) and starts it again. Afterwards every
//! round a client was told was written is in the database exactly once, each table's round
//! numbers have no gaps, and every audit chain verifies.
//!
//! Ignored by default (it takes its time and owns a PostgreSQL cluster of its own, under
//! `var/fault`, so its crashes never touch the test suite's). Run by `scripts/fault-test`
//! (`.ci/run` runs its short form). Loopback only; bounded by `PUSOY_FAULT_SECONDS`.
//!
//! Settings (environment): `PUSOY_FAULT_SECONDS` (default 40), `PUSOY_FAULT_CLIENTS` (8),
//! `PUSOY_FAULT_SYNCHRONOUS_COMMIT` (`on`; `off` shows what asynchronous commit loses: the
//! figures are printed and lost rounds do not fail the run), `PUSOY_FAULT_APP` (the binary to
//! run, default this build's `pusoy-pit`).
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, HashSet};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use pusoy_pit::db::embedded::{self, Cluster, Layout};

#[path = "../benches/support/load.rs"]
mod load;

const DATABASE: &str = "fault_injection";
/// Seconds between two faults.
const FAULT_EVERY: Duration = Duration::from_secs(3);
/// How long one request may take before the client gives up on it and sends it again.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest the app may take to answer after a start.
const START_TIMEOUT: Duration = Duration::from_secs(60);

struct Settings {
    seconds: u64,
    clients: usize,
    synchronous_commit: String,
}

fn settings() -> Result<Settings> {
    let number = |name: &str, default: u64, most: u64| -> Result<u64> {
        let value = match std::env::var(name) {
            Ok(text) => text
                .parse()
                .with_context(|| format!("{name}={text:?} is not a number"))?,
            Err(_) => default,
        };
        if value == 0 || value > most {
            return Err(anyhow!("{name} must be from 1 to {most}"));
        }
        Ok(value)
    };
    let synchronous_commit =
        std::env::var("PUSOY_FAULT_SYNCHRONOUS_COMMIT").unwrap_or_else(|_| "on".to_owned());
    if !["on", "off"].contains(&synchronous_commit.as_str()) {
        return Err(anyhow!("PUSOY_FAULT_SYNCHRONOUS_COMMIT must be on or off"));
    }
    Ok(Settings {
        seconds: number("PUSOY_FAULT_SECONDS", 40, 3600)?,
        clients: usize::try_from(number("PUSOY_FAULT_CLIENTS", 8, 64)?)?,
        synchronous_commit,
    })
}

/// The app as a child process on a fixed loopback address.
struct App {
    child: Option<Child>,
    url: String,
    database_url: String,
    bind: String,
    log: std::path::PathBuf,
}

impl App {
    fn start(&mut self) -> Result<()> {
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
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting pusoy-pit serve")?;
        self.child = Some(child);
        Ok(())
    }

    /// SIGKILL: no shutdown, no flushing, whatever was in flight is cut off.
    fn kill(&mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }

    async fn wait_until_up(&self, client: &reqwest::Client) -> Result<()> {
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
struct Seen {
    /// Keys of rounds a client was told were written (201, or 200 for a key sent again).
    acknowledged: Vec<String>,
    /// Keys sent whose fate the client never learned (the run ended first).
    in_doubt: Vec<String>,
    /// Answers other than 200/201, and requests that got no answer, by kind.
    errors: BTreeMap<String, u64>,
}

/// One table's client: rounds one after another until `until`; a round that gets no answer or
/// an error is sent again under the same key until it is acknowledged.
async fn client(
    address: String,
    code: String,
    token: String,
    until: Instant,
    seen: Arc<Mutex<Seen>>,
) {
    let http = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .build()
        .unwrap();
    let body = load::the_round().to_string();
    let mut n = 1;
    let mut pending: Option<String> = None;
    while Instant::now() < until {
        let key = format!("{code}-{n}");
        pending = Some(key.clone());
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

#[derive(Debug, Clone, Copy)]
enum Fault {
    TerminateBackends,
    KillApp,
    CrashPostgres,
}

const FAULTS: [Fault; 4] = [
    Fault::TerminateBackends,
    Fault::KillApp,
    Fault::TerminateBackends,
    Fault::CrashPostgres,
];

fn terminate_backends(cluster: &Cluster) -> Result<()> {
    let mut admin = cluster.connect("postgres")?;
    diesel::sql_query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind::<Text, _>(DATABASE)
    .execute(&mut admin)?;
    Ok(())
}

/// Every acknowledged key exactly once among the rounds, and no round under a key never sent.
fn count_rounds(url: &str, seen: &Seen) -> Result<(u64, u64, u64)> {
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

async fn run(settings: &Settings) -> Result<()> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("var")
        .join("fault");
    let layout = Layout::resolve(&base)?;
    let cluster = tokio::task::spawn_blocking({
        let layout = layout.clone();
        move || embedded::ensure_running(&layout)
    })
    .await??;
    let day = pusoy_pit::config::Config::from_lookup(|_| None)?.gaming_day(chrono::Utc::now());
    let seeded = {
        let cluster = cluster.clone();
        let commit = settings.synchronous_commit.clone();
        let clients = settings.clients;
        tokio::task::spawn_blocking(move || load::seed(&cluster, DATABASE, &commit, clients, day))
            .await??
    };
    let bind = {
        let probe = TcpListener::bind("127.0.0.1:0")?;
        probe.local_addr()?.to_string()
    };
    let mut app = App {
        child: None,
        url: format!("http://{bind}"),
        database_url: seeded.url.clone(),
        bind,
        log: base.join("app.log"),
    };
    let probe = reqwest::Client::new();
    app.start()?;
    app.wait_until_up(&probe).await?;

    let started = Instant::now();
    let until = started + Duration::from_secs(settings.seconds);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let clients: Vec<_> = seeded
        .tables
        .iter()
        .map(|(code, _, token)| {
            tokio::spawn(client(
                app.url.clone(),
                code.clone(),
                token.clone(),
                until,
                seen.clone(),
            ))
        })
        .collect();

    let mut faults: BTreeMap<String, u64> = BTreeMap::new();
    for fault in FAULTS.iter().cycle() {
        tokio::time::sleep(FAULT_EVERY).await;
        if Instant::now() + FAULT_EVERY >= until {
            break;
        }
        match fault {
            Fault::TerminateBackends => {
                let cluster = cluster.clone();
                tokio::task::spawn_blocking(move || terminate_backends(&cluster)).await??;
            }
            Fault::KillApp => {
                app.kill()?;
                app.start()?;
                app.wait_until_up(&probe).await?;
            }
            Fault::CrashPostgres => {
                let layout = layout.clone();
                tokio::task::spawn_blocking(move || -> Result<()> {
                    embedded::crash(&layout)?;
                    std::thread::sleep(Duration::from_secs(1));
                    embedded::ensure_running(&layout)?;
                    Ok(())
                })
                .await??;
            }
        }
        *faults.entry(format!("{fault:?}")).or_default() += 1;
    }
    for client in clients {
        client.await?;
    }
    app.kill()?;

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let url = seeded.url.clone();
    let (counted, written, seen) = tokio::task::spawn_blocking(move || {
        let counted = count_rounds(&url, &seen);
        (counted, load::check_written(&url), seen)
    })
    .await?;
    let (lost, doubled, never_sent) = counted?;
    let errors: u64 = seen.errors.values().sum();
    println!(
        "fault injection: {} s, {} clients, synchronous_commit={}",
        settings.seconds, settings.clients, settings.synchronous_commit
    );
    println!("faults                 {faults:?}");
    println!(
        "acknowledged           {} rounds ({} more in doubt at the end)",
        seen.acknowledged.len(),
        seen.in_doubt.len()
    );
    println!("lost                   {lost}");
    println!("doubled                {doubled}");
    println!("stored, never sent     {never_sent}");
    println!("client errors          {errors} {:?}", seen.errors);
    println!("{}", written.context("round numbers and audit chains")?);
    if doubled > 0 || never_sent > 0 {
        return Err(anyhow!(
            "{doubled} keys doubled, {never_sent} rounds never sent"
        ));
    }
    if lost > 0 && settings.synchronous_commit == "on" {
        return Err(anyhow!("{lost} acknowledged rounds lost"));
    }
    // While the database is away a client is told to try again (503), never that the server
    // failed (500).
    if let Some(failed) = seen.errors.get("HTTP 500") {
        return Err(anyhow!("{failed} requests answered 500 instead of 503"));
    }
    if seen.acknowledged.is_empty() {
        return Err(anyhow!("no round was acknowledged"));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "fault injection: minutes of load and crashes; run by scripts/fault-test"]
async fn acknowledged_rounds_survive_killed_backends_a_killed_app_and_a_crashed_postgres() {
    let settings = settings().unwrap();
    if let Err(err) = run(&settings).await {
        panic!("{err:#}");
    }
}
