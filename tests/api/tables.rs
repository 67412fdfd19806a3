//! Rule profiles, gaming tables and dealer shifts, against a real database.

use chrono::NaiveDate;
use diesel::prelude::*;
use pusoy_pit::db::audit_log::{self, Actor, ChainCheck};
use pusoy_pit::db::ids::ProfileId;
use pusoy_pit::db::profiles;
use pusoy_pit::db::schema::{gaming_tables, rule_profile_versions};
use pusoy_pit::db::shifts;
use pusoy_pit::db::tables::{self, TableInput};
use pusoy_pit::db::users::Role;
use pusoy_pit::pit::shifts::{sign_off_at, sign_on_at, SignOnError};
use pusoy_pit::pit::tables::{create_table, update_table, SaveError};
use pusoy_pit::rules::game::GameRules;
use pusoy_pit::rules::money::Money;
use pusoy_pit::rules::profile::{RuleProfile, TieRule};

use crate::helpers::{spawn_app, TestApp, PASSWORD};

fn admin_actor(app: &TestApp) -> Actor {
    let admin = app.create_user("ada", Role::Admin, PASSWORD);
    Actor::user(admin.id, &admin.username, None)
}

fn table_input(code: &str, profile_id: ProfileId) -> TableInput {
    TableInput {
        code: code.to_owned(),
        name: format!("Table {code}"),
        currency: "PHP".to_owned(),
        min_bet: 10_000,
        max_bet: 5_000_000,
        rule_profile_id: profile_id,
        approval_threshold: None,
        unit: None,
    }
}

fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 3, 1).unwrap()
}

#[tokio::test]
async fn editing_a_profile_adds_a_version_and_leaves_the_old_one_unchanged() {
    let app = spawn_app().await;
    let actor = admin_actor(&app);
    let conn = &mut app.conn();
    let (profile, v1) =
        profiles::create_profile(conn, "House standard", &RuleProfile::default(), &actor).unwrap();
    assert_eq!(v1.version, 1);
    let stored_v1: serde_json::Value = rule_profile_versions::table
        .find(v1.id)
        .select(rule_profile_versions::options)
        .first(conn)
        .unwrap();

    let edited = RuleProfile {
        surrender: false,
        ties: TieRule::SuitOrder,
        ..RuleProfile::default()
    };
    let v2 = profiles::new_version(conn, profile.id, &edited, None, &actor).unwrap();

    assert_eq!(v2.version, 2);
    let all = profiles::versions(conn, profile.id).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].options, RuleProfile::default());
    let still_v1: serde_json::Value = rule_profile_versions::table
        .find(v1.id)
        .select(rule_profile_versions::options)
        .first(conn)
        .unwrap();
    assert_eq!(still_v1, stored_v1);
    let listed = profiles::list(conn).unwrap();
    assert_eq!(listed[0].latest.version, 2);
    assert_eq!(listed[0].latest.options, edited);
    assert_eq!(app.audit("profile.create").len(), 1);
    assert_eq!(app.audit("profile.new_version").len(), 1);
}

#[tokio::test]
async fn a_table_with_bad_input_gets_field_errors_and_no_row() {
    let app = spawn_app().await;
    let actor = admin_actor(&app);
    let conn = &mut app.conn();
    let (profile, _) =
        profiles::create_profile(conn, "House", &RuleProfile::default(), &actor).unwrap();
    let bad = TableInput {
        code: "p".to_owned(),
        currency: "PESO".to_owned(),
        min_bet: 500,
        max_bet: 100,
        ..table_input("X", profile.id)
    };
    let Err(SaveError::Invalid(errors)) = create_table(conn, &bad, &actor) else {
        panic!("expected field errors");
    };
    assert!(errors.code.is_some() && errors.currency.is_some() && errors.max_bet.is_some());
    let Err(SaveError::Invalid(errors)) =
        create_table(conn, &table_input("PUSOY-09", ProfileId(999_999)), &actor)
    else {
        panic!("expected a profile error");
    };
    assert!(errors.rule_profile_id.is_some());
    let count: i64 = gaming_tables::table.count().get_result(conn).unwrap();
    assert_eq!(count, 0);
}

