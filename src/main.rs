//! The `pusoy-pit` binary: parse the command line, read the configuration, find (or start)
//! the database, migrate it, then serve or run an administrative subcommand.

use std::io::{BufRead, Write};
use std::net::TcpListener;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use pusoy_pit::cli;
use pusoy_pit::config::{Config, Environment};
use pusoy_pit::db::audit_log::Actor;
use pusoy_pit::db::embedded::{self, Layout};
use pusoy_pit::db::users::{self, NewUser, PasswordChange, Role};
use pusoy_pit::db::{self, demo};
use pusoy_pit::password;
use pusoy_pit::rules::profile::Wheel;
use std::process::ExitCode;

/// mimalloc instead of the system allocator: the server allocates from many threads at once
/// (actix workers and the blocking pool), where glibc's malloc spends measurably more time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "pusoy-pit",
    version,
    about = "Back office for casino Pusoy tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Service(ServiceCommand),
    /// Settle rounds: one JSON round per line on stdin, one JSON result per line on stdout.
    /// Exits with status 1 if any line could not be settled.
    Settle,
    /// Print the name of a 3-card front or a 5-card hand, e.g. `eval As Ks Qs Js Ts`.
    Eval {
        /// Where the wheel (5-4-3-2-A) ranks.
        #[arg(long, value_enum, default_value_t = WheelArg::Lowest)]
        wheel: WheelArg,
        /// The cards, separated by spaces or commas.
        #[arg(required = true, num_args = 1..)]
        cards: Vec<String>,
    },
    /// The house way: how the house sets a dealer's 13 cards, `--batch` for many, `build` for
    /// its table.
    Houseway(pusoy_pit::cli_houseway::HousewayArgs),
}

