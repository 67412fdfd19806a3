//! The pit manager's review (issue 14): the approval threshold, approvals and their separation
//! of duties, voids, re-entry, the review queue and the recompute check, over HTTP against the
//! real database.
use chrono::NaiveDate;
use diesel::prelude::*;
use pusoy_pit::db::ids::{RoundId, TableId};
use pusoy_pit::db::review::{self, QueueFilter, QueueOrder, VoidFilter};
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::recheck;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{call, count, create_table, location, spawn_app, the_round, TestApp};

/// Records `the_round()` at `code` under `key` through the API, as this browser's user.
async fn record(app: &TestApp, code: &str, key: &str) -> Value {
    let (status, body) = call(
        app,
        Method::PUT,
        &format!("/api/v1/tables/{code}/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// The largest single seat result of a recorded round, win or loss.
fn largest_seat_result(round: &Value) -> i64 {
    round["places"].as_array().unwrap()[1..]
        .iter()
        .map(|p| p["result"].as_i64().unwrap().abs())
        .max()
        .unwrap()
}

fn set_threshold(app: &TestApp, table: i64, threshold: Option<i64>) {
    use pusoy_pit::db::schema::gaming_tables;
    diesel::update(gaming_tables::table.find(TableId(table)))
        .set(gaming_tables::approval_threshold.eq(threshold))
        .execute(&mut app.conn())
        .unwrap();
}

fn needs_approval(app: &TestApp, id: i64) -> bool {
    use pusoy_pit::db::schema::rounds;
    rounds::table
        .find(RoundId(id))
        .select(rounds::needs_approval)
        .first(&mut app.conn())
        .unwrap()
}

/// A table `code` with a dealer signed on (in its own browser, returned) and a supervisor
/// signed in on `app`.
async fn pit(app: &TestApp, code: &str) -> (i64, TestApp) {
    let table = create_table(app, code);
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(code).await;
    (table, dealer)
}

/// A second pit manager, in a browser of their own.
async fn second_supervisor(app: &TestApp) -> TestApp {
    let other = app.another_browser();
    other.create_user("pitboss2", Role::Supervisor, crate::helpers::PASSWORD);
    let res = other.sign_in("pitboss2", crate::helpers::PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    other
}

/// The page of an answer, which must have this status.
async fn answered(res: reqwest::Response, status: StatusCode) -> String {
    assert_eq!(res.status(), status);
    res.text().await.unwrap()
}

fn id_of(round: &Value) -> i64 {
    round["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_round_waits_for_approval_when_a_seat_result_reaches_the_threshold() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    let first = record(&dealer, "PUSOY-1", "threshold-0001").await;
    let largest = largest_seat_result(&first);
    assert!(
        !needs_approval(&app, id_of(&first)),
        "no threshold, no wait"
    );

    set_threshold(&app, table, Some(largest));
    let at = record(&dealer, "PUSOY-1", "threshold-0002").await;
    assert!(
        needs_approval(&app, id_of(&at)),
        "at the threshold it waits"
    );

    set_threshold(&app, table, Some(largest + 1));
    let below = record(&dealer, "PUSOY-1", "threshold-0003").await;
    assert!(!needs_approval(&app, id_of(&below)), "below it does not");
    assert_eq!(
        count(
            &app,
            "SELECT count(*) AS n FROM rounds WHERE needs_approval"
        ),
        1
    );
}

#[tokio::test]
async fn a_pit_manager_approves_a_pending_round_but_not_one_they_entered() {
    let app = spawn_app().await;
    let (table, _dealer) = pit(&app, "PUSOY-1").await;
    set_threshold(&app, table, Some(1));
    // The supervisor enters the round themselves, for the dealer's shift.
    app.signed_in_as(Role::Supervisor).await;
    let round = record(&app, "PUSOY-1", "approve-0001").await;
    let path = format!("/review/rounds/{}/approve", id_of(&round));

    let res = app.post_form(&path, &[]).await;
    let page = answered(res, StatusCode::FORBIDDEN).await;
    assert!(
        page.contains("You entered Round 1 at PUSOY-1"),
        "the refusal says why: {page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    let refused = app.audit("round.approve.refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].chain, format!("table:{table}"));

    let other = second_supervisor(&app).await;
    let res = other.post_form(&path, &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        location(&res),
        format!("/tables/PUSOY-1/rounds/{}", id_of(&round))
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 1);
    let approved = app.audit("round.approved");
    assert_eq!(approved.len(), 1);
    assert_eq!(approved[0].chain, format!("table:{table}"));
    assert_eq!(approved[0].actor_name, "pitboss2");
    let page = other
        .get(&format!("/tables/PUSOY-1/rounds/{}", id_of(&round)))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Approved by pitboss2"), "{page}");

    // Approved once only.
    let res = other.post_form(&path, &[]).await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert!(res.text().await.unwrap().contains("already approved"));
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 1);
}

#[tokio::test]
async fn nobody_approves_a_round_of_a_shift_they_worked() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    set_threshold(&app, table, Some(1));
    // The supervisor enters one round for the dealer; the dealer enters the next.
    app.signed_in_as(Role::Supervisor).await;
    let entered = record(&app, "PUSOY-1", "shift-0001").await;
    let dealt = record(&dealer, "PUSOY-1", "shift-0002").await;
    let path = format!("/review/rounds/{}/approve", id_of(&dealt));

    let res = app.post_form(&path, &[]).await;
    let page = answered(res, StatusCode::FORBIDDEN).await;
    assert!(
        page.contains("You entered rounds on the shift of Round 2 at PUSOY-1"),
        "the refusal says why: {page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    assert_eq!(app.audit("round.approve.refused").len(), 1);

    // The dealer, made a pit manager later, may not approve a round of their shift either,
    // though somebody else entered it.
    diesel::sql_query("UPDATE users SET role = 'supervisor' WHERE username = 'the-dealer'")
        .execute(&mut app.conn())
        .unwrap();
    let promoted = app.another_browser();
    let res = promoted
        .sign_in("the-dealer", crate::helpers::PASSWORD)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = promoted
        .post_form(&format!("/review/rounds/{}/approve", id_of(&entered)), &[])
        .await;
    let page = answered(res, StatusCode::FORBIDDEN).await;
    assert!(
        page.contains("Round 1 at PUSOY-1") && page.contains("was entered on your own shift"),
        "{page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    assert_eq!(app.audit("round.approve.refused").len(), 2);

    // A pit manager who did not work the shift approves it.
    let other = second_supervisor(&app).await;
    let res = other.post_form(&path, &[]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 1);
}

#[tokio::test]
async fn a_dealer_cannot_approve_and_the_attempt_is_audited() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    set_threshold(&app, table, Some(1));
    let round = record(&dealer, "PUSOY-1", "dealer-0001").await;
    let res = dealer
        .post_form(&format!("/review/rounds/{}/approve", id_of(&round)), &[])
        .await;
    let page = answered(res, StatusCode::FORBIDDEN).await;
    assert!(
        page.contains(
            "This is for pit manager and administrator accounts; yours is a dealer account."
        ),
        "{page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    assert_eq!(app.audit("authz.denied").len(), 1);
}

#[tokio::test]
async fn approving_a_round_that_needs_none_or_a_void_one_is_refused() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    let none_needed = record(&dealer, "PUSOY-1", "refuse-0001").await;
    let res = app
        .post_form(
            &format!("/review/rounds/{}/approve", id_of(&none_needed)),
            &[],
        )
        .await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert!(res.text().await.unwrap().contains("needs no approval"));

    set_threshold(&app, table, Some(1));
    let pending = record(&dealer, "PUSOY-1", "refuse-0002").await;
    let res = app
        .post_form(
            &format!("/review/rounds/{}/void", id_of(&pending)),
            &[("reason", "misdeal")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = app
        .post_form(&format!("/review/rounds/{}/approve", id_of(&pending)), &[])
        .await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("void round cannot be approved"));
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    assert_eq!(app.audit("round.approve.refused").len(), 2);
}

/// The house results the dealer's table screen shows: (this shift, today).
async fn house_results_shown(dealer: &TestApp, code: &str) -> (String, String) {
    let page = dealer
        .get(&format!("/tables/{code}"))
        .await
        .text()
        .await
        .unwrap();
    let after = |marker: &str| {
        let start = page.find(marker).unwrap() + marker.len();
        page[start..start + page[start..].find('<').unwrap()].to_owned()
    };
    (
        after("class=\"house-shift\">"),
        after("class=\"house-today\">"),
    )
}

#[tokio::test]
async fn a_void_keeps_the_round_marked_and_leaves_the_totals() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    let kept = record(&dealer, "PUSOY-1", "void-0001").await;
    let voided = record(&dealer, "PUSOY-1", "void-0002").await;
    let one_round = kept["dealer_result"].as_i64().unwrap();
    let before = house_results_shown(&dealer, "PUSOY-1").await;

    let res = app
        .post_form(
            &format!("/review/rounds/{}/void", id_of(&voided)),
            &[("reason", "wrong_cards"), ("note", "seat 2 misread")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    // The round is still there, unchanged, with its void beside it.
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 2);
    let (status, shown) = call(&app, Method::GET, "/api/v1/rounds/void-0002", None).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["places"], voided["places"]);
    let events = app.audit("round.voided");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].details["reason"], "wrong_cards");
    assert_eq!(events[0].details["note"], "seat 2 misread");

    // The totals leave it out; the lists mark it.
    let after = house_results_shown(&dealer, "PUSOY-1").await;
    assert_ne!(before, after);
    let one = format!(
        "PHP {}",
        pusoy_pit::rules::money::Money(one_round).signed_text()
    );
    assert_eq!(after, (one.clone(), one));
    let screen = dealer.get("/tables/PUSOY-1").await.text().await.unwrap();
    assert_eq!(screen.matches("VOID").count(), 1, "{screen}");
    let queue = app.get("/review").await.text().await.unwrap();
    assert_eq!(queue.matches("void-badge").count(), 1, "{queue}");
    let page = app
        .get(&format!("/tables/PUSOY-1/rounds/{}", id_of(&voided)))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("VOID: Wrong cards entered"), "{page}");
}

