//! API tokens: issued and revoked by an administrator, stored only as hashes, and accepted on
//! the round API in place of a session and CSRF token.
use diesel::prelude::*;
use pusoy_pit::db::audit_log::{self, ChainCheck, SYSTEM_CHAIN};
use pusoy_pit::db::schema::api_tokens;
use pusoy_pit::db::users::{Role, User};
use pusoy_pit::web::access::{TokenCheck, RULES};
use reqwest::header::WWW_AUTHENTICATE;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{call_with_token as call, issue_token};
use crate::helpers::{create_table, the_round};
use crate::helpers::{new_client, spawn_app, spawn_app_with, TestApp};

/// A browser signed in as an administrator.
async fn admin(app: &TestApp) -> TestApp {
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    admin
}

/// The id of the first token issued.
fn first_token_id(app: &TestApp) -> i64 {
    api_tokens::table
        .select(api_tokens::id)
        .order(api_tokens::id)
        .first(&mut app.conn())
        .unwrap()
}

/// Revokes token `id` through the admin page.
async fn revoke(admin: &TestApp, id: i64) {
    let res = admin
        .post_form(&format!("/admin/tokens/{id}/revoke"), &[("confirm", "yes")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

/// A dealer signed on at the table (through their own browser), as round entry requires.
async fn dealer_on_shift(app: &TestApp, code: &str) -> User {
    let browser = app.another_browser();
    let dealer = browser.signed_in_as(Role::Dealer).await;
    let res = browser
        .post_form(&format!("/tables/{code}/sign-on"), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    dealer
}

#[tokio::test]
async fn an_issued_token_records_a_whole_round_without_a_session_or_csrf_token() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    let dealer = dealer_on_shift(&app, "PUSOY-1").await;
    let admin = admin(&app).await;
    let token = issue_token(&admin, "Cage system", &dealer).await;
    assert!(token.starts_with("ppt_") && token.len() == 68, "{token}");

    let (status, opened, _) = call(
        &app,
        &token,
        Method::POST,
        "/api/v1/tables/PUSOY-1/rounds",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{opened}");
    let key = opened["key"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/rounds/{key}");
    let (status, saved, _) = call(&app, &token, Method::PUT, &path, Some(the_round())).await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    let (status, preview, _) =
        call(&app, &token, Method::POST, &format!("{path}/preview"), None).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["settlement"]["dealer"]["result"], 900);
    let (status, round, _) = call(
        &app,
        &token,
        Method::POST,
        &format!("{path}/confirm"),
        Some(json!({"revision": 1})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(round["dealer_id"], dealer.id.0);
    assert_eq!(round["dealer_result"], 900);

    // At rest there is only the token's SHA-256, and the issue is on the audit trail.
    let mut conn = app.conn();
    let (name, hash): (String, Vec<u8>) = api_tokens::table
        .select((api_tokens::name, api_tokens::token_hash))
        .first(&mut conn)
        .unwrap();
    assert_eq!(name, "Cage system");
    assert_eq!(hash, Sha256::digest(token.as_bytes()).to_vec());
    let issued = app.audit("api_token.issued");
    assert_eq!(issued.len(), 1);
    assert_eq!(issued[0].details["user"], dealer.username);
    assert!(!issued[0].details.to_string().contains(&token[4..]));
    assert_eq!(app.audit("csrf.rejected").len(), 0);
    assert!(matches!(
        audit_log::verify_chain(&mut conn, SYSTEM_CHAIN).unwrap(),
        ChainCheck::Intact { .. }
    ));
}

#[tokio::test]
async fn a_revoked_token_is_refused_at_once_and_the_refusal_is_recorded() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    let dealer = dealer_on_shift(&app, "PUSOY-1").await;
    let admin = admin(&app).await;
    let token = issue_token(&admin, "Cage system", &dealer).await;
    let (status, _, _) = call(&app, &token, Method::GET, "/api/v1/rounds/none", None).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the live token gets past access"
    );

    let id = first_token_id(&app);
    revoke(&admin, id).await;

    let (status, body, headers) = call(
        &app,
        &token,
        Method::POST,
        "/api/v1/tables/PUSOY-1/rounds",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers[WWW_AUTHENTICATE], "Bearer");
    assert!(
        body["error"].as_str().unwrap().contains("revoked"),
        "{body}"
    );
    assert_eq!(app.audit("api_token.revoked").len(), 1);
    let refused = app.audit("api_token.refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].target, "POST /api/v1/tables/PUSOY-1/rounds");
    let drafts: i64 = pusoy_pit::db::schema::round_drafts::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(drafts, 0, "nothing was written for the refused request");

    // Revoking twice changes nothing more.
    revoke(&admin, id).await;
    assert_eq!(app.audit("api_token.revoked").len(), 1);
}

/// Whole round number `n` at PUSOY-1, sent with `token` alone.
async fn put_round(app: &TestApp, token: &str, n: u32) -> (StatusCode, Value) {
    let path = format!("/api/v1/tables/PUSOY-1/rounds/cage-remembered-{n:04}");
    let (status, body, _) = call(app, token, Method::PUT, &path, Some(the_round())).await;
    (status, body)
}

fn rounds_written(app: &TestApp) -> i64 {
    pusoy_pit::db::schema::rounds::table
        .count()
        .get_result(&mut app.conn())
        .unwrap()
}

/// A token that recorded rounds (so that the server remembers it as good, and writes the next
/// round from memory), then revoked: the next whole round with it is refused at once and
/// nothing is written. The same for a token whose account is disabled, or given a role that
/// may not enter rounds, after its last round.
#[tokio::test]
async fn a_token_that_recorded_rounds_is_refused_once_revoked_disabled_or_its_role_changes() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    let dealer = dealer_on_shift(&app, "PUSOY-1").await;
    let admin = admin(&app).await;
    let set = |sql: &str| {
        diesel::sql_query(sql)
            .bind::<diesel::sql_types::BigInt, _>(dealer.id.0)
            .execute(&mut app.conn())
            .unwrap();
    };
    let mut n = 0;
    let mut written = 0;
    // Two rounds with `token`: the first checks the token and reads the table, the second is
    // written from what the server remembers of both.
    let mut two_rounds = async |token: &str| {
        let from_memory = app.memos.rounds_from_memory();
        for _ in 0..2 {
            n += 1;
            let (status, body) = put_round(&app, token, n).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
            written += 1;
        }
        assert_eq!(
            app.memos.rounds_from_memory(),
            from_memory + 1,
            "the second round was written from memory"
        );
        n += 1;
        (n, written)
    };
    // The next round is tried from memory and refused by the write's own check of the token.
    let tried_from_memory = |misses_before: u64| {
        assert_eq!(app.memos.misses(), misses_before + 1, "tried from memory");
    };

    let token = issue_token(&admin, "Cage system", &dealer).await;
    let (next, written_so_far) = two_rounds(&token).await;
    let id = first_token_id(&app);
    revoke(&admin, id).await;
    let misses = app.memos.misses();
    let (status, body) = put_round(&app, &token, next).await;
    tried_from_memory(misses);
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(
        rounds_written(&app),
        written_so_far,
        "nothing written once revoked"
    );
    assert_eq!(app.audit("api_token.refused").len(), 1);

    let token = issue_token(&admin, "Cage system 2", &dealer).await;
    let (next, written_so_far) = two_rounds(&token).await;
    set("UPDATE users SET disabled_at = now() WHERE id = $1");
    let misses = app.memos.misses();
    let (status, body) = put_round(&app, &token, next).await;
    tried_from_memory(misses);
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(
        rounds_written(&app),
        written_so_far,
        "nothing written once disabled"
    );

    set("UPDATE users SET disabled_at = NULL WHERE id = $1");
    let (next, written_so_far) = two_rounds(&token).await;
    set("UPDATE users SET role = 'auditor' WHERE id = $1");
    let misses = app.memos.misses();
    let (status, body) = put_round(&app, &token, next).await;
    tried_from_memory(misses);
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        rounds_written(&app),
        written_so_far,
        "nothing written for an auditor"
    );
}

#[tokio::test]
async fn unknown_tokens_and_tokens_of_disabled_accounts_are_refused() {
    let app = spawn_app().await;
    let auditor = app.create_user("reader", Role::Auditor, crate::helpers::PASSWORD);
    let admin = admin(&app).await;
    let token = issue_token(&admin, "Surveillance", &auditor).await;
    let (status, _, _) = call(&app, &token, Method::GET, "/api/v1/rounds/none", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let forged = format!("ppt_{}", "0".repeat(64));
    let (status, _, _) = call(&app, &forged, Method::GET, "/api/v1/rounds/none", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = call(
        &app,
        "not-a-token",
        Method::GET,
        "/api/v1/rounds/none",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let res = admin
        .post_form(
            &format!("/admin/users/{}/disable", auditor.id),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let (status, _, _) = call(&app, &token, Method::GET, "/api/v1/rounds/none", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.audit("api_token.refused").len(), 3);
}

#[tokio::test]
async fn a_token_has_its_accounts_role_and_only_works_on_the_api() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    let auditor = app.create_user("reader", Role::Auditor, crate::helpers::PASSWORD);
    let admin = admin(&app).await;
    let token = issue_token(&admin, "Surveillance", &auditor).await;

    let (status, _, _) = call(
        &app,
        &token,
        Method::POST,
        "/api/v1/tables/PUSOY-1/rounds",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "auditors read, never write");
    assert_eq!(app.audit("authz.denied").len(), 1);

    // Pages are for people with sessions: a token there counts for nothing.
    let res = new_client()
        .get(app.url("/tables"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn issuing_a_token_without_a_name_or_account_says_what_is_missing() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form("/admin/tokens", &[("name", " "), ("user_id", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains("id=\"name-error\""), "{html}");
    assert!(html.contains("id=\"user-error\""), "{html}");
    let issued: i64 = api_tokens::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(issued, 0);
}

/// An address that keeps sending bad tokens gets 429 beyond the sign-in burst, and those
/// refusals are not written to the audit trail; a good token still works.
#[tokio::test]
async fn bad_tokens_beyond_the_per_address_limit_get_429_and_are_not_recorded() {
    let app = spawn_app_with(|c| {
        c.login_rate_limit.burst = 2;
        c.login_rate_limit.per_minute = 1;
    })
    .await;
    let auditor = app.create_user("reader", Role::Auditor, crate::helpers::PASSWORD);
    let admin = admin(&app).await;
    let token = issue_token(&admin, "Surveillance", &auditor).await;
    let forged = format!("ppt_{}", "0".repeat(64));
    for _ in 0..2 {
        let (status, _, _) = call(&app, &forged, Method::GET, "/api/v1/rounds/none", None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (status, body, headers) =
        call(&app, &forged, Method::GET, "/api/v1/rounds/none", None).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert!(headers.contains_key(reqwest::header::RETRY_AFTER));
    assert_eq!(app.audit("api_token.refused").len(), 2);

    let (status, _, _) = call(&app, &token, Method::GET, "/api/v1/rounds/none", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The routes that take rounds check API tokens in their handlers, on the same database call as
/// their work ([`TokenCheck::Handler`]). Each one must still refuse a bad token with 401 before
/// it reads the body, refuse a role the route does not allow with 403, record both, write
/// nothing, and let a good token through.
#[tokio::test]
async fn every_route_that_checks_tokens_in_its_handler_refuses_bad_ones_first() {
    let app = spawn_app_with(|c| c.login_rate_limit.burst = 100).await;
    create_table(&app, "PUSOY-1");
    let dealer = dealer_on_shift(&app, "PUSOY-1").await;
    let auditor = app.create_user("reader", Role::Auditor, crate::helpers::PASSWORD);
    let admin = admin(&app).await;
    let dealer_token = issue_token(&admin, "Cage system", &dealer).await;
    let auditor_token = issue_token(&admin, "Surveillance", &auditor).await;
    let forged = format!("ppt_{}", "0".repeat(64));
    let routes: Vec<_> = RULES
        .iter()
        .filter(|rule| rule.token == TokenCheck::Handler)
        .collect();
    assert_eq!(routes.len(), 5, "the round-taking routes");

    for rule in &routes {
        let path = rule
            .pattern
            .replace("{code}", "PUSOY-1")
            .replace("{key}", "no-such-key-1");
        let method = Method::from_bytes(rule.method.as_bytes()).unwrap();
        let unreadable = Some(json!("not a round"));
        let target = format!("{} {path}", rule.method);

        let (status, body, headers) =
            call(&app, &forged, method.clone(), &path, unreadable.clone()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{target}: {body}");
        assert_eq!(headers[WWW_AUTHENTICATE], "Bearer", "{target}");
        let refused = app.audit("api_token.refused");
        assert_eq!(refused.last().unwrap().target, target);

        let (status, body, _) = call(
            &app,
            &auditor_token,
            method.clone(),
            &path,
            unreadable.clone(),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{target}: {body}");
        let denied = app.audit("authz.denied");
        assert_eq!(denied.last().unwrap().target, target);
        assert_eq!(denied.last().unwrap().actor_name, "reader");

        let (status, body, _) = call(&app, &dealer_token, method, &path, unreadable).await;
        assert!(
            ![StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&status),
            "{target}: a good token gets past access: {status} {body}"
        );
    }
    assert_eq!(app.audit("api_token.refused").len(), 5);
    assert_eq!(app.audit("authz.denied").len(), 5);
    let rounds: i64 = pusoy_pit::db::schema::rounds::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(rounds, 0);
}

/// Post/redirect/get: after "Issue token" the browser is on a GET, so a reload issues nothing;
/// the token is shown on the first page after the redirect and never again, and the list tells
/// it apart from a token named alike by its first characters.
#[tokio::test]
async fn a_reload_after_issuing_shows_nothing_again_and_issues_no_second_token() {
    let app = spawn_app().await;
    let dealer = app.create_user("cage-dealer", Role::Dealer, crate::helpers::PASSWORD);
    let admin = admin(&app).await;
    let first = issue_token(&admin, "Cage system", &dealer).await;
    let reload = admin.get("/admin/tokens").await.text().await.unwrap();
    assert!(!reload.contains(&first), "shown once only");
    assert!(!reload.contains("id=\"token-value\""));
    let second = issue_token(&admin, "Cage system", &dealer).await;
    let issued: i64 = api_tokens::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(issued, 2, "one token per POST, none per reload");
    let list = admin.get("/admin/tokens").await.text().await.unwrap();
    assert!(list.contains(&format!("{}…", &first[..12])), "{list}");
    assert!(list.contains(&format!("{}…", &second[..12])), "{list}");
    assert!(
        !list.contains(&first[..20]),
        "no more of the token than its prefix"
    );
}

/// "Revoke" first shows what would be revoked and asks; only the confirmed form revokes.
#[tokio::test]
async fn revoking_a_token_asks_for_confirmation_first() {
    let app = spawn_app().await;
    let dealer = app.create_user("cage-dealer", Role::Dealer, crate::helpers::PASSWORD);
    let admin = admin(&app).await;
    let token = issue_token(&admin, "Cage system", &dealer).await;
    let id = first_token_id(&app);
    let res = admin
        .post_form(&format!("/admin/tokens/{id}/revoke"), &[])
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.unwrap();
    assert!(page.contains("Revoke an API token?"), "{page}");
    assert!(
        page.contains(&format!("Yes, revoke {}…", &token[..12])),
        "{page}"
    );
    assert!(page.contains(r#"name="confirm" value="yes""#), "{page}");
    let revoked_at: Option<chrono::DateTime<chrono::Utc>> = api_tokens::table
        .find(id)
        .select(api_tokens::revoked_at)
        .first(&mut app.conn())
        .unwrap();
    assert_eq!(revoked_at, None, "nothing revoked before confirming");
    assert!(app.audit("api_token.revoked").is_empty());
    revoke(&admin, id).await;
    assert_eq!(app.audit("api_token.revoked").len(), 1);
}

/// A token with an expiry works until then and is refused from then on, also when the server
/// remembers it as good from its last round: nothing is written.
#[tokio::test]
async fn a_token_is_refused_once_it_has_expired() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    let dealer = dealer_on_shift(&app, "PUSOY-1").await;
    let admin = admin(&app).await;
    let res = admin
        .post_form(
            "/admin/tokens",
            &[
                ("name", "Cage system"),
                ("user_id", &dealer.id.to_string()),
                ("expires_at", "2099-12-31T18:00"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let html = admin.get("/admin/tokens").await.text().await.unwrap();
    assert!(html.contains("2099-12-31 18:00 (PHT, UTC+08:00)"), "{html}");
    let marker = "id=\"token-value\">";
    let start = html.find(marker).unwrap() + marker.len();
    let token = html[start..start + html[start..].find('<').unwrap()].to_owned();
    for n in 1..=2 {
        let (status, body) = put_round(&app, &token, n).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    // Its time comes (set in the past rather than waited for).
    diesel::sql_query("UPDATE api_tokens SET expires_at = created_at + interval '1 millisecond'")
        .execute(&mut app.conn())
        .unwrap();
    let (status, body) = put_round(&app, &token, 3).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(rounds_written(&app), 2);
    let (status, _, _) = call(
        &app,
        &token,
        Method::GET,
        "/api/v1/rounds/cage-remembered-0001",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(!app.audit("api_token.refused").is_empty());
    let list = admin.get("/admin/tokens").await.text().await.unwrap();
    assert!(list.contains("Expired "), "{list}");
}
