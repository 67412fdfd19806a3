//! The table screen keeps what was typed: a GET opens nothing, the first save opens the round,
//! every field is stored as typed (valid or not) with every problem named at once, a reload
//! finds it all; the house sums cannot overflow; a table may ask before each confirm; a new
//! round keeps the seats of the last one.
use reqwest::StatusCode;
use serde_json::Value;

use pusoy_pit::db::users::Role;

use crate::helpers::{count, create_table, spawn_app, TestApp};
use crate::table_screen::{error_for, page, strong, the_round};

/// The value of the form field `name` as the page renders it.
fn value_of(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\"");
    let at = html.find(&marker).expect("the field") + marker.len();
    let rest = &html[at..html[at..].find('>').map(|end| at + end).unwrap()];
    rest.split("value=\"")
        .nth(1)
        .map(|v| v.split('"').next().unwrap().to_owned())
        .unwrap_or_default()
}

/// `POST /tables/{code}/round/check` with these fields (and the draft's revision, if given).
async fn check(app: &TestApp, code: &str, fields: &[(&str, &str)]) -> (StatusCode, Value) {
    let token = app.csrf_token().await;
    let res = app
        .client
        .post(app.url(&format!("/tables/{code}/round/check")))
        .header("X-CSRF-Token", token)
        .form(fields)
        .send()
        .await
        .unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn drafts(app: &TestApp) -> i64 {
    count(app, "SELECT count(*) AS n FROM round_drafts")
}

fn events(app: &TestApp) -> i64 {
    count(app, "SELECT count(*) AS n FROM audit_events")
}

#[tokio::test]
async fn opening_the_table_screen_changes_nothing_and_the_first_save_opens_the_round() {
    let app = spawn_app().await;
    create_table(&app, "T-GET");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-GET").await;
    let (drafts_before, events_before) = (drafts(&app), events(&app));
    for _ in 0..2 {
        let html = page(&app, "T-GET").await;
        assert_eq!(value_of(&html, "draft_key"), "");
        assert!(html.contains("Nothing saved yet"), "the status says so");
    }
    assert_eq!(drafts(&app), drafts_before, "a GET opened a round");
    assert_eq!(events(&app), events_before, "a GET wrote an audit event");

    let (status, body) = check(&app, "T-GET", &[("seat1_action", "play")]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["draft_key"].as_str().is_some_and(|k| !k.is_empty()));
    assert_eq!(drafts(&app), drafts_before + 1);
    assert_eq!(app.audit("round.draft_opened").len(), 1);
    // The page now shows the saved round and its key.
    let html = page(&app, "T-GET").await;
    assert_eq!(
        value_of(&html, "draft_key"),
        body["draft_key"].as_str().unwrap()
    );
    assert_eq!(
        value_of(&html, "revision"),
        body["revision"].as_i64().unwrap().to_string()
    );
}

#[tokio::test]
async fn the_form_is_stored_as_typed_with_every_problem_at_once_and_a_reload_finds_it() {
    let app = spawn_app().await;
    create_table(&app, "T-TYPED");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-TYPED").await;
    // Five mistakes at once: a bet with letters, a word for a card, a short middle, and seat
    // 3's dealt cards holding 9h (in seat 1's back) instead of the 6h it set.
    let typed: &[(&str, &str)] = &[
        ("dealer_action", "play"),
        ("dealer_back", "2c 2d 2h 5s 6s"),
        ("dealer_middle", "7c 7d 8h 9s Tc"),
        ("dealer_front", "Jc Qd Kh"),
        ("seat1_action", "play"),
        ("seat1_bet", "5OO"),
        ("seat1_back", "8c 8d 9h Ts Jd"),
        ("seat1_middle", "Ac Ad Ah 3s"),
        ("seat1_front", "Qc Kd hello"),
        ("seat3_action", "play"),
        ("seat3_bet", "3"),
        ("seat3_dealt", "3d 3h 3c 4d 5d 9c 9d Qh Js Td Qs Jh 9h"),
        ("seat3_back", "3d 3h 3c 4d 5d"),
        ("seat3_middle", "9c 9d Qh Js Td"),
        ("seat3_front", "Qs Jh 6h"),
    ];
    let (status, body) = check(&app, "T-TYPED", typed).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let errors = &body["field_errors"];
    assert_eq!(
        errors["seat1_bet"],
        "enter the bet as an amount, like 500 or 500.50"
    );
    assert_eq!(
        errors["seat1_front"],
        "seat 1 front: card 3 `hello`: a card is a rank (2-9, T or 10, J, Q, K, A) then a suit \
         (c, d, h, s or ♣ ♦ ♥ ♠)"
    );
    assert_eq!(
        errors["seat1_middle"],
        "seat 1: the middle needs 5 cards, not 4"
    );
    assert_eq!(
        errors["seat3_dealt"],
        "9h was dealt twice: to seat 1 and to seat 3"
    );
    assert_eq!(
        errors["seat1_back"],
        "9h was dealt twice: to seat 1 and to seat 3"
    );
    assert_eq!(
        errors["seat3_front"],
        "seat 3 set 6h, which was not dealt to seat 3"
    );
    assert_eq!(body["can_confirm"], false);
    let revision = body["revision"].as_i64().unwrap();
    assert_eq!(
        body["stored"],
        format!(
            "Saved as typed (revision {revision}), with 6 problems to fix before it can be \
             confirmed"
        )
    );

    // A reload (or another tablet) finds every field as typed, and every problem.
    let html = page(&app, "T-TYPED").await;
    for (name, value) in typed.iter().filter(|(name, _)| !name.ends_with("_action")) {
        assert_eq!(value_of(&html, name), *value, "{name}");
    }
    assert_eq!(error_for(&html, "seat1_bet"), errors["seat1_bet"]);
    assert_eq!(error_for(&html, "seat3_dealt"), errors["seat3_dealt"]);
    assert!(html.contains("with 6 problems to fix"));
    assert!(html.contains("<option value=\"play\" selected>Play</option>"));
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
}

#[tokio::test]
async fn a_reload_of_a_round_ready_to_confirm_offers_confirm_and_the_form_refuses_a_bad_revision() {
    let app = spawn_app().await;
    create_table(&app, "T-READY");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-READY").await;
    let (_, body) = check(&app, "T-READY", &the_round()).await;
    assert_eq!(body["can_confirm"], true, "{body}");
    let html = page(&app, "T-READY").await;
    assert!(html.contains("<button name=\"step\" value=\"confirm\">Confirm</button>"));
    assert!(html.contains("Dealer net"), "the preview is shown again");
    assert!(html.contains("ready to confirm"));

    let key = body["draft_key"].as_str().unwrap();
    let res = app
        .post_form(
            "/tables/T-READY/round",
            &[("step", "confirm"), ("draft_key", key), ("revision", "abc")],
        )
        .await;
    // A clear 400 naming the field, as for every unreadable form field.
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let html = res.text().await.unwrap();
    assert!(
        html.contains("The field revision must be"),
        "the refusal is shown"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
}

async fn confirm_the_round(app: &TestApp, code: &str) {
    let (_, body) = check(app, code, &the_round()).await;
    let key = body["draft_key"].as_str().unwrap().to_owned();
    let revision = body["revision"].as_i64().unwrap().to_string();
    let res = app
        .post_form(
            &format!("/tables/{code}/round"),
            &[
                ("step", "confirm"),
                ("draft_key", &key),
                ("revision", &revision),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn house_sums_beyond_the_bigint_range_are_shown_whole() {
    let app = spawn_app().await;
    create_table(&app, "T-SUM");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-SUM").await;
    confirm_the_round(&app, "T-SUM").await;
    // Two more rounds of the shift whose house results sum past i64::MAX (stored as they would
    // be, beside the real one).
    for n in 1..=2 {
        diesel::RunQueryDsl::execute(
            diesel::sql_query(format!(
                "INSERT INTO rounds (table_id, gaming_day, round_no, draft_key, shift_id, \
                 dealer_id, rule_profile_version_id, currency, dealer_result, settled_at, places) \
                 SELECT table_id, gaming_day, round_no + {n}, draft_key || '-{n}', shift_id, \
                 dealer_id, rule_profile_version_id, currency, 5000000000000000000, settled_at, \
                 jsonb_set(places, '{{0,result}}', '5000000000000000000') FROM rounds \
                 WHERE round_no = 1"
            )),
            &mut app.conn(),
        )
        .unwrap();
    }
    let html = page(&app, "T-SUM").await;
    assert_eq!(
        strong(&html, "house-shift"),
        "PHP +100,000,000,000,000,009.00"
    );
    assert_eq!(
        strong(&html, "house-today"),
        "PHP +100,000,000,000,000,009.00"
    );
}

#[tokio::test]
async fn a_table_set_to_ask_names_the_seats_and_the_house_result_before_confirming() {
    let app = spawn_app().await;
    let id = create_table(&app, "T-ASK");
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let path = format!("/admin/tables/{id}/confirm-prompt");
    let res = admin.post_form(&path, &[("confirm_prompt", "on")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let events = app.audit("table.confirm_prompt");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].details["after"], true);
    let admin_page = admin.get("/admin/tables").await.text().await.unwrap();
    assert!(admin_page.contains(&format!(
        "id=\"confirm-prompt-{id}\" name=\"confirm_prompt\" value=\"on\" checked"
    )));

    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-ASK").await;
    let (_, body) = check(&app, "T-ASK", &the_round()).await;
    assert_eq!(
        body["confirm_question"],
        "Confirm 3 seats, house PHP +9.00?"
    );
    let html = page(&app, "T-ASK").await;
    assert!(html.contains("data-confirm-question=\"Confirm 3 seats, house PHP +9.00?\""));
    assert!(html.contains(">Confirm 3 seats, house PHP +9.00?</button>"));

    // Turned off again (an unticked box sends nothing): no question.
    admin.post_form(&path, &[]).await;
    assert_eq!(app.audit("table.confirm_prompt").len(), 2);
    let (_, body) = check(&app, "T-ASK", &the_round()).await;
    assert_eq!(body["confirm_question"], "");
}

#[tokio::test]
async fn a_new_round_starts_with_empty_seats_and_offers_the_last_in_one_tap() {
    let app = spawn_app().await;
    create_table(&app, "T-AGAIN");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-AGAIN").await;
    let html = page(&app, "T-AGAIN").await;
    assert!(!html.contains("same-again"), "no last round yet");
    confirm_the_round(&app, "T-AGAIN").await;

    // Players who left do not block the next Confirm: every seat starts empty, and the last
    // round's seats and bets come back with one tap ("Same players and bets").
    let html = page(&app, "T-AGAIN").await;
    assert!(html.contains("same-again"), "the one tap is offered");
    assert!(html.contains("data-seats=\"seat1=5;seat2=2;seat3=3\""));
    for seat in ["seat1", "seat2", "seat3"] {
        let select = html
            .split(&format!("name=\"{seat}_action\">"))
            .nth(1)
            .unwrap()
            .split("</select>")
            .next()
            .unwrap();
        assert!(
            select.contains("value=\"\" selected") && !select.contains("value=\"play\" selected"),
            "{seat}: {select}"
        );
    }
    assert_eq!(value_of(&html, "seat1_bet"), "", "no bet typed in");
}