#[tokio::test]
async fn a_void_needs_a_reason_and_a_void_cannot_be_voided_again() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    let round = record(&dealer, "PUSOY-1", "reason-0001").await;
    let path = format!("/review/rounds/{}/void", id_of(&round));

    for (fields, expected) in [
        (vec![], "Choose why the round is void"),
        (vec![("reason", "boredom")], "is not a reason for a void"),
        (vec![("reason", "other"), ("note", " ")], "needs a note"),
    ] {
        let res = app.post_form(&path, &fields).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{fields:?}");
        let page = res.text().await.unwrap();
        assert!(page.contains(expected), "{fields:?}: {page}");
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 0);
    assert_eq!(app.audit("round.void.refused").len(), 3);

    let res = app
        .post_form(&path, &[("reason", "other"), ("note", "card on the floor")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = app.post_form(&path, &[("reason", "dispute")]).await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("a void cannot be voided again or undone"));
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 1);
    assert_eq!(app.audit("round.void.refused").len(), 4);
}

#[tokio::test]
async fn a_closed_gaming_day_takes_no_approval_or_void() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    set_threshold(&app, table, Some(1));
    app.signed_in_as(Role::Supervisor).await;
    let round = record(&dealer, "PUSOY-1", "closed-0001").await;
    let day: NaiveDate = round["gaming_day"].as_str().unwrap().parse().unwrap();
    diesel::sql_query(
        "INSERT INTO gaming_day_closes (gaming_day, closed_by, seal_seq, seal_hash) \
         SELECT $1, id, 1, '\\x00' FROM users LIMIT 1",
    )
    .bind::<diesel::sql_types::Date, _>(day)
    .execute(&mut app.conn())
    .unwrap();
    let other = second_supervisor(&app).await;
    for (action, fields) in [("approve", vec![]), ("void", vec![("reason", "misdeal")])] {
        let res = other
            .post_form(
                &format!("/review/rounds/{}/{action}", id_of(&round)),
                &fields,
            )
            .await;
        assert_eq!(res.status(), StatusCode::CONFLICT, "{action}");
        let page = res.text().await.unwrap();
        assert!(
            page.contains(&format!("Gaming day {day} is closed")),
            "{action}: {page}"
        );
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 0);
    // Each refusal is audited on the table's chain.
    for action in ["round.approve.refused", "round.void.refused"] {
        let refused = app.audit(action);
        assert_eq!(refused.len(), 1, "{action}");
        assert_eq!(refused[0].chain, format!("table:{table}"), "{action}");
    }
}

