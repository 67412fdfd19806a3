//! The auditor's side: `audit verify` names the first bad row of each kind of tampering, the
//! gaming-day close seals every chain (and copies the seal outside the database), nothing more is
//! recorded for a closed day, the audit page verifies in the background, the event search.

use std::path::Path;

use chrono::Utc;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date};
use pusoy_pit::db::audit_actions::AuditAction;
use pusoy_pit::db::audit_log::{self, Actor, AuditEvent, NewAuditEvent};
use pusoy_pit::db::days;
use pusoy_pit::db::schema::audit_events;
use pusoy_pit::db::seal_file::{self, SealFiles};
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::verify::{self, BadRow, Scope, Verification};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{
    assert_every_round_has_its_figures, call, count, create_table, location, record, spawn_app,
    spawn_app_with, the_round, TestApp, PASSWORD,
};
use crate::table_screen::page;

pub(crate) fn verify_all(app: &TestApp) -> Verification {
    verify::verify(
        &mut app.conn(),
        &Scope::default(),
        &SealFiles::of(&app.config),
        &mut |_| {},
    )
    .unwrap()
}

fn verdict<'a>(found: &'a Verification, chain: &str) -> &'a verify::ChainVerdict {
    found
        .chains
        .iter()
        .find(|c| c.chain == chain)
        .unwrap_or_else(|| panic!("no verdict for {chain}: {found:?}"))
}

pub(crate) fn append_events(app: &TestApp, chain: &str, n: i64) {
    let mut conn = app.conn();
    let actor = Actor::system("test");
    for i in 1..=n {
        audit_log::append(
            &mut conn,
            &NewAuditEvent {
                chain,
                actor: &actor,
                action: AuditAction::SessionExpired,
                target: format!("n:{i}"),
                details: json!({ "n": i }),
                gaming_day: None,
                table_id: None,
            },
        )
        .unwrap();
    }
}

pub(crate) fn event(app: &TestApp, chain: &str, seq: i64) -> AuditEvent {
    audit_events::table
        .filter(audit_events::chain.eq(chain))
        .filter(audit_events::seq.eq(seq))
        .select(AuditEvent::as_select())
        .first(&mut app.conn())
        .unwrap()
}

/// Runs `sql` as the database owner with the append-only guard off for that statement only.
pub(crate) fn tamper(app: &TestApp, sql: &str) {
    app.conn()
        .batch_execute(&format!(
            "BEGIN; \
             ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_or_delete; \
             ALTER TABLE audit_chain_heads DISABLE TRIGGER audit_chain_heads_forward_only; \
             ALTER TABLE gaming_day_closes DISABLE TRIGGER gaming_day_closes_are_immutable; \
             {sql}; \
             ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_or_delete; \
             ALTER TABLE audit_chain_heads ENABLE TRIGGER audit_chain_heads_forward_only; \
             ALTER TABLE gaming_day_closes ENABLE TRIGGER gaming_day_closes_are_immutable; \
             COMMIT;"
        ))
        .unwrap();
}

pub(crate) fn bad(found: &Verification, chain: &str) -> BadRow {
    verdict(found, chain)
        .bad
        .clone()
        .unwrap_or_else(|| panic!("{chain} verified: tampering not found"))
}

#[tokio::test]
async fn verify_names_the_first_bad_row_of_each_kind_of_tampering() {
    let app = spawn_app().await;
    for chain in [
        "t:details",
        "t:hash",
        "t:deleted",
        "t:inserted",
        "t:tail",
        "t:intact",
    ] {
        append_events(&app, chain, 6);
    }
    assert!(verify_all(&app).is_intact(), "{:?}", verify_all(&app));

    tamper(
        &app,
        "UPDATE audit_events SET details = '{\"n\": 99}' WHERE chain = 't:details' AND seq = 3",
    );
    tamper(
        &app,
        "UPDATE audit_events SET hash = sha256('x') WHERE chain = 't:hash' AND seq = 2",
    );
    tamper(
        &app,
        "DELETE FROM audit_events WHERE chain = 't:deleted' AND seq = 4",
    );
    tamper(
        &app,
        "DELETE FROM audit_events WHERE chain = 't:tail' AND seq >= 5",
    );
    // A row slipped in at seq 4, with a hash computed correctly over its content and its link
    // to seq 3; the rows after it renumbered.
    let third = event(&app, "t:inserted", 3);
    let original_fourth = event(&app, "t:inserted", 4);
    let mut forged = third.clone();
    forged.seq = 4;
    forged.target = "n:forged".to_owned();
    forged.prev_hash = third.hash.clone();
    let forged_hash = audit_log::expected_hash(&third.hash, &forged);
    tamper(
        &app,
        "UPDATE audit_events SET seq = -seq - 1 WHERE chain = 't:inserted' AND seq >= 4; \
         UPDATE audit_events SET seq = -seq WHERE chain = 't:inserted' AND seq < 0",
    );
    app.conn()
        .batch_execute(&format!(
            "INSERT INTO audit_events (chain, seq, at, actor_name, action, target, details, \
             prev_hash, hash) SELECT chain, 4, at, actor_name, action, 'n:forged', details, \
             '\\x{}', '\\x{}' FROM audit_events WHERE chain = 't:inserted' AND seq = 3",
            hex::encode(&third.hash),
            hex::encode(forged_hash)
        ))
        .unwrap();

    let found = verify_all(&app);
    assert!(!found.is_intact());
    let d = bad(&found, "t:details");
    assert_eq!((d.seq, d.what.as_str()), (3, "content changed"));
    assert_eq!(d.id, Some(event(&app, "t:details", 3).id));
    let h = bad(&found, "t:hash");
    assert_eq!((h.seq, h.what.as_str()), (2, "hash changed"));
    assert_eq!(h.id, Some(event(&app, "t:hash", 2).id));
    let g = bad(&found, "t:deleted");
    assert_eq!((g.seq, g.what.as_str()), (4, "seq 4 missing"));
    assert_eq!(
        g.id,
        Some(event(&app, "t:deleted", 5).id),
        "the row found in its place"
    );
    let i = bad(&found, "t:inserted");
    assert_eq!((i.seq, i.what.as_str()), (5, "link broken"));
    assert_eq!(
        i.id,
        Some(original_fourth.id),
        "the row the intruder displaced"
    );
    let t = bad(&found, "t:tail");
    assert_eq!((t.seq, t.id), (5, None));
    assert!(t.what.starts_with("seq 5 missing"), "{}", t.what);
    assert!(verdict(&found, "t:intact").is_intact());
    assert_eq!(verdict(&found, "t:intact").rows, 6);
    let line = verdict(&found, "t:hash").line();
    assert!(
        line.starts_with(&format!(
            "t:hash: BROKEN at seq 2 (id {}): hash changed",
            h.id.unwrap()
        )),
        "{line}"
    );
}

