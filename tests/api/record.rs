//! A whole round recorded in one call (`PUT /api/v1/tables/{code}/rounds/{key}`) under the
//! caller's one-time key: settled once, whatever the retries.
use diesel::RunQueryDsl;
use pusoy_pit::db::ids::{ProfileId, TableId};
use pusoy_pit::db::users::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{call, count, create_table, open, record, round_numbers, the_round};
use crate::helpers::{spawn_app, TestApp, PASSWORD};

const KEY: &str = "cage-7f3a-0001";

async fn dealer_on_shift_at(app: &TestApp, code: &str) -> pusoy_pit::db::users::User {
    let dealer = app.signed_in_as(Role::Dealer).await;
    app.sign_on_at(code).await;
    dealer
}

#[tokio::test]
async fn a_whole_round_settles_in_one_call_and_a_retry_returns_the_same_round() {
    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    let dealer = dealer_on_shift_at(&app, "PUSOY-1").await;

    let (status, first) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(first["status"], "settled");
    assert_eq!(first["key"], KEY);
    assert_eq!(first["round_no"], 1);
    assert_eq!(first["dealer_id"], dealer.id.0);
    assert_eq!(first["shift_id"], app.open_shift("PUSOY-1").unwrap());
    assert_eq!(first["dealer_result"], 900);
    let places = first["places"].as_array().unwrap();
    assert_eq!(places.len(), 4);
    assert_eq!(places[1]["place"], "seat1");
    assert_eq!(places[1]["fouled"], true);
    assert_eq!(places[2]["outcome"], "surrendered");

    let (status, again) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again, first, "the retry answers with the stored round");
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_places"), 4);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_drafts"), 0);
    let settled = app.audit("round.settled");
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].chain, format!("table:{table_id}"));
    assert_eq!(settled[0].details["draft_key"], KEY);

    let (status, shown) = call(&app, Method::GET, &format!("/api/v1/rounds/{KEY}"), None).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown, first);

    // The next key is the next round.
    let (status, next) = record(&app, "PUSOY-1", "cage-7f3a-0002", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{next}");
    assert_eq!(next["round_no"], 2);
}

#[tokio::test]
async fn the_same_key_sent_twice_at_once_settles_one_round() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    let (a, b) = tokio::join!(
        record(&app, "PUSOY-1", KEY, the_round()),
        record(&app, "PUSOY-1", KEY, the_round()),
    );
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CREATED],
        "{} {}",
        a.1,
        b.1
    );
    assert_eq!(a.1["id"], b.1["id"]);
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
    assert_eq!(app.audit("round.settled").len(), 1);
}

/// Many rounds sent to one table at once (an integration catching up in parallel): every one is
/// settled, once, numbered without gaps, and the table's audit chain stays intact. Most of them
/// find the table moved between their read and their write, and try again.
#[tokio::test]
async fn many_rounds_sent_to_one_table_at_once_all_settle_without_gaps() {
    use pusoy_pit::db::audit_log::{self, ChainCheck};

    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    const N: usize = 16;
    let keys: Vec<String> = (0..N).map(|n| format!("cage-burst-{n:04}")).collect();
    let answers = futures_util::future::join_all(
        keys.iter()
            .map(|key| record(&app, "PUSOY-1", key, the_round())),
    )
    .await;
    for (status, body) in &answers {
        assert_eq!(*status, StatusCode::CREATED, "{body}");
    }

    assert_eq!(round_numbers(&app), (1..=N as i32).collect::<Vec<_>>());
    assert_eq!(app.audit("round.settled").len(), N);
    let chain = audit_log::table_chain(TableId(table_id));
    match audit_log::verify_chain(&mut app.conn(), &chain).unwrap() {
        ChainCheck::Intact { .. } => {}
        broken => panic!("{chain}: {broken:?}"),
    }
}

/// Rounds of many tables at once, each table with its own dealer, as a busy pit sends them:
/// from the second round on each table's rounds are written from memory, with the other tables'
/// rounds waiting at the same time in one statement. Every round is settled once, each table's
/// rounds are numbered without gaps, and every table's audit chain is intact.
#[tokio::test]
async fn rounds_sent_to_many_tables_at_once_all_settle_on_intact_chains() {
    use pusoy_pit::db::audit_log::{self, ChainCheck};

    const TABLES: usize = 6;
    const ROUNDS: usize = 5;
    let app = spawn_app().await;
    let mut dealers = Vec::new();
    for t in 1..=TABLES {
        let code = format!("PUSOY-{t}");
        let table_id = create_table(&app, &code);
        let dealer = app.another_browser();
        let user = dealer.create_user(&format!("dealer-{t}"), Role::Dealer, PASSWORD);
        let res = dealer.sign_in(&user.username, PASSWORD).await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        dealer.sign_on_at(&code).await;
        dealers.push((code, table_id, dealer));
    }
    let tables = dealers.iter().map(|(code, _, dealer)| async move {
        let mut numbers = Vec::new();
        for n in 1..=ROUNDS {
            let key = format!("cage-{code}-{n:04}");
            let (status, body) = record(dealer, code, &key, the_round()).await;
            assert_eq!(status, StatusCode::CREATED, "{code} {key}: {body}");
            numbers.push(body["round_no"].as_i64().unwrap());
        }
        numbers
    });
    let numbered = futures_util::future::join_all(tables).await;

    let in_order: Vec<i64> = (1..=ROUNDS as i64).collect();
    for numbers in numbered {
        assert_eq!(numbers, in_order);
    }
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM rounds"),
        (TABLES * ROUNDS) as i64
    );
    assert_eq!(app.audit("round.settled").len(), TABLES * ROUNDS);
    for (code, table_id, _) in &dealers {
        let chain = audit_log::table_chain(TableId(*table_id));
        match audit_log::verify_chain(&mut app.conn(), &chain).unwrap() {
            ChainCheck::Intact { events } => {
                // The table's creation, the sign-on, then the rounds.
                assert_eq!(events, 2 + ROUNDS as u64, "{code}");
            }
            broken => panic!("{chain}: {broken:?}"),
        }
    }
}