#[tokio::test]
async fn a_void_round_entered_again_is_a_new_round_and_both_pages_link() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    let round = record(&dealer, "PUSOY-1", "reenter-0001").await;
    let id = id_of(&round);
    let form = format!("/review/rounds/{id}/reenter");
    // Only a void round can be entered again.
    let res = app.get(&form).await;
    assert_eq!(res.status(), StatusCode::CONFLICT);

    app.post_form(
        &format!("/review/rounds/{id}/void"),
        &[("reason", "wrong_bet")],
    )
    .await;
    let page = app.get(&form).await.text().await.unwrap();
    assert!(
        page.contains("id=\"seat1_bet\" name=\"seat1_bet\" value=\"5\""),
        "the bets prefilled: {page}"
    );
    // A corrected round: seat 1's bet was wrong.
    let mut fields: Vec<(String, String)> = vec![
        ("dealer_back".into(), "2c 2d 2h 5s 6s".into()),
        ("dealer_middle".into(), "7c 7d 8h 9s Tc".into()),
        ("dealer_front".into(), "Jc Qd Kh".into()),
        ("seat1_action".into(), "play".into()),
        ("seat1_bet".into(), "7".into()),
        ("seat1_back".into(), "8c 8d 9h Ts Jd".into()),
        ("seat1_middle".into(), "Ac Ad Ah 3s 4s".into()),
        ("seat1_front".into(), "Qc Kd As".into()),
    ];
    // A round that does not validate is refused with the reason and nothing is saved.
    fields.push(("seat2_action".into(), "play".into()));
    fields.push(("seat2_bet".into(), "1".into()));
    let refs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let res = app.post_form(&form, &refs).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_reentries"), 0);

    let res = app.post_form(&form, &refs[..8]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let new_page = location(&res).to_owned();
    let new_id: i64 = new_page.rsplit('/').next().unwrap().parse().unwrap();
    assert_eq!(
        count(
            &app,
            &format!("SELECT round_no::bigint AS n FROM rounds WHERE id = {new_id}")
        ),
        2,
        "the next round number"
    );
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT count(*) AS n FROM round_reentries \
                 WHERE round_id = {new_id} AND replaces_round_id = {id}"
            )
        ),
        1
    );
    assert_eq!(app.audit("round.reentered").len(), 1);
    let new = app.get(&new_page).await.text().await.unwrap();
    assert!(
        new.contains(&format!("href=\"/tables/PUSOY-1/rounds/{id}\"")),
        "{new}"
    );
    let old = app
        .get(&format!("/tables/PUSOY-1/rounds/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(old.contains(&format!("href=\"{new_page}\"")), "{old}");
    // Once only.
    assert_eq!(app.get(&form).await.status(), StatusCode::CONFLICT);
}

