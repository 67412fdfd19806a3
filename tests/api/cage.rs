//! The cage (docs/accounting.md, "Fills and credits"): each slip's life (request, issue,
//! receive, void, print), who may sign which step, and the gapless slip numbers.
use diesel::prelude::*;
use pusoy_pit::db::schema::{
    cage_slip_prints, cage_slip_steps, cage_slips, chip_set_versions, chip_sets,
};
use pusoy_pit::db::users::{Role, User};
use reqwest::StatusCode;

use crate::audit_trail::verify_all;
use crate::helpers::{create_table, location, spawn_app, TestApp, PASSWORD};

/// A table with a PHP chip set, and a browser for each person of a slip's life: two pit
/// managers (one requests, the other witnesses the receipt), the dealer signed on at the
/// table, two cashiers and an administrator.
pub struct Cage {
    pub app: TestApp,
    pub supervisor: TestApp,
    pub dealer: TestApp,
    pub cashier: TestApp,
    pub admin: TestApp,
    pub other_supervisor: User,
    pub other_cashier: User,
}

pub const TABLE: &str = "CAGE-1";

/// The id of the newest PHP chip set version, as the request form sends it.
fn php_version(app: &TestApp) -> String {
    chip_set_versions::table
        .inner_join(chip_sets::table)
        .filter(chip_sets::currency.eq("PHP"))
        .order(chip_set_versions::version.desc())
        .select(chip_set_versions::id)
        .first::<i64>(&mut app.conn())
        .unwrap()
        .to_string()
}

