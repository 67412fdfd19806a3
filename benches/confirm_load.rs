//! Load run of round confirmation over HTTP: the real server (in this process, on loopback)
//! against a fresh database on the private PostgreSQL cluster with durable commits
//! (`synchronous_commit = on`), driven by N concurrent API clients, one per table (each table
//! with its dealer signed on, each client with that dealer's API token). Two flows, one after
//! the other:
//! - `whole`: a system that has the round complete records it in one call
//!   (`PUT /api/v1/tables/{code}/rounds/{key}`: validation, settlement, all rows, audit);
//! - `draft`: the dealer screen's flow over the API: open the table's round, PUT the hands,
//!   confirm.
//!
//! Clients send rounds back to back (closed loop: the throughput the server can reach), or with
//! `--rate R` at a fixed R rounds per second in all (open loop: the latency at that load). An
//! open-loop round's latency counts from when it was due, so a client held up by a slow answer
//! does not hide the wait of the rounds behind it.
//!
//! Each flow first runs unmeasured for `--warmup` seconds (new connections, statements prepared
//! on first use, cold caches), then measured. Reports confirmed rounds per second, the CPU each
//! takes (load generator, app, PostgreSQL) and the latency of the confirming request of each
//! flow, then the latency of rendering the dealer's table screen.
//!
//! `cargo bench --bench confirm_load -- [--flow whole|draft|both] [--clients 32] [--seconds 20]
//! [--rate rounds-per-second] [--warmup 3] [--workers 2] [--pool connections] [--timeline]
//! [--instances 1] [--buy-ins per-second] [--signatures per-second] [--signed-with pin|password]`
//!
//! `--buy-ins R` also records R buy-ins a second (one more client, open loop, at the tables in
//! turn, each through the API with the table dealer's token) while the rounds are confirmed, and
//! prints their latency: table accounting's writes under the confirm load.
//!
//! `--signatures R` also has R fills a second received at the tables while the rounds are
//! confirmed (one more client, open loop): each receipt is the signature step, the table's dealer
//! signed in and a second pit manager signing on the same tablet with their signing PIN
//! (`--signed-with password`: their password). The fills are requested and issued before the
//! runs, so only the receipts are measured.
//!
//! `--instances N` serves N app instances on the one database (each its own workers, pool and
//! memory, as N `serve` processes would be), client `i` sending to instance `i % N`.
//!
//! `--timeline` also prints each second's count, p50, p99 and max, to tell a tail spread over
//! the run from one made by a few stalls.

use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use pusoy_pit::config::Config;
use pusoy_pit::db::embedded::{self, Layout};
use serde_json::{json, Value};

#[path = "support/load.rs"]
mod load;
use load::{check_written, seed, the_round, Seeded, PASSWORD};

/// The allocator the `pusoy-pit` binary uses, so the server measured here allocates as it does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATABASE: &str = "bench_confirm_load";

struct Options {
    flows: Vec<Flow>,
    clients: usize,
    seconds: u64,
    workers: usize,
    pool: u32,
    /// The pool size in use (from `pool`, or the app's default).
    pool_size: u32,
    /// Rounds per second offered by all clients together; 0 for back to back.
    rate: u64,
    /// Seconds of the same load before each measured run.
    warmup: u64,
    /// Print the confirming request's latency second by second.
    timeline: bool,
    /// App instances on the one database.
    instances: usize,
    /// Buy-ins recorded a second while the rounds are confirmed (at the tables in turn, one
    /// client, open loop); 0 for none.
    buy_ins: u64,
    /// Fills received a second while the rounds are confirmed; 0 for none.
    signatures: u64,
    /// How the second signer of each receipt signs: `pin` or `password`.
    signed_with: &'static str,
    /// The process id of this checkout's PostgreSQL server (its postmaster).
    postmaster: u32,
}