#[tokio::test]
async fn a_bad_round_is_refused_by_field_and_uses_up_no_round_number() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    let mut round = the_round();
    // Kh is also the dealer's front.
    round["seats"][2]["front"] = json!("Qs Jh Kh");
    let (status, body) = record(&app, "PUSOY-1", KEY, round).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["field_errors"]["seat3_front"]
            .as_str()
            .unwrap()
            .contains("Kh"),
        "{body}"
    );
    let (status, body) = record(&app, "PUSOY-1", "short", the_round()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["field_errors"]["key"].is_string(), "{body}");
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);

    // The key was not used up either.
    let (status, body) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["round_no"], 1);
}

#[tokio::test]
async fn a_key_in_use_elsewhere_is_refused_and_nothing_is_written() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    create_table(&app, "PUSOY-2");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    let other = app.another_browser();
    other.signed_in_as(Role::Supervisor).await;
    let second_dealer = app.another_browser();
    second_dealer.create_user("dealer-two", Role::Dealer, crate::helpers::PASSWORD);
    assert_eq!(
        second_dealer
            .sign_in("dealer-two", crate::helpers::PASSWORD)
            .await
            .status(),
        StatusCode::SEE_OTHER
    );
    second_dealer.sign_on_at("PUSOY-2").await;

    let (status, _) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED);
    // A pit manager records at PUSOY-2 with the key PUSOY-1 used.
    let (status, body) = record(&other, "PUSOY-2", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body["error"].as_str().unwrap().contains(KEY), "{body}");
    // A draft's key is not a key for a whole round.
    let draft_key = open(&app, "PUSOY-1").await;
    let (status, body) = record(&app, "PUSOY-1", &draft_key, the_round()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 1);
}

#[tokio::test]
async fn a_dealer_not_on_shift_cannot_record_a_round() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Dealer).await;
    let (status, body) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["error"],
        "You are not signed on at PUSOY-1; sign on first."
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), 0);
}

