//! Every administration form keeps every value typed after an error (passwords excepted: a
//! password is never sent back to the browser), and saves nothing.
use diesel::prelude::*;
use pusoy_pit::db::schema::{api_tokens, gaming_tables, rule_profiles, users};
use pusoy_pit::db::users::Role;
use reqwest::StatusCode;

use crate::helpers::{count, create_table, spawn_app, PASSWORD};
use crate::profile_versions::section;

/// The issue's case: Surrender unticked, "both fouled: player loses", a bad suit order. The
/// form comes back with exactly those choices, so fixing the suit order alone saves them.
#[tokio::test]
async fn the_new_rule_profile_form_keeps_every_choice_after_an_error() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form(
            "/admin/profiles",
            &[
                ("name", "Night"),
                ("royalties", "on"),
                ("ties", "suit_order"),
                ("both_fouled", "player_loses"),
                ("wheel", "second"),
                ("suit_order_1", "d"),
                ("suit_order_2", "c"),
                ("suit_order_3", "h"),
                ("suit_order_4", "h"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let form = section(&page, "<h2>Add a rule profile</h2>");
    assert!(form.contains(r#"id="suit_order-error""#), "{form}");
    assert!(form.contains(r#"value="Night""#), "{form}");
    assert!(
        !form.contains(r#"name="surrender" value="on" checked"#),
        "{form}"
    );
    assert!(
        form.contains(r#"name="royalties" value="on" checked"#),
        "{form}"
    );
    assert!(
        !form.contains(r#"name="dealer_royalties" value="on" checked"#),
        "{form}"
    );
    assert!(form.contains(r#"value="suit_order" selected"#), "{form}");
    assert!(form.contains(r#"value="player_loses" selected"#), "{form}");
    assert!(form.contains(r#"value="second" selected"#), "{form}");
    // Each place's suit as chosen, the one chosen twice included.
    let chosen = |place: usize, suit: &str| {
        let select = form
            .split(&format!(r#"name="suit_order_{place}""#))
            .nth(1)
            .unwrap();
        let select = &select[..select.find("</select>").unwrap()];
        select.contains(&format!(r#"value="{suit}" selected"#))
    };
    assert!(
        chosen(1, "d") && chosen(2, "c") && chosen(3, "h") && chosen(4, "h"),
        "{form}"
    );
    let profiles: i64 = rule_profiles::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(profiles, 0);
}

#[tokio::test]
async fn the_new_table_form_keeps_every_value_after_an_error() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    let profile = the_tables_profile(&app);
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form(
            "/admin/tables",
            &[
                ("code", "pusoy-7"),
                ("name", "Salon Privé 7"),
                ("currency", "usd"),
                ("min_bet", "1,000.50"),
                ("max_bet", "5O,000"),
                ("rule_profile_id", &profile.to_string()),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let form = section(&page, "<h2>Add a table</h2>");
    assert!(form.contains(r#"id="max_bet-error""#), "{form}");
    for typed in ["pusoy-7", "Salon Privé 7", "usd", "1,000.50", "5O,000"] {
        assert!(
            form.contains(&format!(r#"value="{typed}""#)),
            "{typed}: {form}"
        );
    }
    assert!(
        form.contains(&format!(r#"value="{profile}" selected"#)),
        "{form}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM gaming_tables"), 1);
}

#[tokio::test]
async fn a_table_edit_refused_comes_back_as_typed_and_changes_nothing() {
    let app = spawn_app().await;
    let id = create_table(&app, "PUSOY-1");
    let profile = the_tables_profile(&app);
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form(
            &format!("/admin/tables/{id}"),
            &[
                ("name", "Renamed table"),
                ("currency", "PHP"),
                ("min_bet", "0"),
                ("max_bet", "2,500.00"),
                ("rule_profile_id", &profile.to_string()),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let row = section(&page, &format!(r#"id="table-{id}""#));
    assert!(row.contains(r#"value="Renamed table""#), "{row}");
    assert!(row.contains(r#"value="0""#), "{row}");
    assert!(row.contains(r#"value="2,500.00""#), "{row}");
    assert!(row.contains(&format!(r#"id="table-{id}-error""#)), "{row}");
    assert!(row.contains("The minimum bet must be above zero."), "{row}");
    let name: String = gaming_tables::table
        .find(id)
        .select(gaming_tables::name)
        .first(&mut app.conn())
        .unwrap();
    assert_eq!(name, "Table", "nothing saved");
}

#[tokio::test]
async fn the_new_staff_form_keeps_every_value_but_the_password_after_an_error() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form(
            "/admin/users",
            &[
                ("username", "  Nina.Newcomer "),
                ("display_name", "Nina Newcomer"),
                ("role", "supervisor"),
                ("password", "short"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let form = section(&page, "<h2>Add a staff member</h2>");
    assert!(form.contains(r#"id="password-error""#), "{form}");
    assert!(form.contains(r#"value="  Nina.Newcomer ""#), "{form}");
    assert!(form.contains(r#"value="Nina Newcomer""#), "{form}");
    assert!(form.contains(r#"value="supervisor" selected"#), "{form}");
    assert!(!form.contains("short"), "the password is not sent back");
    let accounts: i64 = users::table.count().get_result(&mut app.conn()).unwrap();
    assert_eq!(accounts, 1, "only the administrator");
}

#[tokio::test]
async fn the_issue_token_form_keeps_every_value_after_an_error() {
    let app = spawn_app().await;
    let dealer = app.create_user("cage-dealer", Role::Dealer, PASSWORD);
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form(
            "/admin/tokens",
            &[
                ("name", "Cage system"),
                ("user_id", &dealer.id.to_string()),
                ("expires_at", "31/12/2099"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let form = section(&page, "<h2>Issue a token</h2>");
    assert!(form.contains(r#"id="expires-error""#), "{form}");
    assert!(form.contains(r#"value="Cage system""#), "{form}");
    assert!(
        form.contains(&format!(r#"value="{}" selected"#, dealer.id)),
        "{form}"
    );
    assert!(form.contains(r#"value="31/12/2099""#), "{form}");
    // A time that has passed: refused, the same values kept.
    let res = app
        .post_form(
            "/admin/tokens",
            &[
                ("name", "Cage system"),
                ("user_id", &dealer.id.to_string()),
                ("expires_at", "2020-01-01T00:00"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("The expiry must be in the future."), "{page}");
    assert!(page.contains(r#"value="2020-01-01T00:00""#), "{page}");
    let issued: i64 = api_tokens::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(issued, 0);
}

/// The approval threshold is typed in the table's currency, saved in minor units, shown as an
/// amount, and cleared by leaving it empty; zero, a negative or a word is refused, as typed,
/// with nothing saved.
#[tokio::test]
async fn a_tables_approval_threshold_is_set_refused_and_cleared_from_its_form() {
    let app = spawn_app().await;
    let id = create_table(&app, "PUSOY-1");
    let profile = the_tables_profile(&app);
    let profile = profile.to_string();
    let threshold = |app: &crate::helpers::TestApp| -> Option<i64> {
        gaming_tables::table
            .find(id)
            .select(gaming_tables::approval_threshold)
            .first(&mut app.conn())
            .unwrap()
    };
    app.signed_in_as(Role::Admin).await;
    let edit = |value: &'static str| {
        let app = &app;
        let profile = profile.clone();
        async move {
            app.post_form(
                &format!("/admin/tables/{id}"),
                &[
                    ("name", "Table"),
                    ("currency", "PHP"),
                    ("min_bet", "1.00"),
                    ("max_bet", "100.00"),
                    ("rule_profile_id", &profile),
                    ("approval_threshold", value),
                ],
            )
            .await
        }
    };

    let res = edit("1,500.50").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(threshold(&app), Some(150_050), "saved in centavos");
    let page = app.get("/admin/tables").await.text().await.unwrap();
    let row = section(&page, &format!(r#"id="table-{id}""#));
    assert!(row.contains(r#"value="1500.50""#), "{row}");

    for (typed, says) in [
        (
            "0",
            "The approval threshold must be above zero (leave it empty for none).",
        ),
        (
            "-5",
            "Enter an amount such as 5000 or 5000.00, or leave it empty for none.",
        ),
        (
            "lots",
            "Enter an amount such as 5000 or 5000.00, or leave it empty for none.",
        ),
        (
            "12.345",
            "Enter an amount such as 5000 or 5000.00, or leave it empty for none.",
        ),
    ] {
        let res = edit(typed).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{typed}");
        let page = res.text().await.unwrap();
        let row = section(&page, &format!(r#"id="table-{id}""#));
        assert!(
            row.contains(&format!(r#"value="{typed}""#)),
            "{typed}: {row}"
        );
        assert!(page.contains(says), "{typed}: {page}");
        assert_eq!(threshold(&app), Some(150_050), "{typed}: nothing saved");
    }

    let res = edit("").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(threshold(&app), None, "empty: no threshold");
    let page = app.get("/admin/tables").await.text().await.unwrap();
    let row = section(&page, &format!(r#"id="table-{id}""#));
    assert!(row.contains(r#"placeholder="none" value="""#), "{row}");
}

/// The rule profile of the first table made (`create_table` makes one per table).
fn the_tables_profile(app: &crate::helpers::TestApp) -> i64 {
    gaming_tables::table
        .select(gaming_tables::rule_profile_id)
        .first(&mut app.conn())
        .unwrap()
}
