use reqwest::StatusCode;

use crate::helpers::{count, spawn_app};

const AUDIT_ROWS: &str = "SELECT count(*) AS n FROM audit_events";

#[tokio::test]
async fn a_flood_of_posts_without_a_csrf_token_leaves_a_bounded_trail() {
    let app = spawn_app().await;
    let before = count(&app, AUDIT_ROWS);
    let long_path = format!("/no-such-page/{}", "x".repeat(8_000));
    for _ in 0..100 {
        let res = app
            .post_form_raw("/login", &[("username", "a"), ("password", "b")])
            .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        let res = app.post_form_raw(&long_path, &[]).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
    }
    // One event for the first refusal of each minute (two if the flood spans a minute's end),
    // and one count for each minute over.
    let refused = app.audit("csrf.rejected");
    assert!((1..=2).contains(&refused.len()), "{} events", refused.len());
    assert!(count(&app, AUDIT_ROWS) - before <= 3);
    let repeated = app.audit("csrf.rejected_repeatedly");
    let counted: u64 = repeated
        .iter()
        .map(|e| e.details["count"].as_u64().unwrap())
        .sum();
    assert!(counted <= 199);
    assert!(refused.iter().all(|e| e.target.len() <= 256));
}

#[tokio::test]
async fn a_refused_long_path_is_stored_cut_short() {
    let app = spawn_app().await;
    let res = app
        .post_form_raw(&format!("/{}", "é".repeat(3_000)), &[])
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let refused = app.audit("csrf.rejected");
    assert_eq!(refused.len(), 1);
    assert!(refused[0].target.len() <= 256);
    assert!(refused[0].target.starts_with("POST /"));
    assert!(refused[0].target.ends_with('…'));
}

/// The log the apps of this test binary write: one subscriber for the whole process (the apps'
/// workers log from threads of their own), into a buffer each test searches for its own lines.
fn captured_log() -> &'static std::sync::Arc<std::sync::Mutex<Vec<u8>>> {
    use std::sync::{Arc, Mutex, OnceLock};
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || Captured(writer.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        buffer
    })
}

struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The captured log's lines that contain `words`.
fn log_lines_with(words: &str) -> usize {
    let log = captured_log().lock().unwrap();
    String::from_utf8_lossy(&log)
        .lines()
        .filter(|line| line.contains(words))
        .count()
}

/// Unauthenticated floods (posts without a CSRF token, API calls with a made-up token, past
/// the limit on bad tokens too) write a bounded number of log lines, not one a request.
#[tokio::test]
async fn a_flood_of_refused_requests_writes_a_bounded_log() {
    captured_log();
    let app = spawn_app().await;
    let csrf_path = "/no-such-page/flood-of-posts-9f3c";
    let token_path = "/api/v1/rounds/flood-of-tokens-9f3c";
    const REQUESTS: usize = 150;
    for _ in 0..REQUESTS {
        let res = app.post_form_raw(csrf_path, &[]).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        let res = app
            .client
            .get(app.url(token_path))
            .bearer_auth("not-a-token")
            .send()
            .await
            .unwrap();
        assert!(
            [StatusCode::UNAUTHORIZED, StatusCode::TOO_MANY_REQUESTS].contains(&res.status()),
            "{}",
            res.status()
        );
    }
    // The first refusal of each kind, route and address in a minute is logged (a second
    // minute's too, if the flood spans a minute's end); the rest are counted.
    let csrf = log_lines_with(csrf_path);
    let tokens = log_lines_with(token_path);
    assert!(
        (1..=2).contains(&csrf),
        "{csrf} lines for {REQUESTS} refusals"
    );
    assert!(
        (1..=4).contains(&tokens),
        "{tokens} lines for {REQUESTS} refusals"
    );
}