fn options() -> Result<Options> {
    let mut options = Options {
        flows: vec![Flow::Whole, Flow::Draft],
        clients: 32,
        seconds: 20,
        workers: 2,
        pool: 0,
        pool_size: 0,
        rate: 0,
        warmup: 3,
        timeline: false,
        instances: 1,
        buy_ins: 0,
        signatures: 0,
        signed_with: "pin",
        postmaster: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || -> Result<u64> {
            args.next()
                .with_context(|| format!("{arg} needs a value"))?
                .parse()
                .with_context(|| format!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--clients" => options.clients = usize::try_from(value()?)?,
            "--seconds" => options.seconds = value()?,
            "--workers" => options.workers = usize::try_from(value()?)?,
            "--pool" => options.pool = u32::try_from(value()?)?,
            "--rate" => options.rate = value()?,
            "--warmup" => options.warmup = value()?,
            "--timeline" => options.timeline = true,
            "--instances" => options.instances = usize::try_from(value()?)?.max(1),
            "--buy-ins" => options.buy_ins = value()?,
            "--signatures" => options.signatures = value()?,
            "--signed-with" => {
                options.signed_with = match args.next().as_deref() {
                    Some("pin") => "pin",
                    Some("password") => "password",
                    _ => return Err(anyhow!("--signed-with takes pin or password")),
                }
            }
            "--flow" => {
                options.flows = match args.next().as_deref() {
                    Some("whole") => vec![Flow::Whole],
                    Some("draft") => vec![Flow::Draft],
                    Some("both") => vec![Flow::Whole, Flow::Draft],
                    _ => return Err(anyhow!("--flow takes whole, draft or both")),
                }
            }
            // cargo bench passes --bench; anything else is a mistake.
            "--bench" => {}
            other => return Err(anyhow!("unknown argument {other}")),
        }
    }
    Ok(options)
}

#[derive(Default)]
struct ClientReport {
    confirmed: u64,
    confirm: Vec<Duration>,
    /// When each confirmed round was started (or due).
    started: Vec<Instant>,
    cycle: Vec<Duration>,
    errors: Vec<String>,
}

/// Sends `req`; the answer's body if it has status `expect`. (The body is read whole but not
/// parsed: the load generator does no more work than it must.)
async fn send(
    client: &reqwest::Client,
    req: reqwest::RequestBuilder,
    expect: u16,
) -> Result<bytes::Bytes> {
    let res = client.execute(req.build()?).await?;
    let status = res.status().as_u16();
    let body = res.bytes().await?;
    if status != expect {
        let body = String::from_utf8_lossy(&body);
        return Err(anyhow!("status {status}, expected {expect}: {body}"));
    }
    Ok(body)
}

/// A JSON body, serialised once and sent as is with every request.
fn json_body(req: reqwest::RequestBuilder, body: &bytes::Bytes) -> reqwest::RequestBuilder {
    req.header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.clone())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Whole,
    Draft,
}

/// When a client sends its rounds: back to back, or one every `interval` from `first`.
#[derive(Debug, Clone, Copy)]
enum Pace {
    BackToBack,
    Every { first: Instant, interval: Duration },
}

