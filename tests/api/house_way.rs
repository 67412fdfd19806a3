//! The house way at the tables (issue 16): the profile option, "Set by house way" on the
//! dealer's screen (with and without script), the flag written at confirmation, the review
//! queue's filter, the replay's analysis and the surveillance report.
use diesel::prelude::*;
use pusoy_pit::db::users::Role;
use pusoy_pit::rules::card::parse_cards;
use pusoy_pit::rules::houseway::{analyse, hand_text, house_way, HouseWayOut, Side};
use pusoy_pit::rules::profile::RuleProfile;
use pusoy_pit::rules::set_hand::SetHand;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{create_table, create_table_with, record, spawn_app, TestApp};
use crate::profile_versions::section;
use crate::table_screen::{error_for, page};

/// The dealer's 13 cards: four aces, which the house way keeps together in the back.
const DEALT: &str = "As Ad Ac Ah Kd 7c 6h 5s 4d 3c 2h 9s Js";
/// A legal set of the same cards that is not the house way's: the aces split.
const OTHER: [&str; 3] = ["As Ad Ac 7c 6h", "Ah Kd 9s Js 5s", "4d 3c 2h"];
/// Seat 1's set, from the other 39 cards.
const SEAT: [&str; 3] = ["Ks Qh Jd Tc 9h", "8s 8h 5d 5c 2s", "7s 4h 3d"];

fn required() -> RuleProfile {
    RuleProfile {
        house_way: true,
        ..RuleProfile::default()
    }
}

/// The house way's set of [`DEALT`] for the dealer.
fn expected() -> HouseWayOut {
    let cards = parse_cards(DEALT).unwrap();
    HouseWayOut::new(&house_way(&cards, &required(), Side::Dealer).unwrap())
}

fn set_of(hands: [&str; 3]) -> SetHand {
    let [b, m, f] = hands.map(|h| parse_cards(h).unwrap());
    SetHand::new(&b, &m, &f).unwrap()
}

fn round(dealer: [&str; 3]) -> Value {
    json!({
        "dealer": {"back": dealer[0], "middle": dealer[1], "front": dealer[2]},
        "seats": [{"seat": 1, "bet": 500, "back": SEAT[0], "middle": SEAT[1], "front": SEAT[2]}]
    })
}

#[derive(QueryableByName, Debug)]
struct Flag {
    #[diesel(sql_type = diesel::sql_types::Text)]
    draft_key: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    house_way_departure: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Jsonb>)]
    house_way: Option<Value>,
}

fn flags(app: &TestApp) -> Vec<Flag> {
    diesel::sql_query(
        "SELECT draft_key, id, house_way_departure, places -> 0 -> 'house_way' AS house_way \
         FROM rounds ORDER BY id",
    )
    .load(&mut app.conn())
    .unwrap()
}

