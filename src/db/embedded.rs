//! A private PostgreSQL cluster for local use and the test suite, used when `DATABASE_URL` is
//! unset. It runs the Debian `postgresql` package's own binaries, keeps its data under the
//! project's `var/` directory, listens on 127.0.0.1 and on a Unix socket in a private directory
//! beside its data (`var/pg-socket`, which connections prefer: a local socket costs less CPU
//! per round trip than loopback TCP), and is left running between runs so that re-runs are fast
//! (`pusoy-pit db stop` stops it).
//!
//! Two processes may ask for it at once (a test run and `serve`): a file lock beside the data
//! directory serialises `initdb` and `pg_ctl start`, and a cluster found running is reused.
//!
//! The cluster is durable: a commit is on disk before it is acknowledged ([`DURABLE`]), and
//! [`ensure_running`] puts those settings back on a cluster that lacks them (one made before
//! they were the default). Only the test suite relaxes it, per connection (its URLs carry
//! `options=-c synchronous_commit=off`).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use diesel::prelude::*;
use diesel::sql_types::Text;
use rand::distr::{Alphanumeric, SampleString};

/// The superuser the private cluster is created with; it owns the databases and runs the
/// migrations, and the app never connects as it.
const SUPERUSER: &str = "pusoy";

/// The role the app connects as: the least-privilege role of `scripts/app-role.sql` (no DDL, no
/// TRIGGER, not an owner; only INSERT and SELECT on the audit trail), as in production.
pub const APP_ROLE: &str = "pusoy_app";

/// The grants of the app's role, run by the owner after the migrations (psql's script, with
/// the variables `app_role` and `app_password`).
const APP_ROLE_SQL: &str = include_str!("../../scripts/app-role.sql");

/// The settings that keep an acknowledged commit through a crash of PostgreSQL or of the
/// machine: WAL flushed at each commit, fsync honoured, whole pages logged after a checkpoint.
/// A production server must keep all three (docs/deployment.md).
pub const DURABLE: [(&str, &str); 3] = [
    ("synchronous_commit", "on"),
    ("fsync", "on"),
    ("full_page_writes", "on"),
];

#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error(
        "PostgreSQL server binaries (initdb, pg_ctl) were not found in {searched}. \
         Install them with `sudo apt-get install postgresql` (Debian/Ubuntu), \
         or set DATABASE_URL to a running server"
    )]
    MissingBinaries { searched: String },
    #[error("running as root, but there is no `postgres` system user to run the server as; install the Debian `postgresql` package")]
    NoPostgresUser,
    #[error("{action} on {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{command}` failed ({status}): {output}")]
    Command {
        command: String,
        status: String,
        output: String,
    },
    #[error("cannot talk to the private PostgreSQL at port {port}: {message}")]
    Connect { port: u16, message: String },
    #[error("database query on the private cluster failed: {0}")]
    Query(#[from] diesel::result::Error),
    #[error("postmaster.pid in {} has no port line", .0.display())]
    NoPort(PathBuf),
    #[error("the private cluster still runs with {0} after a reload; see its log")]
    NotDurable(String),
    #[error(
        "the private cluster's synchronous_standby_names is not {0:?} after a reload; see its log"
    )]
    NotSynchronous(String),
}

/// Where one checkout keeps its cluster: `<base>/pg` plus the password, log and lock files.
#[derive(Debug, Clone)]
pub struct Layout {
    base: PathBuf,
}

impl Layout {
    /// `base` is normally `<project>/var`. When running as root and the `postgres` user cannot
    /// reach `base` (a checkout under a private directory such as `mktemp -d`), the cluster
    /// moves to a directory in the system temp dir named after `base`, so it stays per checkout.
    pub fn resolve(base: &Path) -> Result<Layout, EmbeddedError> {
        create_dir(base, 0o755)?;
        let base = fs::canonicalize(base).map_err(io_err("resolving", base))?;
        if !running_as_root() || postgres_can_reach(&base)? {
            return Ok(Layout { base });
        }
        let fallback = std::env::temp_dir().join(format!("pusoy-pit-{:016x}", fnv1a(&base)));
        create_dir(&fallback, 0o755)?;
        tracing::info!(
            path = %fallback.display(),
            "the postgres user cannot reach the project directory; keeping the cluster in the temp dir"
        );
        Ok(Layout { base: fallback })
    }

