//! A rule profile's new version applies per table: from the table's next dealer shift, or from a
//! time the administrator sets; a table in mid-shift keeps its version until then.
use diesel::prelude::*;
use pusoy_pit::db::schema::gaming_tables;
use pusoy_pit::db::users::Role;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{call, create_table, spawn_app, the_round, TestApp};

fn profile_of(app: &TestApp, table_id: i64) -> i64 {
    gaming_tables::table
        .find(table_id)
        .select(gaming_tables::rule_profile_id)
        .first(&mut app.conn())
        .unwrap()
}

async fn record(app: &TestApp, key: &str) -> (StatusCode, Value) {
    call(
        app,
        Method::PUT,
        &format!("/api/v1/tables/PUSOY-1/rounds/{key}"),
        Some(the_round()),
    )
    .await
}

/// The administrator saves the profile with surrender off (`the_round` has a seat surrender).
async fn surrender_off(admin: &TestApp, profile: i64, applies: &[(&str, &str)]) -> u16 {
    let mut fields = vec![
        ("ties", "dealer_wins"),
        ("both_fouled", "push"),
        ("wheel", "lowest"),
        ("suit_order_1", "d"),
        ("suit_order_2", "c"),
        ("suit_order_3", "h"),
        ("suit_order_4", "s"),
        ("royalties", "on"),
        ("dealer_royalties", "on"),
    ];
    fields.extend_from_slice(applies);
    admin
        .post_form(&format!("/admin/profiles/{profile}"), &fields)
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_new_version_waits_for_the_next_dealer_shift_at_a_table_in_mid_shift() {
    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    let dealer = app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let (status, first) = record(&app, "cage-0000-0001").await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let v1 = first["rule_profile_version_id"].as_i64().unwrap();

    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let profile = profile_of(&app, table_id);
    let saved = surrender_off(&admin, profile, &[("applies", "next_shift")]).await;
    assert_eq!(saved, 303);

    // Mid-shift the table keeps version 1: a surrender still settles.
    let (status, second) = record(&app, "cage-0000-0002").await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert_eq!(second["rule_profile_version_id"], v1);
    let list = admin.get("/tables").await.text().await.unwrap();
    assert!(list.contains("v1 in force"), "{list}");
    assert!(
        list.contains("v2 waiting, from the next dealer shift"),
        "{list}"
    );

    // The next shift starts under version 2, and its sign-on says so.
    app.sign_off_at("PUSOY-1").await;
    app.sign_on_at("PUSOY-1").await;
    let (status, refused) = record(&app, "cage-0000-0003").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let sign_ons = app.audit("table.sign_on");
    let v2 = sign_ons.last().unwrap().details["rule_profile_version_id"].clone();
    assert_ne!(v2, Value::from(v1));
    let list = admin.get("/tables").await.text().await.unwrap();
    assert!(list.contains("v2 in force"), "{list}");
    assert!(!list.contains("waiting"), "{list}");
    assert_eq!(dealer.role, Role::Dealer);
}

#[tokio::test]
async fn a_version_set_for_a_time_applies_then_even_in_mid_shift() {
    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-1").await;
    let (status, first) = record(&app, "cage-0000-0001").await;
    assert_eq!(status, StatusCode::CREATED, "{first}");

    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let profile = profile_of(&app, table_id);
    let saved = surrender_off(
        &admin,
        profile,
        &[("applies", "at"), ("applies_at", "2099-12-31T20:00")],
    )
    .await;
    assert_eq!(saved, 303);
    let list = admin.get("/tables").await.text().await.unwrap();
    assert!(
        list.contains("v2 waiting, from 2099-12-31 20:00 (PHT, UTC+08:00)"),
        "{list}"
    );
    // Before its time: still version 1 (the table remembered from the first round is right).
    let (status, second) = record(&app, "cage-0000-0002").await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert_eq!(
        second["rule_profile_version_id"],
        first["rule_profile_version_id"]
    );

    // Its time comes (moved into the past rather than waited for): the same shift now plays
    // version 2, although the server remembers the table as it was.
    diesel::sql_query("UPDATE gaming_tables SET next_profile_from = now() - interval '1 second'")
        .execute(&mut app.conn())
        .unwrap();
    let (status, refused) = record(&app, "cage-0000-0003").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let list = admin.get("/tables").await.text().await.unwrap();
    assert!(list.contains("v2 in force"), "{list}");
}

#[tokio::test]
async fn a_time_in_the_past_is_refused_with_every_value_kept() {
    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Admin).await;
    let profile = profile_of(&app, table_id);
    let res = app
        .post_form(
            &format!("/admin/profiles/{profile}"),
            &[
                ("ties", "suit_order"),
                ("both_fouled", "player_loses"),
                ("wheel", "second"),
                ("suit_order_1", "s"),
                ("suit_order_2", "h"),
                ("suit_order_3", "d"),
                ("suit_order_4", "c"),
                ("applies", "at"),
                ("applies_at", "2020-01-01T06:00"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let form = section(&page, &format!("id=\"profile-{profile}\""));
    assert!(form.contains("has passed"), "{form}");
    assert!(form.contains(r#"value="suit_order" selected"#), "{form}");
    assert!(form.contains(r#"value="player_loses" selected"#), "{form}");
    assert!(form.contains(r#"value="second" selected"#), "{form}");
    // The suit order as chosen, place by place.
    for (place, suit) in ["s", "h", "d", "c"].into_iter().enumerate() {
        let select = form
            .split(&format!(r#"name="suit_order_{}""#, place + 1))
            .nth(1)
            .unwrap();
        let select = &select[..select.find("</select>").unwrap()];
        assert!(
            select.contains(&format!(r#"value="{suit}" selected"#)),
            "{form}"
        );
    }
    assert!(form.contains(r#"value="at" checked"#), "{form}");
    assert!(form.contains(r#"value="2020-01-01T06:00""#), "{form}");
    assert!(
        !form.contains(r#"name="surrender" value="on" checked"#),
        "{form}"
    );
    let versions: i64 = diesel::dsl::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
        "(SELECT count(*) FROM rule_profile_versions)",
    ))
    .get_result(&mut app.conn())
    .unwrap();
    assert_eq!(versions, 1, "nothing saved");
}

/// The part of `page` from the element with `marker` to the end of its section.
pub fn section<'a>(page: &'a str, marker: &str) -> &'a str {
    let start = page
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {page}"));
    let rest = &page[start..];
    &rest[..rest.find("</section>").unwrap_or(rest.len())]
}

#[tokio::test]
async fn an_unknown_applies_choice_is_refused_and_nothing_saved() {
    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Admin).await;
    let profile = profile_of(&app, table_id);
    let status = surrender_off(&app, profile, &[("applies", "tomorrow")]).await;
    assert_eq!(status, 422);
    let versions: i64 = diesel::dsl::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
        "(SELECT count(*) FROM rule_profile_versions)",
    ))
    .get_result(&mut app.conn())
    .unwrap();
    assert_eq!(versions, 1, "nothing saved");
}
