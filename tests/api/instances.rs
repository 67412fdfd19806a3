//! Several app instances on one database, and a database that stops taking writes (a primary
//! demoted in a failover): what an instance remembers (table memory, tokens) is re-checked by
//! the database, sessions hold on every instance, background jobs run in one instance at a
//! time, and a server that refuses writes is answered 503 and its connections dropped.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use diesel::prelude::*;
use pusoy_pit::db::audit_log::{self, Actor, ChainCheck};
use pusoy_pit::db::checkpoints::{Checkpointer, CHECKPOINT_LOCK};
use pusoy_pit::db::seal_file::SealFiles;
use pusoy_pit::db::users::Role;
use pusoy_pit::db::{api_tokens, drop_if_cut, is_outage};
use pusoy_pit::reports::checks::{Rechecks, RECHECK_LOCK};
use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::TestApp;
use crate::helpers::{cluster, create_table, record, round_numbers, spawn_app, the_round};

fn database_name(app: &TestApp) -> String {
    let (_, host_and_name) = app.db_url.split_once('@').unwrap();
    let (_, name_and_query) = host_and_name.split_once('/').unwrap();
    name_and_query.split('?').next().unwrap().to_owned()
}

/// New sessions of the app's database may read but not write (as on a standby, or a primary
/// fenced for a switchover); with `cut`, the open ones are ended too.
fn read_only(app: &TestApp, on: bool, cut: bool) {
    let name = database_name(app);
    let mut admin = cluster().connect("postgres").unwrap();
    diesel::sql_query(format!(
        "ALTER DATABASE \"{name}\" SET default_transaction_read_only = {on}"
    ))
    .execute(&mut admin)
    .unwrap();
    if cut {
        diesel::sql_query(format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .execute(&mut admin)
        .unwrap();
    }
}

#[test]
fn a_write_refused_as_read_only_drops_the_connection_it_failed_on() {
    use diesel::r2d2::R2D2Connection;
    let mut conn = cluster().connect("postgres").unwrap();
    diesel::sql_query("SET default_transaction_read_only = on")
        .execute(&mut conn)
        .unwrap();
    let err = diesel::sql_query("CREATE TEMPORARY TABLE t (n int)")
        .execute(&mut conn)
        .unwrap_err();
    assert!(
        matches!(
            err,
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ReadOnlyTransaction,
                _
            )
        ),
        "{err:?}"
    );
    assert!(is_outage(&err), "a read-only server is an outage: {err}");
    assert!(!conn.is_broken());
    drop_if_cut(&mut conn, &err);
    assert!(conn.is_broken(), "the pool drops it");
}

#[tokio::test]
async fn a_database_that_stops_taking_writes_is_answered_503_until_a_writable_one_is_back() {
    let app = spawn_app().await;
    create_table(&app, "FO-1");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("FO-1").await;
    let (status, body) = record(&app, "FO-1", "failover-0001", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let csrf = app.csrf_token().await;
    // The server the pool's connections reach is demoted: every new session is read-only.
    read_only(&app, true, true);
    let put = |key: &'static str| {
        app.client
            .put(app.url(&format!("/api/v1/tables/FO-1/rounds/{key}")))
            .header("X-CSRF-Token", csrf.clone())
            .json(&the_round())
            .send()
    };
    let res = put("failover-0002").await.unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE, "not a 500");
    assert!(res.headers().contains_key(RETRY_AFTER));
    assert_eq!(res.headers()[CONTENT_TYPE], "application/json");
    let body: Value = res.json().await.unwrap();
    assert!(body["error"].is_string(), "{body}");

    // Writable again (the new primary), without cutting anything: the connections the pool
    // made to the read-only server were dropped at their failure, so the round gets through
    // within a few tries (one per connection the pool can hold), under the same key.
    read_only(&app, false, false);
    let mut answers = Vec::new();
    for _ in 0..=app.config.db_pool_size + 1 {
        let res = put("failover-0002").await.unwrap();
        answers.push(res.status());
        if res.status() == StatusCode::CREATED {
            break;
        }
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    }
    assert_eq!(answers.last(), Some(&StatusCode::CREATED), "{answers:?}");
    assert_eq!(round_numbers(&app), vec![1, 2]);
}