    pub fn data_dir(&self) -> PathBuf {
        self.base.join("pg")
    }

    fn app_password_file(&self) -> PathBuf {
        self.base.join("pg-app.password")
    }

    fn password_file(&self) -> PathBuf {
        self.base.join("pg.password")
    }

    fn log_file(&self) -> PathBuf {
        self.base.join("pg.log")
    }

    fn lock_file(&self) -> PathBuf {
        self.base.join("pg.lock")
    }

    /// Where the local standby of this cluster lives (`pusoy-pit db standby`): a layout of its
    /// own under `<base>/standby`.
    pub fn standby(&self) -> Layout {
        Layout {
            base: self.base.join("standby"),
        }
    }

    /// The directory of the server's Unix socket, if its path is short enough for one (a
    /// socket path is at most 107 bytes) and plain enough to pass to `pg_ctl -o`.
    fn socket_dir(&self) -> Option<PathBuf> {
        let dir = self.base.join("pg-socket");
        let text = dir.to_str()?;
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c));
        (plain && text.len() + "/.s.PGSQL.65535".len() <= 107).then_some(dir)
    }

    /// A port derived from the data directory, so two checkouts do not collide.
    fn default_port(&self) -> u16 {
        let spread = u16::try_from(fnv1a(&self.data_dir()) % 10_000).unwrap_or(0);
        40_000 + spread
    }
}

/// A running private cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub port: u16,
    password: String,
    /// The password of [`APP_ROLE`].
    app_password: String,
    /// Where the server's binaries are (psql among them).
    bin: PathBuf,
    /// The lock that serialises changes to the cluster's roles.
    lock_file: PathBuf,
    /// The directory of its Unix socket, when it listens on one.
    socket_dir: Option<PathBuf>,
}

impl Cluster {
    /// The connection URL for one database of this cluster: over its Unix socket when it has
    /// one, else over loopback TCP.
    pub fn url(&self, database: &str) -> String {
        match &self.socket_dir {
            Some(dir) => format!(
                "postgres://{SUPERUSER}:{}@/{database}?host={}&port={}",
                self.password,
                dir.display(),
                self.port
            ),
            None => format!(
                "postgres://{SUPERUSER}:{}@127.0.0.1:{}/{database}",
                self.password, self.port
            ),
        }
    }

    /// [`Cluster::url`] as the app's role [`APP_ROLE`] rather than the owner.
    pub fn app_url(&self, database: &str) -> String {
        let owner = format!("{SUPERUSER}:{}@", self.password);
        let app = format!("{APP_ROLE}:{}@", self.app_password);
        self.url(database).replacen(&owner, &app, 1)
    }

