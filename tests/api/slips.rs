//! Table inventory slips (docs/accounting.md): openers and closers signed by two people, never
//! changed, voided with a reason; the opener checked against the previous closer, a held
//! table refusing rounds until a supervisor explains; the closer refused while the table is open.
use diesel::prelude::*;
use pusoy_pit::db::accounting as rows;
use pusoy_pit::db::schema::inventory_slips;
use pusoy_pit::db::users::Role;
use pusoy_pit::rules::money::Money;
use reqwest::{Method, StatusCode};

use crate::helpers::{
    call, create_table, location, record, spawn_app, the_round, TestApp, PASSWORD,
};

/// PHP 25, 100, 500, 1,000.
const DENOMINATIONS: [i64; 4] = [2_500, 10_000, 50_000, 100_000];

struct Pit {
    /// The dealer's browser (signed in as `dee`).
    dealer: TestApp,
    /// A pit manager's browser (signed in as `boss`).
    boss: TestApp,
    chip_set_version: String,
}

async fn pit() -> Pit {
    let dealer = spawn_app().await;
    create_table(&dealer, "T1");
    let conn = &mut dealer.conn();
    let set = rows::insert_chip_set(conn, "PHP").unwrap();
    let denominations: Vec<Money> = DENOMINATIONS
        .iter()
        .map(|&d| Money::from_minor_units(d))
        .collect();
    let version = rows::insert_chip_set_version(conn, set.id, 1, &denominations, None).unwrap();
    dealer.create_user("dee", Role::Dealer, PASSWORD);
    dealer.create_user("boss", Role::Supervisor, PASSWORD);
    dealer.create_user("boss2", Role::Supervisor, PASSWORD);
    assert_eq!(
        dealer.sign_in("dee", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let boss = dealer.another_browser();
    assert_eq!(
        boss.sign_in("boss", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    Pit {
        dealer,
        boss,
        chip_set_version: version.id.0.to_string(),
    }
}

impl Pit {
    /// Posts a slip from `browser`: `kind`, the chips of each denomination, the second person.
    async fn slip(
        &self,
        browser: &TestApp,
        kind: &str,
        chips: [i64; 4],
        second: (&str, &str),
    ) -> reqwest::Response {
        let counts: Vec<(String, String)> = DENOMINATIONS
            .iter()
            .zip(chips)
            .map(|(d, n)| (format!("count-{d}"), n.to_string()))
            .collect();
        let mut fields: Vec<(&str, &str)> = vec![
            ("kind", kind),
            ("chip_set_version_id", &self.chip_set_version),
            ("second_username", second.0),
            ("second_password", second.1),
        ];
        fields.extend(counts.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        browser.post_form("/tables/T1/slips", &fields).await
    }

    /// Signs a slip from the dealer's browser with `boss` second, and expects it saved.
    async fn signed(&self, kind: &str, chips: [i64; 4]) -> i64 {
        let res = self
            .slip(&self.dealer, kind, chips, ("boss", PASSWORD))
            .await;
        assert_eq!(
            res.status(),
            StatusCode::SEE_OTHER,
            "{}",
            res.text().await.unwrap()
        );
        assert_eq!(location(&res), "/tables/T1/slips");
        *slips(&self.dealer).last().unwrap()
    }

    async fn page(&self, browser: &TestApp) -> String {
        let res = browser.get("/tables/T1/slips").await;
        assert_eq!(res.status(), StatusCode::OK);
        res.text().await.unwrap()
    }
}

fn slips(app: &TestApp) -> Vec<i64> {
    inventory_slips::table
        .order(inventory_slips::id.asc())
        .select(inventory_slips::id)
        .load(&mut app.conn())
        .unwrap()
}

#[tokio::test]
async fn an_opener_is_signed_by_the_dealer_and_a_supervisor_with_their_password() {
    let p = pit().await;
    let id = p.signed("opener", [40, 20, 10, 3]).await;
    let row: rows::SlipRow = inventory_slips::table
        .find(id)
        .select(rows::SlipRow::as_select())
        .first(&mut p.dealer.conn())
        .unwrap();
    assert_eq!(row.kind, "opener");
    assert_eq!(row.counts, [Some(40), Some(20), Some(10), Some(3)]);
    // 1,000 + 2,000 + 5,000 + 3,000
    assert_eq!(row.total, Money::from_minor_units(1_100_000));
    assert_eq!(p.dealer.user(row.dealer_id).username, "dee");
    assert_eq!(p.dealer.user(row.supervisor_id).username, "boss");
    assert_eq!(row.previous_closer_id, None);
    assert!(!row.held);
    let signed = p.dealer.audit("signature");
    let who: Vec<(&str, &str)> = signed
        .iter()
        .map(|e| {
            (
                e.actor_name.as_str(),
                e.details["capacity"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(who, [("dee", "dealer"), ("boss", "supervisor")]);
    assert!(signed.iter().all(|e| e.target == format!("slip:{id}")));
    let opened = p.dealer.audit("slip.opener");
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0].details["total"], 1_100_000);
    assert_eq!(opened[0].chain, signed[0].chain);
    let page = p.page(&p.boss).await;
    assert!(page.contains(&format!("Slip {id}: opener")), "{page}");
    assert!(
        page.contains("by dee Test (dealer) and boss Test (supervisor)"),
        "{page}"
    );
    assert!(page.contains("PHP 11,000.00"), "{page}");
}

#[tokio::test]
async fn a_wrong_second_password_saves_nothing_and_is_audited() {
    let p = pit().await;
    let res = p
        .slip(
            &p.dealer,
            "opener",
            [1, 2, 3, 4],
            ("boss", "wrong-password-1"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("The user name or password of the second signer is wrong."));
    // What was typed comes back, the password does not.
    assert!(page.contains("value=\"boss\""), "{page}");
    assert!(!page.contains("wrong-password-1"));
    assert!(slips(&p.dealer).is_empty());
    let refused = p.dealer.audit("signature.refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].actor_name, "dee");
    assert_eq!(refused[0].details["reason"], "wrong password");
}

#[tokio::test]
async fn one_person_cannot_sign_a_slip_twice() {
    let p = pit().await;
    let res = p
        .slip(&p.dealer, "opener", [1, 2, 3, 4], ("dee", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("signs once"));
    assert!(slips(&p.dealer).is_empty());
    // A supervisor signing first needs a dealer (or a pit manager dealing) second.
    p.dealer.create_user("reader", Role::Auditor, PASSWORD);
    let res = p
        .slip(&p.boss, "opener", [1, 2, 3, 4], ("reader", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("cannot sign as the dealer"));
    assert!(slips(&p.dealer).is_empty());
}

#[tokio::test]
async fn a_stored_slip_is_never_changed() {
    let p = pit().await;
    let id = p.signed("opener", [1, 2, 3, 4]).await;
    let mut conn = p.dealer.conn();
    let changed = diesel::update(inventory_slips::table.find(id))
        .set(inventory_slips::total.eq(0))
        .execute(&mut conn);
    assert!(changed.is_err());
    let deleted = diesel::delete(inventory_slips::table.find(id)).execute(&mut conn);
    assert!(deleted.is_err());
}

#[tokio::test]
async fn a_slip_is_voided_by_a_supervisor_who_signed_none_of_it_with_a_reason() {
    let p = pit().await;
    let id = p.signed("closer", [1, 2, 3, 4]).await;
    let void = format!("/tables/T1/slips/{id}/void");
    let res = p.boss.post_form(&void, &[("text", "miscounted")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("another pit manager voids it"));
    let other = p.dealer.another_browser();
    other.sign_in("boss2", PASSWORD).await;
    let res = other.post_form(&void, &[("text", "  ")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = other
        .post_form(&void, &[("text", "miscounted the 500s")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let voided = p.dealer.audit("slip.void");
    assert_eq!(voided.len(), 1);
    assert_eq!(voided[0].details["reason"], "miscounted the 500s");
    // A dealer may not void at all.
    let res = p.dealer.post_form(&void, &[("text", "x")]).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let page = p.page(&p.boss).await;
    assert!(page.contains("Voided by boss2 Test"), "{page}");
    // The void closer is not the previous closer: the next opener has none to check against.
    let opener = p.signed("opener", [9, 9, 9, 9]).await;
    let row = rows::slip(&mut p.dealer.conn(), pusoy_pit::db::ids::SlipId(opener))
        .unwrap()
        .unwrap();
    assert_eq!(row.previous_closer_id, None);
}

#[tokio::test]
async fn an_opener_is_checked_against_the_previous_closer_denomination_by_denomination() {
    let p = pit().await;
    let closer = p.signed("closer", [40, 20, 10, 3]).await;
    // Two 100s over: PHP 200 does not match, below the PHP 1,000 limit.
    let opener = p.signed("opener", [40, 22, 10, 3]).await;
    let row = rows::slip(&mut p.dealer.conn(), pusoy_pit::db::ids::SlipId(opener))
        .unwrap()
        .unwrap();
    assert_eq!(row.previous_closer_id.map(|c| c.0), Some(closer));
    assert_eq!(row.difference, Some(20_000));
    assert!(!row.held);
    let event = &p.dealer.audit("slip.opener")[0];
    assert_eq!(
        event.details["differences"],
        serde_json::json!([{"denomination": 10_000, "before": 20, "after": 22, "amount": 20_000}])
    );
    let page = p.page(&p.boss).await;
    assert!(
        page.contains(&format!(
            "Differs from the previous closer (slip {closer}) by PHP 200.00"
        )),
        "{page}"
    );
    // The table takes rounds.
    p.dealer.sign_on_at("T1").await;
    let (status, body) = record(&p.dealer, "T1", "slips-0001", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn a_difference_above_the_limit_holds_the_table_until_a_supervisor_explains_it() {
    let p = pit().await;
    p.signed("closer", [40, 20, 10, 3]).await;
    p.dealer.sign_on_at("T1").await;
    // A round first, so that the next is made from what the server remembers of the table.
    let (status, body) = record(&p.dealer, "T1", "slips-0001", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // One 1,000 short and one 500 over: PHP 1,500 does not match, above the limit.
    let opener = p.signed("opener", [40, 20, 11, 2]).await;
    let row = rows::slip(&mut p.dealer.conn(), pusoy_pit::db::ids::SlipId(opener))
        .unwrap()
        .unwrap();
    assert_eq!(row.difference, Some(150_000));
    assert!(row.held);

    let (status, body) = record(&p.dealer, "T1", "slips-0002", the_round()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "opener_held");
    let said = body["error"].as_str().unwrap();
    assert!(said.contains("/tables/T1/slips"), "{said}");
    assert!(said.contains("1,500.00"), "{said}");
    // The table screen's round too.
    let (status, body) = call(&p.dealer, Method::POST, "/api/v1/tables/T1/rounds", None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "opener_held");

    let explain = format!("/tables/T1/slips/{opener}/explanation");
    let res = p.dealer.post_form(&explain, &[("text", "fill")]).await;
    assert_eq!(
        res.status(),
        StatusCode::FORBIDDEN,
        "a dealer explains nothing"
    );
    let res = p.boss.post_form(&explain, &[("text", " ")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = p
        .boss
        .post_form(
            &explain,
            &[("text", "A 1,000 chip was colored up overnight.")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let explained = p.dealer.audit("slip.explained");
    assert_eq!(explained.len(), 1);
    assert_eq!(explained[0].actor_name, "boss");
    let (status, body) = record(&p.dealer, "T1", "slips-0002", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let page = p.page(&p.boss).await;
    assert!(page.contains("Explained by boss Test"), "{page}");
}

#[tokio::test]
async fn a_closer_waits_until_the_dealer_signs_off_and_no_round_is_open() {
    let p = pit().await;
    p.dealer.sign_on_at("T1").await;
    let res = p
        .slip(&p.dealer, "closer", [1, 2, 3, 4], ("boss", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("dee Test is still signed on at T1"), "{page}");
    assert!(page.contains("href=\"/tables/T1/sign-off\""), "{page}");
    // A round open keeps it open too, after the dealer left.
    crate::helpers::open(&p.dealer, "T1").await;
    p.boss.post_form("/tables/T1/sign-off", &[]).await;
    let res = p
        .slip(&p.boss, "closer", [1, 2, 3, 4], ("dee", PASSWORD))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("has a round open"));
    assert!(slips(&p.dealer).is_empty());
    assert!(
        p.dealer.audit("signature.refused").is_empty(),
        "no password was asked"
    );
}
