//! `audit verify`: checks every audit chain (or those named) and every day seal, one line per
//! chain; exit status 1 when anything is broken.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, NaiveDate, Utc};

use crate::cli::service;
use crate::config::Config;
use crate::db::seal_file::SealFiles;
use crate::reports::verify::{self, Scope};

/// The arguments of `audit verify`.
#[derive(Debug, Clone, clap::Args)]
pub struct VerifyArgs {
    /// Check only this chain (`system`, `day`, `table:3`); repeat for several. Default: all.
    #[arg(long = "chain")]
    pub chains: Vec<String>,
    /// Check from the first event of this gaming day (YYYY-MM-DD), trusting its link to the
    /// event before.
    #[arg(long)]
    pub from: Option<NaiveDate>,
    /// Check up to the last event of this gaming day (YYYY-MM-DD); the chain heads are then not
    /// compared.
    #[arg(long)]
    pub to: Option<NaiveDate>,
}

/// When gaming day `day` starts, in UTC.
fn day_start(config: &Config, day: NaiveDate) -> anyhow::Result<DateTime<Utc>> {
    day.and_time(config.gaming_day_start)
        .and_local_timezone(config.utc_offset)
        .single()
        .map(|at| at.with_timezone(&Utc))
        .with_context(|| format!("the start of gaming day {day}"))
}

/// `audit verify`.
pub fn verify(config: &Config, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let scope = Scope {
        chains: args.chains.clone(),
        from: args.from.map(|d| day_start(config, d)).transpose()?,
        to: args
            .to
            .and_then(|d| d.succ_opt())
            .map(|d| day_start(config, d))
            .transpose()?,
    };
    let pool = service::connect_sized(config, service::ONE_TASK_POOL)?;
    let mut conn = pool.get()?;
    let started = std::time::Instant::now();
    let verification = verify::verify(&mut conn, &scope, &SealFiles::of(config), &mut |_| {})?;
    let elapsed = started.elapsed();
    let mut out = std::io::stdout().lock();
    for chain in &verification.chains {
        writeln!(out, "{}", chain.line())?;
    }
    for problem in &verification.seal_problems {
        writeln!(out, "day seal {}: {}", problem.day, problem.what)?;
    }
    for problem in &verification.record_problems {
        writeln!(
            out,
            "{} differs from its audit event: {}",
            problem.what,
            problem.differences.join("; ")
        )?;
    }
    let events = verification.events();
    writeln!(
        out,
        "{}: {} chain(s), {events} event(s), {} day seal(s) and {} checkpoint(s) checked (seal file {}{}) in {:.2} s ({:.0} events/s)",
        if verification.is_intact() { "INTACT" } else { "BROKEN" },
        verification.chains.len(),
        verification.seals_checked,
        verification.checkpoints_checked,
        config.seal_file.display(),
        config.seal_copy.as_ref().map_or_else(String::new, |copy| format!(", copy {}", copy.display())),
        elapsed.as_secs_f64(),
        events as f64 / elapsed.as_secs_f64().max(1e-9)
    )?;
    Ok(if verification.is_intact() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