    /// Gives the app's role its rights on the migrated `database` (creating the role first if
    /// need be), as the owner, by `scripts/app-role.sql`: the same grants as in production.
    /// Returns the database's URL for the app.
    pub fn grant_app_role(&self, database: &str) -> Result<String, EmbeddedError> {
        use std::io::Write as _;
        use std::process::Stdio;
        let _lock = lock(&self.lock_file)?;
        let owner = self
            .url(database)
            .replacen(&format!(":{}@", self.password), "@", 1);
        let mut child = Command::new(self.bin.join("psql"))
            .arg(&owner)
            .args(["-q", "-X", "-v", "ON_ERROR_STOP=1", "-v"])
            .arg(format!("app_role={APP_ROLE}"))
            .arg("-v")
            .arg(format!("app_password={}", self.app_password))
            .args(["-f", "-"])
            .env("PGPASSWORD", &self.password)
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io_err("running", &self.bin.join("psql")))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(APP_ROLE_SQL.as_bytes())
                .map_err(io_err("writing to", &self.bin.join("psql")))?;
        }
        let out = child
            .wait_with_output()
            .map_err(io_err("running", &self.bin.join("psql")))?;
        if !out.status.success() {
            return Err(EmbeddedError::Command {
                command: "psql -f scripts/app-role.sql".to_owned(),
                status: out.status.to_string(),
                output: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
        Ok(self.app_url(database))
    }

    /// Creates `database` unless it exists (concurrent creators are fine) and returns its URL.
    pub fn ensure_database(&self, database: &str) -> Result<String, EmbeddedError> {
        let mut conn = self.connect("postgres")?;
        if !database_exists(&mut conn, database)? {
            let create = format!("CREATE DATABASE {}", quote_ident(database));
            match diesel::sql_query(create).execute(&mut conn) {
                Ok(_) => {}
                Err(err) if is_duplicate_database(&err) => {}
                Err(err) => return Err(err.into()),
            }
        }
        Ok(self.url(database))
    }

    /// The app's URL for `database` on whichever of this cluster and `standby` accepts writes
    /// (libpq tries the hosts in turn and keeps the first that is not read-only): what the app
    /// is given to follow a failover by itself.
    pub fn failover_app_url(&self, standby: &Cluster, database: &str) -> String {
        format!(
            "postgres://{APP_ROLE}:{}@127.0.0.1:{},127.0.0.1:{}/{database}\
             ?target_session_attrs=read-write&connect_timeout=2",
            self.app_password, self.port, standby.port
        )
    }

    /// A connection to one database of the cluster.
    pub fn connect(&self, database: &str) -> Result<PgConnection, EmbeddedError> {
        PgConnection::establish(&self.url(database)).map_err(|err| EmbeddedError::Connect {
            port: self.port,
            message: err.to_string(),
        })
    }
}

/// Starts the cluster of `layout` unless it runs already, creating it first if needed.
pub fn ensure_running(layout: &Layout) -> Result<Cluster, EmbeddedError> {
    let bin = find_bin_dir()?;
    let _lock = lock(&layout.lock_file())?;
    let data_dir = layout.data_dir();
    if !data_dir.join("PG_VERSION").exists() {
        init_cluster(layout, &bin)?;
    }
    let password = fs::read_to_string(layout.password_file())
        .map_err(io_err("reading", &layout.password_file()))?
        .trim()
        .to_owned();
    // The app's role's password, made once (the role itself by `grant_app_role`).
    let app_password = match fs::read_to_string(layout.app_password_file()) {
        Ok(text) if !text.trim().is_empty() => text.trim().to_owned(),
        _ => {
            let made = Alphanumeric.sample_string(&mut rand::rng(), 32);
            write_private(&layout.app_password_file(), &made)?;
            made
        }
    };
    if !is_running(&bin, &data_dir)? {
        start(layout, &bin)?;
    }
    let port = running_port(&data_dir)?;
    // A cluster started before it had a socket listens on TCP only.
    let socket_dir = layout
        .socket_dir()
        .filter(|dir| dir.join(format!(".s.PGSQL.{port}")).exists());
    let cluster = Cluster {
        port,
        password,
        app_password,
        bin,
        lock_file: layout.lock_file(),
        socket_dir,
    };
    make_durable(&cluster)?;
    Ok(cluster)
}

/// The application name a standby made by [`make_standby`] connects to its primary with, and
/// the name `synchronous_standby_names` gives it ([`set_synchronous`]).
pub const STANDBY_NAME: &str = "pusoy_standby";

/// Makes the cluster of `standby` a streaming standby of the running cluster `primary`, on
/// `port`, and starts it: a base backup over loopback (`pg_basebackup -R`, PostgreSQL's own
/// replication; nothing is copied by hand), connecting as [`STANDBY_NAME`]. Whatever the
/// standby's directory held is replaced. The standby has the primary's roles and passwords.
/// With `synchronous`, the standby, once promoted, waits for a standby of its own at every
/// commit, as its primary does ([`set_synchronous`]): a failover keeps the promise.
pub fn make_standby(
    primary: &Cluster,
    standby: &Layout,
    port: u16,
    synchronous: bool,
) -> Result<Cluster, EmbeddedError> {
    let bin = find_bin_dir()?;
    create_dir(&standby.base, 0o755)?;
    {
        let _lock = lock(&standby.lock_file())?;
        let data_dir = standby.data_dir();
        if data_dir.join("PG_VERSION").exists() && is_running(&bin, &data_dir)? {
            let mut cmd = as_postgres(&bin.join("pg_ctl"));
            cmd.arg("stop")
                .arg("-D")
                .arg(&data_dir)
                .args(["-m", "immediate", "-w"]);
            run(cmd, "pg_ctl stop")?;
        }
        if data_dir.exists() {
            fs::remove_dir_all(&data_dir).map_err(io_err("removing", &data_dir))?;
        }
        create_dir(&data_dir, 0o700)?;
        write_private(&standby.password_file(), &primary.password)?;
        write_private(&standby.app_password_file(), &primary.app_password)?;
        if running_as_root() {
            let (uid, gid) = postgres_ids()?;
            std::os::unix::fs::chown(&data_dir, Some(uid), Some(gid))
                .map_err(io_err("chown", &data_dir))?;
        }
        let mut backup = as_postgres(&bin.join("pg_basebackup"));
        backup
            .arg("-d")
            .arg(format!(
                "host=127.0.0.1 port={} user={SUPERUSER} password={} application_name={STANDBY_NAME}",
                primary.port, primary.password
            ))
            .arg("-D")
            .arg(&data_dir)
            .args(["-R", "-X", "stream", "-c", "fast"]);
        run(backup, "pg_basebackup")?;
        // The copy has the primary's port; the standby listens on its own.
        let names = if synchronous { STANDBY_NAME } else { "" };
        let auto = data_dir.join("postgresql.auto.conf");
        let mut file = OpenOptions::new()
            .append(true)
            .open(&auto)
            .map_err(io_err("opening", &auto))?;
        file.write_all(
            format!(
                "\n# pusoy-pit standby\nport = {port}\nsynchronous_standby_names = '{names}'\n"
            )
            .as_bytes(),
        )
        .map_err(io_err("writing", &auto))?;
        start(standby, &bin)?;
    }
    ensure_running(standby)
}

/// Promotes the standby of `layout` to a primary (`pg_ctl promote`), waiting until it accepts
/// writes. Its old primary must not come back as a second writer: rebuild it as a standby of
/// this one ([`make_standby`], or `pg_rewind`).
pub fn promote(layout: &Layout) -> Result<(), EmbeddedError> {
    let bin = find_bin_dir()?;
    let mut cmd = as_postgres(&bin.join("pg_ctl"));
    cmd.arg("promote")
        .arg("-D")
        .arg(layout.data_dir())
        .args(["-w", "-t", "60"]);
    run(cmd, "pg_ctl promote")
}

/// Makes every commit on `primary` wait until the standby named [`STANDBY_NAME`] has it on its
/// disk too (`synchronous_standby_names`), or, with `false`, no longer wait; waits until new
/// sessions have the setting. While a synchronous standby is named and none is connected,
/// commits wait.
pub fn set_synchronous(primary: &Cluster, synchronous: bool) -> Result<(), EmbeddedError> {
    #[derive(QueryableByName)]
    struct Setting {
        #[diesel(sql_type = Text)]
        value: String,
    }
    let mut conn = primary.connect("postgres")?;
    let wanted = if synchronous { STANDBY_NAME } else { "" };
    let change = if synchronous {
        format!("ALTER SYSTEM SET synchronous_standby_names = '{STANDBY_NAME}'")
    } else {
        "ALTER SYSTEM RESET synchronous_standby_names".to_owned()
    };
    diesel::sql_query(change).execute(&mut conn)?;
    diesel::sql_query("SELECT pg_reload_conf()").execute(&mut conn)?;
    for _ in 0..100 {
        let now: Setting =
            diesel::sql_query("SELECT current_setting('synchronous_standby_names') AS value")
                .get_result(&mut primary.connect("postgres")?)?;
        if now.value == wanted {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Err(EmbeddedError::NotSynchronous(wanted.to_owned()))
}

/// The settings of [`DURABLE`] that `conn`'s session does not have, as `name=value`.
pub fn not_durable(conn: &mut PgConnection) -> QueryResult<Vec<String>> {
    #[derive(QueryableByName)]
    struct Setting {
        #[diesel(sql_type = Text)]
        value: String,
    }
    let mut off = Vec::new();
    for (name, durable) in DURABLE {
        let setting: Setting = diesel::sql_query("SELECT current_setting($1) AS value")
            .bind::<Text, _>(name)
            .get_result(conn)?;
        if setting.value != durable {
            off.push(format!("{name}={}", setting.value));
        }
    }
    Ok(off)
}

/// Turns the [`DURABLE`] settings on for the whole cluster if any is off (`ALTER SYSTEM`, which
/// outranks `postgresql.conf`, and a reload), and waits until new sessions have them.
fn make_durable(cluster: &Cluster) -> Result<(), EmbeddedError> {
    let mut conn = cluster.connect("postgres")?;
    if not_durable(&mut conn)?.is_empty() {
        return Ok(());
    }
    tracing::warn!("the private cluster was not durable; turning synchronous_commit, fsync and full_page_writes on");
    for (name, value) in DURABLE {
        diesel::sql_query(format!("ALTER SYSTEM SET {name} = {value}")).execute(&mut conn)?;
    }
    diesel::sql_query("SELECT pg_reload_conf()").execute(&mut conn)?;
    // The postmaster rereads its settings when it gets to the signal; sessions started after
    // that have them.
    let mut off = Vec::new();
    for _ in 0..100 {
        off = not_durable(&mut cluster.connect("postgres")?)?;
        if off.is_empty() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Err(EmbeddedError::NotDurable(off.join(", ")))
}

/// Stops the cluster if it runs. Returns whether it was running.
pub fn stop(layout: &Layout) -> Result<bool, EmbeddedError> {
    stop_in(layout, "fast")
}

/// Stops the cluster as a crash would (`pg_ctl stop -m immediate`: no checkpoint, what is not in
/// the WAL on disk is gone), for the fault-injection test. [`ensure_running`] recovers it.
pub fn crash(layout: &Layout) -> Result<bool, EmbeddedError> {
    stop_in(layout, "immediate")
}

fn stop_in(layout: &Layout, mode: &str) -> Result<bool, EmbeddedError> {
    let bin = find_bin_dir()?;
    let data_dir = layout.data_dir();
    if !data_dir.join("PG_VERSION").exists() || !is_running(&bin, &data_dir)? {
        return Ok(false);
    }
    let mut cmd = as_postgres(&bin.join("pg_ctl"));
    cmd.arg("stop")
        .arg("-D")
        .arg(&data_dir)
        .args(["-m", mode, "-w"]);
    run(cmd, "pg_ctl stop")?;
    Ok(true)
}

/// The directory holding `initdb` and `pg_ctl`: `PUSOY_PG_BIN`, else `pg_config --bindir`,
/// else the newest `/usr/lib/postgresql/<version>/bin`.
pub fn find_bin_dir() -> Result<PathBuf, EmbeddedError> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let mut searched = Vec::new();
    if let Ok(dir) = std::env::var("PUSOY_PG_BIN") {
        let dir = PathBuf::from(dir);
        if has_tools(&dir) {
            return Ok(dir);
        }
        searched.push(dir.display().to_string());
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has_tools(&dir) {
            return Ok(dir);
        }
    }
    searched.push("pg_config --bindir".to_owned());
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| has_tools(dir))
        .collect();
    versions.sort();
    searched.push("/usr/lib/postgresql/*/bin".to_owned());
    versions
        .pop()
        .map(|(_, dir)| dir)
        .ok_or_else(|| EmbeddedError::MissingBinaries {
            searched: searched.join(", "),
        })
}

fn init_cluster(layout: &Layout, bin: &Path) -> Result<(), EmbeddedError> {
    let data_dir = layout.data_dir();
    tracing::info!(path = %data_dir.display(), "creating the private PostgreSQL cluster");
    // A half-made directory from an interrupted initdb would make initdb refuse to run.
    if data_dir.exists() {
        fs::remove_dir_all(&data_dir).map_err(io_err("removing", &data_dir))?;
    }
    create_dir(&data_dir, 0o700)?;
    let password = Alphanumeric.sample_string(&mut rand::rng(), 32);
    write_private(&layout.password_file(), &password)?;
    if running_as_root() {
        let (uid, gid) = postgres_ids()?;
        for path in [&data_dir, &layout.password_file()] {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(io_err("chown", path))?;
        }
    }
    let mut cmd = as_postgres(&bin.join("initdb"));
    cmd.arg("-D")
        .arg(&data_dir)
        .args(["-U", SUPERUSER, "--auth=scram-sha-256", "--encoding=UTF8"])
        .args(["--locale=C.UTF-8", "--no-instructions"])
        .arg(format!("--pwfile={}", layout.password_file().display()));
    run(cmd, "initdb")?;
    // Settings live in the cluster's own file so every later `pg_ctl start` gets them.
    let settings = format!(
        "\n# pusoy-pit private cluster\nlisten_addresses = '127.0.0.1'\nport = {}\n\
         unix_socket_directories = ''\nmax_connections = 200\n\
         synchronous_commit = on\nfsync = on\nfull_page_writes = on\n",
        std::env::var("PUSOY_PG_PORT")
            .ok()
            .and_then(|p| p.parse::<u16>().ok())
            .unwrap_or_else(|| layout.default_port())
    );
    let conf = data_dir.join("postgresql.conf");
    let mut file = OpenOptions::new()
        .append(true)
        .open(&conf)
        .map_err(io_err("opening", &conf))?;
    file.write_all(settings.as_bytes())
        .map_err(io_err("writing", &conf))?;
    Ok(())
}

fn start(layout: &Layout, bin: &Path) -> Result<(), EmbeddedError> {
    let log = layout.log_file();
    if !log.exists() {
        write_private(&log, "")?;
    }
    if running_as_root() {
        let (uid, gid) = postgres_ids()?;
        std::os::unix::fs::chown(&log, Some(uid), Some(gid)).map_err(io_err("chown", &log))?;
    }
    let mut cmd = as_postgres(&bin.join("pg_ctl"));
    cmd.arg("start")
        .arg("-D")
        .arg(layout.data_dir())
        .arg("-l")
        .arg(&log)
        .args(["-w", "-t", "60"]);
    if let Some(dir) = layout.socket_dir() {
        // Only the server's user may enter it (and root, which connects as a superuser does).
        create_dir(&dir, 0o700)?;
        if running_as_root() {
            let (uid, gid) = postgres_ids()?;
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).map_err(io_err("chown", &dir))?;
        }
        cmd.arg("-o")
            .arg(format!("-c unix_socket_directories={}", dir.display()));
    }
    run(cmd, "pg_ctl start").map_err(|err| match err {
        EmbeddedError::Command {
            command,
            status,
            output,
        } => EmbeddedError::Command {
            command,
            status,
            output: format!(
                "{output} (see {}; if the port is taken, set PUSOY_PG_PORT or DATABASE_URL)",
                log.display()
            ),
        },
        other => other,
    })
}

fn is_running(bin: &Path, data_dir: &Path) -> Result<bool, EmbeddedError> {
    let mut cmd = as_postgres(&bin.join("pg_ctl"));
    cmd.arg("status").arg("-D").arg(data_dir);
    let out = output(cmd, "pg_ctl status")?;
    Ok(out.status.success())
}

/// The port of the running server, from line 4 of `postmaster.pid`.
fn running_port(data_dir: &Path) -> Result<u16, EmbeddedError> {
    let pid_file = data_dir.join("postmaster.pid");
    let text = fs::read_to_string(&pid_file).map_err(io_err("reading", &pid_file))?;
    text.lines()
        .nth(3)
        .and_then(|line| line.trim().parse().ok())
        .ok_or(EmbeddedError::NoPort(pid_file))
}

fn database_exists(conn: &mut PgConnection, name: &str) -> QueryResult<bool> {
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = Text)]
        #[allow(dead_code)]
        datname: String,
    }
    let found: Vec<Found> = diesel::sql_query("SELECT datname FROM pg_database WHERE datname = $1")
        .bind::<Text, _>(name)
        .load(conn)?;
    Ok(!found.is_empty())
}

