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

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use diesel::prelude::*;
use diesel::sql_types::Text;
use pusoy_pit::db::embedded::{self, Cluster, Layout};

#[path = "support/crash.rs"]
mod crash;
#[path = "../benches/support/load.rs"]
mod load;

use crash::{client, count_rounds, App, Seen};

const DATABASE: &str = "fault_injection";
/// Seconds between two faults.
const FAULT_EVERY: Duration = Duration::from_secs(3);

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
    let mut app = App::new(&seeded.url, base.join("app.log"), Vec::new())?;
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
                vec![app.url.clone()],
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
