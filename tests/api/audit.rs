use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use pusoy_pit::db::audit_actions::AuditAction;
use pusoy_pit::db::audit_log::{self, Actor, ChainCheck, NewAuditEvent, SYSTEM_CHAIN};
use pusoy_pit::db::demo;
use pusoy_pit::db::users::{self, Role};
use pusoy_pit::password::HashParams;
use serde_json::json;

use crate::helpers::{spawn_app, PASSWORD};

#[tokio::test]
async fn the_chain_of_a_busy_session_verifies() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    app.sign_in("nobody", PASSWORD).await;
    app.get("/").await;

    let check = audit_log::verify_chain(&mut app.conn(), SYSTEM_CHAIN).unwrap();
    assert!(
        matches!(check, ChainCheck::Intact { events } if events >= 3),
        "{check:?}"
    );
}

#[tokio::test]
async fn the_audit_table_refuses_updates_and_deletes() {
    let app = spawn_app().await;
    app.create_user("dana", Role::Dealer, PASSWORD);
    let mut conn = app.conn();

    let update = diesel::sql_query("UPDATE audit_events SET target = 'user:someone-else'")
        .execute(&mut conn);
    let delete = diesel::sql_query("DELETE FROM audit_events").execute(&mut conn);

    assert!(update.unwrap_err().to_string().contains("append-only"));
    assert!(delete.unwrap_err().to_string().contains("append-only"));
}

#[tokio::test]
async fn a_chain_head_is_never_deleted_and_only_moves_forward() {
    let app = spawn_app().await;
    app.create_user("dana", Role::Dealer, PASSWORD);
    app.create_user("dario", Role::Dealer, PASSWORD);
    let mut conn = app.conn();
    let refused = |sql: &str, conn: &mut PgConnection| {
        diesel::sql_query(sql)
            .execute(conn)
            .expect_err(sql)
            .to_string()
    };

    assert!(refused("DELETE FROM audit_chain_heads", &mut conn).contains("kept"));
    assert!(refused("TRUNCATE audit_chain_heads", &mut conn).contains("kept"));
    let rewind = "UPDATE audit_chain_heads SET last_seq = last_seq - 1";
    assert!(refused(rewind, &mut conn).contains("only move forward"));
    let same = "UPDATE audit_chain_heads SET last_hash = '\\x00'";
    assert!(refused(same, &mut conn).contains("only move forward"));
    let renamed = "UPDATE audit_chain_heads SET chain = 'other', last_seq = last_seq + 1";
    assert!(refused(renamed, &mut conn).contains("only move forward"));

    // The app's own appends move it forward.
    app.create_user("dora", Role::Dealer, PASSWORD);
    assert_eq!(
        audit_log::verify_chain(&mut conn, SYSTEM_CHAIN).unwrap(),
        ChainCheck::Intact { events: 3 }
    );
}

#[tokio::test]
async fn tampering_with_a_stored_event_is_detected() {
    let app = spawn_app().await;
    app.create_user("dana", Role::Dealer, PASSWORD);
    app.create_user("dario", Role::Dealer, PASSWORD);
    let mut conn = app.conn();
    assert_eq!(
        audit_log::verify_chain(&mut conn, SYSTEM_CHAIN).unwrap(),
        ChainCheck::Intact { events: 2 }
    );

    // Someone with the database owner's rights switches the guard off and edits history.
    conn.batch_execute(
        "ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_or_delete; \
         UPDATE audit_events SET details = '{\"role\": \"admin\"}' WHERE seq = 1;",
    )
    .unwrap();

    match audit_log::verify_chain(&mut conn, SYSTEM_CHAIN).unwrap() {
        ChainCheck::Broken { seq, problem } => {
            assert_eq!(seq, 1);
            assert!(problem.contains("stored hash"), "{problem}");
        }
        intact => panic!("tampering not detected: {intact:?}"),
    }
}

#[tokio::test]
async fn a_removed_event_breaks_the_chain() {
    let app = spawn_app().await;
    for name in ["ann", "bea", "cat"] {
        app.create_user(name, Role::Dealer, PASSWORD);
    }
    let mut conn = app.conn();
    conn.batch_execute(
        "ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_or_delete; \
         DELETE FROM audit_events WHERE seq = 2;",
    )
    .unwrap();

    assert!(matches!(
        audit_log::verify_chain(&mut conn, SYSTEM_CHAIN).unwrap(),
        ChainCheck::Broken { seq: 3, .. }
    ));
}

