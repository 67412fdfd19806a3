//! The demo's past: a few gaming days of settled rounds at three generated tables (GEN-01 to
//! GEN-03, by [`generate`]) with their table accounting (openers, buy-ins, fills, counts,
//! closers), so that a new user's reports, charts and accounting have something to show.
//! Written once: skipped when the generated tables already have rounds. Past days only, so
//! today's tables (and the browser tests' dealers on them) are left alone.

use anyhow::Context;
use diesel::prelude::*;

use crate::cli::generate::{self, Request};
use crate::cli::service::connect;
use crate::config::Config;
use crate::db::schema::{gaming_tables, rounds};

/// How much history the demo gets: small, so that `serve --demo` starts in seconds.
pub const DEMO_HISTORY: Request = Request {
    rounds: 360,
    days: 3,
    tables: 3,
    shifts_per_day: 2,
    seed: 14,
    accounting: true,
    accounting_only: false,
    // The demo's days stay open: its pit pages show rounds to approve and void.
    close_days: false,
};

/// Writes the demo's history unless the generated tables have rounds already; says whether it
/// wrote.
pub fn seed_history(config: &Config) -> anyhow::Result<bool> {
    let pool = connect(config)?;
    let mut conn = pool.get()?;
    let present: i64 = rounds::table
        .inner_join(gaming_tables::table.on(gaming_tables::id.eq(rounds::table_id)))
        .filter(gaming_tables::code.like("GEN-%"))
        .count()
        .get_result(&mut *conn)
        .context("counting the generated rounds")?;
    if present > 0 {
        return Ok(false);
    }
    generate::generate(config, DEMO_HISTORY)?;
    Ok(true)
}