/// Details are stored as the text their hash covers (canonical: keys sorted, no white space)
/// and checked as they are; details as `jsonb` printed them (keys by length, spaced: what the
/// change of the column to `json` left of the events before it) still verify, through their
/// canonical form, and a change to them is still found.
#[tokio::test]
async fn details_are_stored_as_hashed_and_older_jsonb_text_still_verifies() {
    let app = spawn_app().await;
    let actor = Actor::system("test");
    for chain in ["t:stored", "t:old"] {
        for i in 1..=3 {
            audit_log::append(
                &mut app.conn(),
                &NewAuditEvent {
                    chain,
                    actor: &actor,
                    action: AuditAction::SessionExpired,
                    target: format!("n:{i}"),
                    details: json!({ "zeta": [i, "é"], "a": { "bb": true, "c": null } }),
                    gaming_day: None,
                    table_id: None,
                },
            )
            .unwrap();
        }
    }
    let details = |chain: &str, seq: i64| -> String {
        #[derive(QueryableByName)]
        struct Stored {
            #[diesel(sql_type = diesel::sql_types::Text)]
            text: String,
        }
        diesel::sql_query(
            "SELECT details::text AS text FROM audit_events WHERE chain = $1 AND seq = $2",
        )
        .bind::<diesel::sql_types::Text, _>(chain)
        .bind::<BigInt, _>(seq)
        .get_result::<Stored>(&mut app.conn())
        .unwrap()
        .text
    };
    assert_eq!(
        details("t:stored", 1),
        r#"{"a":{"bb":true,"c":null},"zeta":[1,"é"]}"#
    );
    tamper(
        &app,
        "UPDATE audit_events SET details = details::jsonb::json WHERE chain = 't:old'",
    );
    assert_eq!(
        details("t:old", 2),
        r#"{"a": {"c": null, "bb": true}, "zeta": [2, "é"]}"#
    );
    let found = verify_all(&app);
    assert!(found.is_intact(), "{found:?}");
    assert_eq!(verdict(&found, "t:old").rows, 3);

    tamper(
        &app,
        "UPDATE audit_events SET details = replace(details::text, '[2,', '[7,')::json \
         WHERE chain = 't:old' AND seq = 2",
    );
    let d = bad(&verify_all(&app), "t:old");
    assert_eq!((d.seq, d.what.as_str()), (2, "content changed"));
}

/// The check of the whole trail reads it once in id order, in which each chain's events come
/// in sequence order as they were appended; a chain whose events do not (here an event moved to
/// a later id) is checked again on its own in sequence order, and found intact when it is.
#[tokio::test]
async fn a_chain_out_of_id_order_is_checked_in_sequence_order() {
    let app = spawn_app().await;
    append_events(&app, "t:moved", 5);
    append_events(&app, "t:after", 2);
    tamper(
        &app,
        "UPDATE audit_events SET id = id + 1000000 WHERE chain = 't:moved' AND seq = 2",
    );
    let found = verify_all(&app);
    assert!(found.is_intact(), "{found:?}");
    assert_eq!(verdict(&found, "t:moved").rows, 5);
    assert_eq!(verdict(&found, "t:after").rows, 2);

    tamper(
        &app,
        "UPDATE audit_events SET details = '{\"n\": 9}' WHERE chain = 't:moved' AND seq = 4",
    );
    let d = bad(&verify_all(&app), "t:moved");
    assert_eq!((d.seq, d.what.as_str()), (4, "content changed"));
}

