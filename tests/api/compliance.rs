//! Cash-transaction compliance (docs/compliance.md): a rated player's buy-ins and the cage's
//! cash added up per gaming day, the pit warned near the threshold, covered transactions and
//! structuring candidates raised once each with their transactions and the player's
//! identification, the compliance officer's decision, the cage's voids and the thresholds set by
//! an administrator; every step on the `compliance` chain.
use chrono::Duration;
use diesel::prelude::*;
use pusoy_pit::db::schema::{compliance_cases, compliance_decisions};
use pusoy_pit::db::users::Role;
use reqwest::StatusCode;
use serde_json::Value;

use pusoy_pit::reports::export::{self, Format, Kind};

use crate::export::{column, csv_edit, export_to, lines, says, write_lines};
use crate::helpers::{count, create_table, location, spawn_app, TestApp};

const TABLE: &str = "AML-1";

/// Registers a player as the host; their id.
async fn register(host: &TestApp, card: &str) -> i64 {
    let res = host
        .post_form(
            "/players",
            &[
                ("card_number", card),
                ("first_name", "Ramon"),
                ("last_name", "Cruz"),
                ("date_of_birth", "1975-08-09"),
                ("id_reference", "passport P1112223"),
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

/// A buy-in at `seat` of `kind`, from the table screen; the flash the screen shows then.
async fn buy_in(dealer: &TestApp, seat: &str, amount: &str, kind: &str) -> String {
    let res = dealer
        .post_form(
            &format!("/tables/{TABLE}/buy-ins"),
            &[
                ("seat", seat),
                ("amount", amount),
                ("kind", kind),
                ("back", "screen"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "buy-in of {amount}");
    dealer
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap()
}

/// The cases raised, oldest first: kind, player, total, the transactions listed.
fn cases(app: &TestApp) -> Vec<(String, Option<i64>, i64, Vec<Value>)> {
    compliance_cases::table
        .order(compliance_cases::id)
        .select((
            compliance_cases::kind,
            compliance_cases::player_id,
            compliance_cases::total,
            compliance_cases::transactions,
        ))
        .load::<(String, Option<i64>, i64, Value)>(&mut app.conn())
        .unwrap()
        .into_iter()
        .map(|(k, p, t, tx)| (k, p, t, tx.as_array().unwrap().clone()))
        .collect()
}

fn on_chain(app: &TestApp, action: &str) -> Vec<pusoy_pit::db::audit_log::AuditEvent> {
    let events = app.audit(action);
    assert!(
        events.iter().all(|e| e.chain == "compliance"),
        "{action} on the compliance chain"
    );
    events
}

#[tokio::test]
async fn a_rated_players_buy_ins_warn_then_raise_a_covered_transaction_and_structuring_once() {
    let app = spawn_app().await;
    create_table(&app, TABLE);
    let host = app.another_browser();
    host.signed_in_as(Role::Host).await;
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(TABLE).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let player = register(&host, "AML1001").await;
    let res = dealer
        .post_form(
            &format!("/tables/{TABLE}/ratings"),
            &[("seat", "1"), ("card", "AML1001")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    // PHP 2,000,000 twice: 4,000,000 is 80 % of the 5,000,000 threshold, the warning.
    let screen = buy_in(&dealer, "1", "2,000,000", "cash").await;
    assert!(!screen.contains("reporting threshold"), "no warning yet");
    let screen = buy_in(&dealer, "1", "2,000,000", "cash").await;
    assert!(
        screen.contains("PHP 4,000,000.00 (80 % of the reporting threshold)"),
        "{screen}"
    );
    assert_eq!(on_chain(&app, "cash.approaching").len(), 1);
    let board = supervisor.get("/pit").await.text().await.unwrap();
    assert!(board.contains("id=\"cash-warnings\""), "the pit is warned");
    assert!(board.contains("Card AML1001, Ramon Cruz: cash in today PHP 4,000,000.00"));
    assert!(cases(&app).is_empty(), "nothing above the threshold yet");

    // A marker is not cash: nothing changes.
    buy_in(&dealer, "1", "3,000,000", "marker").await;
    assert!(cases(&app).is_empty(), "a marker is not cash");

    // 1,500,000 more in cash: 5,500,000 of the day, three transactions each under the
    // threshold: covered, and a structuring candidate of the day.
    let screen = buy_in(&dealer, "1", "1,500,000", "cash").await;
    assert!(screen.contains("above the reporting threshold"), "{screen}");
    assert!(
        !screen.to_lowercase().contains("structuring"),
        "the table is never told of a structuring candidate"
    );
    let raised = cases(&app);
    assert_eq!(raised.len(), 2, "{raised:?}");
    for (kind, (k, p, total, tx)) in ["covered", "structuring_day"].iter().zip(&raised) {
        assert_eq!(k, kind);
        assert_eq!(*p, Some(player));
        assert_eq!(*total, 550_000_000);
        assert_eq!(tx.len(), 3, "the three cash buy-ins, not the marker");
        let listed: i64 = tx.iter().map(|t| t["amount"].as_i64().unwrap()).sum();
        assert_eq!(listed, *total, "the transactions add up to the total");
    }
    let ident: Value = compliance_cases::table
        .select(compliance_cases::identification)
        .first(&mut app.conn())
        .unwrap();
    assert_eq!(ident["card_number"], "AML1001");
    assert_eq!(ident["id_reference"], "passport P1112223");
    assert_eq!(on_chain(&app, "compliance.case_raised").len(), 2);
    assert_eq!(on_chain(&app, "cash.recorded").len(), 3, "each cash buy-in");

    // More cash the same day raises nothing again.
    buy_in(&dealer, "1", "100,000", "cash").await;
    assert_eq!(cases(&app).len(), 2, "one case of each kind a day");
    let board = supervisor.get("/pit").await.text().await.unwrap();
    assert!(
        board.contains("above it, identification required"),
        "{board}"
    );

    // An unrated seat's buy-in above the threshold alone: covered, no player known.
    buy_in(&dealer, "2", "6,000,000", "cash").await;
    let raised = cases(&app);
    assert_eq!(raised.len(), 3);
    assert_eq!(raised[2].0, "covered");
    assert_eq!(raised[2].1, None);
    assert_eq!(raised[2].2, 600_000_000);
    // ... and one under it raises nothing (nothing can be added up without a player).
    buy_in(&dealer, "2", "4,999,999", "cash").await;
    assert_eq!(cases(&app).len(), 3);
}

#[tokio::test]
async fn the_compliance_officer_files_or_dismisses_each_case_once_with_what_it_needs() {
    let app = spawn_app().await;
    let cashier = app.another_browser();
    cashier.signed_in_as(Role::Cashier).await;
    let officer = app.another_browser();
    officer.signed_in_as(Role::Compliance).await;
    let auditor = app.another_browser();
    auditor.signed_in_as(Role::Auditor).await;
    // Two covered transactions at the cage, no player known.
    for amount in ["5,500,000", "7,000,000"] {
        let res = cashier
            .post_form(
                "/cage/cash",
                &[
                    ("direction", "out"),
                    ("currency", "PHP"),
                    ("amount", amount),
                ],
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
    }
    let ids: Vec<i64> = compliance_cases::table
        .order(compliance_cases::id)
        .select(compliance_cases::id)
        .load(&mut app.conn())
        .unwrap();
    assert_eq!(ids.len(), 2);
    let list = officer.get("/compliance").await.text().await.unwrap();
    for id in &ids {
        assert!(list.contains(&format!("id=\"case-{id}\"")), "{list}");
    }
    let page = officer
        .get(&format!("/compliance/cases/{}", ids[0]))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("PHP 5,500,000.00"), "{page}");
    assert_eq!(
        on_chain(&app, "compliance.case_read").len(),
        1,
        "the opening is audited"
    );

    // Dismissed without a reason, or no decision chosen: refused, nothing written.
    let path = format!("/compliance/cases/{}/decision", ids[0]);
    let res = officer
        .post_form(&path, &[("decision", "dismissed"), ("reason", "  ")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("Say why the case is dismissed."));
    let res = officer.post_form(&path, &[("reason", "x")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM compliance_decisions"),
        0
    );
    // An auditor reads, never decides.
    let res = auditor.post_form(&path, &[("decision", "filed")]).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    // Filed with its reference; a second decision is refused.
    let res = officer
        .post_form(
            &path,
            &[("decision", "filed"), ("reference", "AMLC-CTR-2026-0042")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = officer
        .post_form(
            &path,
            &[("decision", "dismissed"), ("reason", "changed my mind")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("is decided already"));
    let res = officer
        .post_form(
            &format!("/compliance/cases/{}/decision", ids[1]),
            &[
                ("decision", "dismissed"),
                ("reason", "cage keying error, voided"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let decided: Vec<(i64, String, String, String)> = compliance_decisions::table
        .order(compliance_decisions::case_id)
        .select((
            compliance_decisions::case_id,
            compliance_decisions::decision,
            compliance_decisions::reference,
            compliance_decisions::reason,
        ))
        .load(&mut app.conn())
        .unwrap();
    assert_eq!(
        decided,
        vec![
            (
                ids[0],
                "filed".to_owned(),
                "AMLC-CTR-2026-0042".to_owned(),
                String::new()
            ),
            (
                ids[1],
                "dismissed".to_owned(),
                String::new(),
                "cage keying error, voided".to_owned()
            ),
        ]
    );
    assert_eq!(on_chain(&app, "compliance.decided").len(), 2);
    // Open cases only by default: none left; both with `show=all`.
    let list = officer.get("/compliance").await.text().await.unwrap();
    assert!(list.contains("No open case"), "{list}");
    let list = auditor
        .get("/compliance?show=all")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        list.contains("Filed") && list.contains("Dismissed"),
        "{list}"
    );
    // Decisions are never changed.
    let changed =
        diesel::sql_query("UPDATE compliance_decisions SET reason = 'x'").execute(&mut app.conn());
    assert!(changed.is_err(), "a decision refuses UPDATE");

    // The compliance export verifies with no database; a transaction's amount changed in the
    // file is named, and its case no longer adds up.
    let path = export_to(&app, Kind::Compliance, Format::Csv, None);
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    assert_eq!(verified.manifest.kind, Kind::Compliance);
    // Two cage records, two cases of one transaction each, two decisions.
    assert_eq!(verified.rows, 6);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("AMLC-CTR-2026-0042") && text.contains("cage keying error"));
    let all = lines(&path);
    let at = all
        .iter()
        .position(|l| l.contains(",case,") && l.contains("550000000"))
        .unwrap();
    let mut edited = all.clone();
    edited[at] = csv_edit(&edited[at], column(&path, "amount"), "450000000");
    let edited = write_lines(&path, &edited);
    let found = export::verify(&edited).unwrap().problems;
    assert!(
        says(&found, Some(at as u64), Some("amount"), "changed"),
        "{found:?}"
    );
    assert!(
        found.iter().any(|p| p
            .message
            .contains("add up to 450000000, not its total 550000000")),
        "{found:?}"
    );
    // A table is not a compliance export's query.
    let query = export::Query {
        kind: Kind::Compliance,
        from: app.config.gaming_day(chrono::Utc::now()),
        to: app.config.gaming_day(chrono::Utc::now()),
        table: Some("PUSOY-1".to_owned()),
    };
    assert!(export::export(
        &mut app.conn(),
        &query,
        export::Clock {
            utc_offset: app.config.utc_offset,
            gaming_day_start: app.config.gaming_day_start,
        },
        export::Source::primary(),
        Format::Csv,
        std::io::sink(),
    )
    .is_err());
}

#[tokio::test]
async fn the_cages_cash_adds_up_across_days_and_a_void_takes_it_out() {
    let app = spawn_app().await;
    let host = app.another_browser();
    host.signed_in_as(Role::Host).await;
    let cashier = app.another_browser();
    let first_cashier = cashier.signed_in_as(Role::Cashier).await;
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let player = register(&host, "AML2002").await;
    let today = app.config.gaming_day(chrono::Utc::now());
    // Two earlier days of cash in at the cage, each under the threshold (written as they would
    // have been, by the cashier on those days).
    for (days_back, amount) in [(3, 200_000_000_i64), (1, 200_000_000)] {
        diesel::sql_query(format!(
            "INSERT INTO cage_cash (gaming_day, direction, currency, amount, player_id, \
             recorded_by) VALUES ('{}', 'in', 'PHP', {amount}, {player}, {})",
            today - Duration::days(days_back),
            first_cashier.id
        ))
        .execute(&mut app.conn())
        .unwrap();
    }
    let cage = |amount: &'static str, direction: &'static str| {
        let cashier = &cashier;
        async move {
            let res = cashier
                .post_form(
                    "/cage/cash",
                    &[
                        ("direction", direction),
                        ("currency", "PHP"),
                        ("amount", amount),
                        ("card", "aml-2002"),
                    ],
                )
                .await;
            assert_eq!(res.status(), StatusCode::SEE_OTHER, "{amount}");
        }
    };
    // Cash out does not add to cash in.
    cage("4,500,000", "out").await;
    assert!(cases(&app).is_empty());
    // 1,500,000 in today: 5,500,000 over the window's three days, each under the threshold.
    cage("1,500,000", "in").await;
    let raised = cases(&app);
    assert_eq!(raised.len(), 1, "{raised:?}");
    let (kind, who, total, tx) = &raised[0];
    assert_eq!(kind, "structuring_days");
    assert_eq!(*who, Some(player));
    assert_eq!(*total, 550_000_000);
    assert_eq!(tx.len(), 3, "the window's transactions");
    let first_day: chrono::NaiveDate = compliance_cases::table
        .select(compliance_cases::first_day)
        .first(&mut app.conn())
        .unwrap();
    assert_eq!(first_day, today - Duration::days(3));
    // Not again while the window covers it.
    cage("10,000", "in").await;
    assert_eq!(cases(&app).len(), 1);

    // The cash out, voided: not by its cashier; by an administrator with a reason.
    let out: i64 = count(
        &app,
        "SELECT id AS n FROM cage_cash WHERE direction = 'out' ORDER BY id LIMIT 1",
    );
    let res = cashier
        .post_form(
            &format!("/cage/cash/{out}/void"),
            &[("reason", "keyed twice")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("You recorded this cash"));
    let res = admin
        .post_form(&format!("/cage/cash/{out}/void"), &[("reason", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = admin
        .post_form(
            &format!("/cage/cash/{out}/void"),
            &[("reason", "keyed twice")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(on_chain(&app, "cash.cage_void").len(), 1);
    // 4,500,000 out again, then 600,000 more: 5,100,000 of the day, the voided one left out.
    cage("4,500,000", "out").await;
    cage("600,000", "out").await;
    let raised = cases(&app);
    assert_eq!(raised.len(), 3, "{raised:?}");
    assert_eq!(raised[1].0, "covered");
    assert_eq!(raised[1].2, 510_000_000, "the void is out of the total");
    assert_eq!(raised[2].0, "structuring_day");
    let page = cashier.get("/cage/cash").await.text().await.unwrap();
    assert!(page.contains("keyed twice"), "the void stays on the list");

    // An unknown card is refused, nothing written.
    let before = count(&app, "SELECT count(*) AS n FROM cage_cash");
    let res = cashier
        .post_form(
            "/cage/cash",
            &[
                ("direction", "in"),
                ("currency", "PHP"),
                ("amount", "100"),
                ("card", "NOSUCH99"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("No player has card NOSUCH99"));
    assert_eq!(count(&app, "SELECT count(*) AS n FROM cage_cash"), before);
}

#[tokio::test]
async fn an_administrator_sets_the_thresholds_and_they_apply_from_then_on() {
    let app = spawn_app().await;
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let officer = app.another_browser();
    officer.signed_in_as(Role::Compliance).await;
    let cashier = app.another_browser();
    cashier.signed_in_as(Role::Cashier).await;
    let page = officer
        .get("/compliance/thresholds")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("PHP 5,000,000.00"), "{page}");
    // Bad input names its field and writes nothing.
    for (field, fields) in [
        (
            "currency",
            [
                ("currency", "PESO"),
                ("threshold", "1,000"),
                ("warn_percent", "50"),
                ("window_days", "0"),
            ],
        ),
        (
            "threshold",
            [
                ("currency", "PHP"),
                ("threshold", "0"),
                ("warn_percent", "50"),
                ("window_days", "0"),
            ],
        ),
        (
            "warn_percent",
            [
                ("currency", "PHP"),
                ("threshold", "1,000"),
                ("warn_percent", "100"),
                ("window_days", "0"),
            ],
        ),
        (
            "window_days",
            [
                ("currency", "PHP"),
                ("threshold", "1,000"),
                ("warn_percent", "50"),
                ("window_days", "32"),
            ],
        ),
    ] {
        let res = admin.post_form("/compliance/thresholds", &fields).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{field}");
        let html = res.text().await.unwrap();
        assert!(
            html.contains(&format!("data-field=\"{field}\"")),
            "{field}: {html}"
        );
    }
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM compliance_thresholds"),
        2
    );
    // The compliance officer reads them but does not set them.
    let res = officer
        .post_form(
            "/compliance/thresholds",
            &[
                ("currency", "PHP"),
                ("threshold", "1"),
                ("warn_percent", "50"),
                ("window_days", "0"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = admin
        .post_form(
            "/compliance/thresholds",
            &[
                ("currency", "php"),
                ("threshold", "1,000,000"),
                ("warn_percent", "50"),
                ("window_days", "0"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let set = on_chain(&app, "compliance.thresholds_set");
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].details["threshold"], 100_000_000);
    assert_eq!(set[0].details["replaced"]["threshold"], 500_000_000);
    let page = officer
        .get("/compliance/thresholds")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("PHP 1,000,000.00") && page.contains("(replaced)"),
        "{page}"
    );
    // 1,000,001 alone is now covered.
    let res = cashier
        .post_form(
            "/cage/cash",
            &[
                ("direction", "in"),
                ("currency", "PHP"),
                ("amount", "1,000,001"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let raised = cases(&app);
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].0, "covered");
}

/// Records an observation at `seat` as the pit manager; its id.
async fn observe(supervisor: &TestApp, seat: &str) -> i64 {
    let res = supervisor
        .post_form(
            &format!("/tables/{TABLE}/observations"),
            &[
                ("seat", seat),
                ("description", "man, 50s, grey suit"),
                ("average_bet", "25"),
                ("started", ""),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "observation");
    count(supervisor, "SELECT max(id) AS n FROM unrated_observations")
}

/// A floor where a pit manager observed seat 2, the seat bought in PHP 3,000,000 cash, 1,000 in
/// markers and 2,500,000 cash (seat 3 500 cash), and the player was then carded from the
/// running observation as card AML2002.
struct Carded {
    app: TestApp,
    dealer: TestApp,
    supervisor: TestApp,
    player: i64,
    observation: i64,
}

async fn carded_after_buying_in() -> Carded {
    let app = spawn_app().await;
    create_table(&app, TABLE);
    let host = app.another_browser();
    host.signed_in_as(Role::Host).await;
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(TABLE).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let player = register(&host, "AML2002").await;

    // Seat 2 observed: its buy-ins have no player, so nothing of theirs is added up yet.
    let observation = observe(&supervisor, "2").await;
    buy_in(&dealer, "2", "3,000,000", "cash").await;
    buy_in(&dealer, "2", "1,000", "marker").await;
    buy_in(&dealer, "2", "2,500,000", "cash").await;
    buy_in(&dealer, "3", "500", "cash").await;
    assert!(cases(&app).is_empty());
    assert!(on_chain(&app, "cash.recorded").is_empty());

    let res = supervisor
        .post_form(
            &format!("/tables/{TABLE}/observations/{observation}/card"),
            &[("card", "AML2002"), ("back", "screen")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    Carded {
        app,
        dealer,
        supervisor,
        player,
        observation,
    }
}

/// The row of rating `rating` on the player's page.
async fn rating_row(supervisor: &TestApp, player: i64, rating: i64) -> String {
    let page = supervisor
        .get(&format!("/players/{player}"))
        .await
        .text()
        .await
        .unwrap();
    page.split(&format!("id=\"rating-{rating}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the rating's row")
        .to_owned()
}

#[tokio::test]
async fn buy_ins_at_an_observed_seat_are_the_carded_players_in_their_slip_and_their_cash() {
    // Carded while observed: the seat's three buy-ins are attributed to them, in order.
    let Carded {
        app,
        dealer,
        supervisor,
        player,
        observation,
    } = carded_after_buying_in().await;
    let screen = supervisor
        .get(&format!("/tables/{TABLE}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        screen.contains(
            "3 buy-in(s) at the seat while observed, PHP 5,501,000.00, are theirs now. The \
             player&#39;s cash in today is above the reporting threshold"
        ),
        "{screen}"
    );
    assert!(
        !screen.to_lowercase().contains("structuring"),
        "no tipping off"
    );

    // The buy-ins are documents, never edited: each keeps no player; the attribution is a
    // record of its own, never changed.
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM buy_ins WHERE player_id IS NOT NULL"
        ),
        0
    );
    let rating = count(&app, "SELECT max(id) AS n FROM ratings");
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT count(*) AS n FROM buy_in_attributions a JOIN buy_ins b \
                 ON b.id = a.buy_in_id WHERE a.player_id = {player} AND a.rating_id = {rating} \
                 AND a.observation_id = {observation} AND b.seat = 2"
            )
        ),
        3
    );
    for change in [
        "UPDATE buy_in_attributions SET player_id = player_id",
        "DELETE FROM buy_in_attributions",
    ] {
        assert!(diesel::sql_query(change).execute(&mut app.conn()).is_err());
    }
    let attributed = app.audit("buyin.attributed");
    assert_eq!(attributed.len(), 3);
    assert!(attributed.iter().all(|e| e.details["player"] == player));

    // The player's cash of the day sees the two cash buy-ins: covered, and a structuring
    // candidate of the day, with the player's identification.
    let raised = cases(&app);
    assert_eq!(raised.len(), 2, "{raised:?}");
    for (kind, (k, p, total, tx)) in ["covered", "structuring_day"].iter().zip(&raised) {
        assert_eq!(k, kind);
        assert_eq!(*p, Some(player));
        assert_eq!(*total, 550_000_000);
        assert_eq!(tx.len(), 2, "the two cash buy-ins, not the marker");
    }
    assert_eq!(on_chain(&app, "cash.recorded").len(), 2);
    let board = supervisor.get("/pit").await.text().await.unwrap();
    assert!(
        board.contains("Card AML2002, Ramon Cruz: cash in today PHP 5,500,000.00"),
        "{board}"
    );

    // The rating's slip counts them as the player's buy-ins, and one made after the carding.
    buy_in(&dealer, "2", "10,000", "cash").await;
    let row = rating_row(&supervisor, player, rating).await;
    assert!(row.contains("PHP 5,511,000.00"), "{row}");

    // The database refuses an attribution of a buy-in with a player of its own.
    let forged = diesel::sql_query(format!(
        "INSERT INTO buy_in_attributions (buy_in_id, player_id, rating_id, observation_id, \
                gaming_day, attributed_by) \
         SELECT b.id, {player}, {rating}, {observation}, b.gaming_day, b.recorded_by \
         FROM buy_ins b WHERE b.player_id IS NOT NULL"
    ))
    .execute(&mut app.conn());
    let refused = forged.expect_err("a forged attribution").to_string();
    assert!(
        refused.contains("must be a buy-in with no player"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_carded_observation_voided_withdraws_its_buy_ins_and_its_cases_stay_for_the_officer() {
    let carded = carded_after_buying_in().await;
    let (app, dealer, supervisor) = (&carded.app, &carded.dealer, &carded.supervisor);
    let (player, observation) = (carded.player, carded.observation);
    let rating = count(app, "SELECT max(id) AS n FROM ratings");
    assert_eq!(cases(app).len(), 2);
    // The officer's list marks a case whose basis changed.
    let officer = app.another_browser();
    officer.signed_in_as(Role::Compliance).await;
    let marked = async || {
        let list = officer.get("/compliance").await.text().await.unwrap();
        list.matches(r#"<span class="badge">basis changed</span>"#)
            .count()
    };
    assert_eq!(marked().await, 0, "nothing changed yet");

    // Another pit manager voids the observation: it was of someone else.
    let other = app.another_browser();
    app.create_user("other-pit", Role::Supervisor, crate::helpers::PASSWORD);
    other.sign_in("other-pit", crate::helpers::PASSWORD).await;
    let res = other
        .post_form(
            &format!("/tables/{TABLE}/observations/{observation}/void"),
            &[("reason", "that was his brother")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let said = other
        .get(&format!("/tables/{TABLE}/observations"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        said.contains(
            "The 3 buy-in(s) at the seat while it was observed, PHP 5,501,000.00, attributed to \
             the player carded from it, are not that player&#39;s any more; rating"
        ),
        "{said}"
    );
    assert!(!said.contains("structuring"), "no tipping off");

    // Nothing is changed or deleted: the attributions stay, and count no more.
    assert_eq!(
        count(app, "SELECT count(*) AS n FROM buy_in_attributions"),
        3
    );
    let withdrawn = app.audit("buyin.attribution_withdrawn");
    assert_eq!(withdrawn.len(), 3);
    assert!(withdrawn
        .iter()
        .all(|e| e.details["player"] == player && e.details["observation"] == observation));
    assert_eq!(on_chain(app, "cash.withdrawn").len(), 2, "the two in cash");

    // The rating stays, its slip without them; the pit board no longer has their cash.
    assert_eq!(count(app, "SELECT count(*) AS n FROM ratings"), 1);
    let row = rating_row(supervisor, player, rating).await;
    assert!(!row.contains("5,501,000.00"), "{row}");
    let board = supervisor.get("/pit").await.text().await.unwrap();
    assert!(!board.contains("Card AML2002"), "{board}");

    // The player's cash of the day is added up without them: a buy-in of theirs now is all of it.
    buy_in(dealer, "2", "10,000", "cash").await;
    let recorded = on_chain(app, "cash.recorded");
    assert_eq!(
        recorded.last().unwrap().details["day_total"],
        serde_json::json!(1_000_000)
    );

    // The cases stay as raised, each saying on the compliance chain and on its page why its
    // basis changed; the officer decides.
    let raised = cases(app);
    assert_eq!(raised.len(), 2);
    let changed = on_chain(app, "compliance.case_basis_changed");
    assert_eq!(changed.len(), 2);
    for (event, (_, _, total, listed)) in changed.iter().zip(&raised) {
        assert_eq!(*total, 550_000_000);
        assert_eq!(listed.len(), 2);
        assert_eq!(
            event.details["withdrawn_buy_ins"].as_array().unwrap().len(),
            2
        );
        assert_eq!(event.details["why"]["reason"], "that was his brother");
    }
    assert_eq!(marked().await, 2, "both cases listed as changed");
    let case = count(app, "SELECT min(id) AS n FROM compliance_cases");
    let page = officer
        .get(&format!("/compliance/cases/{case}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Basis changed since raised"), "{page}");
    assert!(
        page.contains(&format!(
            "attributed to the player when carded from observation {observation}"
        )),
        "{page}"
    );
    assert!(page.contains("that was his brother"), "{page}");
    assert!(page.contains("Record the decision"), "{page}");
}
