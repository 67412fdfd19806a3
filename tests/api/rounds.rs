//! Round entry over the JSON API: drafts, validation, settlement, numbering, immutability.
use diesel::prelude::*;
use pusoy_pit::db::audit_log::{self, ChainCheck};
use pusoy_pit::db::users::Role;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{
    call, count, create_table, open, round_numbers, spawn_app, the_round, TestApp,
};

#[tokio::test]
async fn a_round_with_a_foul_and_a_surrender_settles_and_is_recorded() {
    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    let dealer = app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let shift_id = app.open_shift("PUSOY-1").unwrap();
    let key = open(&app, "PUSOY-1").await;

    let (status, saved) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["revision"], 1);
    let (status, preview) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/preview"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["settlement"]["dealer"]["result"], 900);

    let (status, round) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        Some(json!({"revision": 1})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(round["round_no"], 1);
    assert_eq!(round["dealer_result"], 900);
    assert_eq!(
        round["shift_id"], shift_id,
        "the round belongs to the shift"
    );
    assert_eq!(round["dealer_id"], dealer.id.0);
    let places = round["places"].as_array().unwrap();
    let place = |name: &str| places.iter().find(|p| p["place"] == name).unwrap().clone();
    assert_eq!(place("seat1")["result"], -1000);
    assert_eq!(place("seat1")["fouled"], true);
    assert!(place("seat1")["foul_reason"].as_str().unwrap().len() > 5);
    assert_eq!(place("seat2")["result"], -200);
    assert_eq!(place("seat2")["outcome"], "surrendered");
    assert_eq!(place("seat3")["result"], 300);
    assert_eq!(place("seat3")["hands_won"], 2);
    assert_eq!(place("dealer")["result"], 900);

    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_places"), 4);
    let settled = app.audit("round.settled");
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].chain, format!("table:{table_id}"));
    assert_eq!(settled[0].details["settlement"]["dealer"]["result"], 900);
    assert_eq!(settled[0].details["shift_id"], shift_id);
    // The audit row alone re-settles to the same result.
    let again =
        pusoy_pit::rules::wire::settle_json(&settled[0].details["round"].to_string()).unwrap();
    assert_eq!(
        serde_json::to_value(again).unwrap(),
        settled[0].details["settlement"]
    );
    let check = audit_log::verify_chain(&mut app.conn(), &format!("table:{table_id}")).unwrap();
    // The table's creation, the sign-on, the draft opened, the round settled.
    assert_eq!(check, ChainCheck::Intact { events: 4 });

    let (status, shown) = call(&app, Method::GET, &format!("/api/v1/rounds/{key}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["status"], "settled");
    // As stored, not only as answered.
    assert_eq!(shown["shift_id"], shift_id);
    assert_eq!(shown["dealer_id"], dealer.id.0);
    // The confirm's answer, built from what was inserted, is what a read gives back.
    assert_eq!(shown, round);
}

#[tokio::test]
async fn a_card_dealt_twice_is_refused_naming_both_places_and_nothing_is_saved() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    let mut round = the_round();
    // Kh is also the dealer's front.
    round["seats"][2]["front"] = json!("Qs Jh Kh");

    let (status, body) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(round),
    )
    .await;

    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["field_errors"]["seat3_front"]
            .as_str()
            .unwrap()
            .contains("Kh"),
        "{body}"
    );
    assert!(body["field_errors"]["dealer_front"].is_string(), "{body}");
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM round_drafts WHERE revision > 0"
        ),
        0
    );
}

#[tokio::test]
async fn a_bet_outside_the_table_limits_is_refused() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    let mut round = the_round();
    round["seats"][1]["bet"] = json!(5);
    round["seats"][2]["bet"] = json!(20000);

    let (status, body) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(round),
    )
    .await;

    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        body["field_errors"]["seat2_bet"],
        "seat 2 bet PHP 0.05 is below the table minimum of PHP 1.00"
    );
    assert_eq!(
        body["field_errors"]["seat3_bet"],
        "seat 3 bet PHP 200.00 is above the table maximum of PHP 100.00"
    );
}

#[tokio::test]
async fn confirming_twice_and_concurrently_settles_once() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    let path = format!("/api/v1/rounds/{key}/confirm");

    let ((a, first), (b, second)) = tokio::join!(
        call(&app, Method::POST, &path, None),
        call(&app, Method::POST, &path, None)
    );
    let (c, third) = call(&app, Method::POST, &path, None).await;

    let mut statuses = vec![a, b];
    statuses.sort();
    assert_eq!(
        statuses,
        vec![StatusCode::OK, StatusCode::CREATED],
        "{first} {second}"
    );
    assert_eq!(c, StatusCode::OK);
    assert_eq!(first, second);
    assert_eq!(first, third);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
    assert_eq!(app.audit("round.settled").len(), 1);
}

#[tokio::test]
async fn a_stale_revision_is_a_conflict() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    let (status, _) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        Some(json!({"revision": 0})),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
}

