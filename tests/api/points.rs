//! The points game at the table (docs/rules.md §8): a profile that plays it, a table with a
//! unit instead of bet limits, and its rounds recorded whole or step by step, settled by the
//! engine, numbered, stored with their points and matrix, audited, shown; banking fields and
//! naturals the cards do not hold refused by field, nothing half-saved.
use diesel::RunQueryDsl;
use pusoy_pit::db::audit_log::Actor;
use pusoy_pit::db::profiles;
use pusoy_pit::db::tables::{self, TableInput};
use pusoy_pit::db::users::Role;
use pusoy_pit::rules::points::profile::PointsProfile;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{call, count, create_table, record, spawn_app, TestApp};

/// A points-game table `code` made as an administrator makes it: the default points profile
/// and a unit of PHP 1.00 (100 centavos). Returns the table's id.
pub fn create_points_table(app: &TestApp, code: &str) -> i64 {
    let conn = &mut app.conn();
    let admin = Actor::system("test");
    let (profile, _) = profiles::create_profile(
        conn,
        &format!("Points {code}"),
        &PointsProfile::default(),
        &admin,
    )
    .unwrap();
    let input = TableInput {
        code: code.to_owned(),
        name: "Points table".to_owned(),
        currency: "PHP".to_owned(),
        min_bet: 100,
        max_bet: 100,
        rule_profile_id: profile.id,
        approval_threshold: None,
        unit: Some(100),
    };
    pusoy_pit::pit::tables::create_table(conn, &input, &admin)
        .unwrap()
        .id
        .0
}

/// Seat 1 shows a dragon (13 against each other player), seat 2 mis-sets (middle trips above a
/// back pair), seat 3 sets legally and collects from seat 2 as if it scooped: 3 + 3.
pub fn points_round() -> Value {
    json!({
        "seats": [
            {"seat": 1, "action": "natural", "natural": "dragon",
             "dealt": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"},
            {"seat": 2, "back": "8c 8d 9h Ts Jh", "middle": "Ad Ah As 3s 4s", "front": "Qc Kd 2d"},
            {"seat": 3, "back": "5c 5d 5h 6d 6h", "middle": "9c 9d Th Jc Js", "front": "Qd Qs 7c"}
        ]
    })
}

async fn dealer_at(app: &TestApp, code: &str) {
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at(code).await;
}

#[tokio::test]
async fn a_points_round_with_a_natural_and_a_mis_set_is_settled_numbered_audited_and_shown() {
    let app = spawn_app().await;
    let table_id = create_points_table(&app, "POINTS-1");
    dealer_at(&app, "POINTS-1").await;

    let (status, round) = record(&app, "POINTS-1", "points-key-0001", points_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(round["round_no"], 1);
    assert_eq!(round["dealer_result"], 0, "the house takes no part");
    let places = round["places"].as_array().unwrap();
    let place = |n: usize| &places[n];
    assert_eq!(places.len(), 3);
    assert_eq!(place(0)["place"], "seat1");
    assert_eq!(place(0)["action"], "natural");
    assert_eq!(place(0)["natural"], "dragon");
    assert_eq!(place(0)["points"], 26);
    assert_eq!(place(0)["result"], 2_600);
    assert_eq!(place(0)["against"], json!({"2": 13, "3": 13}));
    assert_eq!(place(1)["fouled"], true);
    assert!(place(1)["foul_reason"]
        .as_str()
        .unwrap()
        .contains("ranks above back"));
    assert_eq!(place(1)["points"], -19);
    assert_eq!(place(1)["against"], json!({"1": -13, "3": -6}));
    assert_eq!(place(2)["points"], -7);
    assert_eq!(place(2)["result"], -700);
    assert_eq!(place(2)["pusoy"], false);
    assert!(place(1)["bet"].is_null());

    // Stored as answered; the view gives one row per player, the points summing to zero.
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_places"), 3);
    assert_eq!(
        count(
            &app,
            "SELECT COALESCE(sum(points), 99)::int8 AS n FROM round_places"
        ),
        0
    );
    assert_eq!(
        count(&app, "SELECT largest_result AS n FROM rounds"),
        2_600,
        "every player counts for the approval threshold (none is the dealer)"
    );
    let (status, shown) = call(&app, Method::GET, "/api/v1/rounds/points-key-0001", None).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown, round);

    // Audited with the round as entered and its settlement, re-settleable from the row alone.
    let settled = app.audit("round.settled");
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].chain, format!("table:{table_id}"));
    let details = &settled[0].details;
    assert_eq!(details["game"], "points");
    assert_eq!(details["round"]["unit"], 100);
    assert_eq!(details["round"]["seats"][0]["natural"], "dragon");
    assert_eq!(details["settlement"]["seats"][1]["points"], -19);
    assert_eq!(details["settlement"]["pusoy"], Value::Null);

    // A retry is the same round; the next key the next number.
    let (status, again) = record(&app, "POINTS-1", "points-key-0001", points_round()).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again, round);
    let (status, next) = record(&app, "POINTS-1", "points-key-0002", points_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{next}");
    assert_eq!(next["round_no"], 2);
}

