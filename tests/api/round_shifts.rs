//! Rounds belong to a dealer's shift: only the dealer signed on at a table (or a pit manager, for
//! that dealer) enters rounds there, and a settled round records the shift and its dealer.
use pusoy_pit::db::ids::TableId;
use pusoy_pit::db::users::{Role, User};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{call, count, create_table, open, the_round};
use crate::helpers::{spawn_app, TestApp, PASSWORD};

const NOT_SIGNED_ON: &str = "You are not signed on at PUSOY-1; sign on first.";

/// A second browser signed in as a new dealer `username`.
async fn other_dealer(app: &TestApp, username: &str) -> (TestApp, User) {
    let browser = app.another_browser();
    let user = browser.create_user(username, Role::Dealer, PASSWORD);
    let res = browser.sign_in(username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    (browser, user)
}

/// Opens PUSOY-1's draft as `app` and saves the round; returns its key.
async fn saved_draft(app: &TestApp) -> String {
    let key = open(app, "PUSOY-1").await;
    let (status, body) = call(
        app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    key
}

/// Every way of writing a round with `key`, as `app`: each must be refused with `message`.
async fn assert_every_write_refused(app: &TestApp, key: &str, message: &str) {
    let attempts: [(Method, String, Option<Value>); 4] = [
        (
            Method::POST,
            "/api/v1/tables/PUSOY-1/rounds".to_owned(),
            None,
        ),
        (
            Method::PUT,
            format!("/api/v1/rounds/{key}"),
            Some(the_round()),
        ),
        (Method::POST, format!("/api/v1/rounds/{key}/preview"), None),
        (Method::POST, format!("/api/v1/rounds/{key}/confirm"), None),
    ];
    for (method, path, body) in attempts {
        let (status, answer) = call(app, method.clone(), &path, body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{method} {path}: {answer}");
        assert_eq!(answer["error"], message, "{method} {path}");
    }
}

fn draft_revision(app: &TestApp, key: &str) -> i32 {
    pusoy_pit::db::rounds::drafts::draft_by_key(&mut app.conn(), key)
        .unwrap()
        .unwrap()
        .revision
}

#[tokio::test]
async fn a_dealer_who_is_not_signed_on_is_refused_and_nothing_is_written() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    let (stranger, _) = other_dealer(&app, "jose").await;

    // Nobody is signed on yet: not even a draft is opened.
    let (status, body) = call(
        &stranger,
        Method::POST,
        "/api/v1/tables/PUSOY-1/rounds",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], NOT_SIGNED_ON);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_drafts"), 0);

    app.sign_on_at("PUSOY-1").await;
    let key = saved_draft(&app).await;
    assert_every_write_refused(&stranger, &key, NOT_SIGNED_ON).await;

    assert_eq!(draft_revision(&app, &key), 1, "the draft is unchanged");
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_places"), 0);
    assert!(app.audit("round.settled").is_empty());
}

#[tokio::test]
async fn a_dealer_signed_on_at_another_table_is_refused() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    create_table(&app, "PUSOY-2");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = saved_draft(&app).await;
    let (neighbour, _) = other_dealer(&app, "jose").await;
    neighbour.sign_on_at("PUSOY-2").await;

    assert_every_write_refused(&neighbour, &key, NOT_SIGNED_ON).await;

    assert_eq!(draft_revision(&app, &key), 1);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
    // At their own table they may.
    let (status, body) = call(
        &neighbour,
        Method::POST,
        "/api/v1/tables/PUSOY-2/rounds",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn a_pit_manager_confirms_for_the_dealer_on_shift() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    create_table(&app, "PUSOY-2");
    let dealer = app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let shift_id = app.open_shift("PUSOY-1").unwrap();
    let pit = app.another_browser();
    let manager = pit.signed_in_as(Role::Supervisor).await;

    let key = saved_draft(&pit).await;
    let (status, round) = call(
        &pit,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        Some(json!({"revision": 1})),
    )
    .await;

    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(round["shift_id"], shift_id);
    assert_eq!(round["dealer_id"], dealer.id.0, "the dealer of the shift");
    let (_, shown) = call(&app, Method::GET, &format!("/api/v1/rounds/{key}"), None).await;
    assert_eq!(shown["shift_id"], shift_id);
    assert_eq!(shown["dealer_id"], dealer.id.0);
    let settled = app.audit("round.settled");
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].actor_user_id, Some(manager.id), "who entered it");
    assert_eq!(settled[0].details["dealer_id"], dealer.id.0);

    // Where nobody is signed on, the pit manager is told so and nothing is opened.
    let (status, body) = call(&pit, Method::POST, "/api/v1/tables/PUSOY-2/rounds", None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["error"],
        "No dealer is signed on at PUSOY-2; a dealer must sign on before rounds are entered there."
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM round_drafts d JOIN gaming_tables t ON t.id = d.table_id \
             WHERE t.code = 'PUSOY-2'"
        ),
        0
    );
}

