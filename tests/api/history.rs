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

/// The generated history's table accounting ([`pusoy_pit::accounting::history`]) on a small
/// history, with a small par (so that fills and credits are called for) and many miscounts:
/// the app's own reconciliation finds every table-day at zero variance, final, but the
/// miscounted ones, which are flagged by the chip missed, each with its investigation.
#[tokio::test]
async fn generated_accounting_reconciles_every_table_day_but_the_deliberate_miscounts() {
    use pusoy_pit::accounting::history::{self as accounting, Person, Staff};
    use pusoy_pit::accounting::reconcile::Settings;
    use pusoy_pit::db::accounting as chips;
    use pusoy_pit::db::schema::{investigations, opener_explanations};
    use pusoy_pit::rules::money::Money;

    let app = spawn_app().await;
    let mut conn = app.conn();
    let yesterday = app.config.gaming_day(Utc::now()) - Duration::days(1);
    let days: Vec<NaiveDate> = (0..6)
        .rev()
        .map(|n| yesterday - Duration::days(n))
        .collect();
    let mut plan = plan_at(&app, &mut conn, days.clone());
    plan.rounds_per_shift = 40;
    history::generate(&mut conn, &plan, |_| {}).unwrap();
    let ids: Vec<_> = plan.tables.iter().map(|t| t.table.id).collect();
    // A chip set and a small par (PHP 11,000.00): the buy-ins soon call for fills, and the
    // house's wins for credits.
    let set = chips::insert_chip_set(&mut conn, "PHP").unwrap();
    let denominations: Vec<Money> = accounting::CHIP_SET_MAJOR
        .iter()
        .map(|m| Money::from_minor_units(m * 100))
        .collect();
    let version =
        chips::insert_chip_set_version(&mut conn, set.id, 1, &denominations, None).unwrap();
    let par = [40, 20, 4, 1, 1, 0];
    for &table in &ids {
        chips::insert_par(
            &mut conn,
            table,
            1,
            version.id,
            &par,
            Money::from_minor_units(1_100_000),
            None,
        )
        .unwrap();
    }
    let person = |name: &str, role: Role| {
        let user = app.create_user(name, role, PASSWORD);
        Person {
            id: user.id,
            username: user.username,
        }
    };
    let staff = Staff {
        supervisors: (1..=4)
            .map(|n| person(&format!("gen-super{n}"), Role::Supervisor))
            .collect(),
        cashiers: vec![person("gen-cashier", Role::Cashier)],
        counters: [
            person("gen-counter1", Role::Count),
            person("gen-counter2", Role::Count),
        ],
    };
    let actor = audit_log::Actor::system("test");
    accounting::prepare(&mut conn, &ids, &actor).unwrap();
    let base = accounting::Plan {
        tables: ids.clone(),
        staff,
        seed: 0,
        before: app.config.gaming_day(Utc::now()),
        settings: Settings {
            tolerance: app.config.variance_tolerance,
            hold_band: app.config.hold_band,
        },
        opener_limit: app.config.opener_difference_limit,
        miscount_one_in: 4,
    };

    // The draws follow the seed, the tables' ids and the days, which follow today's date: a
    // fixed seed draws, some days, no miscount at all (a drawn miscount needs a chip above the
    // tolerance on the small par's closer). So the first seed whose table-days are some
    // miscounted and some not is kept; the writes of the others are rolled back.
    let (accounting_plan, written) = (1..=64)
        .find_map(|seed| {
            let plan = accounting::Plan {
                seed,
                ..base.clone()
            };
            conn.transaction(|conn| {
                let written = accounting::generate(conn, &plan, |_, _| {}).unwrap();
                let some = !written.miscounts.is_empty();
                let not_all = (written.miscounts.len() as u64) < written.table_days;
                if some && not_all {
                    Ok(written)
                } else {
                    Err(diesel::result::Error::RollbackTransaction)
                }
            })
            .ok()
            .map(|written| (plan, written))
        })
        .expect("a seed among 64 miscounts some table-days and not all");

    assert_eq!(written.table_days, 12);
    assert_eq!(written.slips, 24);
    assert_eq!(written.counts, 12);
    assert!(written.fills > 0 && written.credits > 0, "{written:?}");
    assert!(!written.miscounts.is_empty(), "{written:?}");
    assert_eq!(written.investigations, written.miscounts.len() as u64);
    // The reconciliation, as the accounting report's CSV shows it.
    let boss = app.another_browser();
    boss.create_user("boss", Role::Supervisor, PASSWORD);
    boss.sign_in("boss", PASSWORD).await;
    let report = || async {
        let res = boss
            .get(&format!(
                "/reports/accounting/csv?from={}&to={}",
                days[0], yesterday
            ))
            .await;
        assert_eq!(res.status(), reqwest::StatusCode::OK);
        res.text().await.unwrap()
    };
    let text = report().await;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let rows: Vec<std::collections::HashMap<String, String>> = reader
        .records()
        .map(|r| {
            headers
                .iter()
                .map(str::to_owned)
                .zip(r.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 12, "{text}");
    let codes: std::collections::HashMap<_, _> = plan
        .tables
        .iter()
        .map(|t| (t.table.id, t.table.code.clone()))
        .collect();
    for row in &rows {
        let miscounted = written
            .miscounts
            .iter()
            .any(|(t, d)| codes[t] == row["table"] && d.to_string() == row["gaming_day"]);
        assert_eq!(row["final"], "true", "{row:?}");
        assert_eq!(row["drop_counted"], "true", "{row:?}");
        if miscounted {
            assert_eq!(row["flagged"], "true", "{row:?}");
            let variance: f64 = row["variance"].parse().unwrap();
            assert!(
                [-5_000.0, -10_000.0].contains(&variance),
                "short by one chip above the tolerance: {row:?}"
            );
        } else {
            assert_eq!(row["variance"], "0.00", "{row:?}");
            assert_eq!(row["flagged"], "false", "{row:?}");
        }
    }
    let opened: i64 = investigations::table.count().get_result(&mut conn).unwrap();
    assert_eq!(opened, written.miscounts.len() as i64);
    // The opener after a miscounted day finds the chip again: held, then explained.
    let explained: i64 = opener_explanations::table
        .count()
        .get_result(&mut conn)
        .unwrap();
    let followed = written
        .miscounts
        .iter()
        .filter(|(_, d)| *d < yesterday)
        .count();
    assert_eq!(explained, followed as i64);
    for chain in ids
        .iter()
        .map(|&t| audit_log::table_chain(t))
        .chain(["cage".to_owned()])
    {
        let check = audit_log::verify_chain(&mut conn, &chain).unwrap();
        assert!(
            matches!(check, ChainCheck::Intact { .. }),
            "{chain}: {check:?}"
        );
    }
    // Written once: a second run finds nothing left to write.
    let again = accounting::generate(&mut conn, &accounting_plan, |_, _| {}).unwrap();
    assert_eq!(again.table_days, 0);

    // Each day closed as the pit closes it (`db generate --close-days`): its rounds are then
    // read from the sums its close wrote, one row a shift, and the report reads the same.
    let closer = &accounting_plan.staff.supervisors[0];
    let seals = pusoy_pit::db::seal_file::SealFiles::of(&app.config);
    let open = pusoy_pit::db::days::unclosed_days(&mut conn, &ids, accounting_plan.before).unwrap();
    assert_eq!(open, days);
    for &day in &days {
        pusoy_pit::pit::days::close_generated(
            &mut conn,
            &app.config,
            day,
            Utc::now(),
            (closer.id, &closer.username),
            &seals,
        )
        .unwrap()
        .unwrap();
    }
    let summed: i64 = pusoy_pit::db::schema::closed_day_round_sums::table
        .count()
        .get_result(&mut conn)
        .unwrap();
    assert_eq!(summed, 6 * 2 * i64::from(plan.shifts_per_day));
    assert_eq!(report().await, text);
}
