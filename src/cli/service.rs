//! The commands that run the service or look after its database: serve, migrate, seed the
//! demo data, and the private PostgreSQL cluster.

use std::net::TcpListener;

use anyhow::{bail, Context};
use chrono::TimeDelta;
use diesel::RunQueryDsl;

use crate::config::{Config, Environment};
use crate::db::checkpoints::Checkpointer;
use crate::db::embedded::{self, Layout};
use crate::db::seal_file::SealFiles;
use crate::db::{self, demo, PgPool};

/// The database URL the app connects with: DATABASE_URL, or the private cluster's database
/// `pusoy` (the cluster started if needed), migrated by its owner and then reached as the
/// least-privilege role [`embedded::APP_ROLE`], as in production.
pub fn database_url(config: &Config) -> anyhow::Result<String> {
    if let Some(url) = &config.database_url {
        return Ok(url.clone());
    }
    let (cluster, owner_url) = private_database(config)?;
    let done = migrate_as_owner(&owner_url)?;
    if !done.is_empty() {
        tracing::info!(migrations = ?done, "database migrated");
    }
    Ok(cluster.grant_app_role("pusoy")?)
}

/// The private cluster (started if needed) and its database `pusoy`'s owner URL.
fn private_database(config: &Config) -> anyhow::Result<(embedded::Cluster, String)> {
    let layout = Layout::resolve(&config.data_dir)?;
    let cluster = embedded::ensure_running(&layout).context("starting the private PostgreSQL")?;
    tracing::info!(port = cluster.port, "using the private PostgreSQL cluster");
    let url = cluster.ensure_database("pusoy")?;
    Ok((cluster, url))
}

/// Applies the pending migrations as the database's owner; their names.
fn migrate_as_owner(owner_url: &str) -> anyhow::Result<Vec<String>> {
    let pool = db::pool(owner_url, 1).context("connecting to the database as its owner")?;
    let done = db::migrate(&mut *pool.get()?).map_err(|e| anyhow::anyhow!(e))?;
    Ok(done)
}

/// The connections a command that does one thing at a time holds (an export: its reads and,
/// beside them, the primary's position): a pool opens all of its connections before it is
/// handed out, each costing a SCRAM exchange and a backend.
pub const ONE_TASK_POOL: u32 = 2;

/// A pool on the migrated database.
pub fn connect(config: &Config) -> anyhow::Result<db::PgPool> {
    connect_sized(config, config.db_pool_size)
}

/// A pool of at most `size` connections on the migrated database.
pub fn connect_sized(config: &Config, size: u32) -> anyhow::Result<db::PgPool> {
    let url = database_url(config)?;
    let pool = db::pool(&url, size).context("connecting to the database")?;
    let mut conn = pool.get()?;
    // Read first: a role without DDL rights (the private cluster's app role, or production's)
    // may start with PUSOY_MIGRATE on when nothing is pending.
    let pending = db::pending_migrations(&mut conn).context("reading the applied migrations")?;
    if config.migrate_at_start && !pending.is_empty() {
        let done = db::migrate(&mut conn).map_err(|e| anyhow::anyhow!(e))?;
        if !done.is_empty() {
            tracing::info!(migrations = ?done, "database migrated");
        }
    } else {
        if !pending.is_empty() {
            bail!(
                "PUSOY_MIGRATE=false and {} migration(s) are not applied ({}): run `pusoy-pit migrate` with the database owner's DATABASE_URL first",
                pending.len(),
                pending.join(", ")
            );
        }
    }
    let off = embedded::not_durable(&mut conn)?;
    if !off.is_empty() {
        tracing::warn!(settings = %off.join(", "), "the database does not commit durably: a crash can lose rounds already confirmed to dealers");
    }
    Ok(pool)
}

/// A pool for reads that may go to a replica: on `PUSOY_READ_DATABASE_URL` when it is set (not
/// migrated: a standby is read-only and follows the primary's schema), else `primary`.
pub fn read_pool(config: &Config, primary: &db::PgPool, size: u32) -> anyhow::Result<db::PgPool> {
    match &config.read_database_url {
        Some(url) => {
            db::pool(url, size).context("connecting to the read database (PUSOY_READ_DATABASE_URL)")
        }
        None => Ok(primary.clone()),
    }
}

