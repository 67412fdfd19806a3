//! The staff lifecycle: disabling, signing dealers off, password changes, user names.

use pusoy_pit::db::users::Role;
use reqwest::StatusCode;

use crate::helpers::{create_table, spawn_app, TestApp, PASSWORD};

/// A dealer signed on at `code` in their own browser.
async fn dealer_on_shift(app: &TestApp, code: &str) -> (TestApp, pusoy_pit::db::users::User) {
    create_table(app, code);
    let browser = app.another_browser();
    let dealer = browser.signed_in_as(Role::Dealer).await;
    browser.sign_on_at(code).await;
    (browser, dealer)
}

#[tokio::test]
async fn disabling_a_dealer_ends_their_shift_and_frees_the_table() {
    let app = spawn_app().await;
    let (_, dealer) = dealer_on_shift(&app, "T-1").await;
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;

    // First what it will do, and nothing done.
    let path = format!("/admin/users/{}/disable", dealer.id);
    let res = admin.post_form(&path, &[]).await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.unwrap();
    assert!(
        page.contains("They are on shift at T-1 since 20"),
        "the confirmation says the shift ends: {page}"
    );
    assert!(page.contains("that shift ends now, mid-game"), "{page}");
    assert!(page.contains("name=\"confirm\" value=\"yes\""), "{page}");
    assert!(app.open_shift("T-1").is_some());
    assert!(app.audit("user.disable").is_empty());

    let res = admin.post_form(&path, &[("confirm", "yes")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    assert_eq!(app.open_shift("T-1"), None);
    let signed_off = app.audit("table.sign_off");
    assert_eq!(signed_off.len(), 1);
    assert_eq!(signed_off[0].actor_name, "the-admin");
    assert_eq!(signed_off[0].details["reason"], "account disabled");
    assert_eq!(signed_off[0].details["dealer_id"], dealer.id.0);

    let next = app.another_browser();
    let other = next.create_user("maria", Role::Dealer, PASSWORD);
    next.sign_in(&other.username, PASSWORD).await;
    next.sign_on_at("T-1").await;
}

#[tokio::test]
async fn a_pit_manager_signs_any_dealer_off_and_a_dealer_only_themself() {
    let app = spawn_app().await;
    let (_, dealer) = dealer_on_shift(&app, "T-2").await;
    let other = app.another_browser();
    let maria = other.create_user("maria", Role::Dealer, PASSWORD);
    other.sign_in(&maria.username, PASSWORD).await;
    other.post_form("/tables/T-2/sign-off", &[]).await;
    assert!(app.open_shift("T-2").is_some());

    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let page = supervisor.get("/tables").await.text().await.unwrap();
    assert!(page.contains("Sign the dealer off"), "{page}");
    let res = supervisor.post_form("/tables/T-2/sign-off", &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    assert_eq!(app.open_shift("T-2"), None);
    let signed_off = app.audit("table.sign_off");
    assert_eq!(signed_off.len(), 1);
    assert_eq!(signed_off[0].actor_name, "the-supervisor");
    assert_eq!(signed_off[0].details["dealer_id"], dealer.id.0);
}

#[tokio::test]
async fn changing_ones_password_ends_ones_other_sessions_but_not_this_one() {
    let app = spawn_app().await;
    let user = app.signed_in_as(Role::Auditor).await;
    let elsewhere = app.another_browser();
    elsewhere.sign_in(&user.username, PASSWORD).await;
    assert_eq!(app.session_count(user.id), 2);

    let res = app
        .post_form(
            "/account/password",
            &[
                ("current_password", PASSWORD),
                ("new_password", "another-felt-table-9"),
                ("confirm_password", "another-felt-table-9"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    assert_eq!(app.session_count(user.id), 1);
    assert_eq!(app.get("/").await.status(), StatusCode::OK);
    let res = elsewhere.get("/").await;
    assert_eq!(crate::helpers::location(&res), "/login");
}

#[tokio::test]
async fn a_user_name_with_look_alike_letters_is_refused_with_the_allowed_set() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    for name in ["admın", "ädmin", "аdmin"] {
        let res = app
            .post_form(
                "/admin/users",
                &[
                    ("username", name),
                    ("display_name", "Look Alike"),
                    ("role", "dealer"),
                    ("password", PASSWORD),
                ],
            )
            .await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{name}");
        let page = res.text().await.unwrap();
        assert!(page.contains("lower-case ASCII letters a-z"), "{page}");
    }
    // Only the administrator signed in here was created.
    assert_eq!(app.audit("user.create").len(), 1);
}
