//! Rated play (docs/players.md): players registered and excluded, a carded player seated,
//! away, back and gone, the rating's figures from the rounds at the seat (the theoretical win
//! from the stored house edge), the refused seating of an excluded player kept and audited,
//! and what each role sees of a player.
use diesel::prelude::*;
use pusoy_pit::db::users::{Role, User};
use pusoy_pit::rules::money::Money;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    call, call_with_token, count, create_table, issue_token, location, record, spawn_app,
    the_round, TestApp,
};

pub(crate) const TABLE: &str = "RATE-1";

pub(crate) struct Floor {
    pub(crate) app: TestApp,
    pub(crate) host: TestApp,
    pub(crate) dealer: TestApp,
    pub(crate) supervisor: TestApp,
    /// The dealer's account (signed on at the table).
    pub(crate) dealer_user: User,
}

/// Stores a house edge of 2 % (± 0.3 %) for every rule-profile version, as if simulated: a
/// rating's theoretical win is then 2 % of its bets.
pub(crate) fn store_house_edge(app: &TestApp) {
    diesel::sql_query(
        "INSERT INTO profile_version_edges (rule_profile_version_id, edge_ppm, half_width_ppm, \
         deals, seed) SELECT id, 20000, 3000, 1000, 1 FROM rule_profile_versions",
    )
    .execute(&mut app.conn())
    .unwrap();
}

pub(crate) async fn floor() -> Floor {
    let app = spawn_app().await;
    create_table(&app, TABLE);
    let host = app.another_browser();
    host.signed_in_as(Role::Host).await;
    let dealer = app.another_browser();
    let dealer_user = dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(TABLE).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    Floor {
        app,
        host,
        dealer,
        supervisor,
        dealer_user,
    }
}

/// Registers a player with this card as the host; their id.
pub(crate) async fn register(host: &TestApp, card: &str, first: &str) -> i64 {
    let res = host
        .post_form(
            "/players",
            &[
                ("card_number", card),
                ("first_name", first),
                ("last_name", "Santos"),
                ("date_of_birth", "1980-04-02"),
                ("id_reference", "passport P7654321"),
                ("notes", "likes the corner seat"),
            ],
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::SEE_OTHER,
        "registration of {card}"
    );
    location(&res)
        .strip_prefix("/players/")
        .and_then(|id| id.parse().ok())
        .expect("the player's page")
}

/// Bars the player, as a pit manager, for cheating.
async fn bar(supervisor: &TestApp, player: i64) {
    let res = supervisor
        .post_form(
            &format!("/players/{player}/status"),
            &[("status", "barred"), ("reason", "cheating at table 4")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

/// Posts a form at the table screen and answers the flash it left there.
pub(crate) async fn at_table(dealer: &TestApp, path: &str, fields: &[(&str, &str)]) -> String {
    let res = dealer.post_form(path, fields).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "{path}");
    assert_eq!(location(&res), format!("/tables/{TABLE}"));
    dealer
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap()
}

/// A cash buy-in at seat 3, recorded from the table screen.
pub(crate) async fn buy_in(dealer: &TestApp, amount: &str) {
    let res = dealer
        .post_form(
            &format!("/tables/{TABLE}/buy-ins"),
            &[
                ("seat", "3"),
                ("amount", amount),
                ("kind", "cash"),
                ("back", "screen"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "buy-in of {amount}");
}

fn php(minor: i64) -> String {
    format!("PHP {}", Money::from_minor_units(minor).major_text())
}

fn signed(minor: i64) -> String {
    format!("PHP {}", Money::from_minor_units(minor).signed_text())
}

#[tokio::test]
async fn a_rating_is_the_rounds_at_the_seat_while_the_player_sat_there() {
    let f = floor().await;
    let player = register(&f.host, "RC-1001", "Maria").await;
    store_house_edge(&f.app);
    let (status, body) = record(&f.dealer, TABLE, "before-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    buy_in(&f.dealer, "700").await;

    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "3"), ("card", "rc1001")],
    )
    .await;
    assert!(screen.contains("Card RC1001 rated at seat 3."), "{screen}");
    assert!(screen.contains("id=\"rated-seat-3\""));
    // The dealer sees the card number and the first name, nothing more.
    assert!(screen.contains("Maria") && !screen.contains("Santos") && !screen.contains("P7654321"));

    buy_in(&f.dealer, "2,000").await;
    let (status, body) = record(&f.dealer, TABLE, "rated-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let first = seat_of(&f.app, "rated-round-1", 3);
    at_table(&f.dealer, &format!("/tables/{TABLE}/ratings/3/pause"), &[]).await;
    let (status, body) = record(&f.dealer, TABLE, "away-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    at_table(&f.dealer, &format!("/tables/{TABLE}/ratings/3/resume"), &[]).await;
    let mut bigger = the_round();
    bigger["seats"][2]["bet"] = 400.into();
    let (status, body) = record(&f.dealer, TABLE, "rated-round-2", bigger).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let second = seat_of(&f.app, "rated-round-2", 3);
    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings/3/leave"),
        &[("walked_with", "1,500")],
    )
    .await;
    assert!(
        screen.contains("Maria left seat 3 with PHP 1,500.00."),
        "{screen}"
    );
    assert!(!screen.contains("id=\"rated-seat-3\""));
    let (status, body) = record(&f.dealer, TABLE, "after-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let page = f
        .host
        .get(&format!("/players/{player}"))
        .await
        .text()
        .await
        .unwrap();
    let total_bet = first.0 + second.0;
    let player_result = first.1 + second.1;
    // 2 % of the total bet, in minor units.
    let theoretical = (total_bet * 20_000 + 500_000) / 1_000_000;
    let row = page
        .split("id=\"rating-")
        .nth(1)
        .expect("one rating on the page");
    assert!(row.contains("<td class=\"amount hands\">2</td>"), "{row}");
    assert!(
        row.contains(&format!("total-bet\">{}<", php(total_bet))),
        "{first:?} {second:?}: {row}"
    );
    assert!(
        row.contains(&format!("average-bet\">{}<", php(total_bet / 2))),
        "{row}"
    );
    assert!(
        row.contains(&format!("actual-win\">{}<", signed(-player_result))),
        "{row}"
    );
    assert!(
        row.contains(&format!("theoretical-win\">{}<", signed(theoretical))),
        "{row}"
    );
    assert!(row.contains(&php(second.0)), "the largest bet: {row}");
    assert!(row.contains("PHP 1,500.00"), "walked with: {row}");
    // The buy-in before the player sat is not theirs.
    assert!(row.contains("bought-in\">PHP 2,000.00<"), "{row}");
    // The day's rated play: Maria tops both lists; 2,000 of the day's 2,700 drop was hers.
    let report = f
        .supervisor
        .get("/reports/players")
        .await
        .text()
        .await
        .unwrap();
    let top = report
        .split("id=\"top-theoretical\"")
        .nth(1)
        .unwrap_or_default();
    assert!(
        top.contains("RC1001") && top.contains(&signed(theoretical)),
        "{report}"
    );
    assert!(
        report.contains("PHP 2,700.00") && report.contains("74.1 %"),
        "{report}"
    );
    // By dealer: the one who dealt both rated hands, to one rated player.
    let by_dealer = report.split("id=\"by-dealer\"").nth(1).unwrap_or_default();
    assert!(
        by_dealer.contains(&format!(
            "<td>the-dealer Test</td><td class=\"amount\">1</td><td class=\"amount\">2</td>\
             <td class=\"amount\">{}</td><td class=\"amount\">{}</td>",
            php(total_bet),
            php(total_bet / 2)
        )) && by_dealer.contains(&signed(theoretical)),
        "{by_dealer}"
    );
    let ended = f.app.audit("rating.ended");
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0].details["hands"], 2);
    assert_eq!(ended[0].chain, "players");
    assert_eq!(f.app.audit("rating.started").len(), 1);
    assert_eq!(f.app.audit("rating.paused").len(), 1);
    assert_eq!(f.app.audit("rating.resumed").len(), 1);

    // Comp: 10 % of the theoretical win as installed; an administrator's rule from today on
    // re-rates today's rating (its day), refused when it does not read or starts in the past.
    let comp_shown = |page: &str| {
        page.split("class=\"amount comp\">")
            .nth(1)
            .and_then(|rest| rest.split('<').next())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(comp_shown(&page), php(theoretical / 10), "{page}");
    let admin = f.app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let today_day = f.app.config.gaming_day(chrono::Utc::now());
    let today = today_day.to_string();
    let yesterday = today_day.pred_opt().unwrap().to_string();
    for (fields, field) in [
        (
            [("percent", "12.345"), ("from_day", today.as_str())],
            "percent",
        ),
        (
            [("percent", "25"), ("from_day", yesterday.as_str())],
            "from_day",
        ),
    ] {
        let res = admin.post_form("/admin/comp", &fields).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let page = res.text().await.unwrap();
        assert!(page.contains(&format!("data-field=\"{field}\"")), "{page}");
    }
    let res = f
        .host
        .post_form("/admin/comp", &[("percent", "25"), ("from_day", &today)])
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM comp_rules"), 1);
    let res = admin
        .post_form("/admin/comp", &[("percent", "25"), ("from_day", &today)])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let rules = admin.get("/admin/comp").await.text().await.unwrap();
    assert!(
        rules.contains(&format!(
            "From gaming day {today}, players earn 25 % of their theoretical win as comp."
        )),
        "{rules}"
    );
    let page = f
        .host
        .get(&format!("/players/{player}"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(comp_shown(&page), php(theoretical / 4), "{page}");
    let set = f.app.audit("comp.rule_set");
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].details["basis_points"], 2_500);
    assert_eq!(set[0].details["replaced_basis_points"], 1_000);
}

#[tokio::test]
async fn an_excluded_player_is_refused_a_seat_and_the_refusal_is_kept_and_audited() {
    let f = floor().await;
    let player = register(&f.host, "RC-2002", "Jose").await;
    bar(&f.supervisor, player).await;

    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "1"), ("card", "RC-2002")],
    )
    .await;
    assert!(
        screen.contains("Do not seat card RC2002: Jose is barred. A pit manager has been alerted."),
        "{screen}"
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 0);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM open_ratings"), 0);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM seat_refusals"), 1);
    let board = f.supervisor.get("/pit").await.text().await.unwrap();
    assert!(
        board.contains("id=\"refused-seatings\"")
            && board.contains("card RC2002, Jose Santos (barred)"),
        "{board}"
    );
    let refused = f.app.audit("player.seat_refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].details["status"], "barred");

    // Active again, they are seated; a second seating of them, or of the seat, is refused.
    let res = f
        .host
        .post_form(
            &format!("/players/{player}/status"),
            &[("status", "active"), ("reason", "ban lifted by the GM")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "1"), ("card", "RC2002")],
    )
    .await;
    assert!(screen.contains("rated at seat 1"), "{screen}");
    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "2"), ("card", "RC2002")],
    )
    .await;
    assert!(screen.contains("Jose is rated at another seat"), "{screen}");
    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "1"), ("card", "NOBODY1")],
    )
    .await;
    assert!(screen.contains("No player has card NOBODY1"), "{screen}");
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 1);
}