/// Adds the PHP chip set (25 to 10,000) as an administrator signed in on `admin`.
pub async fn add_php_chips(admin: &TestApp) {
    let res = admin
        .post_form(
            "/admin/chips",
            &[
                ("currency", "PHP"),
                ("denominations", "25 100 500 1,000 5,000 10,000"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

pub async fn cage() -> Cage {
    let app = spawn_app().await;
    create_table(&app, TABLE);
    let admin = app.another_browser();
    admin.signed_in_as(Role::Admin).await;
    add_php_chips(&admin).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(TABLE).await;
    let cashier = app.another_browser();
    cashier.signed_in_as(Role::Cashier).await;
    let other_supervisor = app.create_user("witness", Role::Supervisor, PASSWORD);
    let other_cashier = app.create_user("cashier-two", Role::Cashier, PASSWORD);
    Cage {
        app,
        supervisor,
        dealer,
        cashier,
        admin,
        other_supervisor,
        other_cashier,
    }
}

/// Requests a slip of `kind` at `code` with these chips (major units, count) from `browser`.
pub async fn request(
    browser: &TestApp,
    code: &str,
    kind: &str,
    chips: &[(i64, &str)],
) -> reqwest::Response {
    let version = php_version(browser);
    let names: Vec<String> = chips
        .iter()
        .map(|(d, _)| format!("count-{}", d * 100))
        .collect();
    let mut form: Vec<(&str, &str)> = vec![("kind", kind), ("chip_set_version_id", &version)];
    for ((_, count), name) in chips.iter().zip(&names) {
        form.push((name, count));
    }
    browser
        .post_form(&format!("/tables/{code}/cage"), &form)
        .await
}

/// (id, kind, number, total) of every slip, by id.
fn slips(app: &TestApp) -> Vec<(i64, String, i32, i64)> {
    cage_slips::table
        .order(cage_slips::id.asc())
        .select((
            cage_slips::id,
            cage_slips::kind,
            cage_slips::number,
            cage_slips::total,
        ))
        .load(&mut app.conn())
        .unwrap()
}

/// The steps of a slip, in order.
fn steps(app: &TestApp, slip: i64) -> Vec<String> {
    cage_slip_steps::table
        .filter(cage_slip_steps::slip_id.eq(slip))
        .order(cage_slip_steps::id.asc())
        .select(cage_slip_steps::step)
        .load(&mut app.conn())
        .unwrap()
}

fn prints(app: &TestApp, slip: i64) -> i64 {
    cage_slip_prints::table
        .filter(cage_slip_prints::slip_id.eq(slip))
        .count()
        .get_result(&mut app.conn())
        .unwrap()
}

/// How many events of `action` are on `chain`.
fn on_chain(app: &TestApp, action: &str, chain: &str) -> usize {
    app.audit(action)
        .iter()
        .filter(|e| e.chain == chain)
        .count()
}

fn table_chain(app: &TestApp) -> String {
    use pusoy_pit::db::schema::gaming_tables;
    let id: i64 = gaming_tables::table
        .filter(gaming_tables::code.eq(TABLE))
        .select(gaming_tables::id)
        .first(&mut app.conn())
        .unwrap();
    format!("table:{id}")
}

/// A fill of 2 × 5,000 and 4 × 1,000 (PHP 14,000) requested and issued; its id.
pub async fn issued_fill(c: &Cage) -> i64 {
    let res = request(&c.supervisor, TABLE, "fill", &[(5_000, "2"), (1_000, "4")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let id = slips(&c.app).last().unwrap().0;
    let res = c
        .cashier
        .post_form(&format!("/cage/slips/{id}/issue"), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    id
}

async fn receive(browser: &TestApp, slip: i64, who: &str, password: &str) -> reqwest::Response {
    browser
        .post_form(
            &format!("/cage/slips/{slip}/receive"),
            &[("second_username", who), ("second_password", password)],
        )
        .await
}

async fn void(
    browser: &TestApp,
    slip: i64,
    reason: &str,
    who: &str,
    password: &str,
) -> reqwest::Response {
    browser
        .post_form(
            &format!("/cage/slips/{slip}/void"),
            &[
                ("reason", reason),
                ("second_username", who),
                ("second_password", password),
            ],
        )
        .await
}

#[tokio::test]
async fn a_fill_is_requested_issued_and_received_each_step_signed_and_audited_on_both_chains() {
    let c = cage().await;
    let res = request(&c.supervisor, TABLE, "fill", &[(5_000, "2"), (1_000, "4")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), format!("/tables/{TABLE}/cage"));
    let (id, kind, number, total) = slips(&c.app).pop().unwrap();
    assert_eq!((kind.as_str(), number, total), ("fill", 1, 1_400_000));
    assert_eq!(steps(&c.app, id), ["requested"]);

    // The cage sees the request, and issues it.
    let desk = c.cashier.get("/cage").await.text().await.unwrap();
    assert!(desk.contains("pending-F-"), "{desk}");
    assert!(desk.contains("14,000.00"), "{desk}");
    let res = c
        .cashier
        .post_form(&format!("/cage/slips/{id}/issue"), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(steps(&c.app, id), ["requested", "issued"]);

    // Received at the table: the dealer signed in, the second pit manager with a password.
    let res = receive(&c.dealer, id, &c.other_supervisor.username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(steps(&c.app, id), ["requested", "issued", "received"]);
    let page = c
        .supervisor
        .get(&format!("/cage/slips/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains(r#"id="slip-state">received<"#), "{page}");

    // Each step on the table's chain and on the cage's, and each signer's signature.
    let table = table_chain(&c.app);
    for action in ["cage.requested", "cage.issued", "cage.received"] {
        assert_eq!(on_chain(&c.app, action, &table), 1, "{action}");
        assert_eq!(on_chain(&c.app, action, "cage"), 1, "{action}");
    }
    let signers: Vec<String> = c
        .app
        .audit("signature")
        .iter()
        .map(|e| e.actor_name.clone())
        .collect();
    assert_eq!(
        signers,
        ["the-supervisor", "the-cashier", "the-dealer", "witness"]
    );
    // The new chain verifies with the others.
    let found = verify_all(&c.app);
    assert!(found.is_intact(), "{found:?}");

    // A received slip is not received again.
    let res = receive(&c.supervisor, id, "the-dealer", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(steps(&c.app, id).len(), 3);
}

#[tokio::test]
async fn nobody_signs_two_steps_of_one_slip_and_a_second_signer_proves_who_they_are() {
    let c = cage().await;
    let id = issued_fill(&c).await;

    // The pit manager who requested it cannot witness its receipt.
    let res = receive(&c.dealer, id, "the-supervisor", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("nobody signs two steps"), "{page}");
    // The same person twice: refused and audited.
    let res = receive(&c.dealer, id, "the-dealer", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    // A wrong password: refused and audited, and counted towards the lock-out.
    let res = receive(
        &c.dealer,
        id,
        &c.other_supervisor.username,
        "not-the-password",
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused: Vec<String> = c
        .app
        .audit("signature.refused")
        .iter()
        .map(|e| e.details["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(refused, ["same person", "wrong password"]);
    assert_eq!(steps(&c.app, id), ["requested", "issued"]);

    // A cashier may not issue what they requested... nor witness a receipt as a pit manager.
    let res = receive(&c.dealer, id, &c.other_cashier.username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(steps(&c.app, id), ["requested", "issued"]);

    // The issuing cashier cannot sign its void.
    let res = void(&c.cashier, id, "counted twice", "witness", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("nobody signs two steps"));
    assert_eq!(steps(&c.app, id), ["requested", "issued"]);

    // The witness and the dealer, two other people: received.
    let res = receive(&c.dealer, id, "witness", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn a_receipt_is_witnessed_with_the_second_signers_pin_on_the_tablet() {
    let c = cage().await;
    let id = issued_fill(&c).await;
    let witness = c.app.another_browser();
    witness.sign_in("witness", PASSWORD).await;
    let res = witness.set_own_pin("583021").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let page = c.dealer.get(&format!("/cage/slips/{id}")).await;
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("password or signing PIN"));
    let res = receive(&c.dealer, id, "witness", "583020").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("PIN of the second signer is wrong"));
    assert_eq!(steps(&c.app, id), ["requested", "issued"]);
    let res = receive(&c.dealer, id, "witness", "583021").await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(steps(&c.app, id), ["requested", "issued", "received"]);
    let by: Vec<String> = c
        .app
        .audit("signature")
        .iter()
        .map(|e| format!("{} {}", e.actor_name, e.details["by"].as_str().unwrap()))
        .collect();
    assert_eq!(by.last().unwrap(), "witness pin", "{by:?}");
}

#[tokio::test]
async fn a_void_needs_a_reason_and_a_signer_from_outside_the_pit_and_keeps_every_step() {
    let c = cage().await;
    let id = issued_fill(&c).await;
    let before = slips(&c.app);

    // Two pit managers are both from the pit.
    let pit = c.app.another_browser();
    pit.create_user("pit-two", Role::Supervisor, PASSWORD);
    pit.sign_in("pit-two", PASSWORD).await;
    let res = void(&pit, id, "wrong table", "witness", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("outside the pit"));
    // No reason.
    let res = void(&pit, id, "  ", &c.other_cashier.username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(steps(&c.app, id), ["requested", "issued"]);

    // A pit manager and a cashier who did not issue it.
    let res = void(&pit, id, "wrong table", &c.other_cashier.username, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(steps(&c.app, id), ["requested", "issued", "void"]);
    assert_eq!(slips(&c.app), before, "the slip itself is kept as it was");
    let voided = c.app.audit("cage.void");
    assert_eq!(voided.len(), 2);
    assert_eq!(voided[0].details["reason"], "wrong table");
    assert_eq!(voided[0].details["was"], "issued");

    // Nothing follows a void.
    let res = receive(&c.dealer, id, "witness", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = void(&c.admin, id, "again", "witness", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(steps(&c.app, id), ["requested", "issued", "void"]);

    // And the records refuse an edit, whoever tries.
    let mut conn = c.app.conn();
    let changed =
        diesel::sql_query("UPDATE cage_slip_steps SET reason = 'other' WHERE step = 'void'")
            .execute(&mut conn);
    assert!(changed.is_err());
    let deleted = diesel::sql_query("DELETE FROM cage_slips").execute(&mut conn);
    assert!(deleted.is_err());
}

#[tokio::test]
async fn twenty_concurrent_requests_get_twenty_consecutive_numbers() {
    let c = cage().await;
    let requests = (0..20).map(|i| {
        let kind = if i % 4 == 0 { "credit" } else { "fill" };
        request(&c.supervisor, TABLE, kind, &[(100, "3")])
    });
    let answers = futures_util::future::join_all(requests).await;
    for res in &answers {
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
    }
    let numbers = |kind: &str| -> Vec<i32> {
        let mut n: Vec<i32> = slips(&c.app)
            .into_iter()
            .filter(|s| s.1 == kind)
            .map(|s| s.2)
            .collect();
        n.sort_unstable();
        n
    };
    assert_eq!(numbers("fill"), (1..=15).collect::<Vec<_>>());
    assert_eq!(numbers("credit"), (1..=5).collect::<Vec<_>>());

    // A refused request takes no number.
    let res = request(&c.supervisor, TABLE, "fill", &[(100, "0")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = request(&c.supervisor, TABLE, "fill", &[(100, "x")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = request(&c.supervisor, TABLE, "fill", &[(100, "1")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(numbers("fill"), (1..=16).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_second_print_is_marked_reprint_each_print_is_audited_and_reading_changes_nothing() {
    let c = cage().await;
    let id = issued_fill(&c).await;
    let res = c
        .cashier
        .post_form(&format!("/cage/slips/{id}/print"), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let first = location(&res).to_owned();
    assert!(first.starts_with("/cage/prints/"), "{first}");
    let page = c.cashier.get(&first).await.text().await.unwrap();
    assert!(!page.contains("REPRINT"), "{page}");
    assert!(page.contains("F-"), "{page}");
    assert!(page.contains("14,000.00"), "{page}");
    assert!(page.contains("ISSUED"), "{page}");
    // Reading the print again prints nothing.
    c.cashier.get(&first).await;
    c.cashier.get(&format!("/cage/slips/{id}")).await;
    assert_eq!(prints(&c.app, id), 1);

    let res = c
        .dealer
        .post_form(&format!("/cage/slips/{id}/print"), &[])
        .await;
    let second = location(&res).to_owned();
    assert_ne!(first, second);
    let page = c.dealer.get(&second).await.text().await.unwrap();
    assert!(page.contains("REPRINT"), "{page}");
    assert_eq!(prints(&c.app, id), 2);
    let printed = c.app.audit("cage.printed");
    assert_eq!(printed.len(), 4, "each print on two chains");
    assert_eq!(printed[2].details["reprint"], true);
    assert_eq!(printed[0].details["reprint"], false);
    // The first print still reads as the original.
    let page = c.admin.get(&first).await.text().await.unwrap();
    assert!(!page.contains("REPRINT"));
}

#[tokio::test]
async fn a_request_is_refused_in_words_with_what_was_typed_kept() {
    let c = cage().await;
    let res = request(&c.supervisor, TABLE, "fill", &[(500, "-3")]).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("below zero"), "{page}");
    assert!(page.contains(r#"value="-3""#), "{page}");
    let res = request(&c.supervisor, TABLE, "neither", &[(500, "3")]).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = request(&c.supervisor, "NO-SUCH", "fill", &[(500, "3")]).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(slips(&c.app).is_empty());
    // A dealer, a cashier: not theirs to request.
    let res = request(&c.dealer, TABLE, "fill", &[(500, "3")]).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = request(&c.cashier, TABLE, "fill", &[(500, "3")]).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn an_administrator_adds_cashiers_and_count_clerks_and_each_lands_on_their_page() {
    let c = cage().await;
    for (name, role) in [("new-cashier", "cashier"), ("new-counter", "count")] {
        let res = c
            .admin
            .post_form(
                "/admin/users",
                &[
                    ("username", name),
                    ("display_name", name),
                    ("role", role),
                    ("password", PASSWORD),
                ],
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "{role}");
        let user = pusoy_pit::db::users::find_by_username(&mut c.app.conn(), name)
            .unwrap()
            .unwrap();
        assert_eq!(user.role.as_str(), role);
    }
    let home = c.cashier.get("/").await.text().await.unwrap();
    assert!(home.contains(r#"href="/cage""#), "{home}");
    let counter = c.app.another_browser();
    counter.signed_in_as(Role::Count).await;
    let home = counter.get("/").await.text().await.unwrap();
    assert!(home.contains("count-home"), "{home}");
    let res = counter.get("/cage/slips").await;
    assert_eq!(res.status(), StatusCode::OK);
}