/// `serve`: runs the web application (migrating first, seeding the demo data with `--demo`).
pub fn serve(config: Config, demo: bool) -> anyhow::Result<()> {
    if config.environment == Environment::Production && config.database_url.is_none() {
        bail!("PUSOY_ENV=production needs DATABASE_URL (the private cluster is for local use)");
    }
    if config.session_key_generated {
        tracing::warn!("SESSION_KEY is unset: using a random key, sessions end when the app stops");
    }
    // The signing-PIN key is made (or found unreadable) before anything is served.
    crate::password::pin::PinKey::load_or_create(&config.pin_key_file)?;
    let pool = connect(&config)?;
    let read_pool = read_pool(&config, &pool, config.db_pool_size)?;
    if demo {
        let mut conn = pool.get()?;
        seed(&mut conn, &config)?;
    }
    let listener =
        TcpListener::bind(&config.bind).with_context(|| format!("binding {}", config.bind))?;
    let addr = listener.local_addr()?;
    let scheme = if config.secure_cookies {
        "https"
    } else {
        "http"
    };
    println!("pusoy-pit is listening: open {scheme}://{addr}/ (Ctrl-C stops it)");
    if config.secure_cookies && scheme == "https" {
        println!("(secure cookies are on: put a TLS-terminating proxy in front of this address)");
    }
    actix_web::rt::System::new().block_on(async move {
        actix_web::rt::spawn(write_checkpoints(
            pool.clone(),
            SealFiles::of(&config),
            config.checkpoint_every,
        ));
        actix_web::rt::spawn(compute_house_edges(pool.clone(), config.house_edge_deals));
        let state = crate::web::state::AppState::new(pool, config)
            .map_err(std::io::Error::other)?
            .with_read_pool(read_pool);
        crate::web::serve(listener, state)?.await
    })?;
    Ok(())
}

/// `serve`'s house-edge task: at the start and then every five minutes, the edge of every rule
/// profile version without one (`players::edges`), one version at a time on a blocking thread
/// (a look that finds none missing is one query).
async fn compute_house_edges(pool: PgPool, deals: u32) {
    if deals == 0 {
        return;
    }
    let db = crate::db::handle::Db::new(pool, 1);
    let mut ticks = actix_web::rt::time::interval(std::time::Duration::from_secs(300));
    loop {
        ticks.tick().await;
        match crate::players::edges::compute_missing(&db, deals).await {
            Ok(done) => {
                for edge in done {
                    tracing::info!(
                        version = %edge.version,
                        edge_ppm = edge.edge_ppm,
                        half_width_ppm = edge.half_width_ppm,
                        deals = edge.deals,
                        "house edge computed"
                    );
                }
            }
            Err(err) => tracing::warn!(error = %err, "house edges not computed"),
        }
    }
}

/// `serve`'s checkpoint task: every `every` (from the start), a checkpoint of the chain heads in
/// the seal files if events were written since the last ([`Checkpointer::tick`]).
async fn write_checkpoints(pool: PgPool, seals: SealFiles, every: TimeDelta) {
    let period = every
        .to_std()
        .unwrap_or(std::time::Duration::from_secs(300));
    let mut ticks = actix_web::rt::time::interval(period);
    let mut checkpointer = Checkpointer::new(seals.clone());
    loop {
        ticks.tick().await;
        let pool = pool.clone();
        let ran = actix_web::rt::task::spawn_blocking(move || {
            let written = match pool.get() {
                Ok(mut conn) => checkpointer.tick(&mut conn).map_err(anyhow::Error::from),
                Err(err) => Err(err.into()),
            };
            (checkpointer, written)
        })
        .await;
        checkpointer = match ran {
            Ok((checkpointer, written)) => {
                match written {
                    Ok(Some(checkpoint)) => {
                        tracing::debug!(chains = checkpoint.heads.len(), "checkpoint written");
                    }
                    Ok(None) => {}
                    Err(err) => {
                        tracing::error!(
                            error = format!("{err:#}"),
                            "no checkpoint of the chain heads"
                        );
                    }
                }
                checkpointer
            }
            Err(err) => {
                tracing::error!(error = %err, "the checkpoint task failed");
                Checkpointer::new(seals.clone())
            }
        };
    }
}

