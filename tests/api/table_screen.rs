//! The dealer's table screen: server-rendered form, preview, confirm, live check.
use diesel::prelude::*;
use pusoy_pit::db::users::Role;
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{location, spawn_app, TestApp};
use crate::rounds::create_table;

/// The error paragraph's text for a field.
fn error_for(html: &str, field: &str) -> String {
    let marker = format!("class=\"field-error\" data-for=\"{field}\">");
    let start = html.find(&marker).expect("an error paragraph") + marker.len();
    html[start..]
        .split("</p>")
        .next()
        .unwrap()
        .trim()
        .to_owned()
}

fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).expect("a hidden field") + marker.len();
    html[start..].split('"').next().unwrap().to_owned()
}

fn rounds_count(app: &TestApp) -> i64 {
    use pusoy_pit::db::schema::rounds;
    rounds::table.count().get_result(&mut app.conn()).unwrap()
}

/// Seat 1 fouls (middle above back), seat 2 surrenders, seat 3 wins two hands of three.
fn the_round() -> Vec<(&'static str, &'static str)> {
    vec![
        ("dealer_action", "play"),
        ("dealer_back", "2c 2d 2h 5s 6s"),
        ("dealer_middle", "7c 7d 8h 9s Tc"),
        ("dealer_front", "Jc Qd Kh"),
        ("seat1_action", "play"),
        ("seat1_bet", "500"),
        ("seat1_back", "8c 8d 9h Ts Jd"),
        ("seat1_middle", "Ac Ad Ah 3s 4s"),
        ("seat1_front", "Qc Kd As"),
        ("seat2_action", "surrender"),
        ("seat2_bet", "200"),
        ("seat3_action", "play"),
        ("seat3_bet", "300"),
        ("seat3_back", "3d 3h 3c 4d 5d"),
        ("seat3_middle", "9c 9d Qh Js Td"),
        ("seat3_front", "Qs Jh 6h"),
    ]
}

async fn page(app: &TestApp, code: &str) -> String {
    let res = app.get(&format!("/tables/{code}")).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.text().await.unwrap()
}

async fn submit(
    app: &TestApp,
    code: &str,
    html: &str,
    step: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let key = hidden(html, "draft_key");
    let revision = hidden(html, "revision");
    let mut all = fields.to_vec();
    all.push(("draft_key", &key));
    all.push(("revision", &revision));
    all.push(("step", step));
    app.post_form(&format!("/tables/{code}/round"), &all).await
}

