//! Checkpoints of the chain heads between day closes: written at each sign-off and by the
//! periodic task when a head moved, to the seal file and its copy; a rewrite of the events a
//! checkpoint covers (re-hashed tail, forged event slipped in, cut tail, each with the chain's
//! head moved to match) is named by `audit verify` and refused by the close.

use chrono::Utc;
use pusoy_pit::db::checkpoints::{self, Checkpointer};
use pusoy_pit::db::seal_file::{self, Line, SealFiles};
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::verify;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::audit_trail::{append_events, bad, event, rehash_from, tamper, verify_all};
use crate::helpers::{call, count, create_table, spawn_app, spawn_app_with, the_round, TestApp};

const CHAIN: &str = "t:watched";

fn lines(path: &std::path::Path) -> Vec<Line> {
    seal_file::read_lines(path).unwrap()
}

fn checkpoints_in(path: &std::path::Path) -> Vec<seal_file::Checkpoint> {
    lines(path)
        .into_iter()
        .filter_map(|line| match line {
            Line::Checkpoint(checkpoint) => Some(checkpoint),
            Line::Seal(_) => None,
        })
        .collect()
}

fn remove_seal_files(app: &TestApp) {
    let _ = std::fs::remove_file(&app.config.seal_file);
    if let Some(copy) = &app.config.seal_copy {
        let _ = std::fs::remove_file(copy);
    }
}

