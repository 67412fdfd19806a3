use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use percent_encoding::percent_decode_str;
use pusoy_pit::db::ids::UserId;
use pusoy_pit::db::users::Role;
use reqwest::StatusCode;
use sha2::{Digest, Sha256};

use crate::helpers::{location, set_cookies, spawn_app, TestApp, PASSWORD};

/// Moves a user's sessions back in time, as if they had been idle (or signed in) that long.
fn age_sessions(app: &TestApp, user: UserId, column: &str, interval: &str) {
    diesel::sql_query(format!(
        "UPDATE sessions SET {column} = now() - $1::interval WHERE user_id = $2"
    ))
    .bind::<Text, _>(interval)
    .bind::<BigInt, _>(user.0)
    .execute(&mut app.conn())
    .unwrap();
}

#[tokio::test]
async fn disabling_a_user_ends_their_live_session_at_once() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;
    assert_eq!(app.get("/").await.status(), StatusCode::OK);

    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let res = admin
        .post_form(
            &format!("/admin/users/{}/disable", dealer.id),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    assert_eq!(app.session_count(dealer.id), 0);
    let res = app.get("/").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/login");
    let events = app.audit("user.disable");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].target, "user:the-dealer");
    assert_eq!(events[0].details["sessions_ended"], 1);
}

#[tokio::test]
async fn a_dealer_idle_past_the_limit_is_signed_out() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;
    assert_eq!(app.get("/").await.status(), StatusCode::OK);

    age_sessions(&app, dealer.id, "last_seen_at", "16 minutes");

    let res = app.get("/").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/login");
    assert_eq!(app.session_count(dealer.id), 0);
    let events = app.audit("session.expired");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].target, "user:the-dealer");
    assert_eq!(events[0].details["reason"], "idle time-out");
}

#[tokio::test]
async fn activity_within_the_idle_limit_keeps_the_session() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;
    age_sessions(&app, dealer.id, "last_seen_at", "14 minutes");
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
    // That request counted as activity.
    age_sessions(&app, dealer.id, "last_seen_at", "14 minutes");
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
    assert!(app.audit("session.expired").is_empty());
}

/// The version of a user's session row: it changes whenever the row is written.
fn session_version(app: &TestApp, user: UserId) -> String {
    #[derive(QueryableByName)]
    struct Version {
        #[diesel(sql_type = Text)]
        xmin: String,
    }
    diesel::sql_query("SELECT xmin::text AS xmin FROM sessions WHERE user_id = $1")
        .bind::<BigInt, _>(user.0)
        .get_result::<Version>(&mut app.conn())
        .unwrap()
        .xmin
}

/// A page read writes nothing: not the session's state (no flash to take), and its last use
/// only once it is half a minute old (`db::sessions::SEEN_EVERY`), which then moves to now.
#[tokio::test]
async fn pages_read_write_no_session_row_until_its_last_use_is_half_a_minute_old() {
    let app = spawn_app().await;
    let supervisor = app.signed_in_as(Role::Supervisor).await;
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
    let before = session_version(&app, supervisor.id);
    for page in ["/", "/pit", "/review", "/"] {
        assert_eq!(app.get(page).await.status(), StatusCode::OK, "{page}");
    }
    assert_eq!(session_version(&app, supervisor.id), before);

    age_sessions(&app, supervisor.id, "last_seen_at", "31 seconds");
    let aged = session_version(&app, supervisor.id);
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
    assert_ne!(session_version(&app, supervisor.id), aged);
    let seconds: f64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::Double>(&format!(
        "(SELECT extract(epoch FROM now() - last_seen_at)::float8 FROM sessions \
         WHERE user_id = {})",
        supervisor.id.0
    )))
    .get_result(&mut app.conn())
    .unwrap();
    assert!(seconds < 5.0, "last use moved to now: {seconds} s ago");
}