#[tokio::test]
async fn a_points_round_entered_step_by_step_is_previewed_with_its_matrix_and_confirmed() {
    let app = spawn_app().await;
    create_points_table(&app, "POINTS-2");
    dealer_at(&app, "POINTS-2").await;
    let key = crate::helpers::open(&app, "POINTS-2").await;
    let mut body = points_round();
    body["revision"] = json!(0);
    let (status, saved) = call(
        &app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    let (status, preview) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/preview"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["game"], "points");
    assert_eq!(
        preview["settlement"]["seats"][0]["against"],
        json!({"2": 13, "3": 13})
    );
    let (status, confirmed) = call(
        &app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{confirmed}");
    assert_eq!(confirmed["round_no"], 1);
    assert_eq!(confirmed["places"][1]["points"], -19);
    assert_eq!(app.audit("round.settled").len(), 1);
}

/// The field errors of a refused round, and that nothing was stored.
fn refused(app: &TestApp, status: StatusCode, body: &Value) -> Value {
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(count(app, "SELECT count(*) AS n FROM rounds"), 0);
    assert!(app.audit("round.settled").is_empty());
    body["field_errors"].clone()
}

#[tokio::test]
async fn banking_fields_at_a_points_table_are_refused_naming_each_field() {
    let app = spawn_app().await;
    create_points_table(&app, "POINTS-3");
    dealer_at(&app, "POINTS-3").await;
    let mut round = points_round();
    round["dealer"] = json!({"back": "2c 2d 2h 5s 6s"});
    round["seats"][1]["bet"] = json!(500);
    let (status, body) = record(&app, "POINTS-3", "points-key-0003", round).await;
    let fields = refused(&app, status, &body);
    assert!(
        fields["dealer"]
            .as_str()
            .unwrap()
            .contains("no dealer hand"),
        "{body}"
    );
    assert_eq!(
        fields["seat2_bet"],
        "seat 2: a points-game table takes no bets; a point is worth the table's unit, PHP 1.00"
    );
}

#[tokio::test]
async fn a_natural_the_cards_do_not_hold_is_refused_on_its_field() {
    let app = spawn_app().await;
    create_points_table(&app, "POINTS-4");
    dealer_at(&app, "POINTS-4").await;
    let mut round = points_round();
    // A pair of twos: not a dragon.
    round["seats"][0]["dealt"] = json!("2c 2s 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac");
    let (status, body) = record(&app, "POINTS-4", "points-key-0004", round).await;
    let fields = refused(&app, status, &body);
    let message = fields["seat1_natural"].as_str().unwrap();
    assert!(
        message.starts_with("seat 1 showed a dragon, but the cards dealt do not hold it"),
        "{body}"
    );
}

#[tokio::test]
async fn a_points_round_at_a_banking_table_is_refused() {
    let app = spawn_app().await;
    create_table(&app, "BANK-1");
    dealer_at(&app, "BANK-1").await;
    let (status, body) = record(&app, "BANK-1", "points-key-0005", points_round()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("could not be read"),
        "{body}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
}

#[tokio::test]
async fn the_database_refuses_points_that_do_not_sum_to_zero() {
    let app = spawn_app().await;
    create_points_table(&app, "POINTS-5");
    dealer_at(&app, "POINTS-5").await;
    let (status, round) = record(&app, "POINTS-5", "points-key-0006", points_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    // The same places with one player's points changed cannot be stored.
    let mut places = round["places"].clone();
    places[0]["points"] = json!(27);
    let refused = diesel::sql_query(format!(
        "SELECT round_places_fit('{}'::jsonb, 0) AS fits",
        places
    ))
    .load::<Fits>(&mut app.conn())
    .unwrap();
    assert!(!refused[0].fits);
    let fits = diesel::sql_query(format!(
        "SELECT round_places_fit('{}'::jsonb, 0) AS fits",
        round["places"]
    ))
    .load::<Fits>(&mut app.conn())
    .unwrap();
    assert!(fits[0].fits);
}

#[derive(diesel::QueryableByName)]
struct Fits {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    fits: bool,
}

#[tokio::test]
async fn an_administrator_makes_a_points_profile_and_a_points_table_with_a_unit() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    let profile = [
        ("name", "Card room"),
        ("game", "points"),
        ("points_ties", "push"),
        ("points_wheel", "lowest"),
        ("points_suit_order_1", "d"),
        ("points_suit_order_2", "c"),
        ("points_suit_order_3", "h"),
        ("points_suit_order_4", "s"),
        ("naturals", "on"),
        ("dragon", "20"),
        ("six_pairs", "0"),
        ("three_flushes", "6"),
        ("three_straights", "6"),
        ("points_surrender", "on"),
        ("surrender_points", "3"),
        ("scoop_bonus", "x"),
        ("pusoy_bonus", "on"),
        ("hp_front_pair", "2"),
    ];
    // A bad number is named, and every field comes back as typed.
    let res = app.post_form("/admin/profiles", &profile).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains("Scoop bonus: enter a whole number"), "{html}");
    assert!(html.contains(r#"value="x""#), "{html}");
    assert!(html.contains(r#"value="20""#), "{html}");
    // The hand points are a grid of fields, one per hand and position, kept as typed.
    assert!(
        html.contains(r#"name="hp_front_pair" type="text" inputmode="numeric" size="3" aria-label="Points for pair as the front hand" value="2""#),
        "{html}"
    );
    assert!(html.contains(r#"name="hp_middle_full_house""#), "{html}");
    assert!(
        !html.contains(r#"name="hp_front_flush""#),
        "no front flush: {html}"
    );
    assert!(
        !html.contains("new-hand_points\" name"),
        "no JSON to type: {html}"
    );

    let mut good = profile;
    let at = good.iter().position(|(k, _)| *k == "scoop_bonus").unwrap();
    good[at] = ("scoop_bonus", "3");
    let res = app.post_form("/admin/profiles", &good).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let conn = &mut app.conn();
    let found = profiles::find_by_name(conn, "Card room").unwrap().unwrap();
    let v1 = profiles::latest_version(conn, found.id).unwrap().unwrap();
    let pusoy_pit::rules::game::GameRules::Points(options) = v1.options else {
        panic!("a points profile: {:?}", v1.options);
    };
    assert_eq!(
        options.ties,
        pusoy_pit::rules::points::profile::PointsTies::Push
    );
    assert_eq!(
        serde_json::to_value(options.natural_points).unwrap(),
        json!({"dragon": 20, "three_flushes": 6, "three_straights": 6})
    );
    assert_eq!(
        serde_json::to_value(options.hand_points).unwrap(),
        json!({"front": {"pair": 2, "three_of_a_kind": 3}, "middle": {"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10}, "back": {"four_of_a_kind": 4, "straight_flush": 5}}),
        "the grid's field as typed, the rest as the rules' defaults"
    );

    // A points table needs its unit, named when missing.
    let id = found.id.0.to_string();
    let table = [
        ("code", "CARD-1"),
        ("name", "Card room 1"),
        ("currency", "PHP"),
        ("rule_profile_id", id.as_str()),
        ("unit", ""),
    ];
    let res = app.post_form("/admin/tables", &table).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains(r#"id="unit-error""#), "{html}");
    assert!(
        html.contains(r#"value="Card room 1""#),
        "kept as typed: {html}"
    );
    let mut table = table;
    table[4] = ("unit", "25.00");
    let res = app.post_form("/admin/tables", &table).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let made = tables::find_by_code(conn, "CARD-1").unwrap().unwrap();
    assert_eq!(made.unit, Some(2_500));

    // The profile keeps its game.
    let edit = [
        ("game", "banking"),
        ("ties", "dealer_wins"),
        ("both_fouled", "push"),
        ("wheel", "lowest"),
        ("suit_order_1", "d"),
        ("suit_order_2", "c"),
        ("suit_order_3", "h"),
        ("suit_order_4", "s"),
    ];
    let res = app.post_form(&format!("/admin/profiles/{id}"), &edit).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = res.text().await.unwrap();
    assert!(html.contains("A profile keeps its game"), "{html}");
    assert_eq!(profiles::versions(conn, found.id).unwrap().len(), 1);
}

/// The points round as the table screen's form types it.
const TYPED: [(&str, &str); 11] = [
    ("seat1_action", "natural"),
    ("seat1_natural", "dragon"),
    ("seat1_dealt", "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"),
    ("seat2_action", "play"),
    ("seat2_back", "8c 8d 9h Ts Jh"),
    ("seat2_middle", "Ad Ah As 3s 4s"),
    ("seat2_front", "Qc Kd 2d"),
    ("seat3_action", "play"),
    ("seat3_back", "5c 5d 5h 6d 6h"),
    ("seat3_middle", "9c 9d Th Jc Js"),
    ("seat3_front", "Qd Qs 7c"),
];

#[tokio::test]
async fn the_table_screen_previews_a_points_round_with_its_matrix_and_confirms_it() {
    let app = spawn_app().await;
    create_points_table(&app, "POINTS-6");
    dealer_at(&app, "POINTS-6").await;
    let html = app.get("/tables/POINTS-6").await.text().await.unwrap();
    assert!(
        html.contains(r#"data-place="seat4""#),
        "four players: {html}"
    );
    assert!(
        !html.contains(r#"data-place="dealer""#),
        "no dealer hand: {html}"
    );
    assert!(!html.contains("seat1_bet"), "no bets: {html}");
    assert!(html.contains(r#"name="seat1_natural""#), "{html}");
    // The house way sets a dealer's hand: a points table has none, and says so.
    assert!(!html.contains("Set by house way"), "{html}");
    let (status, refused) = call(
        &app,
        Method::GET,
        "/api/v1/tables/POINTS-6/house-way?cards=As%20Ad%20Ac%20Ah%20Ks%20Kd%207c%206h%205s%204d%203c%202h%209s",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(
        refused.to_string().contains("plays the points game"),
        "{refused}"
    );

    let mut fields = TYPED.to_vec();
    fields.push(("step", "preview"));
    let res = app.post_form("/tables/POINTS-6/round", &fields).await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.text().await.unwrap();
    assert!(html.contains("Points against each other"), "{html}");
    assert!(html.contains("Natural: a dragon"), "{html}");
    assert!(html.contains("Mis-set: middle"), "{html}");
    assert!(!html.contains("Dealer net"), "{html}");
    let key = html
        .split(r#"name="draft_key" value=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let revision = html
        .split(r#"name="revision" value=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let res = app
        .post_form(
            "/tables/POINTS-6/round",
            &[
                ("step", "confirm"),
                ("draft_key", &key),
                ("revision", &revision),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let round_page = crate::table_screen::round_page_of(crate::helpers::location(&res));
    assert!(
        round_page.starts_with("/tables/POINTS-6/rounds/"),
        "{round_page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);

    // The round's page shows each player's points, the matrix and no house result.
    let html = app.get(&round_page).await.text().await.unwrap();
    assert!(html.contains("Natural shown: a dragon"), "{html}");
    assert!(
        html.contains("+26 points (vs seat 2: +13, vs seat 3: +13)"),
        "{html}"
    );
    assert!(html.contains("-19 points"), "{html}");
    assert!(html.contains("None: a points-game round"), "{html}");
    assert!(
        html.contains(r#"id="recheck-ok""#),
        "the recompute check agrees: {html}"
    );

    // The review queue lists it under its mis-set and its natural, not as a house-way departure.
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM rounds WHERE house_way_departure"
        ),
        0
    );
    app.signed_in_as(Role::Supervisor).await;
    for (query, listed) in [
        ("", true),
        ("?outcome=player_foul", true),
        ("?outcome=royalty", true),
        ("?outcome=dealer_foul", false),
        ("?house_way=departed", false),
    ] {
        let res = app.get(&format!("/review{query}")).await;
        assert_eq!(res.status(), StatusCode::OK, "{query}");
        let page = res.text().await.unwrap();
        assert_eq!(page.contains("POINTS-6 #1"), listed, "{query}: {page}");
    }
}

#[tokio::test]
async fn the_day_report_counts_points_rounds_measures_and_no_house_result_for_them() {
    let app = spawn_app().await;
    create_points_table(&app, "POINTS-7");
    create_table(&app, "BANK-7");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("POINTS-7").await;
    let (status, round) = record(&app, "POINTS-7", "points-key-0007", points_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    let other = app.another_browser();
    other.create_user("bank-dealer", Role::Dealer, crate::helpers::PASSWORD);
    other.sign_in("bank-dealer", crate::helpers::PASSWORD).await;
    other.sign_on_at("BANK-7").await;
    let (status, banking) = record(
        &other,
        "BANK-7",
        "points-key-0008",
        crate::helpers::the_round(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{banking}");
    let house = banking["dealer_result"].as_i64().unwrap();

    app.signed_in_as(Role::Supervisor).await;
    let day = app.config.gaming_day(chrono::Utc::now());
    let res = app.get(&format!("/reports/csv?day={day}")).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body = res.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let total = reader
        .records()
        .map(Result::unwrap)
        .find(|r| &r[0] == "total")
        .unwrap();
    assert_eq!(&total[col("rounds")], "2");
    // The house result is the banking round's alone.
    assert_eq!(
        &total[col("house_result")],
        pusoy_pit::rules::money::Money::from_minor_units(house).plain_text()
    );
    assert_eq!(&total[col("points_rounds")], "1");
    assert_eq!(&total[col("naturals")], "1");
    assert_eq!(&total[col("pusoys")], "0");
    // Seat 1 won PHP 26.00 from the others; the mis-set counts with the players' fouls.
    assert_eq!(&total[col("players_won")], "26.00");
    assert_eq!(
        &total[col("player_fouls")],
        "2",
        "the banking round's and the mis-set"
    );

    let page = app
        .get(&format!("/reports?day={day}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains(r#"id="points-note""#), "{page}");
    assert!(
        page.contains("kept in table accounting: see Table accounting"),
        "{page}"
    );
    assert!(
        page.contains("naturals 1 · pusoys 0 · players won PHP 26.00"),
        "{page}"
    );
}