#[tokio::test]
async fn two_instances_record_at_one_table_with_one_round_per_key_and_no_gap() {
    let a = spawn_app().await;
    let b = a.another_instance();
    create_table(&a, "FO-2");
    // Signed in on one instance, the session holds on the other.
    let dealer = a.signed_in_as(Role::Dealer).await;
    b.sign_on_at("FO-2").await;

    // Rounds at one table through both instances in turn: each one's memory of the table is
    // stale after the other's round, and the database says so.
    let mut keys = Vec::new();
    for n in 1..=6 {
        let (via, other) = if n % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let key = format!("failover-{n:04}");
        let (status, body) = record(via, "FO-2", &key, the_round()).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        assert_eq!(body["round_no"], n);
        // The same key sent again to the other instance: the same round, not a second one.
        let (status, again) = record(other, "FO-2", &key, the_round()).await;
        assert_eq!(status, StatusCode::OK, "{again}");
        assert_eq!(again["round_no"], n);
        keys.push(key);
    }
    assert_eq!(round_numbers(&a), vec![1, 2, 3, 4, 5, 6]);
    assert!(
        a.memos.misses() > 0 && b.memos.misses() > 0,
        "each instance tried its stale memory and read again ({} and {})",
        a.memos.misses(),
        b.memos.misses()
    );
    let chains = pusoy_pit::db::checkpoints::heads(&mut a.conn()).unwrap();
    for chain in chains.keys() {
        let found = audit_log::verify_chain(&mut a.conn(), chain).unwrap();
        assert!(
            matches!(found, ChainCheck::Intact { .. }),
            "{chain}: {found:?}"
        );
    }

    // A token one instance found good is revoked (through any instance, here the database):
    // the other's memory of it does not let a round through.
    let boss = a.create_user("the-boss", Role::Admin, crate::helpers::PASSWORD);
    let boss = Actor::user(boss.id, &boss.username, None);
    let (token_id, token) =
        api_tokens::issue(&mut a.conn(), "Cage", dealer.id, None, &boss).unwrap();
    let bearer = |app: &TestApp, key: &str| {
        app.another_browser()
            .client
            .put(app.url(&format!("/api/v1/tables/FO-2/rounds/{key}")))
            .bearer_auth(&token)
            .json(&the_round())
            .send()
    };
    assert_eq!(
        bearer(&a, "failover-token-1").await.unwrap().status(),
        StatusCode::CREATED
    );
    api_tokens::revoke(&mut b.conn(), token_id, &boss).unwrap();
    assert_eq!(
        bearer(&a, "failover-token-2").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(round_numbers(&a).len(), 7);
}

#[tokio::test]
async fn a_checkpoint_is_written_once_among_instances_sharing_a_seal_file() {
    let app = spawn_app().await;
    let seals = SealFiles::of(&app.config);
    let _ = std::fs::remove_file(&seals.file);
    create_table(&app, "FO-3");
    let (mut first, mut second) = (
        Checkpointer::new(seals.clone()),
        Checkpointer::new(seals.clone()),
    );
    assert!(
        second.tick(&mut app.conn()).unwrap().is_some(),
        "heads moved"
    );
    create_table(&app, "FO-4");
    assert!(
        first.tick(&mut app.conn()).unwrap().is_some(),
        "heads moved"
    );
    // The other instance sees the line the first appended: nothing to write.
    assert!(second.tick(&mut app.conn()).unwrap().is_none());

    // While another instance writes one (holds the lock), a tick writes nothing.
    create_table(&app, "FO-5");
    let mut other = app.conn();
    assert!(pusoy_pit::db::try_advisory_lock(&mut other, CHECKPOINT_LOCK).unwrap());
    assert!(first.tick(&mut app.conn()).unwrap().is_none());
    pusoy_pit::db::advisory_unlock(&mut other, CHECKPOINT_LOCK).unwrap();
    assert!(first.tick(&mut app.conn()).unwrap().is_some());
    let _ = std::fs::remove_file(&seals.file);
}

#[tokio::test]
async fn a_recheck_running_on_another_instance_is_not_run_twice() {
    let app = spawn_app().await;
    let pool = pusoy_pit::db::pool(&app.db_url, 2).unwrap();
    let day = app.config.gaming_day(chrono::Utc::now());
    let run = |rechecks: &Arc<Rechecks>| {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        assert!(rechecks.start_recheck(
            pool.clone(),
            day,
            "test",
            Box::new(move |_, _| flag.store(true, Ordering::SeqCst)),
        ));
        while rechecks.running().is_some() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        ran.load(Ordering::SeqCst)
    };
    let rechecks = Arc::new(Rechecks::default());
    // Another instance's check holds the kind's lock.
    let mut other = app.conn();
    assert!(pusoy_pit::db::try_advisory_lock(&mut other, RECHECK_LOCK).unwrap());
    assert!(!run(&rechecks), "not run while another instance runs one");
    pusoy_pit::db::advisory_unlock(&mut other, RECHECK_LOCK).unwrap();
    assert!(run(&rechecks), "run once the other has finished");
}

/// A failover that lost the last round (an asynchronous standby promoted): the new primary's
/// chain ends one event earlier, and another instance then records a round under the same
/// number with another hash. The instance that remembers the lost round must not chain onto it.
#[tokio::test]
async fn a_round_lost_in_a_failover_is_not_chained_onto_from_memory() {
    let a = spawn_app().await;
    let b = a.another_instance();
    create_table(&a, "FO-6");
    a.signed_in_as(Role::Dealer).await;
    a.sign_on_at("FO-6").await;
    let (status, _) = record(&a, "FO-6", "failover-lost-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED);
    // The round and its event are gone, and the chain's head is back before them, as on a
    // standby that never received them (the superuser, triggers off for the transaction).
    a.conn()
        .transaction(|conn| {
            diesel::sql_query("SET LOCAL session_replication_role = replica").execute(conn)?;
            diesel::sql_query(
                "WITH gone AS (DELETE FROM audit_events WHERE action = 'round.settled' \
                 RETURNING chain, seq, prev_hash) \
                 UPDATE audit_chain_heads h SET last_seq = g.seq - 1, last_hash = g.prev_hash \
                 FROM gone g WHERE h.chain = g.chain",
            )
            .execute(conn)?;
            diesel::sql_query("DELETE FROM round_figures").execute(conn)?;
            diesel::sql_query("DELETE FROM rounds").execute(conn)?;
            Ok::<_, diesel::result::Error>(())
        })
        .unwrap();
    let (status, body) = record(&b, "FO-6", "failover-lost-2", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["round_no"], 1);
    let (status, body) = record(&a, "FO-6", "failover-lost-3", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["round_no"], 2);
    assert_eq!(round_numbers(&a), vec![1, 2]);
    let chains = pusoy_pit::db::checkpoints::heads(&mut a.conn()).unwrap();
    for chain in chains.keys() {
        let found = audit_log::verify_chain(&mut a.conn(), chain).unwrap();
        assert!(
            matches!(found, ChainCheck::Intact { .. }),
            "{chain}: {found:?}"
        );
    }
}
