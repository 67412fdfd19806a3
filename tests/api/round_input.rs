//! Rounds that cannot be taken get a clear 4xx that says what and where, with nothing written:
//! a round without seats, a misspelt field, a form revision that is not a number; and a round
//! the database dropped under it is "try again" (503), not a server error.
use diesel::connection::SimpleConnection;
use pusoy_pit::db::users::Role;
use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{call, count, create_table, location, open, spawn_app, the_round, TestApp};

const KEY: &str = "cage-input-0001";

async fn dealer_at(code: &str) -> TestApp {
    let app = spawn_app().await;
    create_table(&app, code);
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at(code).await;
    app
}

fn rounds(app: &TestApp) -> i64 {
    count(app, "SELECT count(*) AS n FROM rounds")
}

/// The dealer alone, as the table screen's form sends a round nobody bet in.
const DEALER_ONLY: [(&str, &str); 4] = [
    ("dealer_action", "play"),
    ("dealer_back", "2c 2d 2h 5s 6s"),
    ("dealer_middle", "7c 7d 8h 9s Tc"),
    ("dealer_front", "Jc Qd Kh"),
];

#[tokio::test]
async fn a_round_without_seats_is_refused_with_words_on_every_path() {
    let app = dealer_at("PUSOY-1").await;
    let mut empty = the_round();
    empty["seats"] = json!([]);

    // A whole round.
    let (status, body) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/tables/PUSOY-1/rounds/{KEY}"),
        Some(empty.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        body["field_errors"]["seats"],
        "a round needs at least one seat"
    );

    // A draft saved through the API.
    let key = open(&app, "PUSOY-1").await;
    let (status, body) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(empty),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        body["field_errors"]["seats"],
        "a round needs at least one seat"
    );

    // The form saves what it is given (the dealer alone), then refuses to settle it: through
    // the API's confirm and through the form's.
    let mut fields = DEALER_ONLY.to_vec();
    fields.push(("step", "preview"));
    let res = app.post_form("/tables/PUSOY-1/round", &fields).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let (status, body) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "a round needs at least one seat");
    let res = app
        .post_form(
            "/tables/PUSOY-1/round",
            &[("step", "confirm"), ("draft_key", &key)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/tables/PUSOY-1");
    let shown = app.get("/tables").await.text().await.unwrap();
    assert!(shown.contains("a round needs at least one seat"), "{shown}");
    assert_eq!(rounds(&app), 0);
}

#[tokio::test]
async fn a_form_revision_that_is_not_a_number_is_refused_and_nothing_is_settled() {
    let app = dealer_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    let (status, saved) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for step in ["confirm", "preview"] {
        let mut fields = DEALER_ONLY.to_vec();
        fields.extend([("step", step), ("draft_key", &key), ("revision", "abc")]);
        let res = app.post_form("/tables/PUSOY-1/round", &fields).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{step}");
        let page = res.text().await.unwrap();
        assert!(page.contains("The field revision must be"), "{page}");
    }
    let res = app
        .post_form(
            "/tables/PUSOY-1/round/check",
            &[("draft_key", &key), ("revision", "1x")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(rounds(&app), 0);
    // The draft is as the API saved it.
    let (_, draft) = call(&app, Method::GET, &format!("/api/v1/rounds/{key}"), None).await;
    assert_eq!(draft["revision"], saved["revision"], "{draft}");
    assert_eq!(draft["status"], "draft");
}

#[tokio::test]
async fn a_misspelt_field_in_a_round_is_refused_by_name() {
    let app = dealer_at("PUSOY-1").await;
    let whole = format!("/api/v1/tables/PUSOY-1/rounds/{KEY}");
    let mut dealer_bet = the_round();
    dealer_bet["dealer"]["bet"] = json!(100);
    let mut seat_typo = the_round();
    seat_typo["seats"][1]["acton"] = json!("play");
    let mut top_typo = the_round();
    top_typo["seat"] = top_typo["seats"].take();
    top_typo["seats"] = json!([{"seat": 1, "bet": 500, "action": "surrender"}]);
    for (round, field) in [
        (dealer_bet, "bet"),
        (seat_typo, "acton"),
        (top_typo, "seat"),
    ] {
        let (status, body) = call(&app, Method::PUT, &whole, Some(round)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let said = body["error"].as_str().unwrap();
        assert!(said.contains(&format!("unknown field `{field}`")), "{said}");
    }

    let key = open(&app, "PUSOY-1").await;
    let mut draft = the_round();
    draft["revison"] = json!(0);
    let path = format!("/api/v1/rounds/{key}");
    let (status, body) = call(&app, Method::PUT, &path, Some(draft)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"].as_str().unwrap().contains("`revison`"));
    let (status, _) = call(&app, Method::PUT, &path, Some(the_round())).await;
    assert_eq!(status, StatusCode::OK);
    let confirm = format!("{path}/confirm");
    let (status, body) = call(&app, Method::POST, &confirm, Some(json!({"revison": 9}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"].as_str().unwrap().contains("`revison`"));
    assert_eq!(rounds(&app), 0);
}

/// A trigger that ends its own backend the moment a round is written: the database going away
/// in the middle of the whole-round statement, every time, until it is dropped.
fn cut_the_connection_on_round_writes(app: &TestApp, on: bool) {
    let sql = if on {
        "CREATE FUNCTION cut_me() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$; \
         CREATE TRIGGER cut_me BEFORE INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION cut_me()"
    } else {
        "DROP TRIGGER cut_me ON rounds; DROP FUNCTION cut_me()"
    };
    app.conn().batch_execute(sql).unwrap();
}

#[tokio::test]
async fn a_whole_round_the_database_dropped_is_answered_try_again_and_goes_in_on_the_retry() {
    let app = dealer_at("PUSOY-1").await;
    let path = format!("/api/v1/tables/PUSOY-1/rounds/{KEY}");
    cut_the_connection_on_round_writes(&app, true);
    let token = app.csrf_token().await;
    let res = app
        .client
        .put(app.url(&path))
        .header("X-CSRF-Token", token)
        .json(&the_round())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(res.headers().contains_key(RETRY_AFTER));
    assert_eq!(res.headers()[CONTENT_TYPE], "application/json");
    let body: Value = res.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("try again"),
        "{body}"
    );
    assert_eq!(rounds(&app), 0);

    cut_the_connection_on_round_writes(&app, false);
    assert_eq!(app.get("/health").await.status(), StatusCode::OK);
    let (status, body) = call(&app, Method::PUT, &path, Some(the_round())).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(rounds(&app), 1);
}

/// The status and content type of a request's answer, and its body as JSON (panics if not).
async fn json_answer(req: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let res = req.send().await.unwrap();
    let status = res.status();
    let kind = res
        .headers()
        .get(CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned());
    let text = res.text().await.unwrap();
    assert_eq!(
        kind.as_deref(),
        Some("application/json"),
        "{status}: {text}"
    );
    let body: Value = serde_json::from_str(&text).unwrap();
    assert!(body["error"].is_string(), "{status}: {body}");
    (status, body)
}

#[tokio::test]
async fn every_error_under_the_api_is_json() {
    let app = dealer_at("PUSOY-1").await;
    let whole = app.url(&format!("/api/v1/tables/PUSOY-1/rounds/{KEY}"));
    let token = app.csrf_token().await;
    let anonymous = app.another_browser();
    let cases = [
        // Signed out.
        (
            anonymous.client.put(&whole).json(&the_round()),
            StatusCode::UNAUTHORIZED,
        ),
        // No CSRF token.
        (
            app.client.put(&whole).json(&the_round()),
            StatusCode::FORBIDDEN,
        ),
        // No such route, no such round.
        (
            app.client.get(app.url("/api/v1/nothing")),
            StatusCode::NOT_FOUND,
        ),
        (
            app.client.get(app.url("/api/v1/rounds/no-such-key")),
            StatusCode::NOT_FOUND,
        ),
        // A method the route does not take.
        (
            app.client.delete(&whole).header("X-CSRF-Token", &token),
            StatusCode::METHOD_NOT_ALLOWED,
        ),
        // Too large a body.
        (
            app.client
                .put(&whole)
                .header("X-CSRF-Token", &token)
                .header(CONTENT_TYPE, "application/json")
                .body(vec![b' '; 2 << 20]),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        // Not JSON.
        (
            app.client
                .put(&whole)
                .header("X-CSRF-Token", &token)
                .body("{"),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ];
    for (req, expected) in cases {
        let (status, body) = json_answer(req).await;
        assert_eq!(status, expected, "{body}");
    }
    // A server error: the database refuses the write for a reason of its own.
    app.conn()
        .batch_execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ \
             BEGIN RAISE EXCEPTION 'refused for the test'; END $$; \
             CREATE TRIGGER refuse BEFORE INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION refuse()",
        )
        .unwrap();
    let req = app
        .client
        .put(&whole)
        .header("X-CSRF-Token", &token)
        .json(&the_round());
    let (status, body) = json_answer(req).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(
        !body.to_string().contains("refused for the test"),
        "the cause is not shown"
    );
}