#[tokio::test]
async fn a_duplicate_table_code_is_a_field_error() {
    let app = spawn_app().await;
    let actor = admin_actor(&app);
    let conn = &mut app.conn();
    let (profile, _) =
        profiles::create_profile(conn, "House", &RuleProfile::default(), &actor).unwrap();
    create_table(conn, &table_input("PUSOY-03", profile.id), &actor).unwrap();
    let Err(SaveError::Invalid(errors)) =
        create_table(conn, &table_input("pusoy-03", profile.id), &actor)
    else {
        panic!("expected a duplicate-code error");
    };
    assert_eq!(
        errors.code.as_deref(),
        Some("A table with code PUSOY-03 already exists.")
    );
}

#[tokio::test]
async fn one_dealer_per_table_with_sign_on_and_off_on_the_table_chain() {
    let app = spawn_app().await;
    let actor = admin_actor(&app);
    let maria = app.create_user("maria", Role::Dealer, PASSWORD);
    let jose = app.create_user("jose", Role::Dealer, PASSWORD);
    let maria = Actor::user(maria.id, &maria.username, None);
    let jose = Actor::user(jose.id, &jose.username, None);
    let conn = &mut app.conn();
    let (profile, _) =
        profiles::create_profile(conn, "House", &RuleProfile::default(), &actor).unwrap();
    let t3 = create_table(conn, &table_input("PUSOY-03", profile.id), &actor).unwrap();
    let t4 = create_table(conn, &table_input("PUSOY-04", profile.id), &actor).unwrap();

    sign_on_at(conn, t3.id, &maria, day()).unwrap();
    let refused = sign_on_at(conn, t3.id, &jose, day()).unwrap_err();
    assert!(matches!(refused, SignOnError::TableTaken { .. }));
    let message = refused.to_string();
    assert!(
        message == "PUSOY-03 already has maria Test signed on.",
        "{message}"
    );
    let busy = sign_on_at(conn, t4.id, &maria, day()).unwrap_err();
    assert_eq!(
        busy.to_string(),
        "You are already signed on at PUSOY-03; sign off there first."
    );
    let listed = shifts::tables_with_dealers(conn).unwrap();
    assert_eq!(
        listed[0].1.as_ref().map(|s| s.dealer_name.as_str()),
        Some("maria Test")
    );

    sign_off_at(conn, t3.id, &maria).unwrap();
    assert!(shifts::current_shift(conn, t3.id).unwrap().is_none());
    sign_on_at(conn, t3.id, &jose, day()).unwrap();

    let on_chain: Vec<String> = audit_log::recent(conn, 100)
        .unwrap()
        .into_iter()
        .rev()
        .filter(|e| e.chain == audit_log::table_chain(t3.id))
        .map(|e| e.action)
        .collect();
    assert_eq!(
        on_chain,
        [
            "table.create",
            "table.sign_on",
            "table.sign_off",
            "table.sign_on"
        ]
    );
    assert_eq!(
        audit_log::verify_chain(conn, &audit_log::table_chain(t3.id)).unwrap(),
        ChainCheck::Intact { events: 4 }
    );
}

#[tokio::test]
async fn updating_a_table_records_before_and_after() {
    let app = spawn_app().await;
    let actor = admin_actor(&app);
    let conn = &mut app.conn();
    let (profile, _) =
        profiles::create_profile(conn, "House", &RuleProfile::default(), &actor).unwrap();
    let t = create_table(conn, &table_input("PUSOY-01", profile.id), &actor).unwrap();
    let updated = update_table(
        conn,
        t.id,
        &TableInput {
            max_bet: 9_000_000,
            ..table_input("IGNORED", profile.id)
        },
        &actor,
    )
    .unwrap()
    .unwrap();
    assert_eq!(updated.code, "PUSOY-01");
    assert_eq!(updated.max_bet, Money::from_minor_units(9_000_000));
    let events = app.audit("table.update");
    assert_eq!(events[0].details["before"]["max_bet"], 5_000_000);
    assert_eq!(events[0].details["after"]["max_bet"], 9_000_000);
    assert_eq!(events[0].table_id, Some(t.id));
}

