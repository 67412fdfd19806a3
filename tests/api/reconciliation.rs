//! Win by inventory against win by rounds (docs/accounting.md, "Win, hold and the
//! reconciliation"), on scripted shifts whose rounds, buy-ins, fills, count and closer are known:
//! an honest shift reconciles to zero; a miscounted closer is its own variance, flagged, with an
//! investigation opened that the pit manager who signed the closer may not close; the gaming-day
//! close waits for every closer.
use chrono::{NaiveDate, Utc};
use diesel::prelude::*;
use pusoy_pit::db::accounting as rows;
use pusoy_pit::db::schema::investigations;
use pusoy_pit::db::users::Role;
use pusoy_pit::rules::money::Money;
use reqwest::StatusCode;

use crate::helpers::{create_table, location, record, spawn_app, the_round, TestApp, PASSWORD};

/// PHP 25, 100, 500, 1,000.
const DENOMINATIONS: [i64; 4] = [2_500, 10_000, 50_000, 100_000];

/// What the_round() pays the house: seat 1 fouls and loses double its 500, seat 2 surrenders
/// half its 200, seat 3 wins two hands of three and is paid its 300: 1,000 + 100 − 300.
const ROUND_WIN: i64 = 80_000;

struct Pit {
    dealer: TestApp,
    boss: TestApp,
    chip_set_version: String,
    day: NaiveDate,
}