async fn read(browser: &TestApp, path: &str) -> (StatusCode, String) {
    let res = browser.get(path).await;
    (res.status(), res.text().await.unwrap())
}

#[tokio::test]
async fn each_role_sees_of_a_player_what_it_may_and_personal_reads_are_audited() {
    let f = floor().await;
    let player = register(&f.host, "RC-3003", "Liza").await;
    let path = format!("/players/{player}");
    let (status, host_page) = read(&f.host, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(host_page.contains("1980-04-02") && host_page.contains("P7654321"));
    assert_eq!(f.app.audit("player.read").len(), 1);

    let (status, pit_page) = read(&f.supervisor, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(pit_page.contains("Liza Santos") && pit_page.contains("Active"));
    assert!(!pit_page.contains("1980-04-02") && !pit_page.contains("P7654321"));
    assert_eq!(
        f.app.audit("player.read").len(),
        1,
        "a pit manager reads no personal data"
    );

    let auditor = f.app.another_browser();
    auditor.signed_in_as(Role::Auditor).await;
    let (status, audit_page) = read(&auditor, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(audit_page.contains("P7654321"));
    assert_eq!(f.app.audit("player.read").len(), 2);

    for role in [Role::Dealer, Role::Admin, Role::Cashier, Role::Count] {
        let browser = f.app.another_browser();
        browser
            .sign_in(
                &f.app
                    .create_user(&format!("who-{role}"), role, crate::helpers::PASSWORD)
                    .username,
                crate::helpers::PASSWORD,
            )
            .await;
        for path in [path.as_str(), "/players"] {
            let res = browser.get(path).await;
            assert_eq!(res.status(), StatusCode::FORBIDDEN, "{role} {path}");
        }
    }
    // A pit manager sets a status but registers nobody.
    let res = f
        .supervisor
        .post_form(
            "/players",
            &[
                ("card_number", "RC4004"),
                ("first_name", "A"),
                ("last_name", "B"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn every_version_without_an_edge_gets_one_simulated_and_kept() {
    let app = spawn_app().await;
    create_table(&app, TABLE);
    crate::points::create_points_table(&app, "RATE-P");
    let url = app.config.database_url.clone().unwrap();
    let db = pusoy_pit::db::handle::Db::new(pusoy_pit::db::pool(&url, 2).unwrap(), 2);
    let versions = count(&app, "SELECT count(*) AS n FROM rule_profile_versions");
    let done = pusoy_pit::players::edges::compute_missing(&db, 40)
        .await
        .unwrap();
    assert_eq!(done.len() as i64, versions);
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM profile_version_edges"),
        versions
    );
    // The points game's edge is nil; a banking version's is simulated over the deals asked.
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM profile_version_edges e JOIN rule_profile_versions v \
             ON v.id = e.rule_profile_version_id \
             WHERE v.options->>'game' = 'points' AND e.edge_ppm = 0 AND e.half_width_ppm = 0"
        ),
        1
    );
    assert!(done
        .iter()
        .any(|e| e.deals == 40 && e.half_width_ppm > 0 && e.edge_ppm.abs() < 1_000_000));
    // Kept: a second look computes nothing, and the rows are never changed.
    assert!(pusoy_pit::players::edges::compute_missing(&db, 40)
        .await
        .unwrap()
        .is_empty());
    let changed =
        diesel::sql_query("UPDATE profile_version_edges SET edge_ppm = 0").execute(&mut app.conn());
    assert!(changed.is_err());
}

#[tokio::test]
async fn an_exclusion_list_excludes_the_players_it_matches_and_a_bad_line_writes_nothing() {
    let f = floor().await;
    let maria = register(&f.host, "RC-5001", "Maria").await;
    let jose = register(&f.host, "RC-5002", "Jose").await;
    let other = register(&f.host, "RC-5003", "Pedro").await;
    // Only Maria keeps the document every test player is registered with; Pedro's birth differs.
    diesel::sql_query(format!(
        "UPDATE players SET id_reference = 'passport Q' || id, \
         date_of_birth = CASE WHEN id = {other} THEN DATE '1999-01-01' ELSE date_of_birth END \
         WHERE id IN ({jose}, {other})"
    ))
    .execute(&mut f.app.conn())
    .unwrap();
    let compliance = f.app.another_browser();
    compliance.signed_in_as(Role::Compliance).await;

    let bad = "last_name,first_name,date_of_birth,id_reference\n\
               Santos,Anyone,,PASSPORT p7654321\n\
               Nobody,Else,31/12/1970,\n";
    let res = compliance
        .post_form(
            "/players/exclusions",
            &[("source", "NCRPS 2026-11"), ("list", bad)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("Line 3: the date of birth"), "{page}");
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM player_statuses"),
        0
    );
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM exclusion_list_lines"),
        0
    );

    let list = "last_name,first_name,date_of_birth,id_reference,status,reason\n\
                X,Y,,PASSPORT p7654321,,family request\n\
                santos,JOSE,1980-04-02,,barred,court order\n\
                Nobody,Else,1970-12-31,,,\n";
    let res = compliance
        .post_form(
            "/players/exclusions",
            &[("source", "NCRPS 2026-11"), ("list", list)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let flash = compliance.get("/players").await.text().await.unwrap();
    // Maria by her document; Jose (Santos, born 1980-04-02 as every test player) by name and
    // birth, case ignored; Pedro by neither.
    assert!(
        flash.contains("Exclusion list read: 3 lines; 2 players excluded now"),
        "{flash}"
    );
    assert!(flash.contains("1 lines match no player"), "{flash}");
    for (id, status) in [(maria, "Self-excluded"), (jose, "Barred")] {
        let page = f
            .host
            .get(&format!("/players/{id}"))
            .await
            .text()
            .await
            .unwrap();
        let shown = format!("Status: <strong class=\"loss\">{status}</strong>");
        assert!(page.contains(&shown), "{id}: {page}");
    }
    let page = f
        .host
        .get(&format!("/players/{other}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Status: Active"), "{page}");
    let set = f.app.audit("player.status_set");
    assert_eq!(set.len(), 2);
    assert_eq!(set[0].details["source"], "NCRPS 2026-11");

    // The list is kept, line by line, and its import audited.
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM exclusion_list_lines"),
        3
    );
    let imported = f.app.audit("exclusion_list.imported");
    assert_eq!(imported.len(), 1);
    assert_eq!(imported[0].details["lines"], 3);
    assert_eq!(imported[0].details["unmatched"], 1);
    assert_eq!(imported[0].chain, "players");
    let changed = diesel::sql_query("UPDATE exclusion_list_lines SET reason = 'none'")
        .execute(&mut f.app.conn());
    assert!(changed.is_err(), "a kept line was changed");

    // Registered after the import, the list's third line is excluded at once; someone else
    // is not; correcting a record to the first line's document excludes them.
    let registration = |card: &'static str, first: &'static str, last: &'static str| {
        vec![
            ("card_number", card),
            ("first_name", first),
            ("last_name", last),
            ("date_of_birth", "1970-12-31"),
            ("id_reference", ""),
            ("notes", ""),
        ]
    };
    let res = f
        .host
        .post_form("/players", &registration("RC-5004", "ELSE", "Nobody"))
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let page = f.host.get(location(&res)).await.text().await.unwrap();
    assert!(
        page.contains(
            "Player ELSE registered, and self-excluded: the exclusion list \
                       &#34;NCRPS 2026-11&#34; (line 4) names them. They cannot be seated."
        ),
        "{page}"
    );
    assert!(
        page.contains("Status: <strong class=\"loss\">Self-excluded</strong>"),
        "{page}"
    );
    let res = f
        .host
        .post_form("/players", &registration("RC-5005", "Ana", "Cruz"))
        .await;
    let ana = location(&res);
    let page = f.host.get(ana).await.text().await.unwrap();
    assert!(page.contains("Player Ana registered.") && page.contains("Status: Active"));
    let mut corrected = registration("RC-5005", "Ana", "Cruz");
    corrected[4] = ("id_reference", "Passport P7654321");
    let res = f.host.post_form(ana, &corrected).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let page = f.host.get(ana).await.text().await.unwrap();
    assert!(
        page.contains(
            "they are now self-excluded: the exclusion list &#34;NCRPS 2026-11&#34; \
                       (line 2) names them"
        ),
        "{page}"
    );
    assert_eq!(f.app.audit("player.status_set").len(), 4);
}

/// Where a rated seat's player is, as the test drives them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Away,
    Playing,
    Paused,
}

/// A property of ratings: over seeded random play (players seated, away, back and leaving at
/// random between rounds of random bets), each ended rating's hands, total bet and result are
/// exactly those of the rounds dealt at its seat while its player was there and not away, as
/// the test itself kept them.
#[tokio::test]
async fn ratings_add_up_to_the_rounds_their_players_were_there_for() {
    use rand::{Rng, SeedableRng};
    let f = floor().await;
    let cards = ["RC-6001", "RC-6002", "RC-6003"];
    for (card, first) in cards.iter().zip(["Ana", "Ben", "Cora"]) {
        register(&f.host, card, first).await;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(35);
    let mut at = [At::Away; 3];
    // Per seat: the figures of the rating running there, as the test counts them, and those
    // of every rating ended (hands, total bet, player's result).
    let mut running = [(0_i64, 0_i64, 0_i64); 3];
    let mut ended: Vec<(usize, (i64, i64, i64))> = Vec::new();
    for round in 0..30 {
        for seat in 0..3 {
            let path = |step: &str| format!("/tables/{TABLE}/ratings/{}/{step}", seat + 1);
            let roll: f64 = rng.random();
            match at[seat] {
                At::Away if roll < 0.5 => {
                    at_table(
                        &f.dealer,
                        &format!("/tables/{TABLE}/ratings"),
                        &[("seat", &(seat + 1).to_string()), ("card", cards[seat])],
                    )
                    .await;
                    at[seat] = At::Playing;
                }
                At::Playing if roll < 0.15 => {
                    at_table(&f.dealer, &path("pause"), &[]).await;
                    at[seat] = At::Paused;
                }
                At::Paused if roll < 0.5 => {
                    at_table(&f.dealer, &path("resume"), &[]).await;
                    at[seat] = At::Playing;
                }
                At::Playing | At::Paused if roll > 0.85 => {
                    at_table(&f.dealer, &path("leave"), &[("walked_with", "0")]).await;
                    ended.push((seat, std::mem::take(&mut running[seat])));
                    at[seat] = At::Away;
                }
                _ => {}
            }
        }
        let mut body = the_round();
        for seat in 0..3 {
            body["seats"][seat]["bet"] = (100 * rng.random_range(1..=10)).into();
        }
        let key = format!("random-round-{round}");
        let (status, answer) = record(&f.dealer, TABLE, &key, body).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        for (seat, counted) in running.iter_mut().enumerate() {
            if at[seat] == At::Playing {
                let (bet, result) = seat_of(&f.app, &key, seat + 1);
                counted.0 += 1;
                counted.1 += bet;
                counted.2 += result;
            }
        }
    }
    for seat in 0..3 {
        if at[seat] != At::Away {
            let path = format!("/tables/{TABLE}/ratings/{}/leave", seat + 1);
            at_table(&f.dealer, &path, &[("walked_with", "0")]).await;
            ended.push((seat, std::mem::take(&mut running[seat])));
        }
    }
    let events = f.app.audit("rating.ended");
    assert_eq!(events.len(), ended.len());
    assert!(ended.len() >= 4, "the seed seats and ends several ratings");
    for (event, (seat, (hands, bet, result))) in events.iter().zip(&ended) {
        let d = &event.details;
        assert_eq!(d["seat"], *seat as i64 + 1, "{d}");
        assert_eq!(
            (
                d["hands"].as_i64(),
                d["total_bet"].as_i64(),
                d["player_result"].as_i64()
            ),
            (Some(*hands), Some(*bet), Some(*result)),
            "{d}"
        );
    }
}

/// A seat's bet and result in the round recorded under `key`, in minor units.
pub(crate) fn seat_of(app: &TestApp, key: &str, seat: usize) -> (i64, i64) {
    use pusoy_pit::db::schema::rounds;
    let places: Value = rounds::table
        .filter(rounds::draft_key.eq(key))
        .select(rounds::places)
        .first(&mut app.conn())
        .unwrap();
    let place = format!("seat{seat}");
    let seat = places
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["place"] == place.as_str())
        .unwrap()
        .clone();
    (
        seat["bet"].as_i64().unwrap(),
        seat["result"].as_i64().unwrap(),
    )
}

/// The path of table [`TABLE`]'s observations page.
fn observations() -> String {
    format!("/tables/{TABLE}/observations")
}

/// Records an observation at seat 3 as `who` (a pit manager); its id.
pub(crate) async fn observe(who: &TestApp, description: &str, average_bet: &str) -> i64 {
    let res = who
        .post_form(
            &observations(),
            &[
                ("seat", "3"),
                ("description", description),
                ("average_bet", average_bet),
                ("started", ""),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "observation");
    assert_eq!(location(&res), observations());
    count(
        &who.another_browser(),
        "SELECT max(id) AS n FROM unrated_observations",
    )
}

/// The page's row of observation `id`.
fn row_of(page: &str, id: i64) -> String {
    page.split(&format!("id=\"observation-{id}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .unwrap_or_else(|| panic!("observation {id} on the page: {page}"))
        .to_owned()
}

#[tokio::test]
async fn an_unrated_observation_is_recorded_ended_and_estimated_from_its_seats_rounds() {
    let f = floor().await;
    store_house_edge(&f.app);
    let (status, body) = record(&f.dealer, TABLE, "before-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let id = observe(&f.supervisor, "  man, 50s,   red shirt ", "25").await;
    let page = f
        .supervisor
        .get(&observations())
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(
            "Unrated player observed at seat 3: man, 50s, red shirt, about PHP 25.00 a hand."
        ),
        "{page}"
    );
    // The pit manager's table screen lists it; a dealer's has no such panel.
    let screen = f
        .supervisor
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        screen.contains("id=\"observed-seat-3\"") && screen.contains("man, 50s, red shirt"),
        "{screen}"
    );
    let screen = f
        .dealer
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!screen.contains("observed-panel"), "{screen}");

    let (status, body) = record(&f.dealer, TABLE, "observed-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let res = f
        .supervisor
        .post_form(
            &format!("{}/{id}/end", observations()),
            &[("walked_with", "1,200")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let (status, body) = record(&f.dealer, TABLE, "after-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // One round at seat 3 while observed, at the estimated 25.00: 2 % of it is 0.50.
    let page = f
        .supervisor
        .get(&observations())
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(
            "Observation ended at seat 3: man, 50s, red shirt, walked with PHP 1,200.00."
        ),
        "{page}"
    );
    let row = row_of(&page, id);
    assert!(row.contains("hands\">1<"), "{row}");
    assert!(row.contains("average-bet\">PHP 25.00<"), "{row}");
    assert!(row.contains("total-bet\">PHP 25.00<"), "{row}");
    assert!(row.contains("theoretical-win\">PHP +0.50<"), "{row}");
    assert!(row.contains("walked-with\">PHP 1,200.00<"), "{row}");
    assert!(
        !page.contains(&format!("id=\"running-{id}\"")),
        "ended: {page}"
    );
    // A second end is refused, with nothing written.
    let res = f
        .supervisor
        .post_form(&format!("{}/{id}/end", observations()), &[])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("has ended already"));
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM unrated_observation_ends"),
        1
    );

    // Audited on the players' chain, with the table and gaming day.
    let recorded = f.app.audit("observation.recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].chain, "players");
    assert_eq!(recorded[0].target, format!("observation:{id}"));
    assert_eq!(recorded[0].details["description"], "man, 50s, red shirt");
    assert_eq!(recorded[0].details["average_bet"], 2_500);
    assert!(recorded[0].gaming_day.is_some() && recorded[0].table_id.is_some());
    let ended = f.app.audit("observation.ended");
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0].details["hands"], 1);
    assert_eq!(ended[0].details["walked_with"], 120_000);
    assert_eq!(ended[0].details["estimated_theoretical_win"], 50);

    // The day's report: one observation, its hand, its estimates, marked as such.
    let report = f
        .supervisor
        .get("/reports/players")
        .await
        .text()
        .await
        .unwrap();
    // In the page's body, not its title.
    let body = report.split("</title>").nth(1).expect("a title");
    let unrated = body
        .split("id=\"unrated\"")
        .nth(1)
        .expect("the unrated play");
    assert!(unrated.contains("Estimates"), "{unrated}");
    assert!(unrated.contains("observations\">1<"), "{unrated}");
    assert!(unrated.contains("hands\">1<"), "{unrated}");
    assert!(unrated.contains("average-bet\">PHP 25.00<"), "{unrated}");
    assert!(
        unrated.contains("theoretical-win\">PHP +0.50<"),
        "{unrated}"
    );
    assert!(unrated.contains("man, 50s, red shirt"), "{unrated}");
}

#[tokio::test]
async fn an_observation_is_voided_by_another_pit_manager_never_by_who_recorded_it() {
    let f = floor().await;
    let id = observe(&f.supervisor, "woman, 30s, green dress", "40").await;
    let void = format!("{}/{id}/void", observations());

    // Who recorded it may not void it: refused, nothing written.
    let res = f
        .supervisor
        .post_form(&void, &[("reason", "wrong table")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(
            "You recorded this observation: another pit manager or an administrator voids it."
        ),
        "{body}"
    );
    assert_eq!(
        count(
            &f.app,
            "SELECT count(*) AS n FROM unrated_observation_voids"
        ),
        0
    );
    assert!(f.app.audit("observation.void").is_empty());
    // Their page offers no void form for it.
    let page = f
        .supervisor
        .get(&observations())
        .await
        .text()
        .await
        .unwrap();
    assert!(!row_of(&page, id).contains("Void observation"), "{page}");

    let other = f.app.another_browser();
    f.app
        .create_user("other-pit", Role::Supervisor, crate::helpers::PASSWORD);
    let res = other.sign_in("other-pit", crate::helpers::PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    // No reason: refused, naming the field.
    let res = other.post_form(&void, &[("reason", "  ")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("data-field=\"reason\""));
    assert_eq!(
        count(
            &f.app,
            "SELECT count(*) AS n FROM unrated_observation_voids"
        ),
        0
    );
    let res = other
        .post_form(&void, &[("reason", "seen at table 2, not here")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        count(
            &f.app,
            "SELECT count(*) AS n FROM unrated_observation_voids"
        ),
        1
    );
    let voids = f.app.audit("observation.void");
    assert_eq!(voids.len(), 1);
    assert_eq!(voids[0].details["reason"], "seen at table 2, not here");
    assert_eq!(voids[0].chain, "players");
    // Void once; a void one is not ended; it counts for nothing on the day's report.
    let res = other.post_form(&void, &[("reason", "again")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = other
        .post_form(&format!("{}/{id}/end", observations()), &[])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM unrated_observation_ends"),
        0
    );
    let page = other.get(&observations()).await.text().await.unwrap();
    assert!(row_of(&page, id).contains("VOID"), "{page}");
    let report = other.get("/reports/players").await.text().await.unwrap();
    assert!(
        report.contains("No unrated play observed this day."),
        "{report}"
    );
    // The database keeps it as it was.
    let changed = diesel::sql_query("UPDATE unrated_observations SET average_bet = 1")
        .execute(&mut f.app.conn());
    assert!(changed.is_err());
}

#[tokio::test]
async fn a_bad_observation_is_refused_naming_its_field_and_writes_nothing() {
    let f = floor().await;
    let long = "x".repeat(121);
    let cases: [(&str, &str, &str, &str, &str); 11] = [
        ("", "man, 40s", "25", "", "seat"),
        ("9", "man, 40s", "25", "", "seat"),
        ("3", "   ", "25", "", "description"),
        ("3", &long, "25", "", "description"),
        ("3", "man, 40s", "", "", "average_bet"),
        ("3", "man, 40s", "lots", "", "average_bet"),
        ("3", "man, 40s", "0", "", "average_bet"),
        ("3", "man, 40s", "-5", "", "average_bet"),
        // The table's limits are PHP 1.00 to PHP 100.00.
        ("3", "man, 40s", "100.01", "", "average_bet"),
        ("3", "man, 40s", "0.50", "", "average_bet"),
        ("3", "man, 40s", "25", "9pm", "started"),
    ];
    for (seat, description, bet, started, field) in cases {
        let res = f
            .supervisor
            .post_form(
                &observations(),
                &[
                    ("seat", seat),
                    ("description", description),
                    ("average_bet", bet),
                    ("started", started),
                ],
            )
            .await;
        assert_eq!(
            res.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{seat} {description} {bet} {started}"
        );
        let body = res.text().await.unwrap();
        assert!(
            body.contains(&format!("data-field=\"{field}\"")),
            "{field}: {body}"
        );
    }
    // A seat with a rated player is theirs.
    register(&f.host, "RC-3003", "Ana").await;
    at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "3"), ("card", "RC3003")],
    )
    .await;
    let res = f
        .supervisor
        .post_form(
            &observations(),
            &[("seat", "3"), ("description", "man"), ("average_bet", "25")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Seat 3 has a rated player"));
    // No dealer on shift: nothing to observe.
    create_table(&f.app, "QUIET-1");
    let res = f
        .supervisor
        .post_form(
            "/tables/QUIET-1/observations",
            &[("seat", "1"), ("description", "man"), ("average_bet", "25")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("No dealer is on shift at QUIET-1"));
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM unrated_observations"),
        0
    );
    assert!(f.app.audit("observation.recorded").is_empty());
}

#[tokio::test]
async fn only_a_pit_manager_records_ends_or_voids_an_observation() {
    let f = floor().await;
    let fields = [("seat", "3"), ("description", "man"), ("average_bet", "25")];
    for who in [&f.dealer, &f.host] {
        let res = who.post_form(&observations(), &fields).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
    }
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM unrated_observations"),
        0
    );
    let id = observe(&f.supervisor, "man", "25").await;
    for who in [&f.dealer, &f.host] {
        for step in ["end", "void", "card"] {
            let res = who
                .post_form(
                    &format!("{}/{id}/{step}", observations()),
                    &[("reason", "no"), ("card", "RC1001")],
                )
                .await;
            assert_eq!(res.status(), StatusCode::FORBIDDEN, "{step}");
        }
    }
    assert_eq!(
        count(
            &f.app,
            "SELECT (SELECT count(*) FROM unrated_observation_ends) \
             + (SELECT count(*) FROM unrated_observation_voids) \
             + (SELECT count(*) FROM observation_cardings) AS n"
        ),
        0
    );
    assert_eq!(f.app.audit("observation.recorded").len(), 1);
    assert!(f.app.audit("observation.ended").is_empty());
}

/// Cards the player of observation `id` with card `card` as `who`; the answer.
async fn card(who: &TestApp, id: i64, card: &str, back: &str) -> reqwest::Response {
    who.post_form(
        &format!("{}/{id}/card", observations()),
        &[("card", card), ("back", back)],
    )
    .await
}

/// Two stored times of the database, as one text each (`NULL`: none).
fn times(app: &TestApp, sql: &str) -> Vec<String> {
    #[derive(QueryableByName)]
    struct At {
        #[diesel(sql_type = diesel::sql_types::Text)]
        at: String,
    }
    diesel::sql_query(sql)
        .load::<At>(&mut app.conn())
        .unwrap()
        .into_iter()
        .map(|a| a.at)
        .collect()
}

#[tokio::test]
async fn an_observed_player_carded_is_rated_from_the_moment_the_observation_ends() {
    let f = floor().await;
    let player = register(&f.host, "RC-4004", "Rosa").await;
    store_house_edge(&f.app);
    let id = observe(&f.supervisor, "woman, 40s, blue scarf", "25").await;
    let (status, body) = record(&f.dealer, TABLE, "observed-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Carded from the table screen's Unrated players, back there.
    let screen = at_table(
        &f.supervisor,
        &format!("{}/{id}/card", observations()),
        &[("card", "rc-4004"), ("back", "screen")],
    )
    .await;
    assert!(
        screen.contains(&format!(
            "Observation {id} at seat 3 (woman, 40s, blue scarf) carded: card RC4004 (Rosa \
             Santos) rated at seat 3 from now on"
        )),
        "{screen}"
    );
    assert!(screen.contains("id=\"rated-seat-3\""), "{screen}");
    assert!(!screen.contains("id=\"observed-seat-3\""), "{screen}");
    let (status, body) = record(&f.dealer, TABLE, "rated-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Where the observation ends, the rating starts: the link holds the same moment.
    let at = times(
        &f.app,
        "SELECT e.ended_at::text AS at FROM unrated_observation_ends e \
         UNION ALL SELECT r.started_at::text FROM ratings r \
         UNION ALL SELECT c.carded_at::text FROM observation_cardings c",
    );
    assert_eq!(at.len(), 3, "{at:?}");
    assert!(at.iter().all(|t| *t == at[0]), "{at:?}");
    assert_eq!(
        count(
            &f.app,
            &format!(
                "SELECT count(*) AS n FROM observation_cardings c JOIN ratings r \
                 ON r.id = c.rating_id WHERE c.observation_id = {id} AND c.player_id = {player} \
                 AND r.player_id = {player} AND r.seat = 3"
            )
        ),
        1
    );

    // The observation counts the round before, the rating the round after: each once.
    let page = f
        .supervisor
        .get(&observations())
        .await
        .text()
        .await
        .unwrap();
    let row = row_of(&page, id);
    assert!(row.contains("hands\">1<"), "{row}");
    assert!(row.contains("theoretical-win\">PHP +0.50<"), "{row}");
    assert!(
        row.contains(&format!(
            "carded as <a href=\"/players/{player}\">Rosa Santos</a>"
        )),
        "{row}"
    );
    assert!(!page.contains(&format!("id=\"running-{id}\"")), "{page}");
    let rating = count(&f.app, "SELECT max(id) AS n FROM ratings");
    let page = f
        .supervisor
        .get(&format!("/players/{player}"))
        .await
        .text()
        .await
        .unwrap();
    let rated = page
        .split(&format!("id=\"rating-{rating}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the rating's row");
    assert!(rated.contains("hands\">1<"), "{rated}");
    assert!(
        rated.contains(&format!("carded from observation {id}")),
        "{rated}"
    );
    let observed = page
        .split(&format!("id=\"observed-{id}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the observation on the player's page");
    assert!(observed.contains("hands\">1<"), "{observed}");
    assert!(observed.contains(&format!("rating {rating}")), "{observed}");

    // The day's report says whom the observation became.
    let report = f
        .supervisor
        .get("/reports/players")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        report.contains(&format!(
            "carded as <a href=\"/players/{player}\">Rosa Santos</a>"
        )),
        "{report}"
    );

    // Audited on the players' chain: the carding, with the estimates, and the rating's start.
    let carded = f.app.audit("observation.carded");
    assert_eq!(carded.len(), 1);
    assert_eq!(carded[0].chain, "players");
    assert_eq!(carded[0].target, format!("observation:{id}"));
    assert_eq!(carded[0].details["player"], player);
    assert_eq!(carded[0].details["rating"], rating);
    assert_eq!(carded[0].details["card_number"], "RC4004");
    assert_eq!(carded[0].details["hands"], 1);
    assert_eq!(carded[0].details["estimated_theoretical_win"], 50);
    let started = f.app.audit("rating.started");
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].details["observation"], id);
    assert!(f.app.audit("observation.ended").is_empty());

    // Carded once; the link is never changed.
    let res = card(&f.supervisor, id, "RC4004", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains(&format!(
        "Observation {id} is carded already (rating {rating})"
    )));
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM observation_cardings"),
        1
    );
    let changed = diesel::sql_query("UPDATE observation_cardings SET carded_at = now()")
        .execute(&mut f.app.conn());
    assert!(changed.is_err());
    let changed = diesel::sql_query("DELETE FROM observation_cardings").execute(&mut f.app.conn());
    assert!(changed.is_err());
    // A link whose observation does not end when its rating starts is refused by the database
    // itself: here a second out of step (the same link exactly would be a duplicate).
    let forged = diesel::sql_query(
        "INSERT INTO observation_cardings \
         SELECT observation_id, rating_id, player_id, gaming_day, carded_by, \
                carded_at + interval '1 second', kind FROM observation_cardings",
    )
    .execute(&mut f.app.conn());
    let refused = forged.expect_err("a forged link is refused").to_string();
    assert!(
        refused.contains("must end where and when the rating starts"),
        "{refused}"
    );
}

#[tokio::test]
async fn carding_is_refused_for_an_excluded_or_elsewhere_rated_player_and_a_stopped_observation() {
    let f = floor().await;
    let barred = register(&f.host, "RC-5005", "Jose").await;
    bar(&f.supervisor, barred).await;
    let id = observe(&f.supervisor, "man, 60s, cap", "25").await;
    let nothing_carded = |app: &TestApp| {
        assert_eq!(
            count(
                app,
                "SELECT (SELECT count(*) FROM ratings) + (SELECT count(*) FROM \
                 observation_cardings) + (SELECT count(*) FROM unrated_observation_ends) AS n"
            ),
            0
        );
        assert!(app.audit("observation.carded").is_empty());
    };

    // An excluded player: refused as a seating is, the refusal kept and the pit alerted; the
    // observation keeps running.
    let res = card(&f.supervisor, id, "RC5005", "screen").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = res.text().await.unwrap();
    assert!(body.contains("data-field=\"card\""), "{body}");
    assert!(
        body.contains(&format!(
            "Do not seat card RC5005: Jose is barred. A pit manager has been alerted. \
             Observation {id} keeps running"
        )),
        "{body}"
    );
    nothing_carded(&f.app);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM seat_refusals"), 1);
    let refused = f.app.audit("player.seat_refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].details["status"], "barred");
    let board = f.supervisor.get("/pit").await.text().await.unwrap();
    assert!(
        board.contains("card RC5005, Jose Santos (barred)"),
        "{board}"
    );

    // No card, a card nobody has: refused naming the field, nothing written.
    for (typed, says) in [
        (" - ", "Type or scan the player"),
        ("NOBODY9", "No player has card NOBODY9"),
    ] {
        let res = card(&f.supervisor, id, typed, "").await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{typed}");
        let body = res.text().await.unwrap();
        assert!(body.contains("data-field=\"card\""), "{body}");
        assert!(body.contains(says), "{body}");
    }
    nothing_carded(&f.app);

    // A player rated at another seat is carded nowhere else.
    register(&f.host, "RC-6006", "Ana").await;
    let screen = at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "1"), ("card", "RC6006")],
    )
    .await;
    assert!(screen.contains("rated at seat 1"), "{screen}");
    let res = card(&f.supervisor, id, "RC6006", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Ana is rated at another seat"));
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 1);
    assert_eq!(
        count(
            &f.app,
            "SELECT (SELECT count(*) FROM observation_cardings) \
             + (SELECT count(*) FROM unrated_observation_ends) AS n"
        ),
        0
    );

    // A void observation has no player to card.
    register(&f.host, "RC-7007", "Luz").await;
    let other = f.app.another_browser();
    f.app
        .create_user("other-pit", Role::Supervisor, crate::helpers::PASSWORD);
    let res = other.sign_in("other-pit", crate::helpers::PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = other
        .post_form(
            &format!("{}/{id}/void", observations()),
            &[("reason", "wrong seat")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = card(&f.supervisor, id, "RC7007", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains(&format!("Observation {id} is void")));

    // A closed gaming day cards nobody.
    let running = observe(&f.supervisor, "woman, 20s", "25").await;
    let today = f.app.config.gaming_day(chrono::Utc::now());
    diesel::sql_query(
        "INSERT INTO gaming_day_closes (gaming_day, closed_by, seal_seq, seal_hash) \
         SELECT $1, min(id), 1, '\\x00' FROM users",
    )
    .bind::<diesel::sql_types::Date, _>(today)
    .execute(&mut f.app.conn())
    .unwrap();
    let res = card(&f.supervisor, running, "RC7007", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains(&format!("The gaming day {today} is closed")));

    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM observation_cardings"),
        0
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 1);
    assert!(f.app.audit("observation.carded").is_empty());
}

#[tokio::test]
async fn a_rated_player_is_refused_a_seat_where_an_observation_is_running() {
    let f = floor().await;
    register(&f.host, "RC-8008", "Ben").await;
    let id = observe(&f.supervisor, "man, 30s, glasses", "25").await;
    let ratings = format!("/tables/{TABLE}/ratings");
    let fields = [("seat", "3"), ("card", "RC8008")];
    // The dealer is told to call a pit manager; the pit manager to card them from it.
    let screen = at_table(&f.dealer, &ratings, &fields).await;
    assert!(
        screen.contains(&format!(
            "Seat 3 has an unrated player observed (observation {id}: man, 30s, glasses). If \
             this is that player, call a pit manager to card them from the observation"
        )),
        "{screen}"
    );
    let screen = at_table(&f.supervisor, &ratings, &fields).await;
    assert!(
        screen.contains(
            "If this is that player, card them from the observation (Unrated players: Card \
             player)"
        ),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("/tables/{TABLE}/observations/{id}/card")),
        "the card form: {screen}"
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 0);
    // Another seat is free; once the observation has ended, so is seat 3.
    let res = f
        .supervisor
        .post_form(&format!("{}/{id}/end", observations()), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let screen = at_table(&f.dealer, &ratings, &fields).await;
    assert!(screen.contains("Card RC8008 rated at seat 3."), "{screen}");
}

/// Ends observation `id` as `who`, with the chips walked with.
async fn end_observation(who: &TestApp, id: i64, walked_with: &str) {
    let res = who
        .post_form(
            &format!("{}/{id}/end", observations()),
            &[("walked_with", walked_with)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "end of {id}");
}

#[tokio::test]
async fn an_observation_carded_after_it_ended_is_rated_for_its_own_time() {
    let f = floor().await;
    let player = register(&f.host, "RC-4104", "Rosa").await;
    store_house_edge(&f.app);
    let id = observe(&f.supervisor, "woman, 40s, blue scarf", "25").await;
    let (status, body) = record(&f.dealer, TABLE, "observed-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    buy_in(&f.dealer, "700").await;
    end_observation(&f.supervisor, id, "600").await;
    // After the player left: no longer theirs.
    let (status, body) = record(&f.dealer, TABLE, "after-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // The observations page offers the card form on the ended observation's row.
    let page = f
        .supervisor
        .get(&observations())
        .await
        .text()
        .await
        .unwrap();
    assert!(
        row_of(&page, id).contains(&format!("/observations/{id}/card")),
        "{page}"
    );
    let res = card(&f.supervisor, id, "rc-4104", "").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), observations());
    let page = f
        .supervisor
        .get(&observations())
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&format!(
            "Observation {id} at seat 3 (woman, 40s, blue scarf) carded after it ended: card \
             RC4104 (Rosa Santos) rated at seat 3 for the observation&#39;s time, 1 hand(s)."
        )),
        "{page}"
    );
    let row = row_of(&page, id);
    assert!(
        row.contains("for the observation's time, carded after it ended"),
        "{row}"
    );
    assert!(!row.contains(&format!("/observations/{id}/card")), "{row}");

    // The rating spans the observation exactly: its start, its one step (the end, with the
    // chips seen), not open; the link says its kind.
    let at = times(
        &f.app,
        "SELECT o.started_at::text AS at FROM unrated_observations o \
         UNION ALL SELECT r.started_at::text FROM ratings r \
         UNION ALL SELECT e.ended_at::text FROM unrated_observation_ends e \
         UNION ALL SELECT s.at::text FROM rating_steps s",
    );
    assert_eq!(at.len(), 4, "{at:?}");
    assert_eq!((&at[0], &at[2]), (&at[1], &at[3]), "{at:?}");
    assert_eq!(
        count(
            &f.app,
            &format!(
                "SELECT count(*) AS n FROM observation_cardings c JOIN ratings r \
                 ON r.id = c.rating_id JOIN rating_steps s ON s.rating_id = r.id \
                 WHERE c.observation_id = {id} AND c.kind = 'ended' AND c.player_id = {player} \
                 AND r.player_id = {player} AND r.seat = 3 AND s.kind = 'end' \
                 AND s.walked_with = 60000"
            )
        ),
        1
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM open_ratings"), 0);

    // Rated from the rounds at the seat in that time, like any rating: one hand, its
    // theoretical win from the stored edge (2 % of the bet).
    let rating = count(&f.app, "SELECT max(id) AS n FROM ratings");
    let ended = f.app.audit("rating.ended");
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0].details["hands"], 1);
    let bet = ended[0].details["total_bet"].as_i64().unwrap();
    assert!(bet > 0);
    assert_eq!(ended[0].details["theoretical_win"], bet * 2 / 100);
    assert_eq!(ended[0].details["walked_with"], 60000);
    let page = f
        .supervisor
        .get(&format!("/players/{player}"))
        .await
        .text()
        .await
        .unwrap();
    let rated = page
        .split(&format!("id=\"rating-{rating}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the rating's row");
    assert!(rated.contains("hands\">1<"), "{rated}");
    assert!(
        rated.contains(&format!(
            "rated from observation {id}, carded after it ended"
        )),
        "{rated}"
    );
    assert!(rated.contains("PHP 600"), "{rated}");
    // The buy-in at the seat while observed is theirs: attributed, counted once in the slip.
    assert!(rated.contains("bought-in\">PHP 700.00<"), "{rated}");
    assert_eq!(
        count(
            &f.app,
            &format!(
                "SELECT count(*) AS n FROM buy_in_attributions WHERE rating_id = {rating} \
                 AND player_id = {player} AND observation_id = {id}"
            )
        ),
        1
    );

    // Audited with its kind; the rating's start and end too.
    let carded = f.app.audit("observation.carded");
    assert_eq!(carded.len(), 1);
    assert_eq!(carded[0].details["kind"], "ended");
    assert_eq!(carded[0].details["rating"], rating);
    assert_eq!(carded[0].details["hands"], 1);
    let started = f.app.audit("rating.started");
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].details["observation"], id);

    // Carded once.
    let res = card(&f.supervisor, id, "RC4104", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains(&format!(
        "Observation {id} is carded already (rating {rating})"
    )));

    // The database holds an ended carding to its shape: a rating a second off the
    // observation's start is refused as its link.
    let other = observe(&f.supervisor, "man, 70s", "25").await;
    end_observation(&f.supervisor, other, "").await;
    diesel::sql_query(format!(
        "WITH r AS (INSERT INTO ratings (player_id, table_id, seat, gaming_day, started_by, \
                    started_at) \
                  SELECT {player}, o.table_id, o.seat, o.gaming_day, o.recorded_by, \
                         o.started_at + interval '1 second' \
                  FROM unrated_observations o WHERE o.id = {other} RETURNING id) \
         INSERT INTO rating_steps (rating_id, seq, kind, at, by_user, walked_with) \
         SELECT r.id, 1, 'end', e.ended_at, e.ended_by, NULL FROM r, \
                unrated_observation_ends e WHERE e.observation_id = {other}"
    ))
    .execute(&mut f.app.conn())
    .unwrap();
    let forged = diesel::sql_query(format!(
        "INSERT INTO observation_cardings (observation_id, rating_id, player_id, gaming_day, \
                carded_by, carded_at, kind) \
         SELECT {other}, max(r.id), {player}, max(r.gaming_day), min(r.started_by), now(), \
                'ended' FROM ratings r"
    ))
    .execute(&mut f.app.conn());
    let refused = forged.expect_err("a forged link is refused").to_string();
    assert!(
        refused.contains("must start and end as the observation did"),
        "{refused}"
    );
}

#[tokio::test]
async fn carding_after_the_fact_is_refused_over_a_rated_seat_or_player_and_for_the_excluded() {
    let f = floor().await;
    let zone = f.app.config.zone().offset;
    register(&f.host, "RC-4201", "Ana").await;
    register(&f.host, "RC-4202", "Ben").await;
    let barred = register(&f.host, "RC-4203", "Jose").await;
    bar(&f.supervisor, barred).await;
    let ratings = format!("/tables/{TABLE}/ratings");

    // Ana rated at seat 3 for a while; then an observation at seat 3 said to have begun in the
    // minute her rating did.
    at_table(&f.dealer, &ratings, &[("seat", "3"), ("card", "RC4201")]).await;
    at_table(
        &f.dealer,
        &format!("{ratings}/3/leave"),
        &[("walked_with", "0")],
    )
    .await;
    let began = times(
        &f.app,
        &format!(
            "SELECT to_char((started_at AT TIME ZONE 'UTC') + make_interval(secs => {}), \
             'HH24:MI') AS at FROM ratings",
            zone.local_minus_utc()
        ),
    )[0]
    .clone();
    let res = f
        .supervisor
        .post_form(
            &observations(),
            &[
                ("seat", "3"),
                ("description", "man, 30s"),
                ("average_bet", "25"),
                ("started", &began),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let id = count(&f.app, "SELECT max(id) AS n FROM unrated_observations");
    end_observation(&f.supervisor, id, "").await;
    let nothing_more = |app: &TestApp| {
        assert_eq!(count(app, "SELECT count(*) AS n FROM ratings"), 1);
        assert_eq!(
            count(app, "SELECT count(*) AS n FROM observation_cardings"),
            0
        );
        assert!(app.audit("observation.carded").is_empty());
    };
    let res = card(&f.supervisor, id, "RC4202", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(&format!(
            "Seat 3 was rated while observation {id} ran (rating "
        )),
        "{body}"
    );
    nothing_more(&f.app);

    // Ben rated at seat 1 (still there) while another observation at seat 2 ran.
    at_table(&f.dealer, &ratings, &[("seat", "1"), ("card", "RC4202")]).await;
    let res = f
        .supervisor
        .post_form(
            &observations(),
            &[
                ("seat", "2"),
                ("description", "woman, 50s"),
                ("average_bet", "25"),
                ("started", ""),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let at_two = count(&f.app, "SELECT max(id) AS n FROM unrated_observations");
    end_observation(&f.supervisor, at_two, "").await;
    let res = card(&f.supervisor, at_two, "RC4202", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(&format!(
            "Ben was rated at another seat while observation {at_two} ran (rating "
        )),
        "{body}"
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 2);
    assert_eq!(
        count(&f.app, "SELECT count(*) AS n FROM observation_cardings"),
        0
    );

    // An excluded player: refused as at a seating, the refusal kept and audited.
    let res = card(&f.supervisor, at_two, "RC4203", "").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = res.text().await.unwrap();
    assert!(body.contains("data-field=\"card\""), "{body}");
    assert!(
        body.contains(&format!(
            "Do not seat card RC4203: Jose is barred. A pit manager has been alerted. \
             Observation {at_two} stays unrated."
        )),
        "{body}"
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM seat_refusals"), 1);
    assert_eq!(f.app.audit("player.seat_refused").len(), 1);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 2);
    assert!(f.app.audit("observation.carded").is_empty());
}

#[tokio::test]
async fn the_tablet_seats_pauses_resumes_and_ends_a_rating_over_the_api_with_a_token() {
    let f = floor().await;
    register(&f.host, "RC-3003", "Lita").await;
    let admin = f.app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let token = issue_token(&admin, "RATE-1 tablet", &f.dealer_user).await;
    let ratings = format!("/api/v1/tables/{TABLE}/ratings");
    let post = |path: String, body: Value| {
        let token = token.clone();
        let app = &f.app;
        async move { call_with_token(app, &token, Method::POST, &path, Some(body)).await }
    };

    let (status, body, _) = post(ratings.clone(), json!({"seat": 2, "card": "rc-3003"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let rating = count(&f.app, "SELECT max(id) AS n FROM ratings");
    assert_eq!(
        body,
        json!({
            "rating": rating,
            "table": TABLE,
            "seat": 2,
            "card_number": "RC3003",
            "first_name": "Lita",
            "step": "seated",
            "walked_with": null,
            "message": "Card RC3003 rated at seat 2.",
        })
    );
    let step = |name: &str| format!("{ratings}/2/{name}");
    let (status, body, _) = post(step("pause"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["step"], "paused");
    let (status, body, _) = post(step("pause"), json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "Lita is away already.");
    let (status, body, _) = post(step("resume"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["step"], "resumed");

    // Every refusal is JSON naming what and where, and writes nothing.
    let refusals = [
        (
            ratings.clone(),
            json!({"seat": 2, "card": "RC3003"}),
            "seat",
        ),
        (
            ratings.clone(),
            json!({"seat": 9, "card": "RC3003"}),
            "seat",
        ),
        (ratings.clone(), json!({"seat": 1, "card": ""}), "card"),
        (
            ratings.clone(),
            json!({"seat": 1, "card": "NOBODY9"}),
            "card",
        ),
        (ratings.clone(), json!({"seat": 1, "card": 42}), "card"),
        (
            ratings.clone(),
            json!({"seat": 1, "card": "RC3003", "vip": true}),
            "vip",
        ),
        (step("leave"), json!({"walked_with": 1250}), "walked_with"),
        (step("leave"), json!({"walked_with": "lots"}), "walked_with"),
        (step("leave"), json!({}), "walked_with"),
        (step("pause"), json!({"walked_with": "0"}), "walked_with"),
        (format!("{ratings}/3/pause"), json!({}), "seat"),
    ];
    for (path, sent, field) in refusals {
        let (status, body, _) = post(path.clone(), sent.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{path} {sent}: {body}"
        );
        assert_eq!(body["field"], field, "{path} {sent}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
    }
    let (status, body, _) = post(step("dance"), json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body["error"].is_string(), "{body}");
    let (status, body, _) = post(ratings.clone(), json!(["RC3003"])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("JSON object"),
        "{body}"
    );
    let (status, body, _) = post(
        "/api/v1/tables/NO-SUCH/ratings".to_owned(),
        json!({"seat": 1, "card": "RC3003"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body["error"].is_string(), "{body}");
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 1);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM rating_steps"), 2);

    // Leaving with the chips walked with ends it, as the table screen's Leave does.
    let (status, body, _) = post(step("leave"), json!({"walked_with": "1,250"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["step"], "left");
    assert_eq!(body["walked_with"], "1250.00");
    assert_eq!(body["message"], "Lita left seat 2 with PHP 1,250.00.");
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM open_ratings"), 0);
    let ended = f.app.audit("rating.ended");
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0].details["walked_with"], json!(125_000));

    // A session works too, with its CSRF token; a role that does not rate is refused.
    let (status, body) = call(
        &f.dealer,
        Method::POST,
        &ratings,
        Some(json!({"seat": "1", "card": "RC3003"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = call(
        &f.host,
        Method::POST,
        &ratings,
        Some(json!({"seat": 3, "card": "RC3003"})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body["error"].is_string(), "{body}");
}

#[tokio::test]
async fn an_excluded_player_is_refused_over_the_api_with_the_alert_and_the_audit_event() {
    let f = floor().await;
    let player = register(&f.host, "RC-4004", "Nestor").await;
    bar(&f.supervisor, player).await;
    let (status, body) = call(
        &f.dealer,
        Method::POST,
        &format!("/api/v1/tables/{TABLE}/ratings"),
        Some(json!({"seat": 1, "card": "RC4004"})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        body,
        json!({
            "error": "Do not seat card RC4004: Nestor is barred. A pit manager has been alerted.",
            "field": "card",
            "excluded": true,
        })
    );
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM ratings"), 0);
    assert_eq!(count(&f.app, "SELECT count(*) AS n FROM seat_refusals"), 1);
    let refused = f.app.audit("player.seat_refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].details["player"], player);
    let board = f.supervisor.get("/pit").await.text().await.unwrap();
    assert!(
        board.contains("card RC4004, Nestor Santos (barred)"),
        "{board}"
    );
}