#[tokio::test]
async fn dealers_sign_on_and_off_from_the_tables_page() {
    let app = spawn_app().await;
    let actor = admin_actor(&app);
    {
        let conn = &mut app.conn();
        let (profile, _) =
            profiles::create_profile(conn, "House", &RuleProfile::default(), &actor).unwrap();
        create_table(conn, &table_input("PUSOY-03", profile.id), &actor).unwrap();
    }
    let first = app.another_browser();
    first.signed_in_as(Role::Dealer).await;
    let res = first.post_form("/tables/PUSOY-03/sign-on", &[]).await;
    assert_eq!(crate::helpers::location(&res), "/tables/PUSOY-03");
    let page = first.get("/tables").await.text().await.unwrap();
    assert!(page.contains("You are signed on at PUSOY-03"), "{page}");
    let home = first.get("/").await.text().await.unwrap();
    assert!(
        home.contains("Signed on at PUSOY-03 (Table PUSOY-03) since"),
        "{home}"
    );
    assert!(page.contains("surrender on, royalties on (dealer too), ties to the dealer"));
    assert!(page.contains("Sign off"));

    let second = app.another_browser();
    let other = app.create_user("maria", Role::Dealer, PASSWORD);
    second.sign_in(&other.username, PASSWORD).await;
    let refused = second.post_form("/tables/PUSOY-03/sign-on", &[]).await;
    assert_eq!(crate::helpers::location(&refused), "/tables");
    let page = second.get("/tables").await.text().await.unwrap();
    assert!(
        page.contains(
            "<strong>Not done:</strong> PUSOY-03 already has the-dealer Test signed on since"
        ),
        "{page}"
    );

    first.post_form("/tables/PUSOY-03/sign-off", &[]).await;
    let page = first.get("/tables").await.text().await.unwrap();
    assert!(page.contains("You are signed off at PUSOY-03."), "{page}");
    assert_eq!(app.audit("table.sign_on").len(), 1);
    assert_eq!(app.audit("table.sign_off").len(), 1);

    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let res = supervisor.post_form("/tables/PUSOY-03/sign-on", &[]).await;
    assert_eq!(res.status().as_u16(), 403);
}

#[tokio::test]
async fn an_admin_creates_a_table_from_the_form_and_a_supervisor_cannot() {
    let app = spawn_app().await;
    let actor = Actor::system("test");
    let (profile, _) =
        profiles::create_profile(&mut app.conn(), "House", &RuleProfile::default(), &actor)
            .unwrap();
    let profile_id = profile.id.to_string();
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let form = |code: &'static str, min: &'static str| {
        [
            ("code", code),
            ("name", "Pusoy 7"),
            ("currency", "php"),
            ("min_bet", min),
            ("max_bet", "50000"),
        ]
    };
    let mut bad = form("p", "abc").to_vec();
    bad.push(("rule_profile_id", &profile_id));
    let res = admin.post_form("/admin/tables", &bad).await;
    assert_eq!(res.status().as_u16(), 422);
    let html = res.text().await.unwrap();
    assert!(html.contains("id=\"code-error\""), "{html}");
    assert!(html.contains("id=\"min_bet-error\""), "{html}");
    let mut good = form("pusoy-07", "100").to_vec();
    good.push(("rule_profile_id", &profile_id));
    let res = admin.post_form("/admin/tables", &good).await;
    assert_eq!(crate::helpers::location(&res), "/admin/tables");
    let table = tables::find_by_code(&mut app.conn(), "PUSOY-07")
        .unwrap()
        .unwrap();
    assert_eq!(
        (table.currency.as_str(), table.min_bet),
        ("PHP", Money::from_minor_units(10_000))
    );
    let res = admin.post_form("/admin/tables", &good).await;
    assert_eq!(res.status().as_u16(), 422);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("A table with code PUSOY-07 already exists."));

    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let mut other = form("PUSOY-08", "100").to_vec();
    other.push(("rule_profile_id", &profile_id));
    let res = supervisor.post_form("/admin/tables", &other).await;
    assert_eq!(res.status().as_u16(), 403);
    assert!(tables::find_by_code(&mut app.conn(), "PUSOY-08")
        .unwrap()
        .is_none());
    let count: i64 = gaming_tables::table
        .count()
        .get_result(&mut app.conn())
        .unwrap();
    assert_eq!(count, 1);
}