/// One table's client: rounds at `pace` until `until`.
async fn drive(
    flow: Flow,
    run: &'static str,
    address: String,
    code: String,
    token: String,
    pace: Pace,
    until: Instant,
) -> ClientReport {
    let client = reqwest::Client::new();
    let mut report = ClientReport::default();
    let round = bytes::Bytes::from(the_round().to_string());
    let mut n = 0_u64;
    loop {
        let start = match pace {
            Pace::BackToBack => Instant::now(),
            Pace::Every { first, interval } => {
                let due = first + interval * u32::try_from(n).unwrap_or(u32::MAX);
                tokio::time::sleep_until(due.into()).await;
                due
            }
        };
        if start >= until {
            break;
        }
        n += 1;
        let result: Result<Duration> = async {
            if flow == Flow::Whole {
                send(
                    &client,
                    json_body(
                        client
                            .put(format!(
                                "{address}/api/v1/tables/{code}/rounds/{run}-{code}-{n}"
                            ))
                            .bearer_auth(&token),
                        &round,
                    ),
                    201,
                )
                .await?;
                return Ok(start.elapsed());
            }
            let opened = send(
                &client,
                client
                    .post(format!("{address}/api/v1/tables/{code}/rounds"))
                    .bearer_auth(&token),
                201,
            )
            .await?;
            let opened: Value = serde_json::from_slice(&opened)?;
            let key = opened["key"].as_str().context("no key")?.to_owned();
            let saved = send(
                &client,
                json_body(
                    client
                        .put(format!("{address}/api/v1/rounds/{key}"))
                        .bearer_auth(&token),
                    &round,
                ),
                200,
            )
            .await?;
            // Open loop: the confirm was due when the round was.
            let confirm_start = match pace {
                Pace::BackToBack => Instant::now(),
                Pace::Every { .. } => start,
            };
            send(
                &client,
                client
                    .post(format!("{address}/api/v1/rounds/{key}/confirm"))
                    .bearer_auth(&token)
                    .json(&json!({ "revision": serde_json::from_slice::<Value>(&saved)?["revision"] })),
                201,
            )
            .await?;
            Ok(confirm_start.elapsed())
        }
        .await;
        match result {
            Ok(confirm) => {
                report.confirmed += 1;
                report.confirm.push(confirm);
                report.started.push(start);
                report.cycle.push(start.elapsed());
            }
            Err(err) => report.errors.push(err.to_string()),
        }
    }
    report
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<22} n={:<7} p50={:>6.2} ms  p90={:>6.2} ms  p99={:>6.2} ms  max={:>7.2} ms",
        samples.len(),
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 90.0)),
        ms(percentile(&samples, 99.0)),
        ms(samples.last().copied().unwrap_or_default()),
    );
}

/// Each second of a run: how many confirmations started in it, and their p50, p99 and max.
fn timeline(run_start: Instant, started: &[Instant], latency: &[Duration]) {
    let mut seconds: Vec<Vec<Duration>> = Vec::new();
    for (at, took) in started.iter().zip(latency) {
        let second = at.saturating_duration_since(run_start).as_secs() as usize;
        if seconds.len() <= second {
            seconds.resize_with(second + 1, Vec::new);
        }
        seconds[second].push(*took);
    }
    for (second, samples) in seconds.into_iter().enumerate() {
        summary(&format!("  second {second}"), samples);
    }
}

/// Signs a browser in with the form (CSRF token from the sign-in page).
async fn browser_for(address: &str, username: &str) -> Result<reqwest::Client> {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let html = client
        .get(format!("{address}/login"))
        .send()
        .await?
        .text()
        .await?;
    let res = client
        .post(format!("{address}/login"))
        .form(&[
            ("username", username),
            ("password", PASSWORD),
            ("csrf_token", csrf_in(&html)?),
        ])
        .send()
        .await?;
    if res.status().as_u16() != 303 {
        return Err(anyhow!("sign-in of {username} answered {}", res.status()));
    }
    Ok(client)
}

