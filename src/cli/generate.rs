//! `db generate`: a history of settled rounds at generated tables (`GEN-01`...), dealt by
//! generated dealers (`gen-dealer-001`...: accounts nobody can sign in to, their password random
//! and thrown away), over the gaming days before today's: data to try the pit manager's and the
//! auditor's sides with, and to measure them at scale (a million rounds over 60 days and 40
//! tables: `db generate --rounds 1000000 --days 60 --tables 40`), with its table accounting
//! (openers, buy-ins, fills and credits, closers, counts, signed by generated supervisors,
//! cashiers and counters: [`crate::accounting::history`]); `--accounting-only` writes that
//! accounting for a history generated before. See [`crate::recording::history`].

use std::time::Instant;

use anyhow::{bail, Context};
use chrono::{Datelike, Duration, Utc};
use diesel::prelude::*;
use rand::distr::{Alphanumeric, SampleString};

use crate::accounting::history::{self as accounting_history, Person, Staff};
use crate::accounting::reconcile::Settings;
use crate::cli::service::connect;
use crate::config::Config;
use crate::db::audit_log::Actor;
use crate::db::days;
use crate::db::ids::TableId;
use crate::db::profiles;
use crate::db::schema::rounds;
use crate::db::seal_file::SealFiles;
use crate::db::tables::{self, TableInput};
use crate::db::users::{self, NewUser, Role, User};
use crate::password;
use crate::pit::days as pit_days;
use crate::recording::history::{self, Dealer, Plan};
use crate::rules::game::GameRules;
use crate::rules::profile::RuleProfile;

/// What `db generate` is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub rounds: u64,
    pub days: u32,
    pub tables: u32,
    pub shifts_per_day: u32,
    pub seed: u64,
    /// Write each generated table-day's accounting too (openers, buy-ins, fills and credits,
    /// closers, counts), after its rounds.
    pub accounting: bool,
    /// Write only the table accounting of the generated tables' history already there.
    pub accounting_only: bool,
    /// Close every generated gaming day (needs the accounting: a day closes when every table
    /// that played has its closer).
    pub close_days: bool,
}

const PROFILE: &str = "Generated history";