async fn pit() -> Pit {
    let dealer = spawn_app().await;
    create_table(&dealer, "T1");
    let conn = &mut dealer.conn();
    let set = rows::insert_chip_set(conn, "PHP").unwrap();
    let denominations: Vec<Money> = DENOMINATIONS.iter().map(|&d| Money(d)).collect();
    let version = rows::insert_chip_set_version(conn, set.id, 1, &denominations, None).unwrap();
    dealer.create_user("dee", Role::Dealer, PASSWORD);
    dealer.create_user("boss", Role::Supervisor, PASSWORD);
    dealer.create_user("boss2", Role::Supervisor, PASSWORD);
    dealer.create_user("cash", Role::Cashier, PASSWORD);
    dealer.create_user("count1", Role::Count, PASSWORD);
    dealer.create_user("count2", Role::Count, PASSWORD);
    assert_eq!(
        dealer.sign_in("dee", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let boss = dealer.another_browser();
    assert_eq!(
        boss.sign_in("boss", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let day = dealer.config.gaming_day(Utc::now());
    Pit {
        dealer,
        boss,
        chip_set_version: version.id.0.to_string(),
        day,
    }
}

fn user_id(app: &TestApp, username: &str) -> i64 {
    use pusoy_pit::db::schema::users;
    users::table
        .filter(users::username.eq(username))
        .select(users::id)
        .first(&mut app.conn())
        .unwrap()
}

fn table_id(app: &TestApp) -> i64 {
    use pusoy_pit::db::schema::gaming_tables;
    gaming_tables::table
        .filter(gaming_tables::code.eq("T1"))
        .select(gaming_tables::id)
        .first(&mut app.conn())
        .unwrap()
}

impl Pit {
    /// Signs an opener or closer from the dealer's browser with `boss` second.
    async fn slip(&self, kind: &str, chips: [i64; 4]) {
        let counts: Vec<(String, String)> = DENOMINATIONS
            .iter()
            .zip(chips)
            .map(|(d, n)| (format!("count-{d}"), n.to_string()))
            .collect();
        let mut fields: Vec<(&str, &str)> = vec![
            ("kind", kind),
            ("chip_set_version_id", &self.chip_set_version),
            ("second_username", "boss"),
            ("second_password", PASSWORD),
        ];
        fields.extend(counts.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let res = self.dealer.post_form("/tables/T1/slips", &fields).await;
        assert_eq!(
            res.status(),
            StatusCode::SEE_OTHER,
            "{}",
            res.text().await.unwrap()
        );
        assert_eq!(location(&res), "/tables/T1/slips");
    }

    /// A buy-in at seat `seat`, written as the table's record.
    fn buy_in(&self, seat: i16, kind: &str, amount: i64) {
        diesel::sql_query(
            "INSERT INTO buy_ins (table_id, gaming_day, seat, kind, currency, amount, recorded_by) \
             VALUES ($1, $2, $3, $4, 'PHP', $5, $6)",
        )
        .bind::<diesel::sql_types::BigInt, _>(table_id(&self.dealer))
        .bind::<diesel::sql_types::Date, _>(self.day)
        .bind::<diesel::sql_types::SmallInt, _>(seat)
        .bind::<diesel::sql_types::Text, _>(kind)
        .bind::<diesel::sql_types::BigInt, _>(amount)
        .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, "dee"))
        .execute(&mut self.dealer.conn())
        .unwrap();
    }

    /// A fill of `amount` (all in 1,000 chips) requested, issued and received.
    fn fill(&self, thousands: i64) {
        let conn = &mut self.dealer.conn();
        let version: i64 = self.chip_set_version.parse().unwrap();
        let id: i64 = diesel::sql_query(
            "INSERT INTO cage_slips (kind, year, number, table_id, gaming_day, \
                 chip_set_version_id, counts, total) \
             VALUES ('fill', 2026, 1, $1, $2, $3, ARRAY[0, 0, 0, $4]::bigint[], $4 * 100000) \
             RETURNING id",
        )
        .bind::<diesel::sql_types::BigInt, _>(table_id(&self.dealer))
        .bind::<diesel::sql_types::Date, _>(self.day)
        .bind::<diesel::sql_types::BigInt, _>(version)
        .bind::<diesel::sql_types::BigInt, _>(thousands)
        .get_result::<Id>(conn)
        .unwrap()
        .id;
        for (step, first, second) in [
            ("requested", "boss", None),
            ("issued", "cash", None),
            ("received", "dee", Some("boss2")),
        ] {
            diesel::sql_query(
                "INSERT INTO cage_slip_steps (slip_id, step, signed_by, second_signed_by) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind::<diesel::sql_types::BigInt, _>(id)
            .bind::<diesel::sql_types::Text, _>(step)
            .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, first))
            .bind::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>, _>(
                second.map(|s| user_id(&self.dealer, s)),
            )
            .execute(conn)
            .unwrap();
        }
    }

    /// The count team's count: cash and markers.
    fn count(&self, cash: i64, markers: i64) {
        diesel::sql_query(
            "INSERT INTO drop_counts (table_id, gaming_day, currency, note_denominations, \
                 note_counts, cash, markers, chip_vouchers, total, first_counter, second_counter) \
             VALUES ($1, $2, 'PHP', ARRAY[100000]::bigint[], ARRAY[$3 / 100000]::bigint[], $3, \
                 $4, 0, $3 + $4, $5, $6)",
        )
        .bind::<diesel::sql_types::BigInt, _>(table_id(&self.dealer))
        .bind::<diesel::sql_types::Date, _>(self.day)
        .bind::<diesel::sql_types::BigInt, _>(cash)
        .bind::<diesel::sql_types::BigInt, _>(markers)
        .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, "count1"))
        .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, "count2"))
        .execute(&mut self.dealer.conn())
        .unwrap();
    }

    /// The shift: opener PHP 18,000; two rounds (+1,600); buy-ins PHP 3,000 cash and a
    /// PHP 1,000 marker, paid in chips; a fill of PHP 5,000. The tray then holds
    /// 18,000 − 4,000 + 1,600 + 5,000 = 20,600.
    async fn play(&self) {
        // 40 × 25 + 20 × 100 + 10 × 500 + 10 × 1,000 = 18,000.
        self.slip("opener", [40, 20, 10, 10]).await;
        self.dealer.sign_on_at("T1").await;
        for key in ["recon-0001", "recon-0002"] {
            let (status, body) = record(&self.dealer, "T1", key, the_round()).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
        self.buy_in(1, "cash", 300_000);
        self.buy_in(2, "marker", 100_000);
        self.fill(5);
        self.dealer.sign_off_at("T1").await;
    }

    /// The accounting report's CSV row of T1 today, by column name.
    async fn row(&self) -> std::collections::HashMap<String, String> {
        let res = self
            .boss
            .get(&format!("/reports/accounting/csv?day={}", self.day))
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        let text = res.text().await.unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let headers = reader.headers().unwrap().clone();
        let record = reader.records().next().expect("a row").unwrap();
        headers
            .iter()
            .map(str::to_owned)
            .zip(record.iter().map(str::to_owned))
            .collect()
    }
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
}