#[tokio::test]
async fn an_admin_creates_and_edits_a_profile_from_the_form() {
    let app = spawn_app().await;
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    let bad = [
        ("name", "Night"),
        ("surrender", "on"),
        ("ties", "suit_order"),
        ("both_fouled", "push"),
        ("wheel", "lowest"),
        ("suit_order_1", "d"),
        ("suit_order_2", "c"),
        ("suit_order_3", "h"),
        ("suit_order_4", "h"),
    ];
    let res = admin.post_form("/admin/profiles", &bad).await;
    assert_eq!(res.status().as_u16(), 422);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("id=\"suit_order-error\""));
    let good = [
        ("name", "Night"),
        ("surrender", "on"),
        ("royalties", "on"),
        ("ties", "suit_order"),
        ("both_fouled", "player_loses"),
        ("wheel", "second"),
        ("suit_order_1", "s"),
        ("suit_order_2", "h"),
        ("suit_order_3", "d"),
        ("suit_order_4", "c"),
    ];
    let res = admin.post_form("/admin/profiles", &good).await;
    assert_eq!(crate::helpers::location(&res), "/admin/profiles");
    let profile = profiles::find_by_name(&mut app.conn(), "Night")
        .unwrap()
        .unwrap();
    let v1 = profiles::latest_version(&mut app.conn(), profile.id)
        .unwrap()
        .unwrap();
    let GameRules::Banking(options) = v1.options else {
        panic!("a banking profile");
    };
    assert!(options.surrender && !options.dealer_royalties);
    assert_eq!(options.suit_order.to_string(), "shdc");

    let edit = [
        ("ties", "dealer_wins"),
        ("both_fouled", "push"),
        ("wheel", "lowest"),
        ("suit_order_1", "d"),
        ("suit_order_2", "c"),
        ("suit_order_3", "h"),
        ("suit_order_4", "s"),
    ];
    admin
        .post_form(&format!("/admin/profiles/{}", profile.id), &edit)
        .await;
    let page = admin.get("/admin/profiles").await.text().await.unwrap();
    assert!(page.contains("Saved as version 2;"), "{page}");
    assert!(page.contains("v2"));
    assert!(page.contains("surrender off, royalties off, ties to the dealer"));
    let all = profiles::versions(&mut app.conn(), profile.id).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0], v1);
}

#[tokio::test]
async fn times_are_shown_in_the_casinos_local_time_with_the_zone_named() {
    let app = crate::helpers::spawn_app_with(|c| {
        c.utc_offset = chrono::FixedOffset::west_opt(5 * 3600).unwrap();
        c.zone_name = Some("Eastern");
    })
    .await;
    crate::helpers::create_table(&app, "T-TIME");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("T-TIME").await;
    use pusoy_pit::db::schema::dealer_shifts;
    let at: chrono::DateTime<chrono::Utc> = dealer_shifts::table
        .select(dealer_shifts::signed_on_at)
        .first(&mut app.conn())
        .unwrap();
    let local = (at - chrono::TimeDelta::hours(5))
        .format("%Y-%m-%d %H:%M (Eastern, UTC-05:00)")
        .to_string();
    for path in ["/tables", "/", "/tables/T-TIME"] {
        let html = app.get(path).await.text().await.unwrap();
        assert!(html.contains(&local), "{path} shows {local}");
        assert!(
            !html.contains(" UTC<") && !html.contains(" UTC "),
            "{path}: no bare UTC"
        );
    }
}