/// The table screen, requested back to back by one signed-in dealer for `seconds`: with one
/// request at a time, its latency is the server-side render time plus loopback.
async fn table_screens(address: &str, seeded: &Seeded, seconds: u64) -> Result<Vec<Duration>> {
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for (code, dealer, _) in seeded.tables.iter().take(1) {
        let client = browser_for(address, dealer).await?;
        let url = format!("{address}/tables/{code}");
        tasks.push(tokio::spawn(async move {
            let mut samples = Vec::new();
            while Instant::now() < until {
                let start = Instant::now();
                let res = client.get(&url).send().await?;
                let status = res.status();
                let body = res.text().await?;
                if !status.is_success() || !body.contains("Round") {
                    return Err(anyhow!("table screen answered {status}"));
                }
                samples.push(start.elapsed());
            }
            Ok::<_, anyhow::Error>(samples)
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await??);
    }
    Ok(all)
}

/// CPU seconds (user + system) used so far, from `/proc` (Linux).
#[derive(Debug, Clone, Copy, Default)]
struct Cpu {
    /// This process's threads named `loadgen` (the load generator's runtime).
    load_generator: f64,
    /// The rest of this process: the server.
    app: f64,
    /// This checkout's PostgreSQL cluster: its postmaster and the processes it started.
    database: f64,
    /// Every `postgres` process on the machine, other checkouts' clusters included.
    every_postgres: f64,
}

const LOAD_GENERATOR_THREADS: &str = "loadgen";

fn cpu_seconds(postmaster: u32) -> Cpu {
    // Fields after the parenthesised command name: the parent's pid is the 2nd, utime and
    // stime are the 12th and 13th.
    fn fields(stat: &str) -> Vec<&str> {
        stat.rsplit_once(") ")
            .map_or_else(Vec::new, |(_, rest)| rest.split_whitespace().collect())
    }
    fn of(stat: &str) -> f64 {
        let fields = fields(stat);
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        // USER_HZ is 100 on Linux.
        (ticks(11) + ticks(12)) / 100.0
    }
    let read = |path: std::path::PathBuf| std::fs::read_to_string(path).unwrap_or_default();
    let process = of(&read("/proc/self/stat".into()));
    let mut load_generator = 0.0;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            let stat = read(task.path().join("stat"));
            if stat.contains(&format!("({LOAD_GENERATOR_THREADS}")) {
                load_generator += of(&stat);
            }
        }
    }
    let (mut database, mut every_postgres) = (0.0, 0.0);
    let postmaster = postmaster.to_string();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let stat = read(entry.path().join("stat"));
            if stat.contains("(postgres)") {
                every_postgres += of(&stat);
                // Other checkouts run clusters of their own on this machine; count ours only.
                if entry.file_name() == postmaster.as_str()
                    || fields(&stat).get(1) == Some(&postmaster.as_str())
                {
                    database += of(&stat);
                }
            }
        }
    }
    Cpu {
        load_generator,
        app: process - load_generator,
        database,
        every_postgres,
    }
}

/// The process id of the cluster's postmaster: the first line of `postmaster.pid`.
fn postmaster_pid(data_dir: &Path) -> Result<u32> {
    let pid_file = data_dir.join("postmaster.pid");
    std::fs::read_to_string(&pid_file)?
        .lines()
        .next()
        .and_then(|line| line.trim().parse().ok())
        .with_context(|| format!("no process id in {}", pid_file.display()))
}

/// The connection pool's size: by default the app's own default (`PUSOY_DB_POOL_SIZE`).
fn pool_size(options: &Options, config: &Config) -> u32 {
    match options.pool {
        0 => config.db_pool_size,
        size => size,
    }
}

/// What every client's rounds came to.
struct Run {
    confirmed: u64,
    confirm: Vec<Duration>,
    started: Vec<Instant>,
    cycle: Vec<Duration>,
    errors: Vec<String>,
    /// Each buy-in's latency (`--buy-ins`).
    buy_ins: Vec<Duration>,
    /// Each receipt's latency (`--signatures`).
    signatures: Vec<Duration>,
}

/// Records buy-ins at `rate` a second (open loop: a late answer makes the next late, counted
/// from when it was due) at `tables` in turn (code, dealer's token) until `until`: each one's
/// latency, and the errors.
async fn buy_ins(
    address: String,
    tables: Vec<(String, String)>,
    rate: u64,
    until: Instant,
) -> (Vec<Duration>, Vec<String>) {
    let client = reqwest::Client::new();
    let interval = Duration::from_secs_f64(1.0 / rate.max(1) as f64);
    let first = Instant::now();
    let (mut latencies, mut errors) = (Vec::new(), Vec::new());
    for n in 0_u32.. {
        let due = first + interval * n;
        if due >= until || tables.is_empty() {
            break;
        }
        tokio::time::sleep_until(due.into()).await;
        let (code, token) = &tables[n as usize % tables.len()];
        let body = json!({ "seat": 1 + n % 3, "amount": "500", "kind": "cash" });
        let req = client
            .post(format!("{address}/api/v1/tables/{code}/buy-ins"))
            .bearer_auth(token)
            .json(&body);
        match send(&client, req, 201).await {
            Ok(_) => latencies.push(due.elapsed()),
            Err(err) => errors.push(err.to_string()),
        }
    }
    (latencies, errors)
}