#[tokio::test]
async fn a_round_settles_under_the_profile_version_in_force_and_keeps_it() {
    use diesel::prelude::*;
    use pusoy_pit::db::audit_log::Actor;
    use pusoy_pit::db::profiles;
    use pusoy_pit::db::schema::{gaming_tables, rule_profile_versions};
    use pusoy_pit::rules::profile::RuleProfile;

    let app = spawn_app().await;
    let table_id = create_table(&app, "PUSOY-1");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    let (status, first) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");

    // The pit changes the table's rules: surrender off.
    let conn = &mut app.conn();
    let profile_id: i64 = gaming_tables::table
        .find(table_id)
        .select(gaming_tables::rule_profile_id)
        .first(conn)
        .unwrap();
    let no_surrender = RuleProfile {
        surrender: false,
        ..RuleProfile::default()
    };
    // From now: a time the administrator sets applies even in mid-shift.
    let v2 = profiles::new_version(
        conn,
        ProfileId(profile_id),
        &no_surrender,
        Some(chrono::Utc::now()),
        &Actor::system("test"),
    )
    .unwrap();
    assert_ne!(first["rule_profile_version_id"], v2.id.0);

    // The same round now breaks the rules: seat 2 may no longer surrender.
    let (status, body) = record(&app, "PUSOY-1", "cage-7f3a-0002", the_round()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let mut round = the_round();
    round["seats"] = json!([round["seats"][0], round["seats"][2]]);
    let (status, second) = record(&app, "PUSOY-1", "cage-7f3a-0003", round).await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert_eq!(second["rule_profile_version_id"], v2.id.0);
    assert_eq!(second["round_no"], 2);

    // The first round still names the version it was settled under, which still says surrender.
    let (status, shown) = call(&app, Method::GET, &format!("/api/v1/rounds/{KEY}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        shown["rule_profile_version_id"],
        first["rule_profile_version_id"]
    );
    let v1_options: Value = rule_profile_versions::table
        .find(first["rule_profile_version_id"].as_i64().unwrap())
        .select(rule_profile_versions::options)
        .first(conn)
        .unwrap();
    assert_eq!(v1_options["surrender"], true);
}

/// After a round, the server writes the next one at the table from what it remembers, without
/// reading first. Whatever changed meanwhile is still seen, even changes that leave the table's
/// audit chain alone: a draft's key, limits set straight in the database (up and down), a shift
/// ended by hand. Nothing is written or refused from a stale memory, and no round number is
/// lost.
#[tokio::test]
async fn the_next_round_at_a_table_sees_what_changed_since_the_last() {
    use diesel::prelude::*;

    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    // A draft opened before the rounds: its key is never a whole round's.
    let draft_key = open(&app, "PUSOY-1").await;
    let (status, first) = record(&app, "PUSOY-1", KEY, the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    // (rounds written from memory, rounds tried from memory and then read for)
    let memory = || (app.memos.rounds_from_memory(), app.memos.misses());
    let before = memory();
    let (status, body) = record(&app, "PUSOY-1", &draft_key, the_round()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        memory(),
        (before.0, before.1 + 1),
        "tried from memory, then read"
    );
    let (status, second) = record(&app, "PUSOY-1", "cage-7f3a-0002", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    // Nothing changed since: the next round is written from memory alone.
    let before = memory();
    let (status, third) = record(&app, "PUSOY-1", "cage-7f3a-0007", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{third}");
    assert_eq!(third["round_no"], 3);
    assert_eq!(memory(), (before.0 + 1, before.1), "written from memory");

    // The minimum bet is raised above seat 2's 200, straight in the database.
    let conn = &mut app.conn();
    diesel::sql_query("UPDATE gaming_tables SET min_bet = 300 WHERE code = 'PUSOY-1'")
        .execute(conn)
        .unwrap();
    let before = memory();
    let (status, body) = record(&app, "PUSOY-1", "cage-7f3a-0003", the_round()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        memory(),
        (before.0, before.1 + 1),
        "tried from memory, then read"
    );
    assert!(
        body.to_string().contains("below the table minimum"),
        "{body}"
    );

    // A round within the new limits is the table's fourth.
    let mut round = the_round();
    round["seats"][1]["bet"] = json!(300);
    let (status, fourth) = record(&app, "PUSOY-1", "cage-7f3a-0004", round.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{fourth}");
    assert_eq!(fourth["round_no"], 4);

    // The minimum goes back down: a bet of 200 is fine again, whatever the server remembers.
    diesel::sql_query("UPDATE gaming_tables SET min_bet = 100 WHERE code = 'PUSOY-1'")
        .execute(conn)
        .unwrap();
    let before = memory();
    let (status, fifth) = record(&app, "PUSOY-1", "cage-7f3a-0006", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{fifth}");
    assert_eq!(
        memory(),
        (before.0, before.1 + 1),
        "tried from memory, then read"
    );
    assert_eq!(fifth["round_no"], 5);

    // The shift is ended by hand: the next round is refused.
    diesel::sql_query("UPDATE dealer_shifts SET signed_off_at = now() WHERE signed_off_at IS NULL")
        .execute(conn)
        .unwrap();
    let before = memory();
    let (status, body) = record(&app, "PUSOY-1", "cage-7f3a-0005", round).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        memory(),
        (before.0, before.1 + 1),
        "tried from memory, then read"
    );
    assert_eq!(round_numbers(&app), vec![1, 2, 3, 4, 5]);
}

/// A table that keeps moving under a round (here every write of it is refused as taken) gets
/// ten tries, then the answer 409 "send it again", with nothing written and the key still free.
/// The round after a first one is made from memory and written in a batch first: the batch
/// fails as a whole, and the round is then tried on its own as before.
#[tokio::test]
async fn a_table_that_keeps_moving_gets_409_and_nothing_is_written() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    dealer_on_shift_at(&app, "PUSOY-1").await;
    let mut conn = app.conn();
    diesel::sql_query(
        "CREATE FUNCTION always_taken() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN RAISE EXCEPTION 'taken' USING ERRCODE = 'unique_violation'; END $$",
    )
    .execute(&mut conn)
    .unwrap();
    let taken = |conn: &mut diesel::PgConnection, on: bool| {
        let sql = if on {
            "CREATE TRIGGER always_taken BEFORE INSERT ON rounds \
             FOR EACH ROW EXECUTE FUNCTION always_taken()"
        } else {
            "DROP TRIGGER always_taken ON rounds"
        };
        diesel::sql_query(sql).execute(conn).unwrap();
    };

    for (n, first) in [(0, KEY), (1, "cage-7f3a-0002")] {
        taken(&mut conn, true);
        let (status, body) = record(&app, "PUSOY-1", first, the_round()).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert!(
            body["error"].as_str().unwrap().contains("send it again"),
            "{body}"
        );
        assert_eq!(count(&app, "SELECT count(*) AS n FROM rounds"), n);
        assert_eq!(app.audit("round.settled").len(), n as usize);

        taken(&mut conn, false);
        let (status, body) = record(&app, "PUSOY-1", first, the_round()).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        assert_eq!(body["round_no"], n + 1);
    }
}
