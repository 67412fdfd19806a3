//! Who hears a stored round again: a whole round's one-time key answers again only for the same
//! round and only to someone who may read it, and `GET /api/v1/rounds/{key}` reads as the pages
//! do (a dealer their own table's rounds of their current shift; pit managers and auditors all).
use pusoy_pit::db::users::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::spawn_app;
use crate::helpers::{call, count, create_table, open, record, the_round, TestApp, PASSWORD};

const KEY: &str = "cage-replay-0001";

/// Another browser, signed in as a new user `name` of `role`.
async fn browser_of(app: &TestApp, name: &str, role: Role) -> TestApp {
    let browser = app.another_browser();
    browser.create_user(name, role, PASSWORD);
    let res = browser.sign_in(name, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "sign-in of {name}");
    browser
}

async fn show(app: &TestApp, key: &str) -> (StatusCode, Value) {
    call(app, Method::GET, &format!("/api/v1/rounds/{key}"), None).await
}

#[tokio::test]
async fn the_same_key_with_a_different_round_is_refused_and_the_stored_round_is_kept() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let (status, first) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");

    // Another bet, another action, other cards: each is another round under a used key.
    let mut other_bet = the_round();
    other_bet["seats"][0]["bet"] = json!(600);
    let mut other_action = the_round();
    other_action["seats"][1] = json!({"seat": 2, "bet": 200, "action": "play",
        "back": "4c 5h 6d 7s 8s", "middle": "Kc Ks 2s 7h Th", "front": "4h 5c 6c"});
    let mut other_cards = the_round();
    other_cards["seats"][2]["front"] = json!("Qs Jh 7h");
    let mut fewer_seats = the_round();
    fewer_seats["seats"].as_array_mut().unwrap().pop();
    for round in [other_bet, other_action, other_cards, fewer_seats] {
        let (status, body) = record(&app, "PUSOY-1", KEY, round.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{round}: {body}");
        let said = body["field_errors"]["key"].as_str().unwrap_or_default();
        assert!(
            said.contains("already used for a different round"),
            "{body}"
        );
        assert!(
            body.get("places").is_none(),
            "the stored round is not given"
        );
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
    assert_eq!(app.audit("round.settled").len(), 1);

    // The same round is the same whatever the order or spelling of its cards: a retry.
    let mut respelled = the_round();
    respelled["seats"][0]["back"] = json!("jd 10s 9h 8d 8c");
    let (status, again) = record(&app, "PUSOY-1", KEY, respelled).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again, first);
}

#[tokio::test]
async fn a_stored_round_is_answered_again_only_to_someone_allowed_to_read_it() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let (status, first) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    // The draft of the next round, confirmed.
    let draft = open(&app, "PUSOY-1").await;
    let path = format!("/api/v1/rounds/{draft}");
    let (status, _) = call(&app, Method::PUT, &path, Some(the_round())).await;
    assert_eq!(status, StatusCode::OK);
    let (status, confirmed) = call(
        &app,
        Method::POST,
        &format!("{path}/confirm"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{confirmed}");
    app.sign_off_at("PUSOY-1").await;

    // The next dealer at the table, on another shift, sends the same key and round, and
    // confirms the same draft again: neither is answered with the round.
    let next = browser_of(&app, "next-dealer", Role::Dealer).await;
    next.sign_on_at("PUSOY-1").await;
    let (status, body) = record(&next, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.get("places").is_none(), "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("own table"),
        "{body}"
    );
    let (status, body) = call(
        &next,
        Method::POST,
        &format!("{path}/confirm"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.get("places").is_none(), "{body}");
    let (status, body) = call(&next, Method::POST, &format!("{path}/preview"), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "settled");
    assert!(body.get("settlement").is_none(), "{body}");

    // A pit manager reads every round: the retry is answered.
    let pit = browser_of(&app, "pit-boss", Role::Supervisor).await;
    let (status, again) = record(&pit, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again, first);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 2);
}

#[tokio::test]
async fn a_dealer_reads_only_their_own_tables_rounds_of_their_current_shift() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    create_table(&app, "PUSOY-2");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let (status, round) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    let draft = open(&app, "PUSOY-1").await;

    let other = browser_of(&app, "other-dealer", Role::Dealer).await;
    other.sign_on_at("PUSOY-2").await;
    let pit = browser_of(&app, "pit-boss", Role::Supervisor).await;
    let auditor = browser_of(&app, "the-auditor", Role::Auditor).await;

    for key in [KEY, draft.as_str()] {
        let (status, shown) = show(&app, key).await;
        assert_eq!(status, StatusCode::OK, "own table: {shown}");
        assert_eq!(shown["key"], key);
        let (status, body) = show(&other, key).await;
        assert_eq!(
            status,
            StatusCode::FORBIDDEN,
            "another table's dealer: {body}"
        );
        assert!(body.get("places").is_none() && body.get("data").is_none());
        for reader in [&pit, &auditor] {
            let (status, shown) = show(reader, key).await;
            assert_eq!(status, StatusCode::OK, "{shown}");
            assert_eq!(shown["key"], key);
        }
    }
    let (_, shown) = show(&pit, KEY).await;
    assert_eq!(shown, round);

    // Signed off, the dealer no longer reads the shift's rounds.
    app.sign_off_at("PUSOY-1").await;
    let (status, body) = show(&app, KEY).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
}