/// Drops the databases of test runs that have finished: the test suite names its databases
/// `test_<pid>_<random>`, and one whose process is gone is left over. (The next test run and the
/// load run call this; autovacuum visits every database of the cluster in turn, so a hundred
/// idle ones cost CPU.) A database that cannot be dropped is left for the next call.
pub fn drop_finished_test_databases(conn: &mut PgConnection) -> QueryResult<()> {
    #[derive(QueryableByName)]
    struct Name {
        #[diesel(sql_type = Text)]
        datname: String,
    }
    let names: Vec<Name> =
        diesel::sql_query("SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%'")
            .load(conn)?;
    for Name { datname } in names {
        let pid = datname.split('_').nth(1).unwrap_or_default();
        if !Path::new("/proc").join(pid).exists() {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                quote_ident(&datname)
            ))
            .execute(conn);
        }
    }
    Ok(())
}

/// Whether `err` is PostgreSQL's "database already exists" (SQLSTATE 42P04): a concurrent
/// creator won the race. Diesel has no error kind for it, so match the server's message.
pub(crate) fn is_duplicate_database(err: &diesel::result::Error) -> bool {
    matches!(err, diesel::result::Error::DatabaseError(_, info)
        if info.message().contains("already exists"))
}

/// Double-quotes an SQL identifier.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn running_as_root() -> bool {
    // The owner of /proc/self is the process's effective user.
    fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