#[tokio::test]
async fn rounds_settled_concurrently_at_one_table_are_numbered_without_gaps() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    const N: usize = 4;

    async fn settle_one(app: &TestApp) {
        for _ in 0..200 {
            let key = open(app, "PUSOY-1").await;
            let (status, saved) = call(
                app,
                Method::PUT,
                &format!("/api/v1/rounds/{key}"),
                Some(the_round()),
            )
            .await;
            if status != StatusCode::OK {
                continue;
            }
            let revision = saved["revision"].clone();
            let (status, _) = call(
                app,
                Method::POST,
                &format!("/api/v1/rounds/{key}/confirm"),
                Some(json!({"revision": revision})),
            )
            .await;
            if status == StatusCode::CREATED {
                return;
            }
        }
        panic!("never settled a round");
    }
    tokio::join!(
        settle_one(&app),
        settle_one(&app),
        settle_one(&app),
        settle_one(&app)
    );

    assert_eq!(round_numbers(&app), (1..=N as i32).collect::<Vec<_>>());
}

/// A dealer signed on at `PUSOY-1` who has entered and confirmed one round there.
async fn app_with_a_settled_round() -> TestApp {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    let (status, body) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    app
}

#[tokio::test]
async fn the_database_refuses_to_change_a_settled_round() {
    let app = app_with_a_settled_round().await;
    let mut conn = app.conn();

    let update = diesel::sql_query("UPDATE rounds SET dealer_result = 0").execute(&mut conn);
    let places = diesel::sql_query("UPDATE rounds SET places = places #- '{3}'").execute(&mut conn);
    let delete = diesel::sql_query("DELETE FROM rounds").execute(&mut conn);
    // Nor the figures the reports sum, worked out from the round when it was written.
    let figures = diesel::sql_query("UPDATE round_figures SET handle = 0").execute(&mut conn);
    let figures_gone = diesel::sql_query("DELETE FROM round_figures").execute(&mut conn);

    assert!(update.unwrap_err().to_string().contains("immutable"));
    assert!(places.unwrap_err().to_string().contains("immutable"));
    assert!(delete.unwrap_err().to_string().contains("immutable"));
    assert!(figures.unwrap_err().to_string().contains("immutable"));
    assert!(figures_gone.unwrap_err().to_string().contains("immutable"));
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_places"), 4);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_figures"), 1);
}

/// A round's places live in its row as JSON; the database itself checks what the old table's
/// columns and checks did (tried here with the immutability trigger off, in a transaction that
/// is rolled back).
#[tokio::test]
async fn the_database_refuses_places_that_do_not_fit_their_round() {
    let app = app_with_a_settled_round().await;
    let mut conn = app.conn();
    let mut with_places = |places: &str| {
        conn.transaction::<(), diesel::result::Error, _>(|conn| {
            diesel::sql_query("ALTER TABLE rounds DISABLE TRIGGER rounds_are_immutable")
                .execute(conn)?;
            let changed = diesel::sql_query(format!("UPDATE rounds SET places = {places}"))
                .execute(conn)
                .map_err(|err| err.to_string());
            Err(diesel::result::Error::QueryBuilderError(
                format!("{changed:?}").into(),
            ))
        })
        .unwrap_err()
        .to_string()
    };

    assert_eq!(with_places("places"), "Ok(1)", "the round as written fits");
    for (bad, why) in [
        ("jsonb_set(places, '{1,bet}', '0')", "a bet of 0"),
        ("jsonb_set(places, '{1,bet}', '\"500\"')", "a bet in text"),
        ("jsonb_set(places, '{1,bet}', '2.5')", "a bet in fractions"),
        ("jsonb_set(places, '{1,result}', 'null')", "no result"),
        (
            "jsonb_set(places, '{0,result}', '1')",
            "the dealer's result not the round's",
        ),
        (
            "jsonb_set(places, '{1,place}', '\"seat4\"')",
            "an unknown place",
        ),
        (
            "jsonb_set(places, '{2,place}', '\"dealer\"')",
            "a second dealer",
        ),
        (
            "jsonb_set(places, '{3,place}', '\"seat2\"')",
            "a seat twice",
        ),
        (
            "jsonb_set(places, '{1,action}', '\"double\"')",
            "an unknown action",
        ),
        ("places #- '{1,action}'", "no action"),
        (
            "jsonb_set(places, '{1,fouled}', '\"yes\"')",
            "a foul in text",
        ),
        ("places #- '{3}' #- '{2}' #- '{1}'", "the dealer alone"),
        ("'{}'::jsonb", "not an array"),
    ] {
        let refused = with_places(bad);
        assert!(refused.contains("rounds_places_check"), "{why}: {refused}");
    }
}

#[tokio::test]
async fn an_auditor_may_read_a_round_but_not_enter_one() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = open(&app, "PUSOY-1").await;
    let auditor = app.another_browser();
    auditor.signed_in_as(Role::Auditor).await;

    let (put, _) = call(
        &auditor,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    let (get, _) = call(
        &auditor,
        Method::GET,
        &format!("/api/v1/rounds/{key}"),
        None,
    )
    .await;

    assert_eq!(put, StatusCode::FORBIDDEN);
    assert_eq!(get, StatusCode::OK);
}
