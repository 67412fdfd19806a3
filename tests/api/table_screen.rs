//! The dealer's table screen: server-rendered form, preview, confirm, live check.
use diesel::prelude::*;
use pusoy_pit::db::users::Role;
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::create_table;
use crate::helpers::{assert_every_round_has_its_figures, location, spawn_app, TestApp};

/// The error paragraph's text for a field.
pub(crate) fn error_for(html: &str, field: &str) -> String {
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

/// Seat 1 fouls (middle above back), seat 2 surrenders, seat 3 wins two hands of three: the
/// house wins 9.00.
pub(crate) fn the_round() -> Vec<(&'static str, &'static str)> {
    vec![
        ("dealer_action", "play"),
        ("dealer_back", "2c 2d 2h 5s 6s"),
        ("dealer_middle", "7c 7d 8h 9s Tc"),
        ("dealer_front", "Jc Qd Kh"),
        ("seat1_action", "play"),
        ("seat1_bet", "5"),
        ("seat1_back", "8c 8d 9h Ts Jd"),
        ("seat1_middle", "Ac Ad Ah 3s 4s"),
        ("seat1_front", "Qc Kd As"),
        ("seat2_action", "surrender"),
        ("seat2_bet", "2"),
        ("seat3_action", "play"),
        ("seat3_bet", "3"),
        ("seat3_back", "3d 3h 3c 4d 5d"),
        ("seat3_middle", "9c 9d Qh Js Td"),
        ("seat3_front", "Qs Jh 6h"),
    ]
}

pub(crate) async fn page(app: &TestApp, code: &str) -> String {
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
    app.sign_on_at("T-PAGE").await;
    let html = page(&app, "T-PAGE").await;
    let words = pusoy_pit::rules::profile::RuleProfile::default().describe();
    assert!(html.contains(&words), "profile words");
    assert!(html.contains("id=\"round-form\""));
    assert!(html.contains("data-check-url=\"/tables/T-PAGE/round/check\""));
    assert!(html.contains("<script type=\"module\" src=\"/static/table.js\"></script>"));
    assert!(html.contains("name=\"seat3_front\""));
    // No chip set for its currency: table accounting is not kept here, no opener is asked for.
    assert!(
        !html.contains("id=\"count\""),
        "no opener's count without a chip set"
    );
    // Every module table.js imports, and every module those import, is served as JavaScript.
    let mut todo = vec!["table.js".to_string()];
    let mut served = std::collections::BTreeSet::new();
    while let Some(module) = todo.pop() {
        if !served.insert(module.clone()) {
            continue;
        }
        let js = app.get(&format!("/static/{module}")).await;
        assert_eq!(js.status(), StatusCode::OK, "{module}");
        let kind = js.headers()["content-type"].to_str().unwrap().to_string();
        assert!(kind.starts_with("text/javascript"), "{module}: {kind}");
        let text = js.text().await.unwrap();
        for import in text.split("from './").skip(1) {
            todo.push(import.split('\'').next().unwrap().to_string());
        }
    }
    for module in [
        "round-model.js",
        "picker.js",
        "live-save.js",
        "preview-confirm.js",
        "cards.js",
    ] {
        assert!(served.contains(module), "{module} among {served:?}");
    }
}

#[tokio::test]
async fn a_duplicate_card_is_shown_next_to_both_fields_and_saves_no_round() {
    let app = spawn_app().await;
    create_table(&app, "T-DUP");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-DUP").await;
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
    app.sign_on_at("T-OK").await;
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
    assert!(target.starts_with("/tables/T-OK?settled="), "{target}");
    let second = submit(&app, "T-OK", &preview, "confirm", &[]).await;
    assert_eq!(second.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&second), target);
    assert_eq!(rounds_count(&app), 1);
    assert_every_round_has_its_figures(&app);

    // Back at the table: the round's result above the next round's form, which starts empty.
    let next = app.get(&target).await.text().await.unwrap();
    assert!(next.contains("id=\"round-result\""), "{next}");
    assert!(
        next.contains("Round 1 confirmed</strong> · House result"),
        "{next}"
    );
    assert!(next.contains("value=\"\""), "{next}");
    let shown = app.get(&round_page_of(&target)).await;
    assert_eq!(shown.status(), StatusCode::OK);
    let shown = shown.text().await.unwrap();
    assert!(shown.contains("Round 1"));
    assert!(page(&app, "T-OK").await.contains("/tables/T-OK/rounds/"));

    // A preview from the stale page is sent back to the table with a message.
    let stale = submit(&app, "T-OK", &preview, "preview", &the_round()).await;
    assert_eq!(stale.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&stale), "/tables/T-OK");
    assert!(page(&app, "T-OK")
        .await
        .contains("class=\"flash flash-error\""));
    assert_eq!(rounds_count(&app), 1);
}