/// The `href` of the link with `id` on `page`, unescaped.
fn link(page: &str, id: &str) -> Option<String> {
    let tag = &page[..page.find(&format!("id=\"{id}\""))?];
    let href = &tag[tag.rfind("href=\"")? + 6..];
    Some(
        href[..href.find('"')?]
            .replace("&#38;", "&")
            .replace("&amp;", "&"),
    )
}

#[tokio::test]
async fn the_queue_pages_keep_every_filter_in_their_links() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    // A round at another table, by another dealer, that the filters leave out.
    create_table(&app, "PUSOY-2");
    let other_dealer = app.another_browser();
    other_dealer.create_user("dealer2", Role::Dealer, crate::helpers::PASSWORD);
    let res = other_dealer
        .sign_in("dealer2", crate::helpers::PASSWORD)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    other_dealer.sign_on_at("PUSOY-2").await;
    record(&other_dealer, "PUSOY-2", "other-0001").await;
    let mut ids = Vec::new();
    for n in 0..52 {
        ids.push(id_of(
            &record(&dealer, "PUSOY-1", &format!("pages-{n:04}")).await,
        ));
    }
    let dealer_id = count(
        &app,
        "SELECT id AS n FROM users WHERE username = 'the-dealer'",
    );
    app.signed_in_as(Role::Supervisor).await;

    let shown = |html: &str| -> Vec<i64> {
        html.match_indices("href=\"/tables/")
            .filter_map(|(at, m)| {
                let rest = &html[at + m.len()..];
                let rest = &rest[rest.find("/rounds/")? + 8..];
                rest[..rest.find('"')?].parse().ok()
            })
            .collect()
    };
    let first =
        format!("/review?table={table}&dealer={dealer_id}&min_amount=1&void=not_void&sort=oldest");
    let page = app.get(&first).await.text().await.unwrap();
    assert_eq!(
        shown(&page),
        ids[..50].to_vec(),
        "the first page, oldest first"
    );
    assert!(
        link(&page, "first-page").is_none(),
        "already the first page"
    );
    let next = link(&page, "next-page").expect("a next page");
    for kept in [
        format!("table={table}"),
        format!("dealer={dealer_id}"),
        "min_amount=1".to_owned(),
        "void=not_void".to_owned(),
        "sort=oldest".to_owned(),
    ] {
        assert!(next.contains(&kept), "{next} keeps {kept}");
    }

    let page = app.get(&next).await.text().await.unwrap();
    assert_eq!(shown(&page), ids[50..].to_vec(), "the rest, none twice");
    assert!(link(&page, "next-page").is_none(), "no page after the last");
    let back = link(&page, "first-page").expect("a way back to the first page");
    assert!(!back.contains("after="), "{back}");
    let again = app.get(&back).await.text().await.unwrap();
    assert_eq!(
        shown(&again),
        ids[..50].to_vec(),
        "{back} is the same first page"
    );

    let res = app.get("/review?after=yesterday").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("is not a place in the queue"));
}

