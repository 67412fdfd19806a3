//! Buy-ins and table fees (docs/accounting.md, "Buy-ins and table fees"): recorded on the table
//! screen, its list and the API; the seats of each game, the amounts refused, who may record
//! and void, voids out of the totals, the closed day, and the audit events on the table's chain.
use chrono::Utc;
use diesel::prelude::*;
use pusoy_pit::db::schema::{buy_in_voids, buy_ins, table_fees};
use pusoy_pit::db::users::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{call, count, create_table, location, spawn_app, TestApp, PASSWORD};
use crate::points::create_points_table;

const TABLE: &str = "DROP-1";
const POINTS: &str = "DROP-P";

/// A banking table and a points table, the dealer signed on at the banking one, two pit
/// managers and an auditor.
struct Floor {
    app: TestApp,
    table_id: i64,
    points_id: i64,
    dealer: TestApp,
    supervisor: TestApp,
    other_supervisor: TestApp,
}

async fn floor() -> Floor {
    let app = spawn_app().await;
    let table_id = create_table(&app, TABLE);
    let points_id = create_points_table(&app, POINTS);
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(TABLE).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let other_supervisor = app.another_browser();
    app.create_user("pit-two", Role::Supervisor, PASSWORD);
    let res = other_supervisor.sign_in("pit-two", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    Floor {
        app,
        table_id,
        points_id,
        dealer,
        supervisor,
        other_supervisor,
    }
}

async fn buy_in(
    browser: &TestApp,
    code: &str,
    seat: &str,
    amount: &str,
    kind: &str,
) -> reqwest::Response {
    browser
        .post_form(
            &format!("/tables/{code}/buy-ins"),
            &[
                ("seat", seat),
                ("amount", amount),
                ("kind", kind),
                ("back", "screen"),
            ],
        )
        .await
}

fn buy_in_count(app: &TestApp) -> i64 {
    count(app, "SELECT count(*) AS n FROM buy_ins")
}

/// The newest buy-in's id.
fn last_buy_in(app: &TestApp) -> i64 {
    buy_ins::table
        .select(buy_ins::id)
        .order(buy_ins::id.desc())
        .first(&mut app.conn())
        .unwrap()
}

async fn api_list(browser: &TestApp, code: &str) -> Value {
    let (status, body) = call(
        browser,
        Method::GET,
        &format!("/api/v1/tables/{code}/buy-ins"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

#[tokio::test]
async fn a_dealer_records_buy_ins_of_each_kind_and_the_screen_shows_the_drop_so_far() {
    let f = floor().await;
    let shift = f.app.open_shift(TABLE).unwrap();
    let res = buy_in(&f.dealer, TABLE, "1", "5,000", "cash").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), format!("/tables/{TABLE}"));
    let screen = f
        .dealer
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        screen.contains("Buy-in recorded: seat 1, PHP 5,000.00 cash."),
        "{screen}"
    );
    // Kind left out: cash.
    let res = buy_in(&f.dealer, TABLE, "2", "1000", "marker").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = buy_in(&f.dealer, TABLE, "3", "250.50", "chip_voucher").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = f
        .dealer
        .post_form(
            &format!("/tables/{TABLE}/buy-ins"),
            &[("seat", "3"), ("amount", "100")],
        )
        .await;
    assert_eq!(location(&res), format!("/tables/{TABLE}/buy-ins"));

    let screen = f
        .dealer
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        screen.contains(
            "<strong id=\"drop-so-far\">PHP 6,350.50 (cash PHP 5,100.00, non-cash PHP 1,250.50)</strong>"
        ),
        "{screen}"
    );
    // Its own form beside the round's, with a button for each of the game's three seats.
    assert!(screen.contains("id=\"buy-in-form\" method=\"post\" action=\"/tables/DROP-1/buy-ins\""));
    assert!(screen.contains("name=\"seat\" value=\"3\""));
    assert!(!screen.contains("name=\"seat\" value=\"4\""));
    assert!(!screen.contains("id=\"fee-form\""));

    let stored: Vec<(i16, String, i64, Option<i64>, String)> = buy_ins::table
        .order(buy_ins::id.asc())
        .select((
            buy_ins::seat,
            buy_ins::kind,
            buy_ins::amount,
            buy_ins::shift_id,
            buy_ins::currency,
        ))
        .load(&mut f.app.conn())
        .unwrap();
    assert_eq!(
        stored,
        vec![
            (1, "cash".to_owned(), 500_000, Some(shift), "PHP".to_owned()),
            (
                2,
                "marker".to_owned(),
                100_000,
                Some(shift),
                "PHP".to_owned()
            ),
            (
                3,
                "chip_voucher".to_owned(),
                25_050,
                Some(shift),
                "PHP".to_owned()
            ),
            (3, "cash".to_owned(), 10_000, Some(shift), "PHP".to_owned()),
        ]
    );
    let events = f.app.audit("buyin.recorded");
    assert_eq!(events.len(), 4);
    let first = &events[0];
    assert_eq!(first.chain, format!("table:{}", f.table_id));
    assert_eq!(first.details["seat"], 1);
    assert_eq!(first.details["kind"], "cash");
    assert_eq!(first.details["amount"], 500_000);
    assert_eq!(first.details["currency"], "PHP");
    assert_eq!(first.details["shift_id"], shift);
    assert_eq!(first.actor_name, "the-dealer");

    let list = f.supervisor.get(&format!("/tables/{TABLE}/buy-ins")).await;
    assert_eq!(list.status(), StatusCode::OK);
    let html = list.text().await.unwrap();
    assert!(
        html.contains("<td class=\"num\" id=\"total-drop\">PHP 6,350.50</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td>Seat 3</td><td class=\"num seat-total\">PHP 350.50</td>"),
        "{html}"
    );
    let found = crate::audit_trail::verify_all(&f.app);
    assert!(found.is_intact(), "{found:?}");
}

