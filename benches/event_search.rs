//! The auditor's event search on a large history (issue 15: a page under 50 ms p99). Not
//! criterion: it times what the `/audit/events` handler reads from the database for one page
//! (the page of events, `reports::events::search`, then the chain names and the actions its
//! filter menus list), for the filters `scripts/pit-bench` uses, each as a first page and as
//! the page its "Older events" link opens, one request after another on one connection set as
//! the app's. Read only: it needs no signed-in user, so it can run against a history others
//! are reading too. Rendering and HTTP are not included (`scripts/pit-bench` times those).
//!
//! `DATABASE_URL=... cargo bench --bench event_search -- [--runs 30] [--day 2026-11-23]`

use std::time::Instant;

use anyhow::{Context, Result};
use chrono::NaiveDate;
use diesel::prelude::*;
use pusoy_pit::reports::events::{self, EventFilter};
use pusoy_pit::reports::verify::chain_names;

/// As the handler's page.
const PAGE_SIZE: i64 = 50;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// One page as the handler reads it; the `before` of the page after it.
fn page(conn: &mut PgConnection, filter: &EventFilter, before: Option<i64>) -> Result<Option<i64>> {
    let page = events::search(conn, filter, before, PAGE_SIZE)?;
    chain_names(conn)?;
    events::actions(conn)?;
    Ok(page.next_before)
}

fn main() -> Result<()> {
    let mut runs = 30;
    let mut day: Option<NaiveDate> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().context("--runs N")?.parse()?,
            "--day" => day = Some(args.next().context("--day YYYY-MM-DD")?.parse()?),
            // `cargo bench` passes --bench.
            _ => {}
        }
    }
    let url = std::env::var("DATABASE_URL").context("DATABASE_URL: a generated history")?;
    let mut conn = pusoy_pit::db::connect(&url)?;
    let chains = chain_names(&mut conn)?;
    let table = chains
        .iter()
        .find(|c| c.starts_with("table:"))
        .context("no table chain")?
        .clone();
    let day = match day {
        Some(day) => day,
        None => events::search(&mut conn, &EventFilter::default(), None, 1)?
            .events
            .first()
            .and_then(|e| e.gaming_day)
            .context("no event with a gaming day")?,
    };
    let some = |s: &str| Some(s.to_owned());
    let filters: Vec<(String, EventFilter)> = vec![
        ("(all)".to_owned(), EventFilter::default()),
        (
            format!("chain={table}"),
            EventFilter {
                chain: Some(table.clone()),
                ..EventFilter::default()
            },
        ),
        (
            "action=round.settled".to_owned(),
            EventFilter {
                action: some("round.settled"),
                ..EventFilter::default()
            },
        ),
        (
            "actor=gen-dealer-001".to_owned(),
            EventFilter {
                actor: some("gen-dealer-001"),
                ..EventFilter::default()
            },
        ),
        (
            format!("day={day}"),
            EventFilter {
                gaming_day: Some(day),
                ..EventFilter::default()
            },
        ),
        (
            format!("chain={table}&action=table.sign_on"),
            EventFilter {
                chain: Some(table.clone()),
                action: some("table.sign_on"),
                ..EventFilter::default()
            },
        ),
        (
            "actor=supervisor".to_owned(),
            EventFilter {
                actor: some("supervisor"),
                ..EventFilter::default()
            },
        ),
    ];
    println!("{runs} runs each, page of {PAGE_SIZE}; milliseconds");
    for (name, filter) in &filters {
        // Unmeasured: statements prepared, caches warm (as scripts/pit-bench does).
        let next = page(&mut conn, filter, None)?;
        for (label, before) in [("first page", None), ("page 2", next)] {
            if label == "page 2" && before.is_none() {
                continue;
            }
            page(&mut conn, filter, before)?;
            let mut times = Vec::with_capacity(runs);
            for _ in 0..runs {
                let started = Instant::now();
                page(&mut conn, filter, before)?;
                times.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            println!(
                "events {name:<40} {label:<10} median {:7.2}  p99 {:7.2}  max {:7.2}",
                percentile(&times, 0.5),
                percentile(&times, 0.99),
                times[times.len() - 1]
            );
        }
    }
    Ok(())
}