#[tokio::test]
async fn the_page_shows_the_table_its_rules_and_the_round_form() {
    let app = spawn_app().await;
    create_table(&app, "T-PAGE");
    app.signed_in_as(Role::Dealer).await;
    let html = page(&app, "T-PAGE").await;
    let words = pusoy_pit::rules::profile::RuleProfile::default().describe();
    assert!(html.contains(&words), "profile words");
    assert!(html.contains("id=\"round-form\""));
    assert!(html.contains("data-check-url=\"/tables/T-PAGE/round/check\""));
    assert!(html.contains("<script src=\"/static/table.js\" defer></script>"));
    assert!(html.contains("name=\"seat3_front\""));
    let js = app.get("/static/table.js").await;
    assert_eq!(js.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_duplicate_card_is_shown_next_to_both_fields_and_saves_no_round() {
    let app = spawn_app().await;
    create_table(&app, "T-DUP");
    app.signed_in_as(Role::Dealer).await;
    let html = page(&app, "T-DUP").await;
    let mut fields = the_round();
    fields.retain(|(k, _)| !k.starts_with("seat3"));
    // Seat 1's back repeats the dealer's 2c.
    fields.retain(|(k, _)| *k != "seat1_back");
    fields.push(("seat1_back", "8c 8d 9h Ts 2c"));
    let res = submit(&app, "T-DUP", &html, "preview", &fields).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(!error_for(&html, "seat1_back").is_empty(), "seat 1 error");
    assert!(!error_for(&html, "dealer_back").is_empty(), "dealer error");
    assert!(
        html.contains("value=\"8c 8d 9h Ts 2c\""),
        "the entry is kept"
    );
    assert_eq!(rounds_count(&app), 0);
}

#[tokio::test]
async fn a_preview_explains_fouls_and_surrenders_and_a_confirm_settles_once() {
    let app = spawn_app().await;
    create_table(&app, "T-OK");
    app.signed_in_as(Role::Dealer).await;
    let html = page(&app, "T-OK").await;
    let res = submit(&app, "T-OK", &html, "preview", &the_round()).await;
    assert_eq!(res.status(), StatusCode::OK);
    let preview = res.text().await.unwrap();
    assert!(preview.contains("Foul:"), "foul explained");
    assert!(preview.contains("Surrendered"), "surrender shown");
    assert!(preview.contains("Dealer net"));
    assert!(preview.contains("value=\"confirm\""));
    assert_eq!(rounds_count(&app), 0);

    // A reload shows the saved draft.
    let reloaded = page(&app, "T-OK").await;
    assert!(reloaded.contains("value=\"Ac Ad Ah 3s 4s\""));

    let first = submit(&app, "T-OK", &preview, "confirm", &[]).await;
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    let target = location(&first).to_owned();
    assert!(target.starts_with("/tables/T-OK/rounds/"), "{target}");
    let second = submit(&app, "T-OK", &preview, "confirm", &[]).await;
    assert_eq!(second.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&second), target);
    assert_eq!(rounds_count(&app), 1);

    let shown = app.get(&target).await;
    assert_eq!(shown.status(), StatusCode::OK);
    let shown = shown.text().await.unwrap();
    assert!(shown.contains("Round 1"));
    assert!(page(&app, "T-OK").await.contains("/tables/T-OK/rounds/"));

    // A preview from the stale page is sent back to the table with a message.
    let stale = submit(&app, "T-OK", &preview, "preview", &the_round()).await;
    assert_eq!(stale.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&stale), "/tables/T-OK");
    assert!(page(&app, "T-OK").await.contains("class=\"flash\""));
    assert_eq!(rounds_count(&app), 1);
}

#[tokio::test]
async fn the_check_endpoint_answers_json_and_refuses_a_stale_revision() {
    let app = spawn_app().await;
    create_table(&app, "T-CHK");
    app.signed_in_as(Role::Dealer).await;
    let html = page(&app, "T-CHK").await;
    let token = app.csrf_token().await;
    let key = hidden(&html, "draft_key");
    let revision = hidden(&html, "revision");
    let post = |fields: Vec<(&'static str, String)>| {
        app.client
            .post(app.url("/tables/T-CHK/round/check"))
            .header("X-CSRF-Token", token.clone())
            .form(&fields)
            .send()
    };
    let mut fields: Vec<(&'static str, String)> = the_round()
        .into_iter()
        .map(|(k, v)| (k, v.to_owned()))
        .collect();
    fields.push(("draft_key", key.clone()));
    fields.push(("revision", revision.clone()));
    let mut bad = fields.clone();
    bad.push(("seat1_bet", "5".to_owned()));
    bad.retain(|(k, v)| *k != "seat1_bet" || v == "5");
    let res = post(bad).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert!(body["field_errors"]["seat1_bet"].is_string(), "{body}");
    assert_eq!(body["can_confirm"], false);
    // The check saved the draft: the next one goes on from the revision it returned.
    let saved = body["revision"].as_i64().unwrap().to_string();
    fields.retain(|(k, _)| *k != "revision");
    fields.push(("revision", saved.clone()));

    let res = post(fields.clone()).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["can_confirm"], true, "{body}");
    assert!(body["preview_html"]
        .as_str()
        .unwrap()
        .contains("Dealer net"));
    assert!(body["revision"].as_i64().unwrap() > saved.parse::<i64>().unwrap());

    // The revision the check was sent at is stale now.
    let res = post(fields).await.unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert_eq!(rounds_count(&app), 0);
}