#[tokio::test]
async fn a_seat_the_game_does_not_have_is_refused_naming_the_seat() {
    let f = floor().await;
    let res = buy_in(&f.dealer, TABLE, "4", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(
        html.contains("data-field=\"seat\" role=\"alert\">At a banking table there is no seat 4: seats are 1, 2 and 3.</p>"),
        "{html}"
    );
    // What was typed stays on the form.
    assert!(html.contains("name=\"amount\" type=\"text\" inputmode=\"decimal\" value=\"100\""));
    let res = buy_in(&f.dealer, TABLE, "", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("Choose the seat."));
    assert_eq!(buy_in_count(&f.app), 0);

    // A points table seats four; a pit manager records at its tablet with nobody dealing.
    let res = buy_in(&f.supervisor, POINTS, "4", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = buy_in(&f.supervisor, POINTS, "5", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains(
        "At a points table there is no seat 5: the points game seats players 1, 2, 3 and 4."
    ));
    assert_eq!(buy_in_count(&f.app), 1);
    let shift: Option<i64> = buy_ins::table
        .select(buy_ins::shift_id)
        .first(&mut f.app.conn())
        .unwrap();
    assert_eq!(shift, None);
}

#[tokio::test]
async fn amounts_zero_negative_too_large_or_not_a_number_are_refused_on_the_amount() {
    let f = floor().await;
    let cases = [
        ("0", "The amount must be above zero."),
        ("-5", "The amount must be above zero."),
        ("", "Enter the amount."),
        (
            "10,000,000.01",
            "10,000,000.01 is more than the largest amount taken, 10,000,000.00.",
        ),
        (
            "five",
            "&#34;five&#34; is not an amount: type it in major units, such as 500 or 1,250.50.",
        ),
    ];
    for (typed, words) in cases {
        let res = buy_in(&f.dealer, TABLE, "2", typed, "cash").await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{typed}");
        let html = res.text().await.unwrap();
        assert!(
            html.contains(&format!("data-field=\"amount\" role=\"alert\">{words}</p>")),
            "{typed}: {html}"
        );
    }
    let res = buy_in(&f.dealer, TABLE, "2", "10,000,000", "cash").await;
    assert_eq!(
        res.status(),
        StatusCode::SEE_OTHER,
        "the largest amount is taken"
    );
    let res = buy_in(&f.dealer, TABLE, "2", "5", "cheque").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("data-field=\"kind\""));
    assert_eq!(buy_in_count(&f.app), 1);
}

#[tokio::test]
async fn a_dealer_not_on_shift_at_the_table_is_refused() {
    let f = floor().await;
    create_table(&f.app, "DROP-2");
    let elsewhere = f.app.another_browser();
    f.app.create_user("dealer-two", Role::Dealer, PASSWORD);
    elsewhere.sign_in("dealer-two", PASSWORD).await;
    elsewhere.sign_on_at("DROP-2").await;
    let res = buy_in(&elsewhere, TABLE, "1", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(
        html.contains("the-dealer Test is the dealer on shift at DROP-1: you record a buy-in only at the table you are signed on at."),
        "{html}"
    );
    let idle = f.app.another_browser();
    f.app.create_user("dealer-three", Role::Dealer, PASSWORD);
    idle.sign_in("dealer-three", PASSWORD).await;
    let res = buy_in(&idle, "DROP-2", "1", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = buy_in(&idle, TABLE, "1", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    f.dealer.sign_off_at(TABLE).await;
    let res = buy_in(&f.dealer, TABLE, "1", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains(
        "You are not signed on at DROP-1: sign on at the table first, then record the buy-in."
    ));
    assert_eq!(buy_in_count(&f.app), 0);
    // An auditor reads, and records nothing.
    let auditor = f.app.another_browser();
    auditor.signed_in_as(Role::Auditor).await;
    assert_eq!(
        auditor
            .get(&format!("/tables/{TABLE}/buy-ins"))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        buy_in(&auditor, TABLE, "1", "100", "cash").await.status(),
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn a_fee_is_refused_at_a_banking_table_and_recorded_and_voided_at_a_points_table() {
    let f = floor().await;
    let res = f
        .dealer
        .post_form(&format!("/tables/{TABLE}/fees"), &[("amount", "50")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("DROP-1 plays the banking game: the house plays there and takes no table fee"));
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM table_fees"), 0);

    f.dealer.sign_off_at(TABLE).await;
    f.dealer.sign_on_at(POINTS).await;
    let screen = f
        .dealer
        .get(&format!("/tables/{POINTS}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(screen.contains("id=\"fee-form\""), "{screen}");
    assert!(screen.contains("name=\"seat\" value=\"4\""));
    let res = f
        .dealer
        .post_form(
            &format!("/tables/{POINTS}/fees"),
            &[("amount", "0"), ("back", "screen")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("data-field=\"amount\""));
    let res = f
        .dealer
        .post_form(
            &format!("/tables/{POINTS}/fees"),
            &[("amount", "120.50"), ("back", "screen")],
        )
        .await;
    assert_eq!(location(&res), format!("/tables/{POINTS}"));
    let screen = f
        .dealer
        .get(&format!("/tables/{POINTS}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        screen.contains("Table fee recorded: PHP 120.50."),
        "{screen}"
    );
    assert!(
        screen.contains("<strong id=\"fees-so-far\">PHP 120.50</strong>"),
        "{screen}"
    );
    let fee: i64 = table_fees::table
        .select(table_fees::id)
        .first(&mut f.app.conn())
        .unwrap();
    let recorded = f.app.audit("fee.recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].chain, format!("table:{}", f.points_id));
    assert_eq!(recorded[0].details["amount"], 12_050);

    let void = format!("/tables/{POINTS}/fees/{fee}/void");
    let res = f.supervisor.post_form(&void, &[("reason", " ")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Say why the table fee is void."));
    let res = f
        .supervisor
        .post_form(&void, &[("reason", "typed twice")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let body = api_list(&f.supervisor, POINTS).await;
    assert_eq!(body["totals"]["fees"], "0.00");
    assert_eq!(body["fees"][0]["void"]["reason"], "typed twice");
    let voided = f.app.audit("fee.void");
    assert_eq!(voided.len(), 1);
    assert_eq!(voided[0].details["reason"], "typed twice");
    assert_eq!(voided[0].chain, format!("table:{}", f.points_id));
}

#[tokio::test]
async fn a_void_needs_a_reason_and_a_pit_manager_who_did_not_record_it_and_leaves_the_totals() {
    let f = floor().await;
    buy_in(&f.dealer, TABLE, "1", "700", "cash").await;
    let res = buy_in(&f.supervisor, TABLE, "2", "300", "cash").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let theirs = last_buy_in(&f.app);
    let void = format!("/tables/{TABLE}/buy-ins/{theirs}/void");

    // The recorder sees no void form and is refused.
    let html = f
        .supervisor
        .get(&format!("/tables/{TABLE}/buy-ins"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!html.contains(&format!("action=\"{void}\"")), "{html}");
    let res = f
        .supervisor
        .post_form(&void, &[("reason", "wrong seat")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("You recorded this buy-in: another pit manager or an administrator voids it."));
    // A dealer never voids.
    let res = f.dealer.post_form(&void, &[("reason", "wrong seat")]).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    let html = f
        .other_supervisor
        .get(&format!("/tables/{TABLE}/buy-ins"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains(&format!("action=\"{void}\"")), "{html}");
    let res = f.other_supervisor.post_form(&void, &[("reason", "")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Say why the buy-in is void."));
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM buy_in_voids"), 0);

    let res = f
        .other_supervisor
        .post_form(&void, &[("reason", "wrong seat")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let again = f
        .other_supervisor
        .post_form(&void, &[("reason", "again")])
        .await;
    assert_eq!(again.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(again.text().await.unwrap().contains("is void already"));

    let stored: Vec<(i64, String)> = buy_in_voids::table
        .select((buy_in_voids::buy_in_id, buy_in_voids::reason))
        .load(&mut f.app.conn())
        .unwrap();
    assert_eq!(stored, vec![(theirs, "wrong seat".to_owned())]);
    // The record is kept, struck, and out of the totals.
    assert_eq!(buy_in_count(&f.app), 2);
    let body = api_list(&f.dealer, TABLE).await;
    assert_eq!(body["totals"]["drop"], "700.00");
    assert_eq!(body["totals"]["by_seat"], json!({"1": "700.00"}));
    assert_eq!(body["buy_ins"][1]["void"]["reason"], "wrong seat");
    let html = f
        .dealer
        .get(&format!("/tables/{TABLE}/buy-ins"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(&format!("<tr id=\"buy-in-{theirs}\" class=\"void\">")),
        "{html}"
    );
    assert!(html.contains("<s>PHP 300.00</s>"), "{html}");
    let screen = f
        .dealer
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        screen.contains(
            "<strong id=\"drop-so-far\">PHP 700.00 (cash PHP 700.00, non-cash PHP 0.00)</strong>"
        ),
        "{screen}"
    );
    let events = f.app.audit("buyin.void");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].chain, format!("table:{}", f.table_id));
    assert_eq!(events[0].details["buy_in"], theirs);
    assert_eq!(events[0].details["reason"], "wrong seat");
    assert_eq!(events[0].actor_name, "pit-two");
    let found = crate::audit_trail::verify_all(&f.app);
    assert!(found.is_intact(), "{found:?}");
}

#[tokio::test]
async fn nothing_is_recorded_or_voided_on_a_closed_gaming_day() {
    let f = floor().await;
    buy_in(&f.dealer, TABLE, "1", "700", "cash").await;
    let id = last_buy_in(&f.app);
    f.dealer.sign_off_at(TABLE).await;
    f.app.end_today();
    let today = f.app.config.gaming_day(Utc::now());
    let res = f
        .supervisor
        .post_form(&format!("/days/{today}/close"), &[("confirm", "yes")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM gaming_day_closes"),
        1
    );

    let closed = format!("The gaming day {today} is closed: nothing more can be recorded for it.");
    let res = buy_in(&f.supervisor, TABLE, "1", "100", "cash").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains(&closed));
    let res = f
        .other_supervisor
        .post_form(
            &format!("/tables/{TABLE}/buy-ins/{id}/void"),
            &[("reason", "late")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains(&closed));
    let res = f
        .supervisor
        .post_form(&format!("/tables/{POINTS}/fees"), &[("amount", "5")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(buy_in_count(&f.app), 1);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM buy_in_voids"), 0);
    // Underneath the app, the database refuses the void too: the close summed the day's drop
    // (closed_day_drop_sums), and that sum stays true.
    let err = diesel::sql_query(
        "INSERT INTO buy_in_voids (buy_in_id, reason, voided_by) \
         SELECT id, 'late', recorded_by FROM buy_ins",
    )
    .execute(&mut f.app.conn())
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("gaming day closed:"), "{err}");
    assert_eq!(
        count(
            &f.app,
            "SELECT sum(cash)::bigint AS n FROM closed_day_drop_sums"
        ),
        70_000
    );
}

#[tokio::test]
async fn the_api_records_a_buy_in_and_answers_every_refusal_as_json_naming_the_field() {
    let f = floor().await;
    let path = format!("/api/v1/tables/{TABLE}/buy-ins");
    let (status, body) = call(
        &f.dealer,
        Method::POST,
        &path,
        Some(json!({"seat": 2, "amount": "5000.00"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["seat"], 2);
    assert_eq!(body["kind"], "cash");
    assert_eq!(body["amount"], "5000.00");
    assert_eq!(body["currency"], "PHP");
    assert_eq!(body["table"], TABLE);
    assert_eq!(body["shift_id"], f.app.open_shift(TABLE).unwrap());
    assert_eq!(body["void"], Value::Null);
    let (status, _) = call(
        &f.dealer,
        Method::POST,
        &path,
        Some(json!({"seat": 1, "amount": "1,250.50", "kind": "marker"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);

    let refusals = [
        (json!({"seat": 4, "amount": "5"}), "seat"),
        (json!({"amount": "5"}), "seat"),
        (json!({"seat": "two", "amount": "5"}), "seat"),
        (json!({"seat": 1, "amount": 5}), "amount"),
        (json!({"seat": 1, "amount": "0"}), "amount"),
        (json!({"seat": 1, "amount": "-3"}), "amount"),
        (json!({"seat": 1, "amount": "20000000"}), "amount"),
        (json!({"seat": 1, "amount": "lots"}), "amount"),
        (json!({"seat": 1, "amount": "5", "kind": "cheque"}), "kind"),
        (json!({"seat": 1, "amount": "5", "tip": "1"}), "tip"),
    ];
    for (sent, field) in refusals {
        let (status, body) = call(&f.dealer, Method::POST, &path, Some(sent.clone())).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{sent}: {body}");
        assert_eq!(body["field"], field, "{sent}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
    }
    let (status, body) = call(&f.dealer, Method::POST, &path, Some(json!([1, 2]))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("JSON object"),
        "{body}"
    );
    let (status, body) = call(
        &f.dealer,
        Method::POST,
        "/api/v1/tables/NO-SUCH/buy-ins",
        Some(json!({"seat": 1, "amount": "5"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body["error"].is_string());
    assert_eq!(buy_in_count(&f.app), 2);

    let auditor = f.app.another_browser();
    auditor.signed_in_as(Role::Auditor).await;
    let body = api_list(&auditor, TABLE).await;
    assert_eq!(
        body["gaming_day"],
        json!(f.app.config.gaming_day(Utc::now()))
    );
    assert_eq!(body["buy_ins"].as_array().unwrap().len(), 2);
    assert_eq!(
        body["totals"],
        json!({
            "drop": "6250.50",
            "cash": "5000.00",
            "non_cash": "1250.50",
            "by_kind": {"cash": "5000.00", "marker": "1250.50", "chip_voucher": "0.00"},
            "by_seat": {"1": "1250.50", "2": "5000.00"},
            "fees": "0.00",
            "buy_ins": 2,
            "table_fees": 0,
        })
    );
    let (status, body) = call(
        &auditor,
        Method::POST,
        &path,
        Some(json!({"seat": 1, "amount": "5"})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(body["error"].is_string(), "{body}");
    let (status, body) = call(
        &auditor,
        Method::GET,
        &format!("{path}?day=yesterday"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["error"].as_str().unwrap().contains("day"), "{body}");
    assert_eq!(f.app.audit("buyin.recorded").len(), 2);
}