/// `db generate`: writes the history and says how fast.
pub fn generate(config: &Config, request: Request) -> anyhow::Result<()> {
    if request.tables == 0 || request.tables > 99 || request.days == 0 || request.days > 3660 {
        bail!("--tables must be 1 to 99 and --days 1 to 3660");
    }
    if request.shifts_per_day == 0 || request.shifts_per_day > 6 {
        bail!("--shifts-per-day must be 1 to 6");
    }
    let shifts =
        u64::from(request.days) * u64::from(request.tables) * u64::from(request.shifts_per_day);
    let rounds_per_shift = u32::try_from(request.rounds.div_ceil(shifts).max(1))
        .context("too many rounds for so few shifts")?;
    let pool = connect(config)?;
    let mut conn = pool.get()?;
    let conn = &mut *conn;
    let actor = Actor::system("db-generate");
    let profile = match profiles::find_by_name(conn, PROFILE)? {
        Some(profile) => profile.id,
        None => {
            profiles::create_profile(
                conn,
                PROFILE,
                GameRules::Banking(RuleProfile::default()),
                &actor,
            )?
            .0
            .id
        }
    };
    let mut playing = Vec::new();
    for n in 1..=request.tables {
        let code = format!("GEN-{n:02}");
        if tables::find_by_code(conn, &code)?.is_none() {
            let input = TableInput {
                code: code.clone(),
                name: format!("Generated table {n}"),
                currency: "PHP".to_owned(),
                min_bet: 10_000,
                max_bet: 5_000_000,
                rule_profile_id: profile,
                // A seat winning or losing PHP 20,000.00 or more waits for approval.
                approval_threshold: Some(2_000_000),
                unit: None,
            };
            crate::pit::tables::create_table(conn, &input, &actor)?;
        }
        playing.push(
            tables::playing_by_code(conn, &code)?
                .with_context(|| format!("table {code} is missing"))?,
        );
    }
    let mut password_hash = None;
    let mut account = |conn: &mut PgConnection, role: Role, n: u32| -> anyhow::Result<User> {
        let (name, title) = match role {
            Role::Supervisor => ("supervisor", "Supervisor"),
            Role::Cashier => ("cashier", "Cashier"),
            Role::Count => ("counter", "Counter"),
            _ => ("dealer", "Dealer"),
        };
        let username = format!("gen-{name}-{n:03}");
        if let Some(user) = users::find_by_username(conn, &username)? {
            return Ok(user);
        }
        let hash = match &password_hash {
            Some(hash) => String::clone(hash),
            None => {
                let secret = Alphanumeric.sample_string(&mut rand::rng(), 40);
                password_hash
                    .insert(password::hash(&secret, config.password_hash)?)
                    .clone()
            }
        };
        let new = NewUser {
            username: username.clone(),
            display_name: format!("Generated {title} {n}"),
            role,
            password_hash: hash,
            must_change_password: true,
        };
        Ok(users::create(conn, &new, &actor)?)
    };
    let person = |user: User| Person {
        id: user.id,
        username: user.username,
    };
    let ids: Vec<TableId> = playing.iter().map(|t| t.table.id).collect();
    let today = config.gaming_day(Utc::now());
    let accounting = if request.accounting || request.accounting_only {
        let staff = Staff {
            supervisors: (1..=2 * request.shifts_per_day)
                .map(|n| account(conn, Role::Supervisor, n).map(person))
                .collect::<anyhow::Result<_>>()?,
            cashiers: (1..=2)
                .map(|n| account(conn, Role::Cashier, n).map(person))
                .collect::<anyhow::Result<_>>()?,
            counters: [
                person(account(conn, Role::Count, 1)?),
                person(account(conn, Role::Count, 2)?),
            ],
        };
        accounting_history::prepare(conn, &ids, &actor)?;
        Some(accounting_history::Plan {
            tables: ids.clone(),
            staff,
            seed: request.seed,
            before: today,
            settings: Settings {
                tolerance: config.variance_tolerance,
                hold_band: config.hold_band,
            },
            opener_limit: config.opener_difference_limit,
            miscount_one_in: accounting_history::MISCOUNT_ONE_IN,
        })
    } else {
        None
    };
    if request.close_days && accounting.is_none() {
        bail!("--close-days needs the accounting (a day closes when every table has its closer)");
    }
    if request.accounting_only {
        if let Some(plan) = &accounting {
            write_accounting(conn, plan)?;
            if request.close_days {
                close_days(conn, config, plan)?;
            }
        }
        return Ok(());
    }
    let needed = request.tables * request.shifts_per_day;
    let mut dealers = Vec::new();
    for n in 1..=needed {
        let user = account(conn, Role::Dealer, n)?;
        dealers.push(Dealer {
            id: user.id,
            username: user.username,
        });
    }
    let days: Vec<_> = (1..=i64::from(request.days))
        .rev()
        .map(|back| today - Duration::days(back))
        .collect();
    let taken: i64 = rounds::table
        .filter(rounds::table_id.eq_any(&ids))
        .filter(rounds::gaming_day.between(days[0], today))
        .count()
        .get_result(conn)?;
    if taken > 0 {
        bail!(
            "the generated tables already have {taken} rounds from {} on: generate into a fresh \
             database (or fewer days before the first generated one)",
            days[0]
        );
    }
    let plan = Plan {
        tables: playing,
        dealers,
        days,
        shifts_per_day: request.shifts_per_day,
        rounds_per_shift,
        seed: request.seed,
        utc_offset: config.utc_offset,
        day_start: config.gaming_day_start,
    };
    let started = Instant::now();
    let every = (shifts / 20).max(1);
    let written = history::generate(conn, &plan, |w| {
        if w.shifts % every == 0 {
            eprintln!(
                "{} of {shifts} shifts, {} rounds, {:.0} rounds/s",
                w.shifts,
                w.rounds,
                w.rounds as f64 / started.elapsed().as_secs_f64()
            );
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "generated {} rounds in {} shifts ({} audit events) at {} tables over {} gaming days \
         ({} to {}) in {seconds:.1} s: {:.0} rounds/s",
        written.rounds,
        written.shifts,
        written.events,
        request.tables,
        request.days,
        plan.days[0],
        plan.days[plan.days.len() - 1],
        written.rounds as f64 / seconds
    );
    if let Some(plan) = &accounting {
        write_accounting(conn, plan)?;
        if request.close_days {
            close_days(conn, config, plan)?;
        }
    }
    Ok(())
}

/// Closes every gaming day of the generated tables that is not closed, oldest first, each in a
/// transaction of its own, as the plan's first supervisor, as the pit would
/// ([`crate::pit::days::close_generated`]): refused (and said) while anything keeps it open. The
/// last generated day (yesterday's) is left open: served as in BENCHMARKS.md, it is the day
/// being played.
fn close_days(
    conn: &mut PgConnection,
    config: &Config,
    plan: &accounting_history::Plan,
) -> anyhow::Result<()> {
    let closer = plan
        .staff
        .supervisors
        .first()
        .context("no generated supervisor to close the days")?;
    let seals = SealFiles::of(config);
    let started = Instant::now();
    let last = plan.before - Duration::days(1);
    let days = days::unclosed_days(conn, &plan.tables, last)?;
    for &day in &days {
        let closed = pit_days::close_generated(
            conn,
            config,
            day,
            Utc::now(),
            (closer.id, &closer.username),
            &seals,
        )?;
        if let Err(refused) = closed {
            bail!("{refused}");
        }
    }
    println!(
        "closed {} gaming days in {:.1} s",
        days.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes the table accounting of every generated table-day that has none yet, and says how
/// fast and what it wrote.
fn write_accounting(
    conn: &mut PgConnection,
    plan: &accounting_history::Plan,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let written = accounting_history::generate(conn, plan, |day, w| {
        if w.table_days > 0 && day.day() == 1 {
            eprintln!("accounting: {day}, {} table-days", w.table_days);
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "accounting of {} table-days in {seconds:.1} s: {} openers and closers, {} buy-ins, {} \
         fills, {} credits, {} counts, {} audit events; {} table-days miscounted by a chip ({} \
         investigations opened)",
        written.table_days,
        written.slips,
        written.buy_ins,
        written.fills,
        written.credits,
        written.counts,
        written.events,
        written.miscounts.len(),
        written.investigations,
    );
    for (table, day) in &written.miscounts {
        println!("miscounted: table {table}, {day}");
    }
    Ok(())
}