#[tokio::test]
async fn a_confirm_after_signing_off_is_refused_and_the_next_shift_gets_the_round() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let first_shift = app.open_shift("PUSOY-1").unwrap();
    let key = saved_draft(&app).await;
    app.sign_off_at("PUSOY-1").await;
    let confirm = format!("/api/v1/rounds/{key}/confirm");

    let (status, body) = call(&app, Method::POST, &confirm, None).await;

    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], NOT_SIGNED_ON);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM round_drafts WHERE settled_round_id IS NULL"
        ),
        1,
        "the draft stays open"
    );

    // Signed on again, the same draft settles into the new shift.
    app.sign_on_at("PUSOY-1").await;
    let second_shift = app.open_shift("PUSOY-1").unwrap();
    assert_ne!(first_shift, second_shift);
    let (status, round) = call(&app, Method::POST, &confirm, None).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(round["shift_id"], second_shift);
}

#[tokio::test]
async fn a_round_left_by_another_shift_is_not_confirmed_by_the_next_dealer_until_saved() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = saved_draft(&app).await;
    app.sign_off_at("PUSOY-1").await;
    let (next, _) = other_dealer(&app, "next-dealer").await;
    next.sign_on_at("PUSOY-1").await;
    let confirm = format!("/api/v1/rounds/{key}/confirm");

    let (status, body) = call(&next, Method::POST, &confirm, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("saved on an earlier shift by someone else"),
        "{body}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
    // The table screen says so, and offers no Confirm.
    let page = next.get("/tables/PUSOY-1").await.text().await.unwrap();
    assert!(page.contains("id=\"other-shift\""), "{page}");
    assert!(!page.contains("name=\"step\" value=\"confirm\""), "{page}");

    // Saved on this shift (the dealer has had it in front of them), it is confirmed.
    let (status, body) = call(
        &next,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let page = next.get("/tables/PUSOY-1").await.text().await.unwrap();
    assert!(!page.contains("id=\"other-shift\""), "{page}");
    let (status, round) = call(&next, Method::POST, &confirm, None).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(round["shift_id"], next.open_shift("PUSOY-1").unwrap());
}

/// Runs `request` while another transaction, begun by `hold` and left open, holds row locks;
/// commits that transaction once the request's backend waits on a lock. Returns the request's
/// answer and whether it waited.
async fn while_held<F: std::future::Future>(
    app: &TestApp,
    hold: impl FnOnce(&mut diesel::PgConnection),
    request: F,
) -> (F::Output, bool) {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    use diesel::prelude::*;

    let mut holder = app.conn();
    AnsiTransactionManager::begin_transaction(&mut holder).unwrap();
    hold(&mut holder);
    let commit_once_request_waits = tokio::task::spawn_blocking({
        let db_url = app.db_url.clone();
        move || {
            let mut watcher = PgConnection::establish(&db_url).unwrap();
            #[derive(QueryableByName)]
            struct Waiting {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                n: i64,
            }
            // Polls for the request's backend to be waiting on a lock (bounded, not timed).
            let mut waited = false;
            for _ in 0..3000 {
                let waiting: Waiting = diesel::sql_query(
                    "SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
                     WHERE NOT l.granted AND a.datname = current_database()",
                )
                .get_result(&mut watcher)
                .unwrap();
                if waiting.n > 0 {
                    waited = true;
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            AnsiTransactionManager::commit_transaction(&mut holder).unwrap();
            waited
        }
    });
    let (answer, waited) = tokio::join!(request, commit_once_request_waits);
    (answer, waited.unwrap())
}

/// Runs `sql` (binding `$1` to `text`) on the holding connection.
fn hold_with(sql: &'static str, text: String) -> impl FnOnce(&mut diesel::PgConnection) {
    use diesel::prelude::*;
    move |conn| {
        diesel::sql_query(sql)
            .bind::<diesel::sql_types::Text, _>(text)
            .execute(conn)
            .unwrap();
    }
}

/// A sign-off still in progress when a confirm arrives: the confirm waits for it and then finds
/// no shift, so no round is written for a shift that has ended.
#[tokio::test]
async fn a_confirm_racing_a_sign_off_waits_for_it_and_is_refused() {
    use pusoy_pit::db::audit_log::Actor;
    use pusoy_pit::pit::shifts;

    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    let dealer = app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = saved_draft(&app).await;

    let actor = Actor::user(dealer.id, &dealer.username, None);
    let sign_off = |conn: &mut diesel::PgConnection| {
        shifts::sign_off_at(conn, TableId(table_id), &actor).unwrap();
    };
    let confirm = format!("/api/v1/rounds/{key}/confirm");
    let (confirmed, waited) =
        while_held(&app, sign_off, call(&app, Method::POST, &confirm, None)).await;

    assert!(waited, "the confirm waited for the sign-off");
    let (status, body) = confirmed;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], NOT_SIGNED_ON);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
    assert_eq!(app.open_shift("PUSOY-1"), None);
}

/// The shift ended by a change that takes only the shift's row (no audit event on the table's
/// chain): a confirm and a whole round arriving meanwhile wait for the shift's lock and are
/// refused, with no round written.
#[tokio::test]
async fn rounds_wait_for_a_change_to_their_shift_and_are_refused_when_it_ends() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    let end_shift = "UPDATE dealer_shifts SET signed_off_at = now() \
                     WHERE signed_off_at IS NULL AND table_id = \
                     (SELECT id FROM gaming_tables WHERE code = $1)";

    app.sign_on_at("PUSOY-1").await;
    let key = saved_draft(&app).await;
    let confirm = format!("/api/v1/rounds/{key}/confirm");
    let ((status, body), waited) = while_held(
        &app,
        hold_with(end_shift, "PUSOY-1".to_owned()),
        call(&app, Method::POST, &confirm, None),
    )
    .await;
    assert!(waited, "the confirm waited for the shift");
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], NOT_SIGNED_ON);

    app.sign_on_at("PUSOY-1").await;
    let whole = "/api/v1/tables/PUSOY-1/rounds/cage-race-0001";
    let ((status, body), waited) = while_held(
        &app,
        hold_with(end_shift, "PUSOY-1".to_owned()),
        call(&app, Method::PUT, whole, Some(the_round())),
    )
    .await;
    assert!(waited, "the whole round waited for the shift");
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], NOT_SIGNED_ON);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);

    // The same for a round written from memory: after a first round at the table, the next is
    // made from what the server remembers and written with its batch, which waits for the
    // shift as well and then leaves the round out.
    app.sign_on_at("PUSOY-1").await;
    let (status, body) = call(
        &app,
        Method::PUT,
        "/api/v1/tables/PUSOY-1/rounds/cage-race-0002",
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let misses = app.memos.misses();
    let ((status, body), waited) = while_held(
        &app,
        hold_with(end_shift, "PUSOY-1".to_owned()),
        call(
            &app,
            Method::PUT,
            "/api/v1/tables/PUSOY-1/rounds/cage-race-0003",
            Some(the_round()),
        ),
    )
    .await;
    assert!(waited, "the remembered round waited for the shift");
    assert_eq!(
        app.memos.misses(),
        misses + 1,
        "the round was tried from memory"
    );
    assert_eq!(app.memos.rounds_from_memory(), 0);
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], NOT_SIGNED_ON);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
}

/// A new revision of the draft saved while its confirm is on the way: the confirm waits for it
/// and is refused (the dealer confirmed what they saw, not what is there now).
#[tokio::test]
async fn a_confirm_waits_for_a_new_revision_of_its_draft_and_is_refused() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let key = saved_draft(&app).await;
    let bump = "UPDATE round_drafts SET revision = revision + 1 WHERE draft_key = $1";

    let confirm = format!("/api/v1/rounds/{key}/confirm");
    let ((status, body), waited) = while_held(
        &app,
        hold_with(bump, key.clone()),
        call(&app, Method::POST, &confirm, Some(json!({ "revision": 1 }))),
    )
    .await;
    assert!(waited, "the confirm waited for the draft");
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("revision 2, not 1"),
        "{body}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
}