#[tokio::test]
async fn the_check_endpoint_answers_json_and_refuses_a_stale_revision() {
    let app = spawn_app().await;
    create_table(&app, "T-CHK");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-CHK").await;
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
    bad.push(("seat1_bet", "0.50".to_owned()));
    bad.retain(|(k, v)| *k != "seat1_bet" || v == "0.50");
    let res = post(bad).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body["field_errors"]["seat1_bet"],
        "seat 1 bet PHP 0.50 is below the table minimum of PHP 1.00",
        "bets are entered and explained in pesos: {body}"
    );
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

/// The text of the `<strong class="{class}">` on the page.
pub(crate) fn strong(html: &str, class: &str) -> String {
    let marker = format!("<strong class=\"{class}\">");
    let start = html.find(&marker).expect("the figure") + marker.len();
    html[start..].split('<').next().unwrap().to_owned()
}

#[derive(QueryableByName, Debug)]
struct PlaceResult {
    #[diesel(sql_type = diesel::sql_types::Text)]
    place: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    action: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    royalty: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    outcome: Option<String>,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    result: i64,
}

fn places_of_last_round(app: &TestApp) -> Vec<PlaceResult> {
    diesel::sql_query(
        "SELECT place, action, royalty, outcome, result FROM round_places \
         WHERE round_id = (SELECT max(id) FROM rounds) ORDER BY place",
    )
    .load(&mut app.conn())
    .unwrap()
}

#[tokio::test]
async fn a_dealer_who_is_not_signed_on_is_sent_to_sign_on_and_nothing_is_opened() {
    let app = spawn_app().await;
    create_table(&app, "T-OFF");
    app.signed_in_as(Role::Dealer).await;

    let res = app.get("/tables/T-OFF").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/tables");
    let tables = app.get("/tables").await.text().await.unwrap();
    assert!(
        tables.contains("You are not signed on at T-OFF; sign on first."),
        "the flash says why"
    );
    let refused = app
        .post_form(
            "/tables/T-OFF/round",
            &[("step", "preview"), ("dealer_action", "play")],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&refused), "/tables");
    use pusoy_pit::db::schema::round_drafts;
    let drafts: i64 = round_drafts::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(drafts, 0);
    assert_eq!(rounds_count(&app), 0);
}

