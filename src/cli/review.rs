//! `pusoy-pit review recheck --day D`: the recompute check over a gaming day (see
//! [`crate::reports::recheck`]). Prints one line per round that differs and a summary; fails
//! (exit status 1) when any round differs. The verdict is recorded (a `review.rechecked` audit
//! event) and shown on the day's report.

use std::io::Write;

use anyhow::{bail, Context};
use chrono::NaiveDate;

use crate::cli::service;
use crate::config::Config;
use crate::db::audit_log::Actor;
use crate::reports::recheck;

/// Checks every settled round of `day`, writing what it finds to `out`.
pub fn recheck_day(config: &Config, day: NaiveDate, mut out: impl Write) -> anyhow::Result<()> {
    let pool = service::connect(config)?;
    let mut conn = pool.get()?;
    let started = std::time::Instant::now();
    let report = recheck::recheck_day(&mut conn, day, &mut |_| {})
        .with_context(|| format!("checking gaming day {day}"))?;
    // The verdict is kept (an audit event) for the day's report to show.
    let record = recheck::record(
        &mut conn,
        &Actor::system("review-recheck"),
        day,
        &report,
        started.elapsed().as_secs_f64(),
    )
    .context("recording the verdict")?;
    for round in &record.differing {
        writeln!(
            out,
            "DIFFERS: round {} at {} (id {}): {}",
            round.round_no,
            round.table,
            round.round_id,
            round.differences.join("; ")
        )?;
    }
    writeln!(
        out,
        "gaming day {day}: {} rounds settled again from their stored cards, {} differ",
        report.rounds,
        report.differing.len()
    )?;
    if !report.differing.is_empty() {
        bail!(
            "{} of the {} rounds of gaming day {day} differ from the engine's settlement",
            report.differing.len(),
            report.rounds
        );
    }
    Ok(())
}
