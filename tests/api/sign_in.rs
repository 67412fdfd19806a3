use pusoy_pit::db::users::Role;
use reqwest::StatusCode;

use diesel::RunQueryDsl;

use crate::helpers::{location, set_cookies, spawn_app, spawn_app_with, TestApp, PASSWORD};

#[tokio::test]
async fn the_right_password_signs_in_and_is_audited() {
    let app = spawn_app().await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);

    let res = app.sign_in("Dana", PASSWORD).await;

    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/");
    let home = app.get("/").await;
    assert_eq!(home.status(), StatusCode::OK);
    let html = home.text().await.unwrap();
    assert!(html.contains("Welcome, dana Test"));
    assert!(html.contains("dana (Dealer)"));
    assert!(html.contains("15 minutes without activity"));
    let events = app.audit("auth.signin");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].actor_user_id, Some(dealer.id));
    assert_eq!(events[0].target, "user:dana");
    assert_eq!(events[0].client_addr.as_deref(), Some("127.0.0.1"));
    assert_eq!(app.session_count(dealer.id), 1);
}

#[tokio::test]
async fn a_wrong_password_is_refused_counted_and_audited() {
    let app = spawn_app().await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);

    let res = app.sign_in("dana", "not-the-password").await;

    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Wrong user name or password"));
    assert_eq!(app.get("/").await.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.user(dealer.id).failed_attempts, 1);
    assert_eq!(app.session_count(dealer.id), 0);
    let events = app.audit("auth.signin.failed");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].target, "user:dana");
    assert_eq!(events[0].actor_user_id, None);
    assert_eq!(events[0].details["reason"], "wrong password");
}

#[tokio::test]
async fn an_unknown_user_is_refused_with_the_same_message_and_audited() {
    let app = spawn_app().await;

    let res = app.sign_in("nobody", PASSWORD).await;

    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Wrong user name or password"));
    let events = app.audit("auth.signin.failed");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].target, "user:nobody");
    assert_eq!(events[0].details["reason"], "unknown user");
}

