//! The `pusoy-pit` binary: parse the command line, read the configuration, find (or start)
//! the database, migrate it, then serve or run an administrative subcommand.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use pusoy_pit::cli::{service, settle, users};
use pusoy_pit::config::Config;
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::export::{Format, Kind};
use pusoy_pit::rules::profile::Wheel;

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
    Houseway(pusoy_pit::cli::houseway::HousewayArgs),
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
    /// Export rounds (one row per place), audit events, the gaming-day report's lines, table
    /// accounting's documents (a row per line, and each table-day's reconciliation), the
    /// compliance records or players' ratings (each with its pauses and rounds) of a range of
    /// gaming days, ending with a manifest line (docs/exports.md).
    Export {
        #[arg(value_enum)]
        kind: ExportKind,
        /// First gaming day (YYYY-MM-DD).
        #[arg(long)]
        from: chrono::NaiveDate,
        /// Last gaming day (YYYY-MM-DD), included.
        #[arg(long)]
        to: chrono::NaiveDate,
        /// One table's code (default: every table).
        #[arg(long)]
        table: Option<String>,
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The file to write (default: standard output).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// The private PostgreSQL cluster used when DATABASE_URL is unset.
    #[command(subcommand)]
    Db(DbCommand),
    /// The audit trail: `audit verify` checks every chain and day seal (exit status 1 if broken).
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Review of settled rounds.
    #[command(subcommand)]
    Review(ReviewCommand),
}

