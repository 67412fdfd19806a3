//! The generated history (`db generate`): rounds settled by the engine, written between their
//! shifts' sign-on and sign-off at their own past times, with every chain intact.

use chrono::{Duration, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use pusoy_pit::db::audit_log::{self, ChainCheck};
use pusoy_pit::db::demo::{self, SeedReport};
use pusoy_pit::db::schema::{audit_events, dealer_shifts, rounds};
use pusoy_pit::db::tables;
use pusoy_pit::db::users::Role;
use pusoy_pit::recording::history::{self, Dealer, HistoryError, Plan};

use crate::helpers::{assert_every_round_has_its_figures, spawn_app, PASSWORD};

fn plan_at(app: &crate::helpers::TestApp, conn: &mut PgConnection, days: Vec<NaiveDate>) -> Plan {
    let mut report = SeedReport::default();
    demo::seed_profiles(conn, &mut report).unwrap();
    demo::seed_tables(conn, &mut report).unwrap();
    let tables = ["PUSOY-01", "PUSOY-03"]
        .map(|code| tables::playing_by_code(conn, code).unwrap().unwrap())
        .to_vec();
    let dealers = (1..=4)
        .map(|n| {
            let user = app.create_user(&format!("history{n}"), Role::Dealer, PASSWORD);
            Dealer {
                id: user.id,
                username: user.username,
            }
        })
        .collect();
    Plan {
        tables,
        dealers,
        days,
        shifts_per_day: 2,
        rounds_per_shift: 6,
        seed: 7,
        utc_offset: app.config.utc_offset,
        day_start: app.config.gaming_day_start,
    }
}

#[tokio::test]
async fn generated_rounds_are_numbered_timed_within_their_shifts_and_keep_every_chain_intact() {
    let app = spawn_app().await;
    let mut conn = app.conn();
    let yesterday = app.config.gaming_day(Utc::now()) - Duration::days(1);
    let days = vec![yesterday - Duration::days(1), yesterday];
    let plan = plan_at(&app, &mut conn, days.clone());

    let written = history::generate(&mut conn, &plan, |_| {}).unwrap();

    // 2 days x 2 shifts x 2 tables, 6 rounds each, and a sign-on and sign-off per shift.
    assert_eq!(written.shifts, 8);
    assert_eq!(written.rounds, 48);
    assert_eq!(written.events, 48 + 16);
    for table in &plan.tables {
        let chain = audit_log::table_chain(table.table.id);
        let check = audit_log::verify_chain(&mut conn, &chain).unwrap();
        assert!(
            matches!(check, ChainCheck::Intact { .. }),
            "{chain}: {check:?}"
        );
        for &day in &days {
            let numbers: Vec<i32> = rounds::table
                .filter(rounds::table_id.eq(table.table.id))
                .filter(rounds::gaming_day.eq(day))
                .order(rounds::round_no)
                .select(rounds::round_no)
                .load(&mut conn)
                .unwrap();
            assert_eq!(numbers, (1..=12).collect::<Vec<_>>(), "{chain} {day}");
        }
        // The generated events are in the order of their times (they follow the table's
        // creation, which happened now).
        let times: Vec<chrono::DateTime<Utc>> = audit_events::table
            .filter(audit_events::chain.eq(&chain))
            .filter(audit_events::action.ne("table.create"))
            .order(audit_events::seq)
            .select(audit_events::at)
            .load(&mut conn)
            .unwrap();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{chain}");
    }
    // Every round was settled during its shift, on its shift's gaming day, dealt by its dealer.
    let outside: i64 = rounds::table
        .inner_join(dealer_shifts::table.on(dealer_shifts::id.eq(rounds::shift_id)))
        .filter(
            rounds::settled_at
                .lt(dealer_shifts::signed_on_at)
                .or(rounds::settled_at.gt(dealer_shifts::signed_off_at.assume_not_null()))
                .or(rounds::gaming_day.ne(dealer_shifts::gaming_day))
                .or(rounds::dealer_id.ne(dealer_shifts::dealer_id)),
        )
        .count()
        .get_result(&mut conn)
        .unwrap();
    assert_eq!(outside, 0);
    let start = NaiveTime::from_hms_opt(0, 0, 0).unwrap();
    let first = days[0].and_time(start).and_utc() - Duration::days(1);
    let settled: Vec<chrono::DateTime<Utc>> = rounds::table
        .select(rounds::settled_at)
        .load(&mut conn)
        .unwrap();
    assert!(settled.iter().all(|at| *at > first && *at < Utc::now()));
    // The reports read each round's figures, written beside it.
    assert_every_round_has_its_figures(&app);
}

#[tokio::test]
async fn history_needs_a_dealer_for_every_table_and_shift_of_a_day() {
    let app = spawn_app().await;
    let mut conn = app.conn();
    let yesterday = app.config.gaming_day(Utc::now()) - Duration::days(1);
    let mut plan = plan_at(&app, &mut conn, vec![yesterday]);
    plan.dealers.truncate(3);

    let refused = history::generate(&mut conn, &plan, |_| {}).unwrap_err();

    assert!(
        matches!(&refused, HistoryError::Plan(m) if m.contains("need 4 dealers, not 3")),
        "{refused}"
    );
    let written: i64 = rounds::table.count().get_result(&mut conn).unwrap();
    assert_eq!(written, 0);
}