/// Records, as the dealer: the house way's set and another set at table HW (which requires
/// the house way), then the other set at table FREE (which does not).
async fn three_rounds(app: &TestApp) {
    create_table_with(app, "HW", &required());
    create_table(app, "FREE");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("HW").await;
    let hw = expected();
    let hw = [hw.back.as_str(), hw.middle.as_str(), hw.front.as_str()];
    for (key, dealer) in [("round-hw-1", hw), ("round-hw-2", OTHER)] {
        let (status, body) = record(app, "HW", key, round(dealer)).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    app.sign_off_at("HW").await;
    app.sign_on_at("FREE").await;
    let (status, body) = record(app, "FREE", "round-free-1", round(OTHER)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn a_dealer_set_other_than_the_house_way_is_flagged_only_where_the_table_requires_it() {
    let app = spawn_app().await;
    three_rounds(&app).await;
    let stored = flags(&app);
    let by_key = |key: &str| stored.iter().find(|f| f.draft_key == key).unwrap();
    assert!(!by_key("round-hw-1").house_way_departure, "{stored:?}");
    assert_eq!(by_key("round-hw-1").house_way, None);
    assert!(!by_key("round-free-1").house_way_departure, "{stored:?}");
    assert_eq!(by_key("round-free-1").house_way, None);
    let flagged = by_key("round-hw-2");
    assert!(flagged.house_way_departure, "{stored:?}");
    let kept = flagged.house_way.clone().unwrap();
    let hw = expected();
    assert_eq!(kept["back"], hw.back);
    assert_eq!(kept["middle"], hw.middle);
    assert_eq!(kept["front"], hw.front);
    let given_up = analyse(&set_of(OTHER), &required(), Side::Dealer).ev_given_up;
    assert!(given_up > 0.0);
    assert!((kept["ev_given_up"].as_f64().unwrap() - given_up).abs() < 1e-4);

    // The supervisor reads the flag on the round's page, with every place's analysis.
    let pit = app.another_browser();
    pit.signed_in_as(Role::Supervisor).await;
    let res = pit.get(&format!("/tables/HW/rounds/{}", flagged.id)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.text().await.unwrap();
    let recorded = OTHER
        .map(|h| hand_text(&parse_cards(h).unwrap()))
        .join(" / ");
    let words = format!(
        "dealer set differs from house way: expected {} / {} / {}, recorded {recorded}",
        hw.back, hw.middle, hw.front
    );
    let shown = html.replace("&#x2f;", "/").replace("&#47;", "/");
    assert!(shown.contains(&words), "{words} in {shown}");
    let analysis = section(&shown, r#"id="house-way-analysis""#);
    assert!(
        analysis.contains("Dealer") && analysis.contains("Seat 1"),
        "{analysis}"
    );
    assert!(analysis.contains(&format!("{given_up:.4}")), "{analysis}");
    // A round whose dealer followed the house way carries no flag.
    let followed = pit
        .get(&format!("/tables/HW/rounds/{}", by_key("round-hw-1").id))
        .await
        .text()
        .await
        .unwrap();
    assert!(!followed.contains("house-way-flag"), "{followed}");
}

#[tokio::test]
async fn the_review_queue_filters_the_flagged_rounds() {
    let app = spawn_app().await;
    three_rounds(&app).await;
    let pit = app.another_browser();
    pit.signed_in_as(Role::Supervisor).await;
    let all = pit.get("/review").await.text().await.unwrap();
    for label in ["HW #1", "HW #2", "FREE #1"] {
        assert!(all.contains(label), "{label} in {all}");
    }
    let res = pit.get("/review?house_way=departed").await;
    assert_eq!(res.status(), StatusCode::OK);
    let flagged = res.text().await.unwrap();
    let queue = section(&flagged, r#"<table id="queue">"#);
    assert!(queue.contains("HW #2"), "{queue}");
    assert!(
        !queue.contains("HW #1") && !queue.contains("FREE #1"),
        "{queue}"
    );
    assert!(queue.contains("Not the house way"), "{queue}");
    assert!(flagged.contains(r#"value="departed" selected"#));

    let res = pit.get("/review?house_way=sometimes").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("house way"));
}

#[tokio::test]
async fn the_house_way_report_counts_each_dealers_and_seats_departures() {
    let app = spawn_app().await;
    three_rounds(&app).await;
    let day: chrono::NaiveDate = {
        use pusoy_pit::db::schema::rounds;
        rounds::table
            .select(rounds::gaming_day)
            .first(&mut app.conn())
            .unwrap()
    };
    let pit = app.another_browser();
    pit.signed_in_as(Role::Supervisor).await;
    let res = pit.get(&format!("/reports/house-way?day={day}")).await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.text().await.unwrap();
    assert!(
        html.contains("the-dealer") && html.contains("HW seat 1"),
        "{html}"
    );

    let res = pit.get(&format!("/reports/house-way/csv?day={day}")).await;
    assert_eq!(res.status(), StatusCode::OK);
    let text = res.text().await.unwrap();
    let mut csv = csv::Reader::from_reader(text.as_bytes());
    let lines: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let line = |section: &str, dealer: &str, table: &str| {
        lines
            .iter()
            .find(|l| &l[0] == section && &l[1] == dealer && &l[2] == table)
            .unwrap_or_else(|| panic!("{section} {dealer} {table} in {text}"))
    };
    // Three dealer sets (the house way's once, the other twice), two of them departures,
    // one flagged (at the table that requires the house way).
    let other = analyse(&set_of(OTHER), &required(), Side::Dealer).ev_given_up;
    let dealer = line("dealer", "the-dealer", "");
    assert_eq!(&dealer[4], "3", "{text}");
    assert_eq!(&dealer[5], "2", "{text}");
    assert_eq!(&dealer[6], "66.7", "{text}");
    assert_eq!(dealer[7], format!("{:.4}", 2.0 * other), "{text}");
    assert_eq!(dealer[9], format!("{other:.4}"), "{text}");
    assert_eq!(&dealer[10], "1", "{text}");
    // The seat set the same cards each time: measured from the player's side.
    let seat = analyse(&set_of(SEAT), &RuleProfile::default(), Side::Player);
    let departed = usize::from(!seat.same_as_house_way);
    let hw_seat = line("seat", "", "HW");
    assert_eq!(&hw_seat[3], "1");
    assert_eq!(&hw_seat[4], "2");
    assert_eq!(hw_seat[5], (2 * departed).to_string());
    assert_eq!(hw_seat[7], format!("{:.4}", 2.0 * seat.ev_given_up));
    let free_seat = line("seat", "", "FREE");
    assert_eq!(&free_seat[4], "1");

    // A refused range keeps the page: the navigation, the form with the days typed, the reason.
    let res = pit
        .get("/reports/house-way?from=2026-03-02&to=2026-03-01")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let page = res.text().await.unwrap();
    assert!(page.contains(r#"action="/reports/house-way""#), "{page}");
    assert!(page.contains(r#"value="2026-03-02""#), "{page}");
    assert!(page.contains("House-way report"), "{page}");
    assert!(page.contains("Sign out"), "{page}");
}

#[tokio::test]
async fn set_by_house_way_fills_the_dealers_hands_without_script_and_confirms_unflagged() {
    let app = spawn_app().await;
    create_table_with(&app, "HW", &required());
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("HW").await;
    let html = page(&app, "HW").await;
    assert!(html.contains("Set by house way"), "{html}");
    assert!(html.contains("table version 1"), "{html}");
    assert!(html.contains("dealer sets by the house way"), "{html}");

    let seat = [
        ("seat1_action", "play"),
        ("seat1_bet", "5"),
        ("seat1_back", SEAT[0]),
        ("seat1_middle", SEAT[1]),
        ("seat1_front", SEAT[2]),
    ];
    // Too few cards: said on the dealt field; the form is kept as typed.
    let mut fields = seat.to_vec();
    fields.extend([("dealer_dealt", "As Ad"), ("step", "house_way")]);
    let res = app.post_form("/tables/HW/round", &fields).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused = res.text().await.unwrap();
    assert!(
        error_for(&refused, "dealer_dealt").contains("13 cards"),
        "{refused}"
    );
    assert!(refused.contains(r#"value="As Ad""#));

    let key = hidden(&refused, "draft_key");
    let revision = hidden(&refused, "revision");
    let mut fields = seat.to_vec();
    fields.extend([
        ("dealer_dealt", DEALT),
        ("step", "house_way"),
        ("draft_key", &key),
        ("revision", &revision),
    ]);
    let res = app.post_form("/tables/HW/round", &fields).await;
    assert_eq!(res.status(), StatusCode::OK);
    let filled = res.text().await.unwrap();
    let hw = expected();
    for (name, value) in [
        ("dealer_back", &hw.back),
        ("dealer_middle", &hw.middle),
        ("dealer_front", &hw.front),
    ] {
        assert!(
            filled.contains(&format!(r#"name="{name}" data-count"#))
                && filled.contains(&format!(r#"value="{value}""#)),
            "{name} = {value} in {filled}"
        );
    }
    // Confirmed as filled: the dealer followed the house way, so the round carries no flag.
    let key = hidden(&filled, "draft_key");
    let revision = hidden(&filled, "revision");
    let res = app
        .post_form(
            "/tables/HW/round",
            &[
                ("draft_key", &key),
                ("revision", &revision),
                ("step", "confirm"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let stored = flags(&app);
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].house_way_departure, "{stored:?}");
}

#[tokio::test]
async fn the_house_way_endpoint_answers_json_and_names_the_cards_on_error() {
    let app = spawn_app().await;
    create_table_with(&app, "HW", &required());
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("HW").await;
    let ask = |cards: &str| {
        let url = format!(
            "/api/v1/tables/HW/house-way?{}",
            serde_urlencoded::to_string([("cards", cards)]).unwrap()
        );
        let app = &app;
        async move {
            let res = app.get(&url).await;
            let status = res.status();
            (status, res.json::<Value>().await.unwrap())
        }
    };
    let (status, body) = ask(DEALT).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let hw = expected();
    assert_eq!(body["back"], hw.back);
    assert_eq!(body["middle"], hw.middle);
    assert_eq!(body["front"], hw.front);
    for (cards, problem) in [
        ("As Ad", "13 cards"),
        ("As As Ac Ah Kd 7c 6h 5s 4d 3c 2h 9s Js", "twice"),
        ("As Zz", "Zz"),
        ("", "13 dealt cards"),
    ] {
        let (status, body) = ask(cards).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{cards}: {body}");
        let said = body["field_errors"]["cards"].as_str().unwrap_or_default();
        assert!(said.contains(problem), "{cards}: {body}");
    }
    // Changes nothing: no draft was opened.
    assert_eq!(
        crate::helpers::count(&app, "SELECT count(*) AS n FROM round_drafts"),
        0
    );
}

#[tokio::test]
async fn the_profile_forms_keep_the_house_way_option_after_an_error_and_save_it() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let options = |last_suit: &'static str| {
        vec![
            ("name", "Surveilled"),
            ("surrender", "on"),
            ("ties", "dealer_wins"),
            ("both_fouled", "push"),
            ("wheel", "lowest"),
            ("suit_order_1", "d"),
            ("suit_order_2", "c"),
            ("suit_order_3", "h"),
            ("suit_order_4", last_suit),
            ("house_way", "on"),
        ]
    };
    let checked = r#"name="house_way" value="on" checked"#;
    let res = app.post_form("/admin/profiles", &options("x")).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(
        section(&page, "<h2>Add a rule profile</h2>").contains(checked),
        "{page}"
    );

    let res = app.post_form("/admin/profiles", &options("s")).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let (id, stored): (i64, Value) = {
        use pusoy_pit::db::schema::rule_profile_versions as v;
        v::table
            .select((v::profile_id, v::options))
            .first(&mut app.conn())
            .unwrap()
    };
    assert_eq!(stored["house_way"], true);
    let list = app.get("/admin/profiles").await.text().await.unwrap();
    assert!(list.contains("dealer sets by the house way"), "{list}");

    // The edit form: refused for its suit order, it comes back with the option as typed
    // (unticked), not as stored.
    let mut edit = options("x");
    edit.retain(|(k, _)| *k != "house_way" && *k != "name");
    let res = app.post_form(&format!("/admin/profiles/{id}"), &edit).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    let form = section(&page, &format!(r#"id="profile-{id}""#));
    assert!(!form.contains(checked), "{form}");
    // A profile stored before the option existed reads as "off".
    diesel::sql_query("UPDATE rule_profile_versions SET options = options - 'house_way'")
        .execute(&mut app.conn())
        .unwrap();
    let list = app.get("/admin/profiles").await.text().await.unwrap();
    assert!(!list.contains(checked), "{list}");
}

fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).expect("a hidden field") + marker.len();
    html[start..].split('"').next().unwrap().to_owned()
}