#[tokio::test]
async fn an_honest_shift_reconciles_to_zero() {
    let p = pit().await;
    p.play().await;
    p.count(300_000, 100_000);
    // 20,600 = 20 × 1,000 + 1 × 500 + 1 × 100.
    p.slip("closer", [0, 1, 1, 20]).await;
    let row = p.row().await;
    assert_eq!(row["opener"], "18000.00");
    assert_eq!(row["closer"], "20600.00");
    assert_eq!(row["fills"], "5000.00");
    assert_eq!(row["drop"], "4000.00");
    assert_eq!(row["drop_counted"], "true");
    assert_eq!(row["house_result"], Money(2 * ROUND_WIN).plain_text());
    // 20,600 − 18,000 + 0 − 5,000 + 4,000 = 1,600: the rounds' win.
    assert_eq!(row["inventory_win"], "1600.00");
    assert_eq!(row["rounds_win"], "1600.00");
    assert_eq!(row["variance"], "0.00");
    assert_eq!(row["flagged"], "false");
    assert_eq!(row["final"], "true");
    assert_eq!(row["hold_percent"], "40.00");
    assert!(investigations_of(&p.dealer).is_empty());
    let page = p
        .boss
        .get(&format!("/reports/accounting?day={}", p.day))
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.unwrap();
    assert!(page.contains("PHP 4,000.00"), "{page}");
    assert!(page.contains("40.00 %"), "{page}");
}

fn investigations_of(app: &TestApp) -> Vec<(i64, i64)> {
    investigations::table
        .select((investigations::id, investigations::variance))
        .order(investigations::id)
        .load(&mut app.conn())
        .unwrap()
}

#[tokio::test]
async fn a_miscounted_closer_is_the_variance_flagged_and_investigated() {
    let p = pit().await;
    p.play().await;
    // Before the count, the figures wait for it.
    let row = p.row().await;
    assert_eq!(row["drop_counted"], "false");
    assert_eq!(row["final"], "false");
    assert!(row["causes"].contains("no closer yet"), "{row:?}");
    assert!(row["causes"].contains("not counted yet"), "{row:?}");
    p.count(300_000, 100_000);
    // Two 1,000 chips short: 18,600.
    p.slip("closer", [0, 1, 1, 18]).await;
    let row = p.row().await;
    assert_eq!(row["inventory_win"], "-400.00");
    assert_eq!(row["variance"], "-2000.00");
    assert_eq!(row["flagged"], "true");
    // The fixed PHP 1,000 is above 2 % of the PHP 4,000 drop.
    assert_eq!(row["tolerance"], "1000.00");
    let opened = investigations_of(&p.dealer);
    assert_eq!(opened, [(opened[0].0, -200_000)]);
    let events = p.dealer.audit("investigation.opened");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].details["variance"], -200_000);
    assert_eq!(events[0].actor_name, "dee");

    let close = format!("/reports/accounting/investigations/{}/close", opened[0].0);
    // The dealer may not; the pit manager who signed the closer may not.
    let res = p
        .dealer
        .post_form(&close, &[("findings", "x"), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = p
        .boss
        .post_form(&close, &[("findings", "two chips in the float"), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("another pit manager"));
    let other = p.dealer.another_browser();
    other.sign_in("boss2", PASSWORD).await;
    let res = other
        .post_form(&close, &[("findings", "  "), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let back = format!("day={}", p.day);
    let res = other
        .post_form(
            &close,
            &[
                ("findings", "Two 1,000 chips were under the float tray."),
                ("back", &back),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let closed = p.dealer.audit("investigation.closed");
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].actor_name, "boss2");
    let page = other
        .get(&format!("/reports/accounting?day={}", p.day))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Two 1,000 chips were under the float tray."), "{page}");
    // Closed once.
    let res = other
        .post_form(&close, &[("findings", "again"), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn the_gaming_day_closes_only_when_every_table_has_its_closer() {
    let p = pit().await;
    p.play().await;
    p.dealer.end_today();
    let close = format!("/days/{}/close", p.day);
    let res = p.boss.post_form(&close, &[("confirm", "yes")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let page = p
        .boss
        .get(&format!("/days/{}", p.day))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("T1: the table took rounds or opened this day and has no closer"),
        "{page}"
    );
    assert!(page.contains(&format!("/tables/T1/slips?day={}", p.day)), "{page}");
    p.slip("closer", [0, 1, 1, 20]).await;
    let res = p.boss.post_form(&close, &[("confirm", "yes")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(p.dealer.audit("day.closed").len(), 1);
}

#[tokio::test]
async fn the_hold_chart_and_a_bad_range_answer_clearly() {
    let p = pit().await;
    p.play().await;
    p.count(300_000, 100_000);
    p.slip("closer", [0, 1, 1, 20]).await;
    let res = p
        .boss
        .get(&format!("/reports/accounting/hold.svg?day={}&currency=PHP", p.day))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let svg = res.text().await.unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("T1: hold 40.0 %"), "{svg}");
    let res = p.boss.get("/reports/accounting?day=yesterday").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = p
        .boss
        .get("/reports/accounting?from=2026-01-01&to=2026-12-31")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.text().await.unwrap().contains("at most 92 gaming days"));
    let res = p.dealer.get("/reports/accounting").await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}
