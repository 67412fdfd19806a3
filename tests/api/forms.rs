use pusoy_pit::db::users::Role;
use reqwest::StatusCode;

use crate::helpers::{count, create_table, spawn_app};

#[tokio::test]
async fn a_nul_in_a_round_form_field_is_refused_naming_the_field_and_nothing_is_saved() {
    let app = spawn_app().await;
    create_table(&app, "T-9");
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at("T-9").await;
    let res = dealer
        .post_form(
            "/tables/T-9/round",
            &[
                ("step", "preview"),
                ("seat1_action", "play"),
                ("seat1_bet", "5"),
                ("dealer_back", "2c\0"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let page = res.text().await.unwrap();
    assert!(page.contains("dealer_back"), "{page}");
    assert!(page.contains("U+0000"), "{page}");
    assert_eq!(count(&dealer, "SELECT count(*) AS n FROM round_drafts"), 0);
}
