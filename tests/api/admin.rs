use pusoy_pit::db::users::{self, Role};
use reqwest::StatusCode;

use crate::helpers::{spawn_app, PASSWORD};

#[tokio::test]
async fn an_admin_creates_an_account_who_must_then_choose_a_password() {
    let app = spawn_app().await;
    let admin = app.signed_in_as(Role::Admin).await;

    let res = app
        .post_form(
            "/admin/users",
            &[
                ("username", "  NewDealer "),
                ("display_name", "Nina Newcomer"),
                ("role", "dealer"),
                ("password", PASSWORD),
            ],
        )
        .await;

    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let created = users::find_by_username(&mut app.conn(), "newdealer")
        .unwrap()
        .unwrap();
    assert_eq!(created.role, Role::Dealer);
    assert_eq!(created.display_name, "Nina Newcomer");
    assert!(created.must_change_password);
    assert!(created
        .password_hash
        .starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
    let events = app.audit("user.create");
    let last = events.last().unwrap();
    assert_eq!(last.target, "user:newdealer");
    assert_eq!(last.actor_user_id, Some(admin.id));
    let list = app.get("/admin/users").await.text().await.unwrap();
    assert!(list.contains("Nina Newcomer"));
    assert!(list.contains("Created newdealer"));
}

#[tokio::test]
async fn input_errors_show_next_to_their_fields_and_nothing_is_saved() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let before = app.audit("user.create").len();

    let res = app
        .post_form(
            "/admin/users",
            &[
                ("username", "bad name!"),
                ("display_name", ""),
                ("role", "croupier"),
                ("password", "password123"),
            ],
        )
        .await;

    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains("id=\"username-error\">Use only lower-case ASCII letters"));
    assert!(html.contains("id=\"display_name-error\">Enter a name"));
    assert!(html.contains("id=\"role-error\">Choose a role"));
    assert!(html.contains("id=\"password-error\">This password is on the list"));
    // What was typed is kept (except the password).
    assert!(html.contains("value=\"bad name!\""));
    assert_eq!(app.audit("user.create").len(), before);
}

#[tokio::test]
async fn a_taken_user_name_is_reported_on_the_form() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    app.create_user("dana", Role::Dealer, PASSWORD);

    let res = app
        .post_form(
            "/admin/users",
            &[
                ("username", "DANA"),
                ("display_name", "Another Dana"),
                ("role", "auditor"),
                ("password", PASSWORD),
            ],
        )
        .await;

    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("id=\"username-error\">The user name dana is taken."));
}

#[tokio::test]
async fn a_weak_reset_password_is_refused_next_to_its_field() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let dealer = app.create_user("dana", Role::Dealer, PASSWORD);

    let res = app
        .post_form(
            &format!("/admin/users/{}/reset-password", dealer.id),
            &[("new_password", "short")],
        )
        .await;

    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains(&format!(
        "id=\"reset-{}-error\">Use at least 8 characters",
        dealer.id
    )));
    assert_eq!(app.user(dealer.id).password_hash, dealer.password_hash);
}

#[tokio::test]
async fn a_password_reset_ends_the_users_sessions() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;

    let res = admin
        .post_form(
            &format!("/admin/users/{}/reset-password", dealer.id),
            &[("new_password", "temporary-pass-2")],
        )
        .await;

    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.session_count(dealer.id), 0);
    assert_eq!(app.get("/").await.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn an_admin_cannot_disable_their_own_account() {
    let app = spawn_app().await;
    let admin = app.signed_in_as(Role::Admin).await;

    let res = app
        .post_form(&format!("/admin/users/{}/disable", admin.id), &[])
        .await;

    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert!(app.user(admin.id).disabled_at.is_none());
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
}

#[tokio::test]
async fn changing_a_password_checks_the_current_one_and_the_policy() {
    let app = spawn_app().await;
    let dealer = app.signed_in_as(Role::Dealer).await;

    let res = app
        .post_form(
            "/account/password",
            &[
                ("current_password", "wrong-current-1"),
                ("new_password", "qwerty123"),
                ("confirm_password", "qwerty124"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains("id=\"current_password-error\">This is not your current password."));
    assert!(html.contains("id=\"new_password-error\">This password is on the list"));
    assert!(html.contains("id=\"confirm_password-error\">The two new passwords differ."));
    assert_eq!(app.user(dealer.id).password_hash, dealer.password_hash);

    let res = app
        .post_form(
            "/account/password",
            &[
                ("current_password", PASSWORD),
                ("new_password", "a much longer passphrase"),
                ("confirm_password", "a much longer passphrase"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let fresh = app.another_browser();
    assert_eq!(
        fresh
            .sign_in("the-dealer", "a much longer passphrase")
            .await
            .status(),
        StatusCode::SEE_OTHER
    );
    assert_eq!(
        fresh.sign_in("the-dealer", PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );
}