#[tokio::test]
async fn the_idle_limit_depends_on_the_role_and_is_configurable() {
    let app = crate::helpers::spawn_app_with(|c| {
        c.timeouts.staff_idle = chrono::TimeDelta::minutes(20);
    })
    .await;
    let supervisor = app.signed_in_as(Role::Supervisor).await;
    age_sessions(&app, supervisor.id, "last_seen_at", "16 minutes");
    assert_eq!(
        app.get("/").await.status(),
        StatusCode::OK,
        "within 20 minutes"
    );
    age_sessions(&app, supervisor.id, "last_seen_at", "21 minutes");
    assert_eq!(app.get("/").await.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn a_session_ends_at_the_absolute_limit_whatever_the_activity() {
    let app = spawn_app().await;
    let auditor = app.signed_in_as(Role::Auditor).await;
    age_sessions(&app, auditor.id, "expires_at", "1 second");

    assert_eq!(app.get("/").await.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.session_count(auditor.id), 0);
    assert_eq!(
        app.audit("session.expired")[0].details["reason"],
        "absolute time-out"
    );
}

#[tokio::test]
async fn only_a_hash_of_the_session_key_is_stored() {
    let app = spawn_app().await;
    let dealer = app.create_user("the-dealer", Role::Dealer, PASSWORD);
    let res = app.sign_in(&dealer.username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    // The cookie is signed, not encrypted: its value is the signature (44 characters of base64)
    // followed by the session key itself.
    let prefix = format!("{}=", app.config.session_cookie_name());
    let cookie = set_cookies(res.headers())
        .into_iter()
        .find_map(|c| {
            c.split(';')
                .next()?
                .strip_prefix(&prefix)
                .map(str::to_owned)
        })
        .expect("the sign-in sets the session cookie");
    let cookie = percent_decode_str(&cookie).decode_utf8().unwrap();
    let key = cookie.get(44..).expect("a signed cookie value");
    assert_eq!(key.len(), 64, "a session key of {} characters", key.len());

    #[derive(QueryableByName)]
    struct Stored {
        #[diesel(sql_type = diesel::sql_types::Bytea)]
        key_hash: Vec<u8>,
        #[diesel(sql_type = Text)]
        row: String,
    }
    let rows: Vec<Stored> =
        diesel::sql_query("SELECT key_hash, s::text AS row FROM sessions s WHERE user_id = $1")
            .bind::<BigInt, _>(dealer.id.0)
            .load(&mut app.conn())
            .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].key_hash, Sha256::digest(key.as_bytes()).to_vec());
    assert!(!rows[0].row.contains(key), "the key itself is stored");
}

#[tokio::test]
async fn visits_to_the_sign_in_page_store_no_session_until_someone_signs_in() {
    let app = spawn_app().await;
    let sessions = "SELECT count(*) AS n FROM sessions";
    for _ in 0..5 {
        let visitor = app.another_browser();
        assert_eq!(visitor.get("/login").await.status(), StatusCode::OK);
    }
    // A refused sign-in stores nothing either.
    let res = app.sign_in("nobody", "wrong-password-here").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(crate::helpers::count(&app, sessions), 0);

    // The form's token, kept in the cookie, still lets a sign-in through.
    app.signed_in_as(Role::Dealer).await;
    assert_eq!(crate::helpers::count(&app, sessions), 1);
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
}

#[derive(QueryableByName)]
struct Setting {
    #[diesel(sql_type = Text)]
    value: String,
}

fn synchronous_commit(conn: &mut PgConnection) -> diesel::QueryResult<String> {
    diesel::sql_query("SELECT current_setting('synchronous_commit') AS value")
        .get_result::<Setting>(conn)
        .map(|s| s.value)
}

/// A session's state is written without waiting for the disk (`pit::sessions::update`), and
/// only that write: the setting is the write's transaction's own, and the connection goes back
/// to the pool waiting for the disk at every commit, as the rounds and the audit trail need.
#[tokio::test]
async fn a_write_that_does_not_wait_for_the_disk_leaves_its_connection_waiting() {
    let app = spawn_app().await;
    let mut conn = app.conn();
    diesel::sql_query("SET synchronous_commit = on")
        .execute(&mut conn)
        .unwrap();
    let inside = pusoy_pit::db::without_waiting_for_the_disk(&mut conn, synchronous_commit);
    assert_eq!(inside.unwrap(), "off");
    assert_eq!(synchronous_commit(&mut conn).unwrap(), "on");
}