/// The commands that need the configuration and the database.
#[derive(Subcommand)]
enum ServiceCommand {
    /// Run the web application (migrates the database first).
    Serve {
        /// Seed the demo accounts first and print them.
        #[arg(long)]
        demo: bool,
    },
    /// Apply pending database migrations.
    Migrate,
    /// Manage staff accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Create the demo accounts (safe to run again).
    SeedDemo,
    /// The private PostgreSQL cluster used when DATABASE_URL is unset.
    #[command(subcommand)]
    Db(DbCommand),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum WheelArg {
    Lowest,
    Second,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create an account. The password is read from standard input.
    Add {
        username: String,
        #[arg(long)]
        role: Role,
        /// Full name shown in the app (defaults to the user name).
        #[arg(long)]
        name: Option<String>,
        /// Read the password from standard input without prompting.
        #[arg(long)]
        password_stdin: bool,
        /// Make the user choose a new password at first sign-in.
        #[arg(long)]
        temporary: bool,
    },
    /// Disable an account and end its sessions.
    Disable { username: String },
    /// Enable a disabled account.
    Enable { username: String },
    /// Set a new password (read from standard input); the user must change it at next sign-in.
    ResetPassword {
        username: String,
        #[arg(long)]
        password_stdin: bool,
    },
    /// Unlock an account locked by failed sign-ins.
    Unlock { username: String },
    /// List all accounts.
    List,
}

#[derive(Subcommand)]
enum DbCommand {
    /// Print the database URL in use (starting the private cluster if needed).
    Url,
    /// Stop the private cluster.
    Stop,
    /// (Re)create an empty, migrated database on the private cluster and print its URL.
    #[command(hide = true)]
    Scratch { name: String },
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    // The rules commands are pure: they need no configuration, database or logging.
    match cli.command {
        Command::Settle => {
            let any_failed = cli::settle_stream(std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(if any_failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Eval { wheel, cards } => {
            let wheel = match wheel {
                WheelArg::Lowest => Wheel::Lowest,
                WheelArg::Second => Wheel::Second,
            };
            println!("{}", cli::eval(&cards, wheel)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Houseway(args) => pusoy_pit::cli_houseway::run(args),
        Command::Service(command) => run_service_command(command).map(|()| ExitCode::SUCCESS),
    }
}

fn run_service_command(command: ServiceCommand) -> anyhow::Result<()> {
    let config = Config::from_env().context("reading configuration")?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,pusoy_pit=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match command {
        ServiceCommand::Serve { demo } => serve(config, demo),
        ServiceCommand::Migrate => {
            let url = database_url(&config)?;
            let pool = db::pool(&url, 1).context("connecting to the database")?;
            let done = db::migrate(&mut *pool.get()?).map_err(|e| anyhow::anyhow!(e))?;
            println!("{} migration(s) applied: {done:?}", done.len());
            Ok(())
        }
        ServiceCommand::User(cmd) => user_command(&config, cmd),
        ServiceCommand::SeedDemo => {
            let pool = connect(&config)?;
            let mut conn = pool.get()?;
            seed_demo(&mut conn, &config)
        }
        ServiceCommand::Db(cmd) => db_command(&config, cmd),
    }
}

/// The database URL: DATABASE_URL, or the private cluster (started if needed).
fn database_url(config: &Config) -> anyhow::Result<String> {
    if let Some(url) = &config.database_url {
        return Ok(url.clone());
    }
    let layout = Layout::resolve(&config.data_dir)?;
    let cluster = embedded::ensure_running(&layout).context("starting the private PostgreSQL")?;
    tracing::info!(port = cluster.port, "using the private PostgreSQL cluster");
    Ok(cluster.ensure_database("pusoy")?)
}

/// A pool on the migrated database.
fn connect(config: &Config) -> anyhow::Result<db::PgPool> {
    let url = database_url(config)?;
    let pool = db::pool(&url, config.db_pool_size).context("connecting to the database")?;
    let mut conn = pool.get()?;
    let done = db::migrate(&mut conn).map_err(|e| anyhow::anyhow!(e))?;
    if !done.is_empty() {
        tracing::info!(migrations = ?done, "database migrated");
    }
    Ok(pool)
}

fn serve(config: Config, demo: bool) -> anyhow::Result<()> {
    if config.environment == Environment::Production && config.database_url.is_none() {
        bail!("PUSOY_ENV=production needs DATABASE_URL (the private cluster is for local use)");
    }
    if config.session_key_generated {
        tracing::warn!("SESSION_KEY is unset: using a random key, sessions end when the app stops");
    }
    let pool = connect(&config)?;
    if demo {
        let mut conn = pool.get()?;
        seed_demo(&mut conn, &config)?;
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
    actix_web::rt::System::new()
        .block_on(async move { pusoy_pit::web::run(listener, pool, config)?.await })?;
    Ok(())
}

fn seed_demo(conn: &mut diesel::PgConnection, config: &Config) -> anyhow::Result<()> {
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

fn read_password(from_stdin: bool) -> anyhow::Result<String> {
    if !from_stdin {
        eprint!("Password (input is shown): ");
        std::io::stderr().flush()?;
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        bail!("no password given on standard input");
    }
    Ok(password)
}

fn find_user(conn: &mut diesel::PgConnection, username: &str) -> anyhow::Result<users::User> {
    users::find_by_username(conn, username)?.with_context(|| format!("no user named {username:?}"))
}

fn user_command(config: &Config, cmd: UserCommand) -> anyhow::Result<()> {
    let pool = connect(config)?;
    let mut conn = pool.get()?;
    let conn = &mut *conn;
    let actor = Actor::system(&format!(
        "cli:{}",
        std::env::var("USER").unwrap_or_else(|_| "unknown".to_owned())
    ));
    match cmd {
        UserCommand::Add {
            username,
            role,
            name,
            password_stdin,
            temporary,
        } => {
            let username = users::normalize_username(&username);
            users::check_username(&username)?;
            let password = read_password(password_stdin)?;
            password::check_policy(&password, &username)?;
            let new = NewUser {
                display_name: name.unwrap_or_else(|| username.clone()),
                username,
                role,
                password_hash: password::hash(&password, config.password_hash)?,
                must_change_password: temporary,
            };
            let user = users::create(conn, &new, &actor)?;
            println!("created {} ({})", user.username, user.role.title());
        }
        UserCommand::Disable { username } => {
            let user = find_user(conn, &username)?;
            users::set_disabled(conn, user.id, true, &actor)?;
            println!("disabled {}; their sessions have ended", user.username);
        }
        UserCommand::Enable { username } => {
            let user = find_user(conn, &username)?;
            users::set_disabled(conn, user.id, false, &actor)?;
            println!("enabled {}", user.username);
        }
        UserCommand::ResetPassword {
            username,
            password_stdin,
        } => {
            let user = find_user(conn, &username)?;
            let password = read_password(password_stdin)?;
            password::check_policy(&password, &user.username)?;
            let hash = password::hash(&password, config.password_hash)?;
            users::set_password(conn, user.id, &hash, PasswordChange::Reset, &actor)?;
            println!(
                "password of {} reset; they must choose a new one at next sign-in",
                user.username
            );
        }
        UserCommand::Unlock { username } => {
            let user = find_user(conn, &username)?;
            users::unlock(conn, user.id, &actor)?;
            println!("unlocked {}", user.username);
        }
        UserCommand::List => {
            println!("{:<20} {:<14} {:<10} name", "user", "role", "status");
            for user in users::list(conn)? {
                let status = if user.is_disabled() {
                    "disabled"
                } else if user.is_locked() {
                    "locked"
                } else {
                    "active"
                };
                println!(
                    "{:<20} {:<14} {:<10} {}",
                    user.username,
                    user.role.as_str(),
                    status,
                    user.display_name
                );
            }
        }
    }
    Ok(())
}

fn db_command(config: &Config, cmd: DbCommand) -> anyhow::Result<()> {
    match cmd {
        DbCommand::Url => println!("{}", database_url(config)?),
        DbCommand::Stop => {
            let layout = Layout::resolve(&config.data_dir)?;
            if embedded::stop(&layout)? {
                println!("stopped the private PostgreSQL cluster");
            } else {
                println!("the private PostgreSQL cluster was not running");
            }
        }
        DbCommand::Scratch { name } => {
            let layout = Layout::resolve(&config.data_dir)?;
            let cluster = embedded::ensure_running(&layout)?;
            let mut admin = cluster.connect("postgres")?;
            use diesel::RunQueryDsl;
            diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                embedded::quote_ident(&name)
            ))
            .execute(&mut admin)?;
            let url = cluster.ensure_database(&name)?;
            let mut conn = cluster.connect(&name)?;
            db::migrate(&mut conn).map_err(|e| anyhow::anyhow!(e))?;
            println!("{url}");
        }
    }
    Ok(())
}
