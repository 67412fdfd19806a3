//! `pusoy-pit review recheck --day D`: the recompute check over a gaming day (see
//! [`crate::reports::recheck`]). Prints one line per round that differs and a summary; fails
//! (exit status 1) when any round differs.

use std::io::Write;

use anyhow::{bail, Context};
use chrono::NaiveDate;

use crate::cli::service;
use crate::config::Config;
use crate::db::tables;
use crate::reports::recheck;

/// Checks every settled round of `day`, writing what it finds to `out`.
pub fn recheck_day(config: &Config, day: NaiveDate, mut out: impl Write) -> anyhow::Result<()> {
    let pool = service::connect(config)?;
    let mut conn = pool.get()?;
    let report = recheck::recheck_day(&mut conn, day)
        .with_context(|| format!("checking gaming day {day}"))?;
    for round in &report.differing {
        let code = tables::find(&mut conn, round.table_id)?
            .map(|t| t.code)
            .unwrap_or_default();
        writeln!(
            out,
            "DIFFERS: round {} at {code} (id {}): {}",
            round.round_no,
            round.round,
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