/// A supervisor's browser and the dealer's, and table `code` with the dealer on shift.
async fn supervisor_and_dealer(app: &TestApp, code: &str) -> (TestApp, TestApp) {
    create_table(app, code);
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(code).await;
    (supervisor, dealer)
}

async fn flash_of(browser: &TestApp, path: &str) -> String {
    browser.get(path).await.text().await.unwrap()
}

#[tokio::test]
async fn a_day_closes_once_no_table_is_busy_and_its_seal_fixes_every_chain() {
    let app = spawn_app().await;
    let (supervisor, dealer) = supervisor_and_dealer(&app, "T-SEAL").await;
    let today = app.config.gaming_day(Utc::now());
    let close_path = format!("/days/{today}/close");
    let (status, body) = call(
        &dealer,
        Method::PUT,
        "/api/v1/tables/T-SEAL/rounds/key-seal-1",
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Before its end the day is not closed, and its page says until when and what is open,
    // each with a link to where it is dealt with.
    let res = supervisor
        .post_form(&close_path, &[("confirm", "yes")])
        .await;
    assert_eq!(location(&res), format!("/days/{today}"));
    let ends = app
        .config
        .gaming_day_end(today)
        .with_timezone(&app.config.zone().offset)
        .format("%Y-%m-%d %H:%M")
        .to_string();
    let page = flash_of(&supervisor, &format!("/days/{today}")).await;
    assert!(
        page.contains(&format!(
            "The gaming day {today} runs until {ends} ({}): it can be closed from then.",
            app.config.zone()
        )),
        "{page}"
    );
    assert!(
        page.contains(
            "<a href=\"/tables/T-SEAL/sign-off\">T-SEAL</a>: dealer the-dealer Test (the-dealer) \
             is on shift since"
        ),
        "{page}"
    );
    assert!(!page.contains("id=\"close-day\""), "{page}");
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM gaming_day_closes"),
        0
    );

    // Once it has ended, a dealer on shift still keeps it open: the table is named.
    app.end_today();
    let res = supervisor
        .post_form(&close_path, &[("confirm", "yes")])
        .await;
    assert_eq!(location(&res), format!("/days/{today}"));
    let page = flash_of(&supervisor, &format!("/days/{today}")).await;
    assert!(
        page.contains(
            "cannot be closed yet: T-SEAL: dealer the-dealer Test (the-dealer) is on shift"
        ),
        "{page}"
    );
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM gaming_day_closes"),
        0
    );

    dealer.sign_off_at("T-SEAL").await;
    // Not without the confirmation.
    supervisor.post_form(&close_path, &[]).await;
    assert!(flash_of(&supervisor, &format!("/days/{today}"))
        .await
        .contains("Tick"));
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM gaming_day_closes"),
        0
    );

    let res = supervisor
        .post_form(&close_path, &[("confirm", "yes")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let page = flash_of(&supervisor, &format!("/days/{today}")).await;
    let close = days::find_close(&mut app.conn(), today)
        .unwrap()
        .expect("closed");
    let seal_hash = hex::encode(&close.seal_hash);
    assert!(
        page.contains(&format!(
            "Gaming day {today} is closed. Its seal: {seal_hash}"
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("id=\"seal-hash\">{seal_hash}<")),
        "the day's page shows the seal"
    );

    // The seal: one event on the day chain naming every other chain's head at the close.
    let seal = app.audit(days::DAY_CLOSED);
    assert_eq!(seal.len(), 1);
    assert_eq!(
        (seal[0].chain.as_str(), seal[0].seq),
        (days::DAY_CHAIN, close.seal_seq)
    );
    assert_eq!(seal[0].hash, close.seal_hash);
    let heads = seal[0].details["heads"].as_object().unwrap();
    for chain in ["system", "table:1"] {
        let last = audit_events::table
            .filter(audit_events::chain.eq(chain))
            .filter(audit_events::id.lt(seal[0].id))
            .order(audit_events::seq.desc())
            .select(AuditEvent::as_select())
            .first(&mut app.conn())
            .unwrap();
        assert_eq!(heads[chain]["seq"], last.seq, "{chain}");
        assert_eq!(heads[chain]["hash"], hex::encode(&last.hash), "{chain}");
    }
    // Its copy outside the database.
    let copies = seal_file::read(&app.config.seal_file).unwrap();
    assert_eq!(copies.len(), 1);
    assert_eq!(
        (copies[0].gaming_day, copies[0].seal_hash.as_str()),
        (today, seal_hash.as_str())
    );
    assert_eq!(
        serde_json::to_value(&copies[0].heads).unwrap(),
        seal[0].details["heads"]
    );

    let found = verify_all(&app);
    assert!(found.is_intact(), "{found:?}");
    assert_eq!(found.seals_checked, 2, "the close and its copy");

    // Once: a second close is refused.
    supervisor
        .post_form(&close_path, &[("confirm", "yes")])
        .await;
    assert!(flash_of(&supervisor, &format!("/days/{today}"))
        .await
        .contains("already closed"));
    // Nobody signs on for the closed day.
    dealer.post_form("/tables/T-SEAL/sign-on", &[]).await;
    let tables = flash_of(&dealer, "/tables").await;
    assert!(
        tables.contains(&format!("The gaming day {today} is closed")),
        "{tables}"
    );
    assert_eq!(app.open_shift("T-SEAL"), None);
    std::fs::remove_file(&app.config.seal_file).unwrap();
}

#[tokio::test]
async fn a_round_left_being_entered_keeps_an_ended_day_open_and_is_linked() {
    let app = spawn_app().await;
    let (supervisor, dealer) = supervisor_and_dealer(&app, "T-DRAFT").await;
    let html = page(&dealer, "T-DRAFT").await;
    let token = dealer.csrf_token().await;
    let mut fields: Vec<(&str, String)> = crate::table_screen::the_round()
        .into_iter()
        .map(|(k, v)| (k, v.to_owned()))
        .collect();
    fields.push(("draft_key", hidden(&html, "draft_key")));
    fields.push(("revision", hidden(&html, "revision")));
    let res = dealer
        .client
        .post(dealer.url("/tables/T-DRAFT/round/check"))
        .header("X-CSRF-Token", token)
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    dealer.sign_off_at("T-DRAFT").await;
    app.end_today();

    let today = app.config.gaming_day(Utc::now());
    supervisor
        .post_form(&format!("/days/{today}/close"), &[("confirm", "yes")])
        .await;
    let page = flash_of(&supervisor, &format!("/days/{today}")).await;
    assert!(
        page.contains(&format!(
            "The gaming day {today} cannot be closed yet: T-DRAFT: a round is being entered \
             and is not confirmed (saved 1 time(s)"
        )),
        "{page}"
    );
    assert!(
        page.contains("<a href=\"/tables/T-DRAFT\">T-DRAFT</a>: a round is being entered"),
        "{page}"
    );
    assert!(!page.contains("id=\"close-day\""), "{page}");
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM gaming_day_closes"),
        0
    );
}

/// Re-hashes `chain` from `seq` on after changing that event's details, moving the chain's head
/// along: the chain is consistent again inside the database. Returns the new last hash.
pub(crate) fn rehash_from(
    app: &TestApp,
    chain: &str,
    seq: i64,
    details: serde_json::Value,
) -> Vec<u8> {
    let mut conn = app.conn();
    let events: Vec<AuditEvent> = audit_events::table
        .filter(audit_events::chain.eq(chain))
        .order(audit_events::seq.asc())
        .select(AuditEvent::as_select())
        .load(&mut conn)
        .unwrap();
    let mut prev = match seq {
        1 => audit_log::GENESIS_HASH.to_vec(),
        _ => events[usize::try_from(seq).unwrap() - 2].hash.clone(),
    };
    let mut sql = String::new();
    for mut e in events.into_iter().filter(|e| e.seq >= seq) {
        if e.seq == seq {
            e.details = details.clone();
        }
        let hash = audit_log::expected_hash(&prev, &e);
        sql.push_str(&format!(
            "UPDATE audit_events SET details = '{}', prev_hash = '\\x{}', hash = '\\x{}' WHERE id = {};",
            e.details,
            hex::encode(&prev),
            hex::encode(hash),
            e.id
        ));
        prev = hash.to_vec();
    }
    sql.push_str(&format!(
        "UPDATE audit_chain_heads SET last_hash = '\\x{}' WHERE chain = '{chain}'",
        hex::encode(&prev)
    ));
    tamper(app, &sql);
    prev
}

#[tokio::test]
async fn a_history_rewritten_inside_the_database_is_caught_by_the_seal_copies() {
    let app = spawn_app().await;
    let (supervisor, dealer) = supervisor_and_dealer(&app, "T-RW").await;
    for key in ["key-rw-01", "key-rw-02"] {
        let (status, _) = call(
            &dealer,
            Method::PUT,
            &format!("/api/v1/tables/T-RW/rounds/{key}"),
            Some(the_round()),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    dealer.sign_off_at("T-RW").await;
    let today = app.config.gaming_day(Utc::now());
    app.end_today();
    supervisor
        .post_form(&format!("/days/{today}/close"), &[("confirm", "yes")])
        .await;
    assert!(verify_all(&app).is_intact());

    // Round 1's details changed; the table chain re-hashed to its head; the day seal's event
    // rewritten to name the new head, re-hashed, and the close's row made to match.
    let table_chain = "table:1";
    let head_seq = count(
        &app,
        "SELECT last_seq AS n FROM audit_chain_heads WHERE chain = 'table:1'",
    );
    let mut changed = app.audit("round.settled")[0].details.clone();
    changed["settlement"]["dealer"]["result"] = json!(0);
    let settled_seq = app.audit("round.settled")[0].seq;
    let new_head = rehash_from(&app, table_chain, settled_seq, changed);
    let mut seal_details = app.audit(days::DAY_CLOSED)[0].details.clone();
    seal_details["heads"][table_chain]["hash"] = json!(hex::encode(&new_head));
    let seal_seq = app.audit(days::DAY_CLOSED)[0].seq;
    let new_seal = rehash_from(&app, days::DAY_CHAIN, seal_seq, seal_details);
    tamper(
        &app,
        &format!(
            "UPDATE gaming_day_closes SET seal_hash = '\\x{}'",
            hex::encode(&new_seal)
        ),
    );
    assert_eq!(
        head_seq,
        count(
            &app,
            "SELECT last_seq AS n FROM audit_chain_heads WHERE chain = 'table:1'"
        )
    );

    // Inside the database everything agrees; the copies outside do not.
    let found = verify_all(&app);
    assert!(!found.is_intact());
    let table = bad(&found, table_chain);
    assert_eq!(
        table.what,
        format!("hash differs from the seal of {today} in the seal file")
    );
    assert_eq!(table.seq, head_seq);
    assert!(
        found
            .seal_problems
            .iter()
            .any(|p| p.what.starts_with("the seal hash in the database")),
        "{:?}",
        found.seal_problems
    );
    std::fs::remove_file(&app.config.seal_file).unwrap();
}

#[tokio::test]
async fn nothing_more_is_recorded_for_a_closed_day() {
    let app = spawn_app().await;
    create_table(&app, "T-API");
    create_table(&app, "T-FORM");
    create_table(&app, "T-LATE");
    let api = app.another_browser();
    let api_dealer = app.create_user("dealer-api", Role::Dealer, PASSWORD);
    api.sign_in("dealer-api", PASSWORD).await;
    api.sign_on_at("T-API").await;
    let form = app.another_browser();
    app.create_user("dealer-form", Role::Dealer, PASSWORD);
    form.sign_in("dealer-form", PASSWORD).await;
    form.sign_on_at("T-FORM").await;
    let late = app.another_browser();
    app.create_user("dealer-late", Role::Dealer, PASSWORD);
    late.sign_in("dealer-late", PASSWORD).await;
    let (status, settled) = call(
        &api,
        Method::PUT,
        "/api/v1/tables/T-API/rounds/key-before",
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let round_id = settled["id"].as_i64().unwrap();
    let html = form.get("/tables/T-FORM").await.text().await.unwrap();
    let key = hidden(&html, "draft_key");

    // The table screen's round, previewed (saved) before the close and confirmed after it.
    let revision = hidden(&html, "revision");
    let mut fields = vec![
        ("draft_key", key.as_str()),
        ("revision", revision.as_str()),
        ("step", "preview"),
    ];
    fields.extend(FORM_ROUND);
    let preview = form.post_form("/tables/T-FORM/round", &fields).await;
    let preview = preview.text().await.unwrap();
    // Closed underneath the open shifts (as the database's guard sees it; the close itself
    // would wait for them).
    let today = app.config.gaming_day(Utc::now());
    diesel::sql_query(
        "INSERT INTO gaming_day_closes (gaming_day, closed_by, seal_seq, seal_hash) VALUES ($1, $2, 1, '\\x00')",
    )
    .bind::<Date, _>(today)
    .bind::<BigInt, _>(api_dealer.id.0)
    .execute(&mut app.conn())
    .unwrap();
    let message = format!("The gaming day {today} is closed: nothing more can be recorded for it.");

    // A whole round through the API (from the table's memory, and then the long way).
    let (status, body) = call(
        &api,
        Method::PUT,
        "/api/v1/tables/T-API/rounds/key-after",
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body, json!({ "error": message, "code": "day_closed" }));
    // A new round opened through the API.
    let (status, body) = call(&api, Method::POST, "/api/v1/tables/T-API/rounds", None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("day_closed")),
        "{body}"
    );
    let confirm = form
        .post_form(
            "/tables/T-FORM/round",
            &[
                ("draft_key", hidden(&preview, "draft_key").as_str()),
                ("revision", hidden(&preview, "revision").as_str()),
                ("step", "confirm"),
            ],
        )
        .await;
    assert_eq!(confirm.status(), StatusCode::CONFLICT);
    assert!(confirm.text().await.unwrap().contains(&message));
    // A sign-on.
    late.post_form("/tables/T-LATE/sign-on", &[]).await;
    assert!(late
        .get("/tables")
        .await
        .text()
        .await
        .unwrap()
        .contains(&message));
    assert_eq!(app.open_shift("T-LATE"), None);
    // Approvals and voids (written by the pit manager's code): the database refuses them.
    for sql in [
        "INSERT INTO round_voids (round_id, table_id, gaming_day, reason, voided_by) \
         SELECT id, table_id, gaming_day, 'misdeal', dealer_id FROM rounds WHERE id = $1",
        "INSERT INTO round_approvals (round_id, table_id, gaming_day, approved_by) \
         SELECT id, table_id, gaming_day, dealer_id FROM rounds WHERE id = $1",
    ] {
        let err = diesel::sql_query(sql)
            .bind::<BigInt, _>(round_id)
            .execute(&mut app.conn())
            .unwrap_err();
        assert_eq!(days::closed_day_refused(&err), Some(today), "{err}");
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
}

/// The round of `the_round` as the table screen's form sends it.
const FORM_ROUND: [(&str, &str); 16] = [
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
];

fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).expect("a hidden field") + marker.len();
    html[start..].split('"').next().unwrap().to_owned()
}

#[tokio::test]
async fn concurrent_writers_keep_every_chain_linear_and_the_close_races_no_sign_on() {
    let app = spawn_app_with_more_connections().await;
    let tables = ["T-C1", "T-C2", "T-C3", "T-C4"];
    let mut dealers = Vec::new();
    for (i, code) in tables.iter().enumerate() {
        create_table(&app, code);
        let browser = app.another_browser();
        app.create_user(&format!("dealer-{i}"), Role::Dealer, PASSWORD);
        browser.sign_in(&format!("dealer-{i}"), PASSWORD).await;
        browser.sign_on_at(code).await;
        dealers.push(browser);
    }
    let writers = dealers.iter().zip(tables).map(|(dealer, code)| async move {
        for n in 0..6 {
            let path = format!("/api/v1/tables/{code}/rounds/key-{code}-{n}");
            let (status, body) = call(dealer, Method::PUT, &path, Some(the_round())).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
    });
    futures_util::future::join_all(writers).await;
    for (dealer, code) in dealers.iter().zip(tables) {
        dealer.sign_off_at(code).await;
    }
    // The close races the dealers signing on again: either a dealer is on shift first (and the
    // close is refused) or the close is first (and the sign-on is refused); never both.
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let today = app.config.gaming_day(Utc::now());
    app.end_today();
    let close_path = format!("/days/{today}/close");
    let close = supervisor.post_form(&close_path, &[("confirm", "yes")]);
    let sign_ons = dealers.iter().zip(tables).map(|(dealer, code)| async move {
        dealer
            .post_form(&format!("/tables/{code}/sign-on"), &[])
            .await
    });
    let (_, _) = tokio::join!(close, futures_util::future::join_all(sign_ons));
    let closed = count(&app, "SELECT count(*) AS n FROM gaming_day_closes");
    let on_shift = count(
        &app,
        "SELECT count(*) AS n FROM dealer_shifts WHERE signed_off_at IS NULL",
    );
    assert!(
        closed == 0 || on_shift == 0,
        "closed {closed}, on shift {on_shift}"
    );

    let found = verify_all(&app);
    assert!(found.is_intact(), "{found:?}");
    for (i, _) in tables.iter().enumerate() {
        let chain = verdict(&found, &format!("table:{}", i + 1));
        // create, sign on, six rounds, sign off (and perhaps a sign-on again).
        assert!(chain.rows >= 9, "{chain:?}");
    }
}

async fn spawn_app_with_more_connections() -> TestApp {
    crate::helpers::spawn_app_with(|c| c.db_pool_size = 8).await
}

#[tokio::test]
async fn the_audit_page_verifies_in_the_background_and_shows_the_verdict() {
    let app = spawn_app().await;
    let auditor = app.signed_in_as(Role::Auditor).await;
    append_events(&app, "t:page", 3);
    let page = app.get("/audit").await.text().await.unwrap();
    assert!(page.contains("No verification has been run yet"));
    let home = app.get("/").await.text().await.unwrap();
    assert!(
        home.contains("has not been verified yet"),
        "the home page does not verify"
    );

    let verdict = run_check(&app).await;
    assert!(verdict.contains("<strong>Intact.</strong>"), "{verdict}");
    assert!(verdict.contains("t:page"));
    let recorded = app.audit(verify::VERIFIED);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].actor_user_id, Some(auditor.id));
    assert!(app
        .get("/")
        .await
        .text()
        .await
        .unwrap()
        .contains("Intact: all"));

    tamper(
        &app,
        "UPDATE audit_events SET target = 'n:x' WHERE chain = 't:page' AND seq = 2",
    );
    let verdict = run_check(&app).await;
    let id = event(&app, "t:page", 2).id;
    assert!(verdict.contains("<strong>BROKEN.</strong>"), "{verdict}");
    assert!(
        verdict.contains(&format!("BROKEN at seq 2 (row id {id}): content changed")),
        "{verdict}"
    );
}

/// Starts a verification from the audit page and waits for its verdict; the page's text.
async fn run_check(app: &TestApp) -> String {
    let before = app.audit(verify::VERIFIED).len();
    let res = app.post_form("/audit/verify", &[]).await;
    assert_eq!(location(&res), "/audit");
    for _ in 0..200 {
        if app.audit(verify::VERIFIED).len() > before {
            // The check has recorded its verdict; the page no longer shows it running.
            for _ in 0..200 {
                let page = app.get("/audit").await.text().await.unwrap();
                if !page.contains("id=\"progress\"") {
                    return page;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the verification did not finish");
}

#[tokio::test]
async fn the_event_search_filters_describes_and_pages_by_keyset() {
    let app = spawn_app().await;
    let (_, dealer) = supervisor_and_dealer(&app, "T-FIND").await;
    let (status, round) = call(
        &dealer,
        Method::PUT,
        "/api/v1/tables/T-FIND/rounds/key-find-1",
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    append_events(&app, "t:many", 60);
    app.signed_in_as(Role::Auditor).await;

    let page = app
        .get("/audit/events?action=round.settled")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(page.matches("<tr id=\"event-").count(), 1, "{page}");
    assert!(page.contains("Round 1 at T-FIND"), "{page}");
    assert!(page.contains("Seat 2 · bet 2.00 · surrender"), "{page}");
    let round_id = round["id"].as_i64().unwrap();
    assert!(
        page.contains(&format!("href=\"/tables/T-FIND/rounds/{round_id}\"")),
        "{page}"
    );

    let by_actor = app
        .get("/audit/events?actor=the-dealer")
        .await
        .text()
        .await
        .unwrap();
    assert!(by_actor.contains("table.sign_on<br>") && !by_actor.contains("session.expired<br>"));
    let today = app.config.gaming_day(Utc::now());
    let by_day = app
        .get(&format!("/audit/events?day={today}&chain=table:1"))
        .await
        .text()
        .await
        .unwrap();
    assert!(by_day.contains("round.settled<br>") && !by_day.contains("table.create<br>"));

    // 60 events: a page of 50, then the 10 older ones.
    let first = app
        .get("/audit/events?chain=t:many")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(first.matches("<tr id=\"event-").count(), 50);
    assert!(first.contains("t:many · 60") && !first.contains("t:many · 10<"));
    let next = first
        .split("href=\"")
        .find_map(|s| s.strip_prefix("/audit/events?"))
        .map(|s| s.split('"').next().unwrap().replace("&#38;", "&"))
        .unwrap();
    let older = app
        .get(&format!("/audit/events?{next}"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(older.matches("<tr id=\"event-").count(), 10, "{next}");
    assert!(older.contains("t:many · 10<") && older.contains("t:many · 1<"));
    assert!(!older.contains("id=\"older\""));

    let res = app
        .get("/audit/events?day=yesterday&from=2026-13-01T00:00")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let text = res.text().await.unwrap();
    assert!(
        text.contains("Gaming day: &#34;yesterday&#34; is not a date"),
        "{text}"
    );
    assert!(
        text.contains("From: &#34;2026-13-01T00:00&#34; is not a time"),
        "{text}"
    );
}

/// The `seq` of each event row of an event-search page, in the page's order.
fn seqs_shown(page: &str, chain: &str) -> Vec<i64> {
    let mark = format!("{chain} · ");
    page.split(&mark)
        .skip(1)
        .map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().unwrap()
        })
        .collect()
}

#[tokio::test]
async fn a_time_range_search_pages_through_its_events_in_time_order() {
    let app = spawn_app().await;
    append_events(&app, "t:range", 60);
    // Instants that disagree with the ids (as concurrent writers can make them): event n at
    // noon plus (61 - n) seconds, except events 20 to 29, which share one instant. Event 60
    // falls before the range.
    tamper(
        &app,
        "UPDATE audit_events SET at = CASE \
             WHEN seq = 60 THEN timestamptz '2026-01-01 12:00:00+00' \
             WHEN seq BETWEEN 20 AND 29 THEN timestamptz '2026-01-10 12:00:30.5+00' \
             ELSE timestamptz '2026-01-10 12:00:00+00' + (61 - seq) * interval '1 second' END \
         WHERE chain = 't:range'",
    );
    app.signed_in_as(Role::Auditor).await;
    let mut shown = Vec::new();
    let mut path =
        "/audit/events?chain=t:range&from=2026-01-09T00:00&to=2026-01-12T00:00".to_string();
    for _ in 0..3 {
        let page = app.get(&path).await.text().await.unwrap();
        shown.extend(seqs_shown(&page, "t:range"));
        let older = page
            .split("\" id=\"older\"")
            .next()
            .filter(|_| page.contains("id=\"older\""));
        match older.and_then(|before| before.rsplit("href=\"").next()) {
            Some(next) => path = next.replace("&#38;", "&"),
            None => break,
        }
    }
    // Newest first: 1..=19 (noon + 60 s down to + 42 s), 30 (+ 31 s), the shared instant's
    // 29 down to 20 by id (+ 30.5 s), then 31..=59.
    let expected: Vec<i64> = (1..=19)
        .chain([30])
        .chain((20..=29).rev())
        .chain(31..=59)
        .collect();
    assert_eq!(shown, expected);
}

#[test]
fn the_seal_file_lives_outside_the_private_cluster() {
    let config = pusoy_pit::config::Config::from_lookup(|_| None).unwrap();
    assert_eq!(config.seal_file, Path::new("var").join("day-seals.jsonl"));
    assert!(!config.seal_file.starts_with(config.data_dir.join("pg")));
}

#[tokio::test]
async fn the_production_role_may_only_append_to_and_read_the_trail() {
    let app = spawn_app().await;
    let supervisor = app.create_user("sup", Role::Supervisor, PASSWORD);
    let role = format!("pusoy_app_test_{}", std::process::id());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/app-role.sql");
    let owner_url = app.db_url.split('?').next().unwrap().to_owned()
        + "?"
        + app.db_url.split_once('?').map_or("", |(_, q)| q);
    let ran = std::process::Command::new("psql")
        .arg(&owner_url)
        .args(["-q", "-v", "ON_ERROR_STOP=1", "-v"])
        .arg(format!("app_role={role}"))
        .args(["-v", "app_password=app-role-pw", "-f"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // The same database, as the app's role.
    let (scheme_user, rest) = owner_url.split_once('@').unwrap();
    let scheme = &scheme_user[..scheme_user.find("://").unwrap() + 3];
    let role_url = format!("{scheme}{role}:app-role-pw@{rest}");
    let mut conn = PgConnection::establish(&role_url).unwrap();

    assert!(pusoy_pit::db::pending_migrations(&mut conn)
        .unwrap()
        .is_empty());
    append_events(&app, "t:role", 1);
    audit_log::append(
        &mut conn,
        &NewAuditEvent::system(
            &Actor::system("app"),
            AuditAction::SessionExpired,
            "by the app's role",
        ),
    )
    .unwrap();
    for sql in [
        "UPDATE audit_events SET target = 'x'",
        "DELETE FROM audit_events",
        "TRUNCATE audit_events",
        "ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_or_delete",
    ] {
        let err = diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("permission denied") || err.contains("must be owner"),
            "{sql}: {err}"
        );
    }
    // What the app does still works under the role. A dealer records a round at a table: the
    // round, its audit event, and its figures (written by the trigger on `rounds` with the
    // role's rights) ...
    create_table(&app, "ROLE-1");
    let mut as_role = spawn_app_with(|config| config.database_url = Some(role_url.clone())).await;
    as_role.db_url = app.db_url.clone();
    as_role.signed_in_as(Role::Dealer).await;
    as_role.sign_on_at("ROLE-1").await;
    let (status, round) = record(&as_role, "ROLE-1", "role-key-0001", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_figures"), 1);
    assert_every_round_has_its_figures(&app);
    as_role.sign_off_at("ROLE-1").await;
    // ... and closing a day takes its locks.
    let today = app.config.gaming_day(Utc::now());
    let actor = Actor::user(supervisor.id, "sup", None);
    conn.transaction(|conn| {
        days::lock_day_tables(conn)?;
        days::seal_day(
            conn,
            today,
            supervisor.id,
            &actor,
            &SealFiles::of(&app.config),
        )
    })
    .unwrap();
    // The close wrote the day's round sums (as the owner: its trigger); the role reads them
    // and may not write them.
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM closed_day_round_sums"),
        1
    );
    for sql in [
        "INSERT INTO closed_day_round_sums SELECT * FROM closed_day_round_sums",
        "UPDATE closed_day_round_sums SET house = 0",
        "DELETE FROM closed_day_round_sums",
    ] {
        let err = diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_err()
            .to_string();
        assert!(err.contains("permission denied"), "{sql}: {err}");
    }
    drop(conn);
    assert!(verify_all(&app).seal_problems.is_empty());
    for seals in [&app.config.seal_file, &as_role.config.seal_file] {
        let _ = std::fs::remove_file(seals);
    }
    diesel::sql_query(format!("DROP OWNED BY {role}"))
        .execute(&mut app.conn())
        .unwrap();
    diesel::sql_query(format!("DROP ROLE {role}"))
        .execute(&mut app.conn())
        .unwrap();
}

#[tokio::test]
async fn the_private_clusters_app_role_cannot_rewrite_history() {
    // The embedded default: without DATABASE_URL the app is given the app role's URL.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pusoy-pit"))
        .args(["db", "url"])
        .env_remove("DATABASE_URL")
        .env(
            "PUSOY_DATA_DIR",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("var"),
        )
        .output()
        .unwrap();
    let url = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(url.starts_with("postgres://pusoy_app:"), "{url}");

    // The app under test connects the same way: a dealer records a round through it.
    let app = spawn_app().await;
    create_table(&app, "ROLE-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("ROLE-1").await;
    let (status, round) = record(&app, "ROLE-1", "role-key-0001", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    let app_url = app.config.database_url.clone().unwrap();
    assert!(app_url.contains("pusoy_app:"), "{app_url}");
    let mut conn = PgConnection::establish(&app_url).unwrap();
    #[derive(QueryableByName)]
    struct Role_ {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        rolsuper: bool,
    }
    let role: Role_ =
        diesel::sql_query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            .get_result(&mut conn)
            .unwrap();
    assert!(!role.rolsuper, "the app is not a superuser");
    for sql in [
        "ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_or_delete",
        "ALTER TABLE rounds DISABLE TRIGGER rounds_are_immutable",
        "UPDATE audit_events SET target = 'x'",
        "DELETE FROM audit_events",
        "UPDATE rounds SET dealer_result = 0",
        "DELETE FROM rounds",
    ] {
        let err = diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("permission denied")
                || err.contains("must be owner")
                || err.contains("immutable")
                || err.contains("cannot be"),
            "{sql}: {err}"
        );
    }
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM rounds WHERE dealer_result = 0"
        ),
        0
    );
}
