//! The review queue's speed on a large history (issue 14: first and later pages under 50 ms
//! p99 with filters). Not criterion: it times the queue's query (`db::review::queue`, the page
//! of 51 rows the `/review` handler reads) against a database made by `pusoy-pit db generate`,
//! for a set of filters, each as a first page and then the pages after it by keyset.
//!
//! `DATABASE_URL=... cargo bench --bench review_queue -- [--repeat 20] [--pages 5] [--prepare]`
//!
//! `--prepare` first gives the history the decisions review adds to it (once): approvals of two
//! thirds of the rounds that wait for one (the generated tables' threshold is PHP 20,000.00),
//! and voids of one round in two hundred.

use std::time::Instant;

use anyhow::{Context, Result};
use chrono::NaiveDate;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Text};
use pusoy_pit::db::ids::{TableId, UserId};
use pusoy_pit::db::review::{
    self, ApprovalFilter, OutcomeFilter, QueueFilter, QueueOrder, VoidFilter,
};

const PAGE: i64 = 51;

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

#[derive(QueryableByName)]
struct Day {
    #[diesel(sql_type = Date)]
    day: NaiveDate,
}

const PREPARE: &str = "\
    BEGIN; \
    INSERT INTO round_approvals (round_id, table_id, gaming_day, approved_by) \
        SELECT r.id, r.table_id, r.gaming_day, (SELECT min(id) FROM users) FROM rounds r \
        WHERE r.needs_approval AND r.id % 3 <> 0 ON CONFLICT DO NOTHING; \
    INSERT INTO round_voids (round_id, table_id, gaming_day, reason, voided_by) \
        SELECT r.id, r.table_id, r.gaming_day, 'misdeal', (SELECT min(id) FROM users) \
        FROM rounds r WHERE r.id % 200 = 7 ON CONFLICT DO NOTHING; \
    COMMIT";