fn seed(conn: &mut diesel::PgConnection, config: &Config) -> anyhow::Result<()> {
    let report = demo::seed(conn, config.password_hash)?;
    println!(
        "Demo data: {} account(s) created, {} already present.",
        report.accounts_created.len(),
        report.accounts_present.len()
    );
    println!(
        "Rule profiles created: {}; tables created: {}.",
        report.profiles_created.len(),
        report.tables_created.len()
    );
    println!("Demo accounts (user name / password / role):");
    for account in demo::ACCOUNTS {
        println!(
            "  {:<11} {:<20} {}",
            account.username,
            account.password,
            account.role.title()
        );
    }
    Ok(())
}

/// `seed-demo`: creates the demo accounts, profiles and tables (safe to run again).
pub fn seed_demo(config: &Config) -> anyhow::Result<()> {
    let pool = connect(config)?;
    let mut conn = pool.get()?;
    seed(&mut conn, config)
}

/// `migrate`: applies pending migrations.
pub fn migrate(config: &Config) -> anyhow::Result<()> {
    let done = match &config.database_url {
        Some(url) => migrate_as_owner(url)?,
        None => {
            let (cluster, owner_url) = private_database(config)?;
            let done = migrate_as_owner(&owner_url)?;
            cluster.grant_app_role("pusoy")?;
            done
        }
    };
    println!("{} migration(s) applied: {done:?}", done.len());
    Ok(())
}

/// `db url`: the database URL in use (starting the private cluster if needed).
pub fn db_url(config: &Config) -> anyhow::Result<()> {
    println!("{}", database_url(config)?);
    Ok(())
}

/// `db stop`: stops the private cluster.
pub fn db_stop(config: &Config) -> anyhow::Result<()> {
    let layout = Layout::resolve(&config.data_dir)?;
    if embedded::stop(&layout)? {
        println!("stopped the private PostgreSQL cluster");
    } else {
        println!("the private PostgreSQL cluster was not running");
    }
    // After the primary, which sends the standby everything before it stops.
    if embedded::stop(&layout.standby())? {
        println!("stopped its standby");
    }
    Ok(())
}

/// `db standby`: makes (or remakes) a streaming standby of the private cluster under
/// `var/standby` on `port` (default the primary's port + 1) and, unless `asynchronous`, names it
/// the primary's synchronous standby, so that a commit (a 200/201) is on both clusters' disks.
/// With `remove`: stops waiting for it, then stops and removes it.
pub fn db_standby(
    config: &Config,
    port: Option<u16>,
    asynchronous: bool,
    remove: bool,
) -> anyhow::Result<()> {
    let layout = Layout::resolve(&config.data_dir)?;
    let primary = embedded::ensure_running(&layout).context("starting the private PostgreSQL")?;
    let standby_layout = layout.standby();
    if remove {
        // First: with a synchronous standby named and gone, every commit would wait.
        embedded::set_synchronous(&primary, false)?;
        embedded::stop(&standby_layout)?;
        let dir = standby_layout.data_dir();
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        println!("the standby is stopped and removed; commits no longer wait for it");
        return Ok(());
    }
    let port = port.unwrap_or(primary.port.saturating_add(1));
    let standby = embedded::make_standby(&primary, &standby_layout, port, !asynchronous)
        .context("making the standby")?;
    embedded::set_synchronous(&primary, !asynchronous)?;
    println!(
        "standby of port {} listening on port {} ({}), {}",
        primary.port,
        standby.port,
        standby_layout.data_dir().display(),
        if asynchronous {
            "asynchronous: a commit does not wait for it"
        } else {
            "synchronous: every commit waits until it is on the standby's disk too"
        }
    );
    println!(
        "DATABASE_URL={}",
        primary.failover_app_url(&standby, "pusoy")
    );
    Ok(())
}

/// `db scratch NAME`: (re)creates an empty, migrated database on the private cluster and
/// prints its URL for the app's role.
pub fn db_scratch(config: &Config, name: &str) -> anyhow::Result<()> {
    let layout = Layout::resolve(&config.data_dir)?;
    let cluster = embedded::ensure_running(&layout)?;
    let mut admin = cluster.connect("postgres")?;
    diesel::sql_query(format!(
        "DROP DATABASE IF EXISTS {} WITH (FORCE)",
        embedded::quote_ident(name)
    ))
    .execute(&mut admin)?;
    cluster.ensure_database(name)?;
    let mut conn = cluster.connect(name)?;
    db::migrate(&mut conn).map_err(|e| anyhow::anyhow!(e))?;
    println!("{}", cluster.grant_app_role(name)?);
    Ok(())
}