#[tokio::test]
async fn the_house_result_is_shown_for_the_shift_and_for_the_day() {
    let app = spawn_app().await;
    create_table(&app, "T-SHIFT");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-SHIFT").await;
    let html = page(&app, "T-SHIFT").await;
    assert_eq!(strong(&html, "house-shift"), "PHP 0.00");
    assert!(html.contains("Dealer on shift: the-dealer Test since"));
    let preview = submit(&app, "T-SHIFT", &html, "preview", &the_round()).await;
    let preview = preview.text().await.unwrap();
    let res = submit(&app, "T-SHIFT", &preview, "confirm", &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    let html = page(&app, "T-SHIFT").await;
    assert_eq!(strong(&html, "house-shift"), "PHP +9.00");
    assert_eq!(strong(&html, "house-today"), "PHP +9.00");

    // A new shift starts from nothing; the day keeps counting.
    app.sign_off_at("T-SHIFT").await;
    app.sign_on_at("T-SHIFT").await;
    let html = page(&app, "T-SHIFT").await;
    assert_eq!(strong(&html, "house-shift"), "PHP 0.00");
    assert_eq!(strong(&html, "house-today"), "PHP +9.00");
}

#[tokio::test]
async fn the_dealer_may_surrender_and_pays_each_player_still_in() {
    let app = spawn_app().await;
    create_table(&app, "T-SUR");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-SUR").await;
    let html = page(&app, "T-SUR").await;
    let dealer_select = html
        .split("name=\"dealer_action\">")
        .nth(1)
        .unwrap()
        .split("</select>")
        .next()
        .unwrap();
    assert!(
        dealer_select.contains("value=\"surrender\""),
        "{dealer_select}"
    );
    // Seat 2 surrenders first (seats before the dealer); seats 1 and 3 are still in.
    let fields = [
        ("dealer_action", "surrender"),
        ("seat1_action", "play"),
        ("seat1_bet", "5"),
        ("seat2_action", "surrender"),
        ("seat2_bet", "2"),
        ("seat3_action", "play"),
        ("seat3_bet", "3"),
    ];
    let res = submit(&app, "T-SUR", &html, "preview", &fields).await;
    assert_eq!(res.status(), StatusCode::OK);
    let preview = res.text().await.unwrap();
    assert!(preview.contains("Dealer surrendered"), "preview outcome");
    assert!(
        preview.contains("Dealer net: <strong>PHP -6.00</strong>"),
        "net"
    );

    let res = submit(&app, "T-SUR", &preview, "confirm", &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let places = places_of_last_round(&app);
    let got: Vec<(&str, &str, i64)> = places
        .iter()
        .map(|p| (p.place.as_str(), p.action.as_str(), p.result))
        .collect();
    assert_eq!(
        got,
        vec![
            ("dealer", "surrender", -600),
            ("seat1", "play", 500),
            ("seat2", "surrender", -200),
            ("seat3", "play", 300),
        ]
    );
    assert_eq!(places[1].outcome.as_deref(), Some("dealer_surrendered"));
}

#[tokio::test]
async fn a_royalty_declared_without_a_type_is_recorded_as_the_one_the_cards_hold() {
    let app = spawn_app().await;
    create_table(&app, "T-ROY");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-ROY").await;
    let html = page(&app, "T-ROY").await;
    let fields = [
        ("dealer_action", "play"),
        ("dealer_back", "2c 2d 2h 5s 6s"),
        ("dealer_middle", "7c 7d 8h 9s Tc"),
        ("dealer_front", "Jc Qd Kh"),
        ("seat1_action", "royalty"),
        ("seat1_bet", "5"),
        // Four aces and three pairs: four of a kind, not six pairs.
        ("seat1_dealt", "Ac Ad Ah As 3c 3d 4c 4d 6c 6d 9c Jd Qc"),
    ];
    let res = submit(&app, "T-ROY", &html, "preview", &fields).await;
    assert_eq!(res.status(), StatusCode::OK);
    let preview = res.text().await.unwrap();
    let res = submit(&app, "T-ROY", &preview, "confirm", &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    let places = places_of_last_round(&app);
    assert_eq!(places[1].place, "seat1");
    assert_eq!(places[1].royalty.as_deref(), Some("four_of_a_kind"));
    assert_eq!(places[1].result, 500);
    assert_eq!(places[0].result, -500);
}

#[tokio::test]
async fn the_check_endpoint_notes_each_set_place_before_the_round_is_complete() {
    let app = spawn_app().await;
    create_table(&app, "T-NOTE");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-NOTE").await;
    let html = page(&app, "T-NOTE").await;
    let token = app.csrf_token().await;
    let fields = [
        ("draft_key", hidden(&html, "draft_key")),
        ("revision", hidden(&html, "revision")),
        // The dealer has not set hands yet, and seat 3 has a card that does not parse.
        ("dealer_action", "play".to_owned()),
        ("seat1_action", "play".to_owned()),
        ("seat1_bet", "5".to_owned()),
        ("seat1_back", "Ac Ad Ah 3s 4s".to_owned()),
        ("seat1_middle", "8c 8d 9h Ts Jd".to_owned()),
        ("seat1_front", "Qc Kd As".to_owned()),
        ("seat2_action", "play".to_owned()),
        ("seat2_bet", "2".to_owned()),
        ("seat2_back", "6c 6d 2h 3h 4h".to_owned()),
        ("seat2_middle", "9c 9d Kh Th Jh".to_owned()),
        ("seat2_front", "Qh 7d 5s".to_owned()),
        ("seat3_action", "play".to_owned()),
        ("seat3_bet", "3".to_owned()),
        ("seat3_back", "2c 2d 2s 7s Xx".to_owned()),
        ("seat3_middle", "Tc Td 8s 9s Js".to_owned()),
        ("seat3_front", "Ks Qs 3d".to_owned()),
    ];
    let res = app
        .client
        .post(app.url("/tables/T-NOTE/round/check"))
        .header("X-CSRF-Token", token)
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["can_confirm"], false, "{body}");

    let seat2 = &body["place_hands"]["seat2"];
    assert_eq!(
        seat2["foul"], "middle (pair of nines) ranks above back (pair of sixes)",
        "{body}"
    );
    assert!(
        seat2["back"].as_str().unwrap().starts_with("pair of sixes"),
        "{body}"
    );
    assert!(
        seat2["middle"]
            .as_str()
            .unwrap()
            .starts_with("pair of nines"),
        "{body}"
    );
    assert!(
        seat2["front"].as_str().unwrap().starts_with("high card"),
        "{body}"
    );
    let seat2_line = body["place_notes"]["seat2"].as_str().unwrap();
    assert!(
        seat2_line.starts_with("fouled: middle (pair of nines) ranks above back"),
        "{seat2_line}"
    );

    let seat1 = &body["place_hands"]["seat1"];
    assert_eq!(seat1["foul"], Value::Null, "{body}");
    assert!(
        seat1["back"]
            .as_str()
            .unwrap()
            .starts_with("three of a kind"),
        "{body}"
    );
    assert!(body["place_notes"]["seat1"]
        .as_str()
        .unwrap()
        .starts_with("back: three of a kind"));

    // No note where the cards do not make three hands.
    assert!(body["place_notes"].get("seat3").is_none(), "{body}");
    assert!(body["place_notes"].get("dealer").is_none(), "{body}");
}

#[tokio::test]
async fn signing_on_leads_to_the_table_and_home_tables_and_round_numbers_link_onwards() {
    let app = spawn_app().await;
    create_table(&app, "T-NAV");
    create_table(&app, "T-ELSE");
    app.signed_in_as(Role::Dealer).await;
    let res = app.post_form("/tables/T-NAV/sign-on", &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/tables/T-NAV");
    assert!(page(&app, "T-NAV")
        .await
        .contains("You are signed on at T-NAV"));

    let home = app.get("/").await.text().await.unwrap();
    assert!(
        home.contains("href=\"/tables/T-NAV\""),
        "home links the table"
    );
    let tables = app.get("/tables").await.text().await.unwrap();
    assert!(
        tables.contains("<a href=\"/tables/T-NAV\">T-NAV</a>"),
        "the list links it"
    );
    assert!(
        !tables.contains("href=\"/tables/T-ELSE\""),
        "not another's table"
    );

    let html = page(&app, "T-NAV").await;
    let preview = submit(&app, "T-NAV", &html, "preview", &the_round()).await;
    let preview = preview.text().await.unwrap();
    let confirmed = submit(&app, "T-NAV", &preview, "confirm", &[]).await;
    let round = round_page_of(location(&confirmed));
    let html = page(&app, "T-NAV").await;
    assert!(
        html.contains(&format!("<a href=\"{round}\">1</a>")),
        "round 1 links to {round}"
    );
}

/// The round page of the round a Confirm named in its redirect (`/tables/CODE?settled=ID`).
pub(crate) fn round_page_of(location: &str) -> String {
    let (table, id) = location
        .split_once("?settled=")
        .expect("a redirect naming the settled round");
    format!("{table}/rounds/{id}")
}

/// Settles the test round at `code` from the table screen; the round page's path.
async fn settle_one(app: &TestApp, code: &str) -> String {
    let html = page(app, code).await;
    let preview = submit(app, code, &html, "preview", &the_round()).await;
    let preview = preview.text().await.unwrap();
    let confirmed = submit(app, code, &preview, "confirm", &[]).await;
    assert_eq!(confirmed.status(), StatusCode::SEE_OTHER);
    round_page_of(location(&confirmed))
}

#[tokio::test]
async fn a_dealer_reads_only_the_rounds_of_their_own_shift_and_pit_staff_read_all() {
    let app = spawn_app().await;
    create_table(&app, "T-MINE");
    create_table(&app, "T-THEIRS");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-MINE").await;
    let mine = settle_one(&app, "T-MINE").await;
    assert_eq!(app.get(&mine).await.status(), StatusCode::OK);

    let other = app.another_browser();
    other.create_user("dealer2", Role::Dealer, crate::helpers::PASSWORD);
    other.sign_in("dealer2", crate::helpers::PASSWORD).await;
    other.sign_on_at("T-THEIRS").await;
    let refused = other.get(&mine).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let text = refused.text().await.unwrap();
    assert!(
        text.contains("only the rounds of their own table"),
        "{text}"
    );

    // A new shift at the same table no longer reads the last shift's rounds.
    app.sign_off_at("T-MINE").await;
    assert_eq!(app.get(&mine).await.status(), StatusCode::FORBIDDEN);
    app.sign_on_at("T-MINE").await;
    assert_eq!(app.get(&mine).await.status(), StatusCode::FORBIDDEN);

    for role in [Role::Supervisor, Role::Auditor] {
        let staff = app.another_browser();
        staff.signed_in_as(role).await;
        assert_eq!(staff.get(&mine).await.status(), StatusCode::OK, "{role}");
    }
}

#[tokio::test]
async fn a_refusal_shows_as_an_error_banner_and_a_success_as_a_notice() {
    let app = spawn_app().await;
    create_table(&app, "T-FLASH");
    app.signed_in_as(Role::Supervisor).await;
    let res = app.get("/tables/T-FLASH").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let target = location(&res).to_owned();
    let html = app.get(&target).await.text().await.unwrap();
    assert!(
        html.contains("class=\"flash flash-error\" role=\"alert\"><strong>Not done:</strong> No dealer is signed on"),
        "{html}"
    );

    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.post_form("/tables/T-FLASH/sign-on", &[]).await;
    let html = page(&dealer, "T-FLASH").await;
    assert!(html.contains("class=\"flash\" role=\"status\">You are signed on at T-FLASH"));
}

#[tokio::test]
async fn a_signed_out_screen_is_told_in_json_and_the_dealer_comes_back_to_the_draft() {
    let app = spawn_app().await;
    create_table(&app, "T-OUT");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-OUT").await;
    let html = page(&app, "T-OUT").await;
    let token = app.csrf_token().await;
    let mut fields: Vec<(&str, String)> = the_round()
        .into_iter()
        .map(|(k, v)| (k, v.to_owned()))
        .collect();
    fields.push(("draft_key", hidden(&html, "draft_key")));
    fields.push(("revision", hidden(&html, "revision")));
    let check = |fields: Vec<(&'static str, String)>| {
        app.client
            .post(app.url("/tables/T-OUT/round/check"))
            .header("X-CSRF-Token", token.clone())
            .header("Accept", "application/json")
            .form(&fields)
            .send()
    };
    let res = check(fields.clone()).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    // The dealer stays away past the idle limit: the session ends.
    diesel::sql_query("UPDATE sessions SET last_seen_at = now() - interval '1 day'")
        .execute(&mut app.conn())
        .unwrap();
    let res = check(fields).await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(location(&res).is_empty(), "not a redirect");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], "signed_out", "{body}");
    assert_eq!(body["error"], "Signed out: sign in to go on.", "{body}");
    // The screen's other fetches, under /api/, the same.
    let res = app.get("/api/v1/tables/T-OUT/house-way").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], "signed_out", "{body}");

    // Signing in from the screen's link leads back to the table, where the draft is kept.
    let res = app
        .post_form(
            "/login",
            &[
                ("username", "the-dealer"),
                ("password", crate::helpers::PASSWORD),
                ("next", "/tables/T-OUT"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/tables/T-OUT");
    let html = page(&app, "T-OUT").await;
    assert!(html.contains("value=\"8c 8d 9h Ts Jd\""), "{html}");
    // Only to a page of this site.
    let other = app.another_browser();
    other.create_user("other-dealer", Role::Dealer, crate::helpers::PASSWORD);
    for next in [
        "//evil.example/",
        "https://evil.example/",
        "/\\evil.example",
    ] {
        let res = other
            .post_form(
                "/login",
                &[
                    ("username", "other-dealer"),
                    ("password", crate::helpers::PASSWORD),
                    ("next", next),
                ],
            )
            .await;
        assert_eq!(location(&res), "/", "{next}");
        other.post_form("/logout", &[]).await;
    }
}

#[tokio::test]
async fn opening_the_address_the_preview_posts_to_goes_back_to_the_table_screen() {
    let app = spawn_app().await;
    create_table(&app, "T-BACK");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-BACK").await;
    let html = page(&app, "T-BACK").await;
    submit(&app, "T-BACK", &html, "preview", &the_round()).await;
    let drafts = || -> (i64, i32) {
        use pusoy_pit::db::schema::round_drafts;
        round_drafts::table
            .select((
                diesel::dsl::count_star(),
                diesel::dsl::max(round_drafts::revision),
            ))
            .first::<(i64, Option<i32>)>(&mut app.conn())
            .map(|(n, r)| (n, r.unwrap_or(0)))
            .unwrap()
    };
    let before = drafts();
    let res = app.get("/tables/T-BACK/round").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/tables/T-BACK");
    assert_eq!(drafts(), before, "a GET changes nothing");
    assert_eq!(rounds_count(&app), 0);
}