fn postgres_ids() -> Result<(u32, u32), EmbeddedError> {
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, "postgres"]).output().ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    match (id("-u"), id("-g")) {
        (Some(uid), Some(gid)) => Ok((uid, gid)),
        _ => Err(EmbeddedError::NoPostgresUser),
    }
}

fn postgres_can_reach(dir: &Path) -> Result<bool, EmbeddedError> {
    postgres_ids()?;
    let status = Command::new("runuser")
        .args(["-u", "postgres", "--", "test", "-x"])
        .arg(dir)
        .status()
        .map_err(io_err("running runuser for", dir))?;
    Ok(status.success())
}

/// A command for a PostgreSQL binary, run as the `postgres` user when we are root
/// (the server refuses to run as root).
fn as_postgres(program: &Path) -> Command {
    if running_as_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

fn output(mut cmd: Command, what: &str) -> Result<Output, EmbeddedError> {
    cmd.current_dir("/")
        .output()
        .map_err(io_err("running", Path::new(what)))
}

fn run(cmd: Command, what: &str) -> Result<(), EmbeddedError> {
    let out = output(cmd, what)?;
    if out.status.success() {
        return Ok(());
    }
    Err(EmbeddedError::Command {
        command: what.to_owned(),
        status: out.status.to_string(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    })
}

fn lock(path: &Path) -> Result<File, EmbeddedError> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io_err("opening", path))?;
    file.lock().map_err(io_err("locking", path))?;
    Ok(file)
}

fn create_dir(path: &Path, mode: u32) -> Result<(), EmbeddedError> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(path)
        .map_err(io_err("creating", path))
}

fn write_private(path: &Path, contents: &str) -> Result<(), EmbeddedError> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(path)
        .map_err(io_err("creating", path))?;
    file.write_all(contents.as_bytes())
        .map_err(io_err("writing", path))
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> EmbeddedError {
    let path = path.to_owned();
    move |source| EmbeddedError::Io {
        action,
        path,
        source,
    }
}

/// FNV-1a over a path: a stable hash (std's hasher is randomly seeded per process).
fn fnv1a(path: &Path) -> u64 {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        })
}