/// A fill issued to a table, to be received there: the table dealer's signed-in browser, its
/// session's CSRF token, the slip, and what the second signer types.
struct Receipt {
    dealer: reqwest::Client,
    csrf: String,
    address: String,
    slip: i64,
    secret: &'static str,
}

/// The second signer of every receipt, a pit manager, and their signing PIN.
const WITNESS: &str = "bench-witness";
const WITNESS_PIN: &str = "402917";

/// The CSRF token of a signed-in browser's session (from a page's form).
async fn csrf_of(client: &reqwest::Client, address: &str) -> Result<String> {
    let html = client
        .get(format!("{address}/account/password"))
        .send()
        .await?
        .text()
        .await?;
    csrf_in(&html).map(str::to_owned)
}

/// The CSRF token in a page's form.
fn csrf_in(html: &str) -> Result<&str> {
    let marker = "name=\"csrf_token\" value=\"";
    let start = html.find(marker).context("no CSRF token")? + marker.len();
    let end = html[start..].find('"').context("no CSRF token end")? + start;
    Ok(&html[start..end])
}

/// POSTs a form from a signed-in browser; an error unless the answer is a redirect.
async fn post_form(
    client: &reqwest::Client,
    address: &str,
    path: &str,
    fields: &[(&str, &str)],
) -> Result<()> {
    let csrf = csrf_of(client, address).await?;
    let mut all = fields.to_vec();
    all.push(("csrf_token", &csrf));
    let req = client.post(format!("{address}{path}")).form(&all);
    send(client, req, 303).await.map(|_| ())
}

