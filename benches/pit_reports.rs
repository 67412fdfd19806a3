//! Speed of the pit manager's reads against a database that already holds many rounds (made by
//! the million-round generator): the gaming-day report of one day, a week's range report, the
//! house result by hour, and the pit board. Each is run `--runs` times after one unmeasured run
//! (statements prepared, caches warm); prints the median, p99 and max in milliseconds.
//!
//! `DATABASE_URL=... cargo bench --bench pit_reports -- [--day YYYY-MM-DD] [--runs 50]`
//!
//! Without `--day` it reports the latest gaming day that has rounds, and the board is read as
//! of that day.

use std::time::Instant;

use anyhow::{Context, Result};
use chrono::{FixedOffset, NaiveDate, NaiveTime, TimeDelta, Utc};
use diesel::prelude::*;
use pusoy_pit::db::schema::rounds;
use pusoy_pit::reports::gaming_day;
use pusoy_pit::reports::pit::{self, FlagRules};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let runs: usize = value("--runs").map_or(Ok(50), |r| r.parse())?;
    let url =
        std::env::var("DATABASE_URL").context("set DATABASE_URL to the generated database")?;
    let mut conn = pusoy_pit::db::connect(&url)?;
    let day: NaiveDate = match value("--day") {
        Some(day) => day.parse()?,
        None => rounds::table
            .select(diesel::dsl::max(rounds::gaming_day))
            .first::<Option<NaiveDate>>(&mut conn)?
            .context("no rounds in the database")?,
    };
    let total: i64 = rounds::table.count().get_result(&mut conn)?;
    let on_day: i64 = rounds::table
        .filter(rounds::gaming_day.eq(day))
        .count()
        .get_result(&mut conn)?;
    println!("{total} rounds; gaming day {day} has {on_day}; {runs} runs each");
    let zone = FixedOffset::east_opt(8 * 3600).context("offset")?;
    let six = NaiveTime::from_hms_opt(6, 0, 0).context("time")?;
    let week = day - TimeDelta::days(6);
    let rules = FlagRules {
        quiet_after: TimeDelta::minutes(10),
    };
    measure("gaming-day report", runs, || {
        gaming_day::report(&mut conn, day, day).map(|r| r.tables.len())
    })?;
    measure("house result by hour (one day)", runs, || {
        gaming_day::by_hour(&mut conn, day, day, zone, six).map(|h| h.len())
    })?;
    measure("pit board", runs, || {
        pit::board(&mut conn, day, Utc::now(), rules).map(|b| b.tables.len())
    })?;
    measure("range report (7 days)", runs.min(10), || {
        gaming_day::report(&mut conn, week, day).map(|r| r.tables.len())
    })?;
    Ok(())
}

fn measure<E: std::error::Error + Send + Sync + 'static>(
    name: &str,
    runs: usize,
    mut f: impl FnMut() -> Result<usize, E>,
) -> Result<()> {
    let rows = f()?;
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            f().map(|_| started.elapsed().as_secs_f64() * 1000.0)
        })
        .collect::<Result<_, _>>()?;
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<34} rows {rows:>4}  median {:>7.1} ms  p99 {:>7.1} ms  max {:>7.1} ms",
        at(0.5),
        at(0.99),
        at(1.0)
    );
    Ok(())
}
