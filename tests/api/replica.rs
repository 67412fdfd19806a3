//! Reads that scale out: a real streaming standby of the private cluster (`pg_basebackup -R` on
//! another port) serves an export, which states the replay position it covers; a range not
//! yet replayed there is refused, and a range of closed gaming days is not.
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use pusoy_pit::db::embedded;
use pusoy_pit::db::export::{primary_position, replay_position};
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::export::{self, Clock, ExportError, Format, Kind, Query};
use reqwest::{Method, StatusCode};

use crate::helpers::{call, cluster, create_table, spawn_app, the_round, TestApp};

/// A PostgreSQL binary, run as `postgres` when the tests run as root (as the cluster is).
fn pg(program: &str) -> Command {
    let path = embedded::find_bin_dir().unwrap().join(program);
    if as_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(path);
        cmd
    } else {
        Command::new(path)
    }
}

fn as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A standby of the private cluster, stopped and removed when dropped.
struct Standby {
    dir: PathBuf,
    port: u16,
    password: String,
}

impl Standby {
    fn start() -> Standby {
        let primary = cluster();
        let url = primary.url("postgres");
        let password = url
            .split_once("pusoy:")
            .and_then(|(_, rest)| rest.split_once('@'))
            .map(|(password, _)| password.to_owned())
            .unwrap();
        let dir = std::env::temp_dir().join(format!(
            "pusoy-standby-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        if as_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.arg("postgres:postgres").arg(&dir);
                    c
                },
                "chown",
            );
        }
        let mut backup = pg("pg_basebackup");
        backup
            .arg("-d")
            .arg(format!(
                "host=127.0.0.1 port={} user=pusoy password={password}",
                primary.port
            ))
            .arg("-D")
            .arg(&dir)
            .args(["-R", "-X", "stream", "-c", "fast"]);
        let standby = Standby {
            dir,
            port: TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port(),
            password,
        };
        run(backup, "pg_basebackup");
        let auto = standby.dir.join("postgresql.auto.conf");
        let mut settings = std::fs::read_to_string(&auto).unwrap();
        // A throwaway standby: without fsync it skips syncing the copied data directory at start,
        // which took minutes on a loaded 2-core machine (the copy holds every test's database).
        settings.push_str(&format!(
            "\nport = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\nfsync = off\n",
            standby.port
        ));
        std::fs::write(&auto, settings).unwrap();
        let mut start = pg("pg_ctl");
        start
            .arg("-D")
            .arg(&standby.dir)
            .arg("-l")
            .arg(standby.dir.join("standby.log"))
            .args(["-w", "-t", "120", "start"]);
        let out = start.output().unwrap();
        assert!(
            out.status.success(),
            "starting the standby: {}",
            std::fs::read_to_string(standby.dir.join("standby.log")).unwrap_or_default()
        );
        standby
    }

    fn url(&self, database: &str) -> String {
        format!(
            "postgres://pusoy:{}@127.0.0.1:{}/{database}",
            self.password, self.port
        )
    }
}