/// `--signatures`: `count` fills of one 5,000 chip, requested by one pit manager at the first
/// four tables in turn and issued by a cashier, each to be received by the table's dealer and
/// a second pit manager ([`WITNESS`], who signs with `signed_with`).
async fn issued_fills(
    address: &str,
    seeded: &Seeded,
    signed_with: &str,
    count: usize,
) -> Result<Vec<Receipt>> {
    use diesel::prelude::*;
    use pusoy_pit::db::schema::{cage_slips, chip_set_versions, gaming_tables};
    use pusoy_pit::db::users::{self, NewUser, Role};

    let url = seeded.url.clone();
    tokio::task::spawn_blocking(move || -> Result<()> {
        let mut conn = PgConnection::establish(&url)?;
        let hash = pusoy_pit::password::hash(PASSWORD, pusoy_pit::password::HashParams::FLOOR)?;
        for (name, role) in [
            ("bench-requester", Role::Supervisor),
            (WITNESS, Role::Supervisor),
            ("bench-cashier", Role::Cashier),
        ] {
            let new = NewUser {
                username: name.to_owned(),
                display_name: name.to_owned(),
                role,
                password_hash: hash.clone(),
                must_change_password: false,
            };
            users::create(
                &mut conn,
                &new,
                &pusoy_pit::db::audit_log::Actor::system("bench"),
            )?;
        }
        Ok(())
    })
    .await??;
    let admin = browser_for(address, "bench-admin").await?;
    let chips = [
        ("currency", "PHP"),
        ("denominations", "25 100 500 1,000 5,000 10,000"),
    ];
    post_form(&admin, address, "/admin/chips", &chips).await?;
    let witness = browser_for(address, WITNESS).await?;
    let pin = [
        ("current_password", PASSWORD),
        ("pin", WITNESS_PIN),
        ("confirm_pin", WITNESS_PIN),
    ];
    post_form(&witness, address, "/account/pin", &pin).await?;
    let url = seeded.url.clone();
    let version: i64 = tokio::task::spawn_blocking(move || -> Result<i64> {
        let mut conn = PgConnection::establish(&url)?;
        chip_set_versions::table
            .select(diesel::dsl::max(chip_set_versions::id))
            .first::<Option<i64>>(&mut conn)?
            .context("no chip set")
    })
    .await??;
    let version = version.to_string();
    let requester = browser_for(address, "bench-requester").await?;
    let tables = &seeded.tables[..seeded.tables.len().min(4)];
    for n in 0..count {
        let code = &tables[n % tables.len()].0;
        let fields = [
            ("kind", "fill"),
            ("chip_set_version_id", version.as_str()),
            ("count-500000", "1"),
        ];
        post_form(
            &requester,
            address,
            &format!("/tables/{code}/cage"),
            &fields,
        )
        .await?;
    }
    let url = seeded.url.clone();
    let slips: Vec<(i64, String)> = tokio::task::spawn_blocking(move || -> Result<_> {
        let mut conn = PgConnection::establish(&url)?;
        Ok(cage_slips::table
            .inner_join(gaming_tables::table)
            .order(cage_slips::id.asc())
            .select((cage_slips::id, gaming_tables::code))
            .load(&mut conn)?)
    })
    .await??;
    let cashier = browser_for(address, "bench-cashier").await?;
    let mut dealers = std::collections::HashMap::new();
    for (code, dealer, _) in tables {
        let client = browser_for(address, dealer).await?;
        let csrf = csrf_of(&client, address).await?;
        dealers.insert(code.clone(), (client, csrf));
    }
    let secret = if signed_with == "pin" {
        WITNESS_PIN
    } else {
        PASSWORD
    };
    let mut receipts = Vec::with_capacity(slips.len());
    for (slip, code) in slips {
        post_form(&cashier, address, &format!("/cage/slips/{slip}/issue"), &[]).await?;
        let (dealer, csrf) = &dealers[&code];
        receipts.push(Receipt {
            dealer: dealer.clone(),
            csrf: csrf.clone(),
            address: address.to_owned(),
            slip,
            secret,
        });
    }
    Ok(receipts)
}

/// Receives `receipts` at `rate` a second (open loop, latency from when each was due) until
/// `until`: each one's latency, and the errors.
async fn receive_fills(
    mut receipts: Vec<Receipt>,
    rate: u64,
    until: Instant,
) -> (Vec<Duration>, Vec<String>) {
    let interval = Duration::from_secs_f64(1.0 / rate.max(1) as f64);
    let first = Instant::now();
    let (mut latencies, mut errors) = (Vec::new(), Vec::new());
    for n in 0_u32.. {
        let due = first + interval * n;
        if due >= until {
            break;
        }
        let Some(receipt) = receipts.pop() else {
            break;
        };
        tokio::time::sleep_until(due.into()).await;
        let fields = [
            ("second_username", WITNESS),
            ("second_password", receipt.secret),
            ("csrf_token", receipt.csrf.as_str()),
        ];
        let req = receipt
            .dealer
            .post(format!(
                "{}/cage/slips/{}/receive",
                receipt.address, receipt.slip
            ))
            .form(&fields);
        match send(&receipt.dealer, req, 303).await {
            Ok(_) => latencies.push(due.elapsed()),
            Err(err) => errors.push(err.to_string()),
        }
    }
    (latencies, errors)
}

