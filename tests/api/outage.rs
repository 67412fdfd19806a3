use std::net::{Shutdown, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Mutex};

use diesel::prelude::*;
use pusoy_pit::db::users::Role;
use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{cluster, spawn_app, spawn_app_with, TestApp};

/// The app's database refuses new connections and its open ones are cut, as in an outage.
fn take_the_database_away(app: &TestApp, away: bool) {
    let (_, host_and_name) = app.db_url.split_once('@').unwrap();
    let (_, name_and_query) = host_and_name.split_once('/').unwrap();
    let name = name_and_query.split('?').next().unwrap();
    let mut admin = cluster().connect("postgres").unwrap();
    diesel::sql_query(format!(
        "ALTER DATABASE \"{name}\" WITH ALLOW_CONNECTIONS {away}",
        away = !away
    ))
    .execute(&mut admin)
    .unwrap();
    if away {
        diesel::sql_query(format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .execute(&mut admin)
        .unwrap();
    }
}

fn content_type(res: &reqwest::Response) -> String {
    res.headers()[CONTENT_TYPE].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn during_an_outage_requests_are_told_to_retry_and_health_says_the_database_is_down() {
    let app = spawn_app().await;
    // Requests wait seconds for a connection, not r2d2's default half minute.
    let pool = pusoy_pit::db::pool(&app.db_url, 1).unwrap();
    assert!(pool.connection_timeout() <= std::time::Duration::from_secs(5));
    let res = app.get("/health").await;
    assert_eq!(res.status(), StatusCode::OK);
    let health: Value = res.json().await.unwrap();
    assert_eq!(health["database"], "up");
    assert!(health["latency_ms"].as_f64().unwrap() >= 0.0);
    app.signed_in_as(Role::Dealer).await;

    take_the_database_away(&app, true);

    // As a load balancer asks: no session cookie.
    let res = app.another_browser().get("/health").await;
    let status = res.status();
    let text = res.text().await.unwrap();
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    let res: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(res["database"], "down");

    // A page: the session store cannot load the session.
    let res = app.get("/tables").await;
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(res.headers().contains_key(RETRY_AFTER));
    assert!(content_type(&res).starts_with("text/html"));
    assert!(res.text().await.unwrap().contains("Try again in a moment"));

    // The API, with a token to check and no session: JSON.
    let res = app
        .another_browser()
        .client
        .get(app.url("/api/v1/rounds/some-key"))
        .bearer_auth("not-checked-while-the-database-is-away")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(res.headers().contains_key(RETRY_AFTER));
    assert_eq!(content_type(&res), "application/json");
    let body: Value = res.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("try again"));

    take_the_database_away(&app, false);
    let res = app.get("/health").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(app.get("/tables").await.status(), StatusCode::OK);
}

/// A proxy in front of the private cluster, on a Unix socket as the app's connections are by
/// default, whose connections can be cut without a word to either side, as a crashed server
/// cuts them.
struct Proxy {
    dir: std::path::PathBuf,
    port: u16,
    open: Arc<Mutex<Vec<(UnixStream, TcpStream)>>>,
}

impl Proxy {
    fn start() -> Proxy {
        let port = cluster().port;
        let dir = std::env::temp_dir().join(format!("pusoy-proxy-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let listener = UnixListener::bind(dir.join(format!(".s.PGSQL.{port}"))).unwrap();
        let open = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&open);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                    continue;
                };
                let (mut from_client, mut to_server) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || std::io::copy(&mut from_client, &mut to_server));
                let (mut from_server, mut to_client) =
                    (server.try_clone().unwrap(), client.try_clone().unwrap());
                std::thread::spawn(move || std::io::copy(&mut from_server, &mut to_client));
                kept.lock().unwrap().push((client, server));
            }
        });
        Proxy { dir, port, open }
    }

    /// `url` (one of the cluster's) through this proxy.
    fn url(&self, url: &str) -> String {
        let (user, rest) = url.split_once('@').unwrap();
        let name = rest
            .trim_start_matches(|c| c != '/')
            .trim_start_matches('/');
        let name = name.split('?').next().unwrap();
        format!(
            "{user}@/{name}?host={}&port={}",
            self.dir.display(),
            self.port
        )
    }

    /// Cuts every connection made so far; how many.
    fn cut(&self) -> usize {
        let mut open = self.open.lock().unwrap();
        for (client, server) in open.iter() {
            let _ = client.shutdown(Shutdown::Both);
            let _ = server.shutdown(Shutdown::Both);
        }
        let cut = open.len();
        open.clear();
        cut
    }
}

#[tokio::test]
async fn connections_cut_without_a_word_are_replaced_not_handed_out_again() {
    let proxy = Proxy::start();
    let app = spawn_app_with(|c| {
        c.database_url = Some(proxy.url(c.database_url.as_deref().unwrap()));
    })
    .await;
    app.signed_in_as(Role::Dealer).await;
    // Every pooled connection open, so that each is cut.
    let pages = futures_util::future::join_all((0..8).map(|_| app.get("/tables"))).await;
    assert!(pages.iter().all(|p| p.status() == StatusCode::OK));

    assert!(proxy.cut() > 0, "the app held no connection to cut");

    // Each dead connection may fail one request ("try again"), never with a 500; then it is
    // replaced, and every request is answered again.
    let mut statuses = Vec::new();
    for _ in 0..20 {
        statuses.push(app.get("/tables").await.status());
        statuses.push(app.get("/api/v1/rounds/no-such-round").await.status());
    }
    assert!(
        !statuses.contains(&StatusCode::INTERNAL_SERVER_ERROR),
        "{statuses:?}"
    );
    let failed = statuses.iter().filter(|s| s.is_server_error()).count();
    assert!(
        failed <= 4,
        "more failures than the pool's 4 connections: {statuses:?}"
    );
    assert_eq!(
        &statuses[statuses.len() - 2..],
        [StatusCode::OK, StatusCode::NOT_FOUND]
    );
}