#[tokio::test]
async fn five_failures_lock_the_account_until_a_pit_manager_unlocks_it() {
    let app = spawn_app().await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);

    for attempt in 1..=5 {
        let res = app.sign_in("dana", "wrong-password-here").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "attempt {attempt}");
    }
    assert!(app.user(dealer.id).locked_at.is_some());
    let lockouts = app.audit("auth.lockout");
    assert_eq!(lockouts.len(), 1);
    assert_eq!(lockouts[0].target, "user:dana");

    // Locked: even the right password is refused, and the refusal is recorded.
    let res = app.sign_in("dana", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.session_count(dealer.id), 0);
    let refusals = app.audit("auth.signin.failed");
    assert_eq!(refusals.len(), 6);
    assert_eq!(refusals[5].details["reason"], "account locked");

    let pit = app.another_browser();
    let supervisor = pit.signed_in_as(Role::Supervisor).await;
    assert!(pit.get("/").await.text().await.unwrap().contains("dana"));
    let res = pit
        .post_form(&format!("/admin/users/{}/unlock", dealer.id), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let unlocked = app.user(dealer.id);
    assert!(unlocked.locked_at.is_none());
    assert_eq!(unlocked.failed_attempts, 0);
    let unlocks = app.audit("user.unlock");
    assert_eq!(unlocks.len(), 1);
    assert_eq!(unlocks[0].actor_user_id, Some(supervisor.id));
    assert_eq!(unlocks[0].target, "user:dana");

    assert_eq!(
        app.sign_in("dana", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn a_disabled_account_cannot_sign_in() {
    let app = spawn_app().await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);
    pusoy_pit::db::users::set_disabled(
        &mut app.conn(),
        dealer.id,
        true,
        &pusoy_pit::db::audit_log::Actor::system("test"),
    )
    .unwrap();

    assert_eq!(
        app.sign_in("dana", PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.audit("auth.signin.failed")[0].details["reason"],
        "account disabled"
    );
}

#[tokio::test]
async fn signing_in_issues_a_new_session_id() {
    let app = spawn_app().await;
    app.create_user("dana", Role::Dealer, PASSWORD);
    let form = app.get("/login").await;
    let before = set_cookies(form.headers());
    assert_eq!(
        before.len(),
        1,
        "the sign-in form starts a session for its token"
    );

    let res = app.sign_in("dana", PASSWORD).await;

    let after = set_cookies(res.headers());
    assert_eq!(after.len(), 1);
    let value = |cookie: &str| cookie.split(';').next().unwrap().to_owned();
    assert!(after[0].starts_with("pusoy_session="));
    assert_ne!(value(&before[0]), value(&after[0]));
}

#[tokio::test]
async fn the_session_cookie_is_http_only_strict_and_host_only() {
    let app = spawn_app().await;
    let res = app.get("/login").await;
    let cookie = &set_cookies(res.headers())[0];
    assert!(cookie.starts_with("pusoy_session="));
    assert!(cookie.contains("HttpOnly"));
    assert!(cookie.contains("SameSite=Strict"));
    assert!(cookie.contains("Path=/"));
    assert!(!cookie.contains("Domain"));
    assert!(!cookie.contains("Secure"), "plain-HTTP local mode");

    let secure = spawn_app_with(|c| c.secure_cookies = true).await;
    let res = secure.get("/login").await;
    let cookie = &set_cookies(res.headers())[0];
    assert!(cookie.starts_with("__Host-pusoy_session="));
    assert!(cookie.contains("Secure"));
    assert!(cookie.contains("HttpOnly"));
    assert!(cookie.contains("SameSite=Strict"));
}

#[tokio::test]
async fn sign_in_attempts_beyond_the_per_address_limit_get_429() {
    let app = spawn_app_with(|c| {
        c.login_rate_limit.burst = 2;
        c.login_rate_limit.per_minute = 1;
    })
    .await;
    for _ in 0..2 {
        assert_eq!(
            app.sign_in("x", "wrong-password").await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        app.sign_in("x", "wrong-password").await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // The sign-in form itself is not limited.
    assert_eq!(app.get("/login").await.status(), StatusCode::OK);
}

#[tokio::test]
async fn signing_out_ends_the_session_and_is_audited() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;

    let res = app.post_form("/logout", &[]).await;

    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/login");
    assert_eq!(app.session_count(dealer.id), 0);
    assert_eq!(app.get("/").await.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.audit("auth.signout").len(), 1);
}

/// Signs in at `app` as if through a proxy that heard the client at `client`.
async fn sign_in_from(app: &TestApp, client: &str, username: &str, password: &str) -> StatusCode {
    let token = app.csrf_token().await;
    app.client
        .post(app.url("/login"))
        .header("x-forwarded-for", client)
        .form(&[
            ("username", username),
            ("password", password),
            ("csrf_token", token.as_str()),
        ])
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_flood_of_wrong_passwords_locks_its_own_address_for_minutes_not_the_staff() {
    // Behind the documented reverse proxy, which the app is told to trust.
    let app = spawn_app_with(|config| {
        config.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
        // The rate limit (per client address, tested above) is not what this test is about.
        config.login_rate_limit.burst = 100;
    })
    .await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);
    let attacker = "198.51.100.66";
    for _ in 0..12 {
        let status = sign_in_from(&app, attacker, "dana", "wrong-password-here").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let lockouts = app.audit("auth.lockout");
    assert_eq!(
        lockouts.len(),
        1,
        "locked once; refusals while locked do not count"
    );
    assert_eq!(lockouts[0].details["client_addr"], attacker);
    assert_eq!(lockouts[0].client_addr.as_deref(), Some(attacker));
    // Even the right password is refused from the attacker's address ...
    assert_eq!(
        sign_in_from(&app, attacker, "dana", PASSWORD).await,
        StatusCode::UNAUTHORIZED
    );
    // ... while the dealer signs in at the table's tablet.
    let tablet = app.another_browser();
    assert_eq!(
        sign_in_from(&tablet, "10.20.0.7", "dana", PASSWORD).await,
        StatusCode::SEE_OTHER
    );
    assert_eq!(app.session_count(dealer.id), 1);
    // A client cannot choose its address by writing the header itself: the proxy's hop counts.
    let spoofer = app.another_browser();
    assert_eq!(
        sign_in_from(
            &spoofer,
            &format!("10.20.0.7, {attacker}"),
            "dana",
            PASSWORD
        )
        .await,
        StatusCode::UNAUTHORIZED
    );
    // The lock ends by itself after a few minutes.
    diesel::sql_query("UPDATE sign_in_locks SET locked_until = now() - interval '1 second'")
        .execute(&mut app.conn())
        .unwrap();
    assert_eq!(
        sign_in_from(&spoofer, attacker, "dana", PASSWORD).await,
        StatusCode::SEE_OTHER
    );
}