/// Every client sending rounds at once for `seconds`; the round keys start with `run`.
async fn clients_run(
    flow: Flow,
    run: &'static str,
    addresses: &[String],
    seeded: &Seeded,
    options: &Options,
    seconds: u64,
    receipts: Vec<Receipt>,
) -> Result<Run> {
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    let clients = seeded.tables.len() as u32;
    let tasks: Vec<_> = (0_u32..)
        .zip(&seeded.tables)
        .map(|(i, (code, _, token))| {
            let address = addresses[i as usize % addresses.len()].clone();
            let (code, token) = (code.clone(), token.clone());
            // Each client sends every `clients / rate` seconds, the clients evenly staggered.
            let pace = match options.rate {
                0 => Pace::BackToBack,
                rate => {
                    let interval = Duration::from_secs_f64(f64::from(clients) / rate as f64);
                    Pace::Every {
                        first: start + interval * i / clients,
                        interval,
                    }
                }
            };
            tokio::spawn(drive(flow, run, address, code, token, pace, until))
        })
        .collect();
    let side = (options.buy_ins > 0).then(|| {
        let tables = seeded
            .tables
            .iter()
            .map(|(code, _, token)| (code.clone(), token.clone()))
            .collect();
        tokio::spawn(buy_ins(
            addresses[0].clone(),
            tables,
            options.buy_ins,
            until,
        ))
    });
    let signing = (!receipts.is_empty())
        .then(|| tokio::spawn(receive_fills(receipts, options.signatures, until)));
    let mut confirmed = 0;
    let mut confirm = Vec::new();
    let mut started = Vec::new();
    let mut cycle = Vec::new();
    let mut errors = Vec::new();
    for task in tasks {
        let report = task.await?;
        confirmed += report.confirmed;
        confirm.extend(report.confirm);
        started.extend(report.started);
        cycle.extend(report.cycle);
        errors.extend(report.errors);
    }
    let mut bought = Vec::new();
    if let Some(side) = side {
        let (latencies, failed) = side.await?;
        bought = latencies;
        errors.extend(failed);
    }
    let mut signatures = Vec::new();
    if let Some(signing) = signing {
        let (latencies, failed) = signing.await?;
        signatures = latencies;
        errors.extend(failed);
    }
    Ok(Run {
        confirmed,
        confirm,
        started,
        cycle,
        errors,
        buy_ins: bought,
        signatures,
    })
}