#[tokio::test]
async fn the_queue_filters_and_pages_by_keyset() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    let mut ids = Vec::new();
    for n in 0..5 {
        if n == 3 {
            set_threshold(&app, table, Some(1));
        }
        ids.push(id_of(
            &record(&dealer, "PUSOY-1", &format!("queue-000{n}")).await,
        ));
    }
    app.post_form(
        &format!("/review/rounds/{}/void", ids[4]),
        &[("reason", "misdeal")],
    )
    .await;

    let shown = |html: &str| -> Vec<i64> {
        html.match_indices("href=\"/tables/PUSOY-1/rounds/")
            .map(|(at, m)| {
                let rest = &html[at + m.len()..];
                rest[..rest.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    };
    let page = app.get("/review").await.text().await.unwrap();
    assert_eq!(shown(&page), vec![ids[4], ids[3], ids[2], ids[1], ids[0]]);
    let page = app
        .get("/review?approval=pending&sort=oldest")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(shown(&page), vec![ids[3]], "the void one is not pending");
    let page = app.get("/review?void=void").await.text().await.unwrap();
    assert_eq!(shown(&page), vec![ids[4]]);
    let page = app
        .get("/review?outcome=player_foul&void=not_void&sort=oldest")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(shown(&page), ids[..4].to_vec());
    let page = app
        .get("/review?outcome=royalty")
        .await
        .text()
        .await
        .unwrap();
    assert!(shown(&page).is_empty());
    let res = app.get("/review?day=2026-13-01").await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("is not a date"));

    // Keyset paging, two at a time, in each order.
    let conn = &mut app.conn();
    for order in [
        QueueOrder::Newest,
        QueueOrder::Oldest,
        QueueOrder::Largest,
        QueueOrder::Smallest,
    ] {
        let mut filter = QueueFilter {
            void: Some(VoidFilter::NotVoided),
            order,
            ..QueueFilter::default()
        };
        let mut seen = Vec::new();
        for _ in 0..10 {
            let page = review::queue(conn, &filter, 2).unwrap();
            let Some(last) = page.last() else { break };
            filter.after = Some(last.cursor());
            seen.extend(page.iter().map(|r| r.id.0));
        }
        // In the order settled; by amount, every round has the same largest result, and the
        // id breaks the tie (ids are not in the order settled: they are taken ahead).
        let mut expected = ids[..4].to_vec();
        if matches!(order, QueueOrder::Largest | QueueOrder::Smallest) {
            expected.sort_unstable();
        }
        if matches!(order, QueueOrder::Newest | QueueOrder::Largest) {
            expected.reverse();
        }
        assert_eq!(seen, expected, "{order:?}");
    }

    // Voided rounds page in the same orders, read from the keys each void carries.
    for id in [ids[0], ids[2]] {
        let res = app
            .post_form(
                &format!("/review/rounds/{id}/void"),
                &[("reason", "wrong_bet")],
            )
            .await;
        assert!(res.status().is_redirection(), "{}", res.status());
    }
    let conn = &mut app.conn();
    for order in [
        QueueOrder::Newest,
        QueueOrder::Oldest,
        QueueOrder::Largest,
        QueueOrder::Smallest,
    ] {
        let mut filter = QueueFilter {
            void: Some(VoidFilter::Voided),
            order,
            ..QueueFilter::default()
        };
        let mut seen = Vec::new();
        for _ in 0..10 {
            let page = review::queue(conn, &filter, 2).unwrap();
            let Some(last) = page.last() else { break };
            assert!(page.iter().all(|r| r.voided));
            filter.after = Some(last.cursor());
            seen.extend(page.iter().map(|r| r.id.0));
        }
        let mut expected = vec![ids[0], ids[2], ids[4]];
        if matches!(order, QueueOrder::Largest | QueueOrder::Smallest) {
            expected.sort_unstable();
        }
        if matches!(order, QueueOrder::Newest | QueueOrder::Largest) {
            expected.reverse();
        }
        assert_eq!(seen, expected, "voided, {order:?}");
    }
    let copied = count(
        &app,
        "SELECT count(*) AS n FROM round_voids v JOIN rounds r ON r.id = v.round_id \
         WHERE v.settled_at = r.settled_at AND v.largest_result = r.largest_result",
    );
    assert_eq!(copied, 3, "every void carries its round's order keys");
}

#[tokio::test]
async fn a_rounds_page_replays_it_whole() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    let mut round = the_round();
    // The dealer's 13 cards as dealt, in another order than set.
    round["dealer"]["dealt"] = json!("Kh Qd Jc Tc 9s 8h 7d 7c 6s 5s 2h 2d 2c");
    let (status, body) = call(
        &dealer,
        Method::PUT,
        "/api/v1/tables/PUSOY-1/rounds/replay-0001",
        Some(round),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    app.signed_in_as(Role::Supervisor).await;
    let page = app
        .get(&format!("/tables/PUSOY-1/rounds/{}", id_of(&body)))
        .await
        .text()
        .await
        .unwrap();

    // Each place's cards drawn with suit symbols: the dealer's 13 dealt and their three
    // hands, and the two seats that set theirs (seat 2 surrendered).
    assert_eq!(
        page.matches("<span class=\"face").count(),
        13 + 3 * 13,
        "{page}"
    );
    assert!(page.contains("13 cards dealt:"), "{page}");
    for (label, symbol) in [
        ("king of hearts", "♥"),
        ("queen of diamonds", "♦"),
        ("jack of clubs", "♣"),
        ("ace of spades", "♠"),
    ] {
        assert!(
            page.contains(&format!("aria-label=\"{label}\"")),
            "{label}: {page}"
        );
        assert!(page.contains(symbol), "{symbol}: {page}");
    }
    // Each hand named, who won it, and the foul explained (seat 1's middle, three aces,
    // beats its back, a pair).
    for said in [
        "three of a kind, twos, six-five kickers",
        "pair of sevens, ten-nine-eight kickers",
        "high card, king-queen-jack",
        "three of a kind, threes, five-four kickers · won by the player",
        "high card, queen-jack-six · won by the dealer",
        "Fouled: middle",
    ] {
        assert!(page.contains(said), "{said}: {page}");
    }
    // The declaration, the bets and the results.
    assert!(page.contains("Surrendered"), "{page}");
    assert!(page.contains("Seat 1 · bet PHP 5.00"), "{page}");
    assert!(
        page.contains("Result: <strong>PHP +3.00</strong>"),
        "{page}"
    );
    // The rules in words, who entered it, from where, and the round's audit events.
    assert!(
        page.contains("House PUSOY-1, version 1: surrender on, royalties on"),
        "{page}"
    );
    assert!(
        page.contains("<dd id=\"entered-by\">the-dealer from 127.0.0.1</dd>"),
        "{page}"
    );
    assert!(page.contains("<td>round.settled</td>"), "{page}");
}

#[tokio::test]
async fn the_recompute_check_finds_a_round_altered_behind_the_apps_back() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    let honest = record(&dealer, "PUSOY-1", "recheck-0001").await;
    let altered = record(&dealer, "PUSOY-1", "recheck-0002").await;
    let day: NaiveDate = honest["gaming_day"].as_str().unwrap().parse().unwrap();
    let report = recheck::recheck_day(&mut app.conn(), day, &mut |_| {}).unwrap();
    assert_eq!((report.rounds, report.differing.len()), (2, 0));
    // The same over the day from the command line: `pusoy-pit review recheck --day D`.
    let command = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pusoy-pit"))
            .args(["review", "recheck", "--day", &day.to_string()])
            .env("DATABASE_URL", &app.db_url)
            .env("PUSOY_MIGRATE", "false")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (status, said) = command();
    assert_eq!(status, Some(0), "{said}");
    assert!(
        said.contains("2 rounds settled again from their stored cards, 0 differ"),
        "{said}"
    );
    let page = app
        .get(&format!("/tables/PUSOY-1/rounds/{}", id_of(&altered)))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"recheck-ok\""), "{page}");

    // As the database superuser, with the immutability trigger off for this one statement:
    // seat 3 is said to have won 1,000.00 more, and the house result follows.
    let mut conn = app.conn();
    conn.transaction(|conn| {
        diesel::sql_query("ALTER TABLE rounds DISABLE TRIGGER rounds_are_immutable")
            .execute(conn)?;
        diesel::sql_query(
            "UPDATE rounds SET dealer_result = dealer_result - 100000, \
             places = jsonb_set(jsonb_set(places, '{3,result}', \
                 to_jsonb((places->3->>'result')::bigint + 100000)), \
                 '{0,result}', to_jsonb(dealer_result - 100000)) \
             WHERE id = $1",
        )
        .bind::<diesel::sql_types::BigInt, _>(id_of(&altered))
        .execute(conn)?;
        diesel::sql_query("ALTER TABLE rounds ENABLE TRIGGER rounds_are_immutable")
            .execute(conn)?;
        diesel::QueryResult::Ok(())
    })
    .unwrap();

    let report = recheck::recheck_day(&mut app.conn(), day, &mut |_| {}).unwrap();
    assert_eq!(report.rounds, 2);
    assert_eq!(report.differing.len(), 1);
    assert_eq!(report.differing[0].round.0, id_of(&altered));
    let said = report.differing[0].differences.join("; ");
    assert!(said.contains("house result: stored"), "{said}");
    assert!(said.contains("seat3 result: stored"), "{said}");
    let (status, said) = command();
    assert_eq!(status, Some(1), "the command fails: {said}");
    assert!(
        said.contains(&format!(
            "DIFFERS: round 2 at PUSOY-1 (id {})",
            id_of(&altered)
        )),
        "{said}"
    );
    assert!(said.contains("seat3 result: stored"), "{said}");
    let page = app
        .get(&format!("/tables/PUSOY-1/rounds/{}", id_of(&altered)))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"recheck-warning\""), "{page}");
    assert!(page.contains("seat3 result: stored"), "{page}");

    // The same check over the day, started from the day's report, and its verdict there.
    let report_page = format!("/reports?day={day}");
    let page = app.get(&report_page).await.text().await.unwrap();
    assert!(
        page.contains("1 of 2 rounds DIFFER") && page.contains("by review-recheck"),
        "the command's verdict is on the day's report: {page}"
    );
    let res = app
        .post_form("/reports/recheck", &[("day", &day.to_string())])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let mut page = String::new();
    for _ in 0..200 {
        page = app.get(&report_page).await.text().await.unwrap();
        if page.contains("by the-supervisor") && !page.contains("id=\"recheck-progress\"") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        page.contains("1 of 2 rounds DIFFER from the engine&#x27;s settlement")
            || page.contains("1 of 2 rounds DIFFER from the engine's settlement"),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "href=\"/tables/PUSOY-1/rounds/{}\"",
            id_of(&altered)
        )),
        "{page}"
    );
    assert!(page.contains("seat3 result: stored"), "{page}");
    let recorded = app.audit(recheck::RECHECKED);
    assert_eq!(
        recorded.len(),
        3,
        "each verdict is an audit event: the command's two and the report's"
    );
    // A day that is not a date is refused and names the field; nothing is started.
    let res = app
        .post_form("/reports/recheck", &[("day", "someday")])
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("day `someday` is not a date"));
}