impl Drop for Standby {
    fn drop(&mut self) {
        let mut stop = pg("pg_ctl");
        stop.arg("-D")
            .arg(&self.dir)
            .args(["-m", "immediate", "-w", "stop"]);
        let _ = stop.output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn database_of(url: &str) -> String {
    let without_query = url.split('?').next().unwrap();
    without_query.rsplit_once('/').unwrap().1.to_owned()
}

/// Waits until the standby has replayed what the primary has written so far.
fn caught_up(standby: &mut PgConnection, primary: &mut PgConnection) {
    let (_, target) = primary_position(primary).unwrap();
    let started = Instant::now();
    while replay_position(standby).unwrap().unwrap().lsn_bytes < target {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the standby did not catch up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until the standby's replay is paused (not just asked to pause).
fn paused(standby: &mut PgConnection) {
    #[derive(QueryableByName)]
    struct State {
        #[diesel(sql_type = diesel::sql_types::Text)]
        state: String,
    }
    let started = Instant::now();
    loop {
        let State { state } = diesel::sql_query("SELECT pg_get_wal_replay_pause_state() AS state")
            .get_result(standby)
            .unwrap();
        if state == "paused" {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the standby did not pause"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn record(app: &TestApp, key: &str) {
    let (status, body) = call(
        app,
        Method::PUT,
        &format!("/api/v1/tables/PUSOY-5/rounds/{key}"),
        Some(the_round()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn an_export_from_a_streaming_replica_states_its_replay_position_and_refuses_what_it_lacks() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-5");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("PUSOY-5").await;
    record(&app, "replica-1").await;
    let standby = tokio::task::spawn_blocking(Standby::start).await.unwrap();
    let mut replica = PgConnection::establish(&standby.url(&database_of(&app.db_url))).unwrap();
    let mut primary = app.conn();
    caught_up(&mut replica, &mut primary);

    let today = app.config.gaming_day(chrono::Utc::now());
    let query = Query {
        kind: Kind::Rounds,
        from: today,
        to: today,
        table: None,
    };
    let wait = Duration::from_secs(5);
    let source = export::replay_check(&mut replica, Some(&mut primary), &query, wait).unwrap();
    assert_eq!(source.database, "replica");
    let lsn = source.replay_lsn.clone().unwrap();
    let clock = Clock {
        utc_offset: app.config.utc_offset,
        gaming_day_start: app.config.gaming_day_start,
    };
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "replica-{}-{}.csv",
        std::process::id(),
        rand::random::<u32>()
    ));
    let file = std::fs::File::create(&path).unwrap();
    export::export(&mut replica, &query, clock, source, Format::Csv, file).unwrap();
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    assert_eq!(
        verified.rows, 4,
        "the round recorded on the primary, read on the replica"
    );
    assert_eq!(verified.manifest.source.database, "replica");
    assert_eq!(
        verified.manifest.source.replay_lsn.as_deref(),
        Some(lsn.as_str())
    );
    let _ = std::fs::remove_file(&path);

    // Replay paused, a round recorded on the primary: the replica lacks it and refuses.
    diesel::sql_query("SELECT pg_wal_replay_pause()")
        .execute(&mut replica)
        .unwrap();
    // A closed gaming day (yesterday) reached the replica before the pause...
    let yesterday = today.pred_opt().unwrap();
    let closer = app.create_user("closer", Role::Supervisor, "closer-password-1");
    diesel::sql_query(format!(
        "INSERT INTO gaming_day_closes (gaming_day, closed_by, seal_seq, seal_hash) \
         VALUES ('{yesterday}', {}, 1, '\\x00')",
        closer.id
    ))
    .execute(&mut primary)
    .unwrap();
    diesel::sql_query("SELECT pg_wal_replay_resume()")
        .execute(&mut replica)
        .unwrap();
    caught_up(&mut replica, &mut primary);
    diesel::sql_query("SELECT pg_wal_replay_pause()")
        .execute(&mut replica)
        .unwrap();
    // A pause takes effect before the next record is replayed: the first round may still be
    // replayed, the one after the pause is in force is not.
    record(&app, "replica-2").await;
    paused(&mut replica);
    record(&app, "replica-3").await;
    match export::replay_check(&mut replica, Some(&mut primary), &query, Duration::ZERO) {
        Err(ExportError::NotReplayed(message)) => {
            assert!(message.contains("not yet replayed"), "{message}");
            assert!(
                message.contains(&format!("range {today} to {today}")),
                "{message}"
            );
        }
        other => panic!("a range the replica lacks is refused, not {other:?}"),
    }
    // ... so a range of closed days needs nothing more.
    let closed = Query {
        from: yesterday,
        to: yesterday,
        ..query.clone()
    };
    let source = export::replay_check(&mut replica, None, &closed, Duration::ZERO).unwrap();
    assert_eq!(
        source.covers.as_deref(),
        Some("every gaming day of the range is closed")
    );
    diesel::sql_query("SELECT pg_wal_replay_resume()")
        .execute(&mut replica)
        .unwrap();
    let source = export::replay_check(&mut replica, Some(&mut primary), &query, wait).unwrap();
    assert!(source.primary_lsn.is_some());
}