/// Run one by one after [`PREPARE`] (VACUUM runs outside any transaction).
const VACUUM: [&str; 3] = [
    "VACUUM ANALYZE rounds",
    "VACUUM ANALYZE round_approvals",
    "VACUUM ANALYZE round_voids",
];

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn main() -> Result<()> {
    let mut repeat = 20;
    let mut pages = 5;
    let mut prepare = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => repeat = args.next().context("--repeat N")?.parse()?,
            "--pages" => pages = args.next().context("--pages N")?.parse()?,
            "--prepare" => prepare = true,
            // `cargo bench` passes --bench.
            _ => {}
        }
    }
    let url = std::env::var("DATABASE_URL").context("DATABASE_URL: a generated history")?;
    let mut conn = pusoy_pit::db::connect(&url)?;
    if prepare {
        let started = Instant::now();
        conn.batch_execute(PREPARE)?;
        for statement in VACUUM {
            conn.batch_execute(statement)?;
        }
        println!("prepared in {:.1} s", started.elapsed().as_secs_f64());
    }
    let rounds: Id =
        diesel::sql_query("SELECT count(*) AS id FROM rounds").get_result(&mut conn)?;
    let day: Day = diesel::sql_query(
        "SELECT gaming_day AS day FROM rounds GROUP BY gaming_day ORDER BY gaming_day \
         OFFSET (SELECT count(DISTINCT gaming_day) / 2 FROM rounds) LIMIT 1",
    )
    .get_result(&mut conn)?;
    let table: Id = diesel::sql_query("SELECT id FROM gaming_tables WHERE code = $1")
        .bind::<Text, _>("GEN-07")
        .get_result(&mut conn)?;
    let dealer: Id = diesel::sql_query(
        "SELECT dealer_id AS id FROM rounds GROUP BY dealer_id ORDER BY dealer_id LIMIT 1",
    )
    .get_result(&mut conn)?;
    println!(
        "{} rounds; day {}, table GEN-07 (id {}), dealer id {}; {repeat} runs of a first page \
         and {pages} later pages each",
        rounds.id, day.day, table.id, dealer.id
    );
    let base = QueueFilter::default();
    let scenarios: Vec<(&str, QueueFilter)> = vec![
        ("everything, newest first", base.clone()),
        (
            "everything, oldest first",
            QueueFilter {
                order: QueueOrder::Oldest,
                ..base.clone()
            },
        ),
        (
            "one gaming day",
            QueueFilter {
                day: Some(day.day),
                ..base.clone()
            },
        ),
        (
            "one table",
            QueueFilter {
                table: Some(TableId(table.id)),
                ..base.clone()
            },
        ),
        (
            "one dealer",
            QueueFilter {
                dealer: Some(UserId(dealer.id)),
                ..base.clone()
            },
        ),
        (
            "player fouls",
            QueueFilter {
                outcome: Some(OutcomeFilter::PlayerFoul),
                ..base.clone()
            },
        ),
        (
            "dealer fouls",
            QueueFilter {
                outcome: Some(OutcomeFilter::DealerFoul),
                ..base.clone()
            },
        ),
        (
            "sweeps",
            QueueFilter {
                outcome: Some(OutcomeFilter::Sweep),
                ..base.clone()
            },
        ),
        (
            "royalties",
            QueueFilter {
                outcome: Some(OutcomeFilter::Royalty),
                ..base.clone()
            },
        ),
        (
            "surrenders",
            QueueFilter {
                outcome: Some(OutcomeFilter::Surrender),
                ..base.clone()
            },
        ),
        (
            "pending approval",
            QueueFilter {
                approval: Some(ApprovalFilter::Pending),
                ..base.clone()
            },
        ),
        (
            "approved",
            QueueFilter {
                approval: Some(ApprovalFilter::Approved),
                ..base.clone()
            },
        ),
        (
            "void",
            QueueFilter {
                void: Some(VoidFilter::Voided),
                ..base.clone()
            },
        ),
        (
            "largest seat result first",
            QueueFilter {
                order: QueueOrder::Largest,
                ..base.clone()
            },
        ),
        (
            "from 5,000.00 up, largest first",
            QueueFilter {
                min_amount: Some(500_000),
                order: QueueOrder::Largest,
                ..base.clone()
            },
        ),
        (
            "day + table + not void",
            QueueFilter {
                day: Some(day.day),
                table: Some(TableId(table.id)),
                void: Some(VoidFilter::NotVoided),
                ..base.clone()
            },
        ),
        (
            "day + dealer fouls",
            QueueFilter {
                day: Some(day.day),
                outcome: Some(OutcomeFilter::DealerFoul),
                ..base.clone()
            },
        ),
        (
            "table + royalties",
            QueueFilter {
                table: Some(TableId(table.id)),
                outcome: Some(OutcomeFilter::Royalty),
                ..base.clone()
            },
        ),
        (
            "dealer + pending",
            QueueFilter {
                dealer: Some(UserId(dealer.id)),
                approval: Some(ApprovalFilter::Pending),
                ..base.clone()
            },
        ),
    ];
    println!("| filter | rows on page 1 | first page p50 / p99 / max (ms) | later pages p50 / p99 / max (ms) |");
    println!("|---|---|---|---|");
    for (name, filter) in scenarios {
        let mut first = Vec::new();
        let mut later = Vec::new();
        let mut shown = 0;
        for _ in 0..repeat {
            let mut filter = filter.clone();
            for page in 0..=pages {
                let started = Instant::now();
                let rows = review::queue(&mut conn, &filter, PAGE)?;
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                if page == 0 {
                    first.push(ms);
                    shown = rows.len();
                } else {
                    later.push(ms);
                }
                match rows.get(rows.len().saturating_sub(2)) {
                    Some(last) if rows.len() == PAGE as usize => filter.after = Some(last.cursor()),
                    _ => break,
                }
            }
        }
        first.sort_by(f64::total_cmp);
        later.sort_by(f64::total_cmp);
        let stats = |v: &[f64]| {
            if v.is_empty() {
                "(no later page)".to_owned()
            } else {
                format!(
                    "{:.1} / {:.1} / {:.1}",
                    percentile(v, 0.5),
                    percentile(v, 0.99),
                    v[v.len() - 1]
                )
            }
        };
        println!(
            "| {name} | {shown} | {} | {} |",
            stats(&first),
            stats(&later)
        );
    }
    Ok(())
}
