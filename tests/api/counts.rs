//! The count (docs/accounting.md, "The count"): a table's drop counted by two counters of the
//! count team, independent of the table's day, compared with the buy-ins it recorded; voided
//! with a reason and counted again; counted after the day's close.
use chrono::{NaiveDate, Utc};
use diesel::prelude::*;
use pusoy_pit::db::schema::{buy_in_voids, buy_ins, drop_count_voids, drop_counts};
use pusoy_pit::db::users::{Role, User};
use reqwest::StatusCode;

use crate::helpers::{create_table, location, spawn_app, TestApp, PASSWORD};

struct Count {
    app: TestApp,
    /// The first counter's browser (signed in as `counter-one`).
    counter: TestApp,
    table: i64,
    day: NaiveDate,
    /// The dealer who records the table's buy-ins.
    dealer: User,
}

async fn count() -> Count {
    let app = spawn_app().await;
    let table = create_table(&app, "T1");
    app.create_user("counter-one", Role::Count, PASSWORD);
    app.create_user("counter-two", Role::Count, PASSWORD);
    app.create_user("counter-three", Role::Count, PASSWORD);
    let dealer = app.create_user("dee", Role::Dealer, PASSWORD);
    let counter = app.another_browser();
    assert_eq!(
        counter.sign_in("counter-one", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let day = app.config.gaming_day(Utc::now());
    Count {
        app,
        counter,
        table,
        day,
        dealer,
    }
}

impl Count {
    /// Inserts a buy-in as the table's use-case would (kind, major units), recorded by `by`.
    fn buy_in(&self, kind: &str, major: i64, by: &User) -> i64 {
        diesel::insert_into(buy_ins::table)
            .values((
                buy_ins::table_id.eq(self.table),
                buy_ins::gaming_day.eq(self.day),
                buy_ins::seat.eq(1_i16),
                buy_ins::kind.eq(kind),
                buy_ins::currency.eq("PHP"),
                buy_ins::amount.eq(major * 100),
                buy_ins::recorded_by.eq(by.id.0),
            ))
            .returning(buy_ins::id)
            .get_result(&mut self.app.conn())
            .unwrap()
    }

    fn void_buy_in(&self, id: i64, by: &User) {
        diesel::insert_into(buy_in_voids::table)
            .values((
                buy_in_voids::buy_in_id.eq(id),
                buy_in_voids::reason.eq("wrong seat"),
                buy_in_voids::voided_by.eq(by.id.0),
            ))
            .execute(&mut self.app.conn())
            .unwrap();
    }

    /// Posts a count from `browser`: banknotes (major, notes), markers, chip vouchers, the
    /// second counter.
    async fn post(
        &self,
        browser: &TestApp,
        notes: &[(i64, i64)],
        markers: &str,
        second: (&str, &str),
    ) -> reqwest::Response {
        let fields: Vec<(String, String)> = notes
            .iter()
            .map(|(d, n)| (format!("notes-{}", d * 100), n.to_string()))
            .collect();
        let mut form: Vec<(&str, &str)> = vec![
            ("markers", markers),
            ("chip_vouchers", ""),
            ("second_username", second.0),
            ("second_password", second.1),
        ];
        form.extend(fields.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        browser
            .post_form(&format!("/count/{}/T1", self.day), &form)
            .await
    }

    /// Signs a count from the first counter's browser with `counter-two`, expecting it saved.
    async fn signed(&self, notes: &[(i64, i64)], markers: &str) -> i64 {
        let res = self
            .post(&self.counter, notes, markers, ("counter-two", PASSWORD))
            .await;
        assert_eq!(
            res.status(),
            StatusCode::SEE_OTHER,
            "{}",
            res.text().await.unwrap()
        );
        assert_eq!(location(&res), format!("/count/{}/T1", self.day));
        *self.counts().last().unwrap()
    }

    fn counts(&self) -> Vec<i64> {
        drop_counts::table
            .order(drop_counts::id.asc())
            .select(drop_counts::id)
            .load(&mut self.app.conn())
            .unwrap()
    }

    async fn page(&self, browser: &TestApp) -> String {
        let res = browser.get(&format!("/count/{}/T1", self.day)).await;
        assert_eq!(res.status(), StatusCode::OK);
        res.text().await.unwrap()
    }

    /// The `reason` of each `signature.refused` event, oldest first.
    fn refusals(&self) -> Vec<String> {
        self.app
            .audit("signature.refused")
            .into_iter()
            .map(|e| e.details["reason"].as_str().unwrap().to_owned())
            .collect()
    }
}

/// A count's notes, cash, markers, total and counters as stored.
type Stored = (Vec<Option<i64>>, Vec<Option<i64>>, i64, i64, i64, i64, i64);

#[tokio::test]
async fn a_count_signed_by_two_counters_is_compared_with_the_buy_ins() {
    let c = count().await;
    c.buy_in("cash", 3_000, &c.dealer);
    c.buy_in("cash", 2_000, &c.dealer);
    let voided = c.buy_in("cash", 1_000, &c.dealer);
    c.void_buy_in(voided, &c.dealer);
    c.buy_in("marker", 1_000, &c.dealer);
    // 4 × 1,000 + 2 × 500 = 5,000 in cash, and the marker: what the table recorded.
    let id = c.signed(&[(1_000, 4), (500, 2)], "1,000").await;
    let (denominations, notes, cash, markers, total, first, second): Stored = drop_counts::table
        .find(id)
        .select((
            drop_counts::note_denominations,
            drop_counts::note_counts,
            drop_counts::cash,
            drop_counts::markers,
            drop_counts::total,
            drop_counts::first_counter,
            drop_counts::second_counter,
        ))
        .first(&mut c.app.conn())
        .unwrap();
    let php: Vec<Option<i64>> = [20, 50, 100, 200, 500, 1_000]
        .iter()
        .map(|d| Some(d * 100))
        .collect();
    assert_eq!(denominations, php);
    assert_eq!(
        notes,
        [Some(0), Some(0), Some(0), Some(0), Some(2), Some(4)]
    );
    assert_eq!((cash, markers, total), (500_000, 100_000, 600_000));
    assert_eq!(c.app.user(first.into()).username, "counter-one");
    assert_eq!(c.app.user(second.into()).username, "counter-two");

    let signatures = c.app.audit("signature");
    assert_eq!(signatures.len(), 2);
    assert_eq!(signatures[0].actor_name, "counter-one");
    assert_eq!(signatures[1].actor_name, "counter-two");
    for s in &signatures {
        assert_eq!(s.details["capacity"], "counter");
        assert_eq!(s.target, format!("count:{id}"));
        assert_eq!(s.chain, format!("table:{}", c.table));
    }
    let signed = c.app.audit("count.signed");
    assert_eq!(signed.len(), 1);
    let d = &signed[0].details;
    assert_eq!(d["cash"], 500_000);
    assert_eq!(d["markers"], 100_000);
    assert_eq!(d["total"], 600_000);
    assert_eq!(
        d["recorded"]["cash"], 500_000,
        "the void buy-in is left out"
    );
    assert_eq!(d["recorded"]["markers"], 100_000);
    assert_eq!(d["difference"]["total"], 0);
    assert_eq!(d["flagged"], false);
    assert_eq!(d["lines"].as_array().unwrap().len(), 6);

    let page = c.page(&c.counter).await;
    assert!(page.contains("The count matches the buy-ins"), "{page}");
    assert!(
        !page.contains("Sign the count"),
        "no second form while a count stands"
    );
    // The day's page, for the pit: counted, with no difference.
    let boss = c.app.another_browser();
    boss.signed_in_as(Role::Supervisor).await;
    let res = boss.get(&format!("/count?day={}", c.day)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let day = res.text().await.unwrap();
    assert!(
        day.contains("<td class=\"count-state\">counted</td>"),
        "{day}"
    );
    assert!(day.contains("PHP 6,000.00"), "{day}");
}

#[tokio::test]
async fn a_count_that_differs_from_the_buy_ins_is_flagged_kind_by_kind() {
    let c = count().await;
    c.buy_in("cash", 5_000, &c.dealer);
    c.buy_in("chip_voucher", 500, &c.dealer);
    // 100 short in cash; the chip voucher is missing.
    c.signed(&[(1_000, 4), (500, 1), (100, 4)], "").await;
    let d = c.app.audit("count.signed")[0].details.clone();
    assert_eq!(d["difference"]["cash"], -10_000);
    assert_eq!(d["difference"]["markers"], 0);
    assert_eq!(d["difference"]["chip_vouchers"], -50_000);
    assert_eq!(d["difference"]["total"], -60_000);
    assert_eq!(d["flagged"], true);
    let page = c.page(&c.counter).await;
    assert!(page.contains("id=\"count-flag\""), "{page}");
    assert!(page.contains("differs from the buy-ins"), "{page}");
    assert!(page.contains("PHP -100.00"), "{page}");
    assert!(page.contains("PHP -600.00"), "{page}");
}

#[tokio::test]
async fn the_same_counter_twice_is_refused_and_nothing_is_saved() {
    let c = count().await;
    let res = c
        .post(&c.counter, &[(1_000, 1)], "", ("counter-one", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("signs once"), "{page}");
    assert!(c.counts().is_empty());
    assert_eq!(c.refusals(), ["same person"]);
}

#[tokio::test]
async fn a_wrong_password_is_refused_and_audited() {
    let c = count().await;
    let res = c
        .post(
            &c.counter,
            &[(1_000, 1)],
            "",
            ("counter-two", "not-the-password"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(
        page.contains("The user name or password of the second signer is wrong."),
        "{page}"
    );
    assert!(!page.contains("not-the-password"));
    assert!(c.counts().is_empty());
    assert_eq!(c.refusals(), ["wrong password"]);
    assert_eq!(c.app.audit("auth.signin.failed").len(), 1);
}

#[tokio::test]
async fn a_supervisor_or_a_dealer_signs_neither_first_nor_second() {
    let c = count().await;
    c.app.create_user("boss", Role::Supervisor, PASSWORD);
    for second in ["boss", "dee"] {
        let res = c
            .post(&c.counter, &[(1_000, 1)], "", (second, PASSWORD))
            .await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{second}");
        let page = res.text().await.unwrap();
        assert!(page.contains("cannot sign as a counter"), "{page}");
    }
    assert_eq!(c.refusals(), ["role may not sign", "role may not sign"]);
    // As the first signer the pit never reaches the form.
    for role in [Role::Supervisor, Role::Dealer] {
        let browser = c.app.another_browser();
        browser.signed_in_as(role).await;
        let res = c
            .post(&browser, &[(1_000, 1)], "", ("counter-two", PASSWORD))
            .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{role}");
    }
    assert!(c.counts().is_empty());
}

#[tokio::test]
async fn a_counter_who_had_a_hand_in_the_table_s_day_is_refused() {
    let c = count().await;
    let two = pusoy_pit::db::users::find_by_username(&mut c.app.conn(), "counter-two")
        .unwrap()
        .unwrap();
    // counter-two recorded a buy-in at T1 that day (a role changed since, say).
    c.buy_in("cash", 100, &two);
    let res = c
        .post(&c.counter, &[(100, 1)], "", ("counter-two", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("had a hand in T1"), "{page}");
    // Nor may they sign first.
    let browser = c.app.another_browser();
    browser.sign_in("counter-two", PASSWORD).await;
    let res = c
        .post(&browser, &[(100, 1)], "", ("counter-three", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(c.counts().is_empty());
    assert_eq!(c.refusals(), ["not independent", "not independent"]);
    // Two others count it.
    let res = c
        .post(&c.counter, &[(100, 1)], "", ("counter-three", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn a_second_count_waits_for_the_first_to_be_void_by_someone_who_did_not_sign_it() {
    let c = count().await;
    let first = c.signed(&[(1_000, 1)], "").await;
    let again = c
        .post(&c.counter, &[(1_000, 2)], "", ("counter-two", PASSWORD))
        .await;
    assert_eq!(again.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = again.text().await.unwrap();
    assert!(page.contains("void it first"), "{page}");
    assert_eq!(c.counts(), [first]);

    let void_path = format!("/count/{}/T1/{first}/void", c.day);
    // A signer never voids their own count.
    let res = c
        .counter
        .post_form(&void_path, &[("reason", "miscounted")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("You signed count"));
    // Another counter does, with a reason.
    let three = c.app.another_browser();
    three.sign_in("counter-three", PASSWORD).await;
    let res = three.post_form(&void_path, &[("reason", "  ")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("Say why"));
    let res = three
        .post_form(&void_path, &[("reason", "two notes stuck together")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let voids: Vec<(i64, String)> = drop_count_voids::table
        .select((drop_count_voids::count_id, drop_count_voids::reason))
        .load(&mut c.app.conn())
        .unwrap();
    assert_eq!(voids, [(first, "two notes stuck together".to_owned())]);
    let voided = c.app.audit("count.void");
    assert_eq!(voided.len(), 1);
    assert_eq!(voided[0].actor_name, "counter-three");
    assert_eq!(voided[0].details["reason"], "two notes stuck together");
    let page = c.page(&c.counter).await;
    assert!(page.contains("void: count again"), "{page}");

    let second = c.signed(&[(1_000, 2)], "").await;
    assert_eq!(c.counts(), [first, second]);
    let page = c.page(&c.counter).await;
    assert!(page.contains("void and recounted"), "{page}");
    assert!(page.contains("Voided by counter-three Test"), "{page}");
}

#[tokio::test]
async fn a_future_day_is_not_counted() {
    let c = count().await;
    let tomorrow = c.day.succ_opt().unwrap();
    let res = c
        .counter
        .post_form(
            &format!("/count/{tomorrow}/T1"),
            &[
                ("notes-100000", "1"),
                ("second_username", "counter-two"),
                ("second_password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("has not begun"));
    assert!(c.counts().is_empty());
}

#[tokio::test]
async fn the_count_of_a_closed_day_is_signed() {
    let c = count().await;
    c.buy_in("cash", 1_000, &c.dealer);
    c.app.end_today();
    let admin = c.app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let res = admin
        .post_form(&format!("/days/{}/close", c.day), &[("confirm", "yes")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let closed: i64 = pusoy_pit::db::schema::gaming_day_closes::table
        .count()
        .get_result(&mut c.app.conn())
        .unwrap();
    assert_eq!(closed, 1, "the day is closed");
    let home = c.counter.get("/").await.text().await.unwrap();
    assert!(home.contains(r#"href="/count""#), "{home}");
    // The default day is the latest that has ended: this one.
    let res = c.counter.get("/count").await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.unwrap();
    assert!(page.contains(&format!("gaming day {}", c.day)), "{page}");
    assert!(page.contains("The gaming day is closed"), "{page}");
    c.signed(&[(1_000, 1)], "").await;
    assert_eq!(c.app.audit("count.signed")[0].details["flagged"], false);
}