/// Opens the table's draft and saves `the_round()` in it as this browser's user; the key.
async fn type_draft(app: &TestApp, code: &str) -> String {
    let key = crate::helpers::open(app, code).await;
    let (status, body) = call(
        app,
        Method::PUT,
        &format!("/api/v1/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    key
}

/// Confirms draft `key` at revision `revision` as this browser's user; the settled round.
async fn confirm(app: &TestApp, key: &str, revision: i64) -> Value {
    let (status, body) = call(
        app,
        Method::POST,
        &format!("/api/v1/rounds/{key}/confirm"),
        Some(json!({ "revision": revision })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

#[tokio::test]
async fn a_pit_manager_who_typed_a_draft_the_dealer_confirmed_neither_approves_nor_voids_it() {
    let app = spawn_app().await;
    let (table, dealer) = pit(&app, "PUSOY-1").await;
    set_threshold(&app, table, Some(1));
    let supervisor = app.signed_in_as(Role::Supervisor).await;
    // The supervisor types the round into the table's draft; the dealer only confirms it.
    let key = type_draft(&app, "PUSOY-1").await;
    let round = confirm(&dealer, &key, 1).await;
    let id = id_of(&round);

    // Who typed it is on the record: the draft's history and the round's event.
    let changed = app.audit("round.draft_changed");
    assert_eq!(
        changed.len(),
        1,
        "the supervisor's first save of the dealer's draft"
    );
    assert_eq!(changed[0].actor_user_id, Some(supervisor.id));
    let settled = app.audit("round.settled");
    assert_eq!(
        settled[0].details["entered_by"],
        json!([supervisor.id.0]),
        "{}",
        settled[0].details
    );

    for (action, fields) in [("approve", vec![]), ("void", vec![("reason", "misdeal")])] {
        let res = app
            .post_form(&format!("/review/rounds/{id}/{action}"), &fields)
            .await;
        let page = answered(res, StatusCode::FORBIDDEN).await;
        assert!(
            page.contains(&format!(
                "You entered Round 1 at PUSOY-1 on {}: another pit manager must {action} it.",
                round["gaming_day"].as_str().unwrap()
            )),
            "{action}: {page}"
        );
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 0);
    assert_eq!(app.audit("round.approve.refused").len(), 1);
    assert_eq!(app.audit("round.void.refused").len(), 1);

    // Its page offers them no decision, and says why.
    let page = app
        .get(&format!("/tables/PUSOY-1/rounds/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!page.contains("id=\"approve\""), "{page}");
    assert!(!page.contains("id=\"void\""), "{page}");
    assert!(
        page.contains("id=\"not-yours\">You entered Round 1 at PUSOY-1"),
        "{page}"
    );

    // A pit manager who had no hand in it sees both, and approves.
    let other = second_supervisor(&app).await;
    let page = other
        .get(&format!("/tables/PUSOY-1/rounds/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("id=\"approve\"") && page.contains("id=\"void\""),
        "{page}"
    );
    assert!(!page.contains("id=\"not-yours\""), "{page}");
    let res = other
        .post_form(&format!("/review/rounds/{id}/approve"), &[])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn a_pit_manager_voids_no_round_of_a_shift_they_entered_rounds_on() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    app.signed_in_as(Role::Supervisor).await;
    // The supervisor enters one round at the dealer's table; the dealer enters the next.
    record(&app, "PUSOY-1", "void-sod-0001").await;
    let dealt = record(&dealer, "PUSOY-1", "void-sod-0002").await;
    let id = id_of(&dealt);

    let res = app
        .post_form(
            &format!("/review/rounds/{id}/void"),
            &[("reason", "misdeal")],
        )
        .await;
    let page = answered(res, StatusCode::FORBIDDEN).await;
    assert!(
        page.contains("You entered rounds on the shift of Round 2 at PUSOY-1"),
        "{page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 0);

    let other = second_supervisor(&app).await;
    let res = other
        .post_form(
            &format!("/review/rounds/{id}/void"),
            &[("reason", "misdeal")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 1);

    // Nor enters it again: the form is refused, and so is the round sent.
    let form = format!("/review/rounds/{id}/reenter");
    let res = app.get(&form).await;
    let page = answered(res, StatusCode::FORBIDDEN).await;
    assert!(
        page.contains("another pit manager must re-enter it"),
        "{page}"
    );
    let round_page = app
        .get(&format!("/tables/PUSOY-1/rounds/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!round_page.contains("id=\"reenter\""), "{round_page}");
}

#[tokio::test]
async fn an_administrator_enters_a_void_round_again() {
    let app = spawn_app().await;
    let (_, dealer) = pit(&app, "PUSOY-1").await;
    let round = record(&dealer, "PUSOY-1", "admin-reenter-0001").await;
    let id = id_of(&round);
    let supervisor = second_supervisor(&app).await;
    let res = supervisor
        .post_form(
            &format!("/review/rounds/{id}/void"),
            &[("reason", "wrong_bet")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    app.signed_in_as(Role::Admin).await;
    let form = format!("/review/rounds/{id}/reenter");
    let round_page = app
        .get(&format!("/tables/PUSOY-1/rounds/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(round_page.contains("id=\"reenter\""), "{round_page}");
    assert_eq!(app.get(&form).await.status(), StatusCode::OK);
    let fields = [
        ("dealer_back", "2c 2d 2h 5s 6s"),
        ("dealer_middle", "7c 7d 8h 9s Tc"),
        ("dealer_front", "Jc Qd Kh"),
        ("seat1_action", "play"),
        ("seat1_bet", "7"),
        ("seat1_back", "8c 8d 9h Ts Jd"),
        ("seat1_middle", "Ac Ad Ah 3s 4s"),
        ("seat1_front", "Qc Kd As"),
    ];
    let res = app.post_form(&form, &fields).await;
    let status = res.status();
    assert_eq!(
        status,
        StatusCode::SEE_OTHER,
        "{}",
        res.text().await.unwrap()
    );
    assert_eq!(app.audit("round.reentered").len(), 1);
    assert_eq!(app.audit("round.reentered")[0].actor_name, "the-admin");
}