#[tokio::test]
async fn chains_are_numbered_independently() {
    let app = spawn_app().await;
    let mut conn = app.conn();
    let actor = Actor::system("test");
    for chain in ["table:1", "table:2", "table:1"] {
        conn.transaction(|conn| {
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain,
                    actor: &actor,
                    action: AuditAction::SessionExpired,
                    target: chain.to_owned(),
                    details: json!({ "n": 1 }),
                    gaming_day: None,
                    table_id: None,
                },
            )
        })
        .unwrap();
    }
    assert_eq!(
        audit_log::verify_chain(&mut conn, "table:1").unwrap(),
        ChainCheck::Intact { events: 2 }
    );
    assert_eq!(
        audit_log::verify_chain(&mut conn, "table:2").unwrap(),
        ChainCheck::Intact { events: 1 }
    );
}

#[tokio::test]
async fn events_appended_together_are_those_appended_one_by_one_in_their_order() {
    let app = spawn_app().await;
    let mut conn = app.conn();
    let actor = Actor::system("test");
    let event = |chain, n| NewAuditEvent {
        chain,
        actor: &actor,
        action: AuditAction::SessionExpired,
        target: format!("{chain}/{n}"),
        details: json!({ "n": n }),
        gaming_day: None,
        table_id: None,
    };
    audit_log::append(&mut conn, &event("table:1", 1)).unwrap();
    // Two chains with a head, one without; the first named is locked first.
    let batch = [
        event("table:1", 2),
        event("cage", 3),
        event("table:1", 4),
        event("brand-new", 5),
    ];
    conn.transaction(|conn| audit_log::append_all(conn, &batch))
        .unwrap();
    let written: Vec<(String, i64, i64)> = audit_log::recent(&mut conn, 10)
        .unwrap()
        .into_iter()
        .rev()
        .filter(|e| e.action == AuditAction::SessionExpired)
        .map(|e| (e.chain, e.seq, e.details["n"].as_i64().unwrap()))
        .collect();
    let expected = [
        ("table:1", 1, 1),
        ("table:1", 2, 2),
        ("cage", 1, 3),
        ("table:1", 3, 4),
        ("brand-new", 1, 5),
    ]
    .map(|(chain, seq, n)| (chain.to_owned(), seq, n));
    assert_eq!(written, expected);
    for (chain, events) in [("table:1", 3), ("cage", 1), ("brand-new", 1)] {
        assert_eq!(
            audit_log::verify_chain(&mut conn, chain).unwrap(),
            ChainCheck::Intact { events },
            "{chain}"
        );
    }
}

#[tokio::test]
async fn seeding_the_demo_twice_creates_each_account_once() {
    let app = spawn_app().await;
    let mut conn = app.conn();

    let first = demo::seed(&mut conn, HashParams::FLOOR).unwrap();
    let second = demo::seed(&mut conn, HashParams::FLOOR).unwrap();

    assert_eq!(first.accounts_created.len(), demo::ACCOUNTS.len());
    assert!(second.accounts_created.is_empty());
    assert_eq!(second.accounts_present.len(), demo::ACCOUNTS.len());
    assert_eq!(first.profiles_created.len(), 3);
    assert_eq!(
        first.tables_created,
        ["PUSOY-01", "PUSOY-02", "PUSOY-03", "PUSOY-04", "PUSOY-P1"]
    );
    assert!(second.profiles_created.is_empty() && second.tables_created.is_empty());
    assert_eq!(
        pusoy_pit::db::tables::list_tables(&mut conn).unwrap().len(),
        5
    );
    let points = pusoy_pit::db::tables::find_by_code(&mut conn, "PUSOY-P1")
        .unwrap()
        .unwrap();
    assert_eq!(points.unit, Some(10_000), "the points table has its unit");
    let all = users::list(&mut conn).unwrap();
    assert_eq!(all.len(), demo::ACCOUNTS.len());
    for role in Role::ALL {
        assert!(all.iter().any(|u| u.role == role), "a demo {role}");
    }
    let res = app.sign_in("dealer", demo::ACCOUNTS[2].password).await;
    assert_eq!(res.status(), reqwest::StatusCode::SEE_OTHER);
}