/// Runs one flow with every client at once after a warm-up; prints its figures and returns its
/// errors.
async fn run_flow(
    flow: Flow,
    addresses: &[String],
    seeded: &Seeded,
    options: &Options,
    receipts: Vec<Receipt>,
) -> Result<Vec<String>> {
    let pace = match options.rate {
        0 => "back to back".to_owned(),
        rate => format!("{rate} rounds/s offered"),
    };
    println!(
        "{flow:?} flow: {} clients on {} tables, {pace}, {} s, {} app instance(s) of {} server \
         workers and {} pooled connections, synchronous_commit=on",
        options.clients,
        seeded.tables.len(),
        options.seconds,
        addresses.len(),
        options.workers,
        options.pool_size,
    );
    // Connections, prepared statements and caches warm up first, unmeasured.
    if options.warmup > 0 {
        let warm = clients_run(
            flow,
            "warm",
            addresses,
            seeded,
            options,
            options.warmup,
            Vec::new(),
        )
        .await?;
        if let Some(first) = warm.errors.first() {
            println!(
                "warm-up errors         {} (first: {first})",
                warm.errors.len()
            );
        }
    }
    let before = cpu_seconds(options.postmaster);
    let start = Instant::now();
    let Run {
        confirmed,
        confirm,
        started,
        cycle,
        errors,
        buy_ins,
        signatures,
    } = clients_run(
        flow,
        "load",
        addresses,
        seeded,
        options,
        options.seconds,
        receipts,
    )
    .await?;
    if options.timeline {
        timeline(start, &started, &confirm);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let after = cpu_seconds(options.postmaster);
    println!(
        "confirmed rounds       {confirmed} in {elapsed:.1} s = {:.0} rounds/s",
        confirmed as f64 / elapsed
    );
    let per_round = |seconds: f64| seconds * 1e6 / confirmed.max(1) as f64;
    println!(
        "CPU per round          load generator {:.0} us, app {:.0} us, PostgreSQL {:.0} us",
        per_round(after.load_generator - before.load_generator),
        per_round(after.app - before.app),
        per_round(after.database - before.database)
    );
    println!(
        "                       (every postgres process on the machine {:.0} us)",
        per_round(after.every_postgres - before.every_postgres)
    );
    match flow {
        Flow::Whole => summary("PUT whole round", confirm),
        Flow::Draft => {
            summary("confirm request", confirm);
            summary("open+put+confirm", cycle);
        }
    }
    if options.buy_ins > 0 {
        summary("buy-in POST", buy_ins);
    }
    if options.signatures > 0 {
        summary(&format!("receipt, {}", options.signed_with), signatures);
    }
    if let Some(first) = errors.first() {
        println!("errors                 {} (first: {first})", errors.len());
    }
    Ok(errors)
}

/// The server's `synchronous_standby_names` (`pusoy-pit db standby` sets it), if any: a
/// commit then waits until the standby has it on its disk too.
fn synchronous_standby(url: &str) -> Result<Option<String>> {
    use diesel::{Connection, QueryableByName, RunQueryDsl};
    #[derive(QueryableByName)]
    struct Setting {
        #[diesel(sql_type = diesel::sql_types::Text)]
        value: String,
    }
    let mut conn = diesel::PgConnection::establish(url)?;
    let Setting { value } =
        diesel::sql_query("SELECT current_setting('synchronous_standby_names') AS value")
            .get_result(&mut conn)?;
    Ok(Some(value).filter(|v| !v.is_empty()))
}

fn main() -> Result<()> {
    let mut options = options()?;
    let mut config = Config::from_lookup(|_| None)?;
    config.workers = options.workers;
    config.db_pool_size = pool_size(&options, &config);
    options.pool_size = config.db_pool_size;
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("var");
    let layout = Layout::resolve(&base)?;
    let cluster = embedded::ensure_running(&layout)?;
    options.postmaster = postmaster_pid(&layout.data_dir())?;
    let day = config.gaming_day(chrono::Utc::now());
    // A confirmed round must be on disk before the dealer is told so: what is measured here.
    let seeded = seed(&cluster, DATABASE, "on", options.clients, day)?;
    config.database_url = Some(seeded.url.clone());
    println!(
        "synchronous standby    {}",
        synchronous_standby(&seeded.url)?.unwrap_or_else(|| "none".to_owned())
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(LOAD_GENERATOR_THREADS)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let mut addresses = Vec::new();
        let mut handles = Vec::new();
        for _ in 0..options.instances {
            let pool = pusoy_pit::db::pool(&seeded.url, config.db_pool_size)?;
            let listener = TcpListener::bind("127.0.0.1:0")?;
            addresses.push(format!("http://{}", listener.local_addr()?));
            let server = pusoy_pit::web::run(listener, pool, config.clone())?;
            handles.push(server.handle());
            tokio::spawn(server);
        }

        let per_flow = usize::try_from(options.signatures * options.seconds)?;
        let mut receipts = if options.signatures > 0 {
            issued_fills(
                &addresses[0],
                &seeded,
                options.signed_with,
                per_flow * options.flows.len(),
            )
            .await?
        } else {
            Vec::new()
        };
        let mut errors = Vec::new();
        for &flow in &options.flows {
            let these = receipts.split_off(receipts.len().saturating_sub(per_flow));
            errors.extend(run_flow(flow, &addresses, &seeded, &options, these).await?);
        }

        let screens = table_screens(&addresses[0], &seeded, 5).await?;
        let rate = screens.len() as f64 / 5.0;
        summary("table screen GET", screens);
        println!("table screens          {rate:.0}/s, one signed-in dealer, one request at a time");
        for handle in handles {
            handle.stop(true).await;
        }
        let url = seeded.url.clone();
        let check = tokio::task::spawn_blocking(move || check_written(&url)).await??;
        println!("{check}");
        if errors.is_empty() {
            Ok(())
        } else {
            Err(anyhow!("{} requests failed", errors.len()))
        }
    })
}