#[tokio::test]
async fn a_sign_off_writes_a_checkpoint_of_every_chain_head() {
    let app = spawn_app().await;
    let table = create_table(&app, "T-CP");
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at("T-CP").await;
    let (status, body) = call(
        &dealer,
        Method::PUT,
        "/api/v1/tables/T-CP/rounds/key-cp-1",
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(checkpoints_in(&app.config.seal_file).is_empty());

    dealer.sign_off_at("T-CP").await;

    let written = checkpoints_in(&app.config.seal_file);
    assert_eq!(written.len(), 1, "one checkpoint at the sign-off");
    let heads = checkpoints::heads(&mut app.conn()).unwrap();
    assert_eq!(written[0].heads, heads, "every chain's head");
    let sign_off = &app.audit("table.sign_off")[0];
    let chain = format!("table:{table}");
    assert_eq!(sign_off.chain, chain);
    assert_eq!(written[0].heads[&chain].seq, sign_off.seq);
    assert_eq!(written[0].heads[&chain].hash, hex::encode(&sign_off.hash));
    let found = verify_all(&app);
    assert!(found.is_intact(), "{found:?}");
    assert_eq!(found.checkpoints_checked, 1);
    remove_seal_files(&app);
}

#[tokio::test]
async fn the_periodic_task_writes_a_checkpoint_only_when_a_head_moved() {
    let app = spawn_app().await;
    let seals = SealFiles::of(&app.config);
    append_events(&app, CHAIN, 3);
    let mut task = Checkpointer::new(seals.clone());

    let first = task.tick(&mut app.conn()).unwrap().expect("heads moved");
    assert_eq!(first.heads[CHAIN].seq, 3);
    assert!(task.tick(&mut app.conn()).unwrap().is_none(), "nothing new");
    // Another instance, or this one restarted, knows the file's last heads.
    assert!(Checkpointer::new(seals.clone())
        .tick(&mut app.conn())
        .unwrap()
        .is_none());

    append_events(&app, CHAIN, 1);
    let second = task.tick(&mut app.conn()).unwrap().expect("a head moved");
    assert_eq!(second.heads[CHAIN].seq, 4);
    assert_eq!(checkpoints_in(&app.config.seal_file), vec![first, second]);

    // Several instances writing the same heads: a repeated checkpoint is harmless.
    checkpoints::write(&mut app.conn(), &seals).unwrap();
    checkpoints::write(&mut app.conn(), &seals).unwrap();
    let found = verify_all(&app);
    assert!(found.is_intact(), "{found:?}");
    assert_eq!(found.checkpoints_checked, 4);
    remove_seal_files(&app);
}

/// A chain of six events, checkpointed; a supervisor to close the day with.
async fn watched_chain() -> (TestApp, TestApp) {
    let app = spawn_app().await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    append_events(&app, CHAIN, 6);
    checkpoints::write(&mut app.conn(), &SealFiles::of(&app.config)).unwrap();
    assert!(verify_all(&app).is_intact());
    (app, supervisor)
}

/// Closes today as `supervisor` and returns the day page's message; asserts nothing was sealed.
async fn close_is_refused(app: &TestApp, supervisor: &TestApp) -> String {
    let today = app.config.gaming_day(Utc::now());
    app.end_today();
    supervisor
        .post_form(&format!("/days/{today}/close"), &[("confirm", "yes")])
        .await;
    let page = supervisor
        .get(&format!("/days/{today}"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(
        count(app, "SELECT count(*) AS n FROM gaming_day_closes"),
        0,
        "{page}"
    );
    assert!(app.audit("day.closed").is_empty());
    assert!(seal_file::read(&app.config.seal_file).unwrap().is_empty());
    assert!(
        page.contains(&format!(
            "The gaming day {today} was not closed: its audit trail disagrees with the \
             checkpoints written outside the database"
        )),
        "{page}"
    );
    page
}

#[tokio::test]
async fn a_re_hashed_tail_is_found_after_a_checkpoint_and_the_close_refuses() {
    let (app, supervisor) = watched_chain().await;
    let checkpoint = checkpoints_in(&app.config.seal_file).remove(0);

    rehash_from(&app, CHAIN, 3, json!({ "n": 99 }));

    let found = verify_all(&app);
    let broken = bad(&found, CHAIN);
    assert_eq!(broken.seq, 6);
    assert_eq!(
        broken.what,
        format!(
            "hash differs from {} in the seal file",
            checkpoint.name(app.config.zone())
        )
    );
    let page = close_is_refused(&app, &supervisor).await;
    assert!(
        page.contains(&format!(
            "{CHAIN} seq 6: the event differs from {} in the seal file",
            checkpoint.name(app.config.zone())
        )),
        "{page}"
    );
    remove_seal_files(&app);
}

#[tokio::test]
async fn a_forged_event_slipped_in_is_found_after_a_checkpoint_and_the_close_refuses() {
    let (app, supervisor) = watched_chain().await;
    let checkpoint = checkpoints_in(&app.config.seal_file).remove(0);

    // A forged event at seq 4, the events after it moved up one, re-linked and re-hashed, and
    // the chain's head moved to the new last event: consistent inside the database.
    tamper(
        &app,
        &format!(
            "UPDATE audit_events SET seq = -seq - 1 WHERE chain = '{CHAIN}' AND seq >= 4; \
             UPDATE audit_events SET seq = -seq WHERE chain = '{CHAIN}' AND seq < 0; \
             INSERT INTO audit_events (chain, seq, at, actor_name, action, target, details, \
             prev_hash, hash) SELECT chain, 4, at, actor_name, action, 'n:forged', details, \
             prev_hash, hash FROM audit_events WHERE chain = '{CHAIN}' AND seq = 3; \
             UPDATE audit_chain_heads SET last_seq = 7 WHERE chain = '{CHAIN}'"
        ),
    );
    assert_eq!(event(&app, CHAIN, 4).target, "n:forged");
    rehash_from(&app, CHAIN, 4, event(&app, CHAIN, 4).details);
    let inside = verify::verify(
        &mut app.conn(),
        &verify::Scope::default(),
        &SealFiles {
            file: app.config.seal_file.with_extension("none"),
            copy: None,
            zone: app.config.zone(),
        },
        &mut |_| {},
    )
    .unwrap();
    assert!(inside.is_intact(), "without the checkpoint: {inside:?}");

    let found = verify_all(&app);
    let broken = bad(&found, CHAIN);
    assert_eq!(broken.seq, 6);
    assert_eq!(
        broken.what,
        format!(
            "hash differs from {} in the seal file",
            checkpoint.name(app.config.zone())
        )
    );
    let page = close_is_refused(&app, &supervisor).await;
    assert!(
        page.contains(&format!("{CHAIN} seq 6: the event differs from")),
        "{page}"
    );
    remove_seal_files(&app);
}

#[tokio::test]
async fn a_cut_tail_is_found_after_a_checkpoint_and_the_close_refuses() {
    let (app, supervisor) = watched_chain().await;
    let checkpoint = checkpoints_in(&app.config.seal_file).remove(0);

    let third = event(&app, CHAIN, 3);
    tamper(
        &app,
        &format!(
            "DELETE FROM audit_events WHERE chain = '{CHAIN}' AND seq > 3; \
             UPDATE audit_chain_heads SET last_seq = 3, last_hash = '\\x{}' \
             WHERE chain = '{CHAIN}'",
            hex::encode(&third.hash)
        ),
    );

    let found = verify_all(&app);
    let broken = bad(&found, CHAIN);
    assert_eq!((broken.seq, broken.id), (6, None));
    assert_eq!(
        broken.what,
        format!(
            "seq 6 missing (named by {} in the seal file; the chain ends at seq 3)",
            checkpoint.name(app.config.zone())
        )
    );
    let page = close_is_refused(&app, &supervisor).await;
    assert!(
        page.contains(&format!(
            "{CHAIN} seq 6: missing: the chain ends at seq 3, before {} in the seal file",
            checkpoint.name(app.config.zone())
        )),
        "{page}"
    );
    remove_seal_files(&app);
}

#[tokio::test]
async fn the_seal_copy_gets_every_line_and_verification_names_what_only_one_file_has() {
    let copy = std::env::temp_dir().join(format!(
        "pusoy-test-seal-copy-{}-{}.jsonl",
        std::process::id(),
        Utc::now().timestamp_nanos_opt().unwrap()
    ));
    let app = spawn_app_with(|config| config.seal_copy = Some(copy.clone())).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let today = app.config.gaming_day(Utc::now());
    app.end_today();
    supervisor
        .post_form(&format!("/days/{today}/close"), &[("confirm", "yes")])
        .await;
    assert_eq!(
        count(&app, "SELECT count(*) AS n FROM gaming_day_closes"),
        1
    );
    append_events(&app, CHAIN, 6);
    checkpoints::write(&mut app.conn(), &SealFiles::of(&app.config)).unwrap();
    let both = lines(&app.config.seal_file);
    assert!(
        matches!(both[..], [Line::Seal(_), Line::Checkpoint(_)]),
        "{both:?}"
    );
    assert_eq!(lines(&copy), both);
    assert!(verify_all(&app).is_intact());

    // The seal file loses its checkpoint, and the chain is re-hashed after it: the copy still
    // has the checkpoint, and says which file lacks it.
    let checkpoint = checkpoints_in(&copy).remove(0);
    let seal_line = std::fs::read_to_string(&app.config.seal_file)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    std::fs::write(&app.config.seal_file, format!("{seal_line}\n")).unwrap();
    rehash_from(&app, CHAIN, 2, json!({ "n": 98 }));

    let found = verify_all(&app);
    assert_eq!(
        bad(&found, CHAIN).what,
        format!(
            "hash differs from {} in the seal copy",
            checkpoint.name(app.config.zone())
        )
    );
    assert!(
        found.seal_problems.iter().any(|p| p.what
            == format!(
                "{} is in the seal copy but not in the seal file",
                checkpoint.name(app.config.zone())
            )),
        "{:?}",
        found.seal_problems
    );
    remove_seal_files(&app);
}
