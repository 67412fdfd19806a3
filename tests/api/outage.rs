use diesel::prelude::*;
use pusoy_pit::db::users::Role;
use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{cluster, spawn_app, TestApp};

/// The app's database refuses new connections and its open ones are cut, as in an outage.
fn take_the_database_away(app: &TestApp, away: bool) {
    let (_, host_and_name) = app.db_url.split_once('@').unwrap();
    let (_, name_and_query) = host_and_name.split_once('/').unwrap();
    let name = name_and_query.split('?').next().unwrap();
    let mut admin = cluster().connect("postgres").unwrap();
    diesel::sql_query(format!(
        "ALTER DATABASE \"{name}\" WITH ALLOW_CONNECTIONS {away}",
        away = !away
    ))
    .execute(&mut admin)
    .unwrap();
    if away {
        diesel::sql_query(format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .execute(&mut admin)
        .unwrap();
    }
}

fn content_type(res: &reqwest::Response) -> String {
    res.headers()[CONTENT_TYPE].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn during_an_outage_requests_are_told_to_retry_and_health_says_the_database_is_down() {
    let app = spawn_app().await;
    // Requests wait seconds for a connection, not r2d2's default half minute.
    let pool = pusoy_pit::db::pool(&app.db_url, 1).unwrap();
    assert!(pool.connection_timeout() <= std::time::Duration::from_secs(5));
    let res = app.get("/health").await;
    assert_eq!(res.status(), StatusCode::OK);
    let health: Value = res.json().await.unwrap();
    assert_eq!(health["database"], "up");
    assert!(health["latency_ms"].as_f64().unwrap() >= 0.0);
    app.signed_in_as(Role::Dealer).await;

    take_the_database_away(&app, true);

    // As a load balancer asks: no session cookie.
    let res = app.another_browser().get("/health").await;
    let status = res.status();
    let text = res.text().await.unwrap();
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    let res: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(res["database"], "down");

    // A page: the session store cannot load the session.
    let res = app.get("/tables").await;
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(res.headers().contains_key(RETRY_AFTER));
    assert!(content_type(&res).starts_with("text/html"));
    assert!(res.text().await.unwrap().contains("Try again in a moment"));

    // The API, with a token to check and no session: JSON.
    let res = app
        .another_browser()
        .client
        .get(app.url("/api/v1/rounds/some-key"))
        .bearer_auth("not-checked-while-the-database-is-away")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(res.headers().contains_key(RETRY_AFTER));
    assert_eq!(content_type(&res), "application/json");
    let body: Value = res.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("try again"));

    take_the_database_away(&app, false);
    let res = app.get("/health").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(app.get("/tables").await.status(), StatusCode::OK);
}
