//! Signing off: the shift's summary and a warning about an unfinished round come first. And a
//! page a handler refuses is recorded like the refusals of the access rules.
use pusoy_pit::db::users::Role;
use reqwest::{Method, StatusCode};

use crate::helpers::{call, create_table, open, spawn_app, the_round, TestApp, PASSWORD};

/// A whole round at `code`, recorded with this browser's session; the round as answered.
async fn record_one(app: &TestApp, code: &str) -> serde_json::Value {
    let path = format!("/api/v1/tables/{code}/rounds/cage-0000-0001");
    let (status, round) = call(app, Method::PUT, &path, Some(the_round())).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    round
}

#[tokio::test]
async fn signing_off_first_shows_the_shift_and_warns_of_an_unfinished_round() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    record_one(&app, "PUSOY-1").await;

    let tables = app.get("/tables").await.text().await.unwrap();
    assert!(tables.contains(r#"href="/tables/PUSOY-1/sign-off">Sign off…</a>"#));
    let res = app.get("/tables/PUSOY-1/sign-off").await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.unwrap();
    assert!(page.contains(r#"<dd class="rounds">1</dd>"#), "{page}");
    assert!(page.contains("PHP +9.00"), "{page}");
    assert!(!page.contains("unfinished-round"), "{page}");

    // A round typed but not confirmed: the page warns, and looking signs nobody off.
    let key = open(&app, "PUSOY-1").await;
    let (status, saved) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    let page = app
        .get("/tables/PUSOY-1/sign-off")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains(r#"id="unfinished-round""#), "{page}");
    assert!(page.contains("Sign off anyway"), "{page}");
    assert!(app.open_shift("PUSOY-1").is_some(), "a GET changes nothing");
    app.sign_off_at("PUSOY-1").await;
    assert!(app.open_shift("PUSOY-1").is_none());
}

#[tokio::test]
async fn a_page_a_handler_refuses_writes_an_authz_denied_event() {
    let app = spawn_app().await;
    create_table(&app, "T-MINE");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-MINE").await;
    let round = record_one(&app, "T-MINE").await;
    let path = format!("/tables/T-MINE/rounds/{}", round["id"]);

    let other = app.another_browser();
    let dealer2 = other.create_user("dealer2", Role::Dealer, PASSWORD);
    other.sign_in("dealer2", PASSWORD).await;
    let before = app.audit("authz.denied").len();
    assert_eq!(other.get(&path).await.status(), StatusCode::FORBIDDEN);
    let denied = app.audit("authz.denied");
    assert_eq!(denied.len(), before + 1);
    let event = denied.last().unwrap();
    assert_eq!(event.actor_user_id, Some(dealer2.id));
    assert_eq!(event.target, format!("GET {path}"));
    assert!(event.details["reason"]
        .as_str()
        .unwrap()
        .contains("only the rounds of their own table"));
    // The page's owner reads it, and nothing is recorded.
    assert_eq!(app.get(&path).await.status(), StatusCode::OK);
    assert_eq!(app.audit("authz.denied").len(), before + 1);
}