#[derive(Subcommand)]
enum ReviewCommand {
    /// Settle every round of a gaming day again from its stored cards and compare with what
    /// was stored; exits with status 1 if any round differs.
    Recheck {
        /// The gaming day, e.g. 2026-03-01.
        #[arg(long)]
        day: chrono::NaiveDate,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Re-hash every chain (or those named) from its first event, check each link, sequence
    /// numbers without gaps, each chain's head and every day seal (in the database and in the
    /// seal file). One line per chain; exit status 1 when anything is broken.
    Verify(pusoy_pit::cli::audit::VerifyArgs),
    /// Check an export file with no database: every row, hash, link and result against its
    /// manifest, and with `--seals` its chains against the day seals. Exits with status 1 when
    /// anything is wrong.
    VerifyExport {
        file: std::path::PathBuf,
        /// The seal file the app appends day seals to (or a copy kept elsewhere).
        #[arg(long)]
        seals: Option<std::path::PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExportKind {
    Rounds,
    Events,
    Report,
    Accounting,
    Compliance,
    Ratings,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExportFormat {
    Csv,
    Jsonl,
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
    /// Stop the private cluster (and its standby, if it has one).
    Stop,
    /// Make a streaming standby of the private cluster (a base backup under var/standby) and
    /// name it the synchronous standby: a 200/201 then means the round is on both clusters'
    /// disks. Prints a DATABASE_URL that follows a failover to it.
    Standby {
        /// The standby's port (default: the primary's port + 1).
        #[arg(long)]
        port: Option<u16>,
        /// Replicate without waiting for the standby at each commit.
        #[arg(long, conflicts_with = "remove")]
        asynchronous: bool,
        /// Stop waiting for the standby, then stop and remove it.
        #[arg(long)]
        remove: bool,
    },
    /// DROPS database NAME on the private cluster if it exists (everything in it is lost), then
    /// creates it empty and migrated and prints its URL. For scripts and benchmarks: never to
    /// look up the URL of a database that holds anything.
    #[command(hide = true)]
    Scratch { name: String },
    /// Generate a history of settled rounds (with their shifts and audit events) at generated
    /// tables GEN-01... over the gaming days before today's, to try and measure the pit and
    /// audit pages with, e.g. `--rounds 1000000 --days 60 --tables 40`.
    Generate {
        /// How many rounds in all (rounded up to fill every shift alike).
        #[arg(long, default_value_t = 10_000)]
        rounds: u64,
        /// How many gaming days, ending yesterday's.
        #[arg(long, default_value_t = 7)]
        days: u32,
        /// How many tables (GEN-01 to GEN-99).
        #[arg(long, default_value_t = 4)]
        tables: u32,
        /// Dealer shifts per table and gaming day.
        #[arg(long, default_value_t = 3)]
        shifts_per_day: u32,
        /// The same seed deals the same cards.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only write the table accounting (openers, buy-ins, fills, credits, closers, counts)
        /// of the generated tables' days that have none, e.g. for a history generated before.
        #[arg(long)]
        accounting_only: bool,
        /// Close the generated gaming days but the last, as the pit closes each morning
        /// (sealed, its rounds summed), as a generated supervisor; with --accounting-only, those
        /// of the history generated before.
        #[arg(long)]
        close_days: bool,
    },
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    // The rules commands are pure: they need no configuration, database or logging.
    match cli.command {
        Command::Settle => {
            let any_failed =
                settle::settle_stream(std::io::stdin().lock(), std::io::stdout().lock())?;
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
            println!("{}", settle::eval(&cards, wheel)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Houseway(args) => pusoy_pit::cli::houseway::run(args),
        Command::Service(command) => run_service_command(command),
    }
}

fn run_service_command(command: ServiceCommand) -> anyhow::Result<ExitCode> {
    // An export is checked from its file alone: no configuration, no database.
    if let ServiceCommand::Audit(AuditCommand::VerifyExport { file, seals }) = &command {
        let intact = pusoy_pit::cli::audit_export::verify_export(file, seals.as_deref())?;
        return Ok(if intact {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let config = Config::from_env().context("reading configuration")?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,pusoy_pit=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    if let ServiceCommand::Audit(AuditCommand::Verify(args)) = &command {
        return pusoy_pit::cli::audit::verify(&config, args);
    }
    let done = match command {
        ServiceCommand::Serve { demo } => {
            if demo {
                demo_history(&config)?;
            }
            service::serve(config, demo)
        }
        ServiceCommand::Migrate => service::migrate(&config),
        ServiceCommand::SeedDemo => {
            service::seed_demo(&config)?;
            demo_history(&config)
        }
        ServiceCommand::User(cmd) => match cmd {
            UserCommand::Add {
                username,
                role,
                name,
                password_stdin,
                temporary,
            } => users::add(
                &config,
                users::NewAccount {
                    username,
                    role,
                    name,
                    password_stdin,
                    temporary,
                },
            ),
            UserCommand::Disable { username } => users::set_disabled(&config, &username, true),
            UserCommand::Enable { username } => users::set_disabled(&config, &username, false),
            UserCommand::ResetPassword {
                username,
                password_stdin,
            } => users::reset_password(&config, &username, password_stdin),
            UserCommand::Unlock { username } => users::unlock(&config, &username),
            UserCommand::List => users::list(&config),
        },
        ServiceCommand::Export {
            kind,
            from,
            to,
            table,
            format,
            out,
        } => pusoy_pit::cli::export::run(
            &config,
            pusoy_pit::cli::export::ExportArgs {
                kind: match kind {
                    ExportKind::Rounds => Kind::Rounds,
                    ExportKind::Events => Kind::Events,
                    ExportKind::Report => Kind::Report,
                    ExportKind::Accounting => Kind::Accounting,
                    ExportKind::Compliance => Kind::Compliance,
                    ExportKind::Ratings => Kind::Ratings,
                },
                from,
                to,
                table,
                format: match format {
                    ExportFormat::Csv => Format::Csv,
                    ExportFormat::Jsonl => Format::Jsonl,
                },
                out,
            },
        ),
        ServiceCommand::Db(cmd) => match cmd {
            DbCommand::Url => service::db_url(&config),
            DbCommand::Stop => service::db_stop(&config),
            DbCommand::Standby {
                port,
                asynchronous,
                remove,
            } => service::db_standby(&config, port, asynchronous, remove),
            DbCommand::Scratch { name } => service::db_scratch(&config, &name),
            DbCommand::Generate {
                rounds,
                days,
                tables,
                shifts_per_day,
                seed,
                accounting_only,
                close_days,
            } => pusoy_pit::cli::generate::generate(
                &config,
                pusoy_pit::cli::generate::Request {
                    rounds,
                    days,
                    tables,
                    shifts_per_day,
                    seed,
                    accounting: true,
                    accounting_only,
                    close_days,
                },
            ),
        },
        ServiceCommand::Review(ReviewCommand::Recheck { day }) => {
            pusoy_pit::cli::review::recheck_day(&config, day, std::io::stdout().lock())
        }
        ServiceCommand::Audit(_) => Ok(()),
    };
    done.map(|()| ExitCode::SUCCESS)
}

/// The demo's past gaming days at GEN-01 to GEN-03, written once (`seed-demo`, `serve --demo`).
fn demo_history(config: &Config) -> anyhow::Result<()> {
    if pusoy_pit::cli::demo_history::seed_history(config)? {
        println!("Demo history: past gaming days of settled rounds at GEN-01 to GEN-03.");
    }
    Ok(())
}
