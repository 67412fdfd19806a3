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
