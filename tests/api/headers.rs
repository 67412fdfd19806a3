use pusoy_pit::db::users::Role;
use reqwest::{Response, StatusCode};

use crate::helpers::{spawn_app, spawn_app_with};

fn assert_security_headers(res: &Response, what: &str) {
    let h = res.headers();
    let csp = h["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'self'"), "{what}");
    assert!(csp.contains("script-src 'self'"), "{what}");
    assert!(!csp.contains("unsafe-inline"), "{what}");
    assert!(csp.contains("frame-ancestors 'none'"), "{what}");
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["referrer-policy"], "no-referrer", "{what}");
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
}

#[tokio::test]
async fn every_kind_of_response_carries_the_security_headers() {
    let app = spawn_app().await;
    let res = app.get("/login").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_security_headers(&res, "sign-in page");
    assert!(res.headers().get("strict-transport-security").is_none());

    let res = app.get("/static/app.css").await;
    assert_security_headers(&res, "stylesheet");
    assert!(res.headers()["cache-control"]
        .to_str()
        .unwrap()
        .contains("max-age"));

    let res = app.get("/nowhere").await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_security_headers(&res, "404");
    assert!(res.text().await.unwrap().contains("Page not found"));

    app.signed_in_as(Role::Dealer).await;
    let res = app.get("/admin/users").await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert_security_headers(&res, "403");
    assert!(res.text().await.unwrap().contains("Access refused"));

    let res = app.get("/").await;
    assert_security_headers(&res, "home");
    assert_eq!(res.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn hsts_is_sent_when_served_over_tls() {
    let app = spawn_app_with(|c| c.hsts = true).await;
    let res = app.get("/login").await;
    assert!(res.headers()["strict-transport-security"]
        .to_str()
        .unwrap()
        .starts_with("max-age="));
}

#[tokio::test]
async fn pages_contain_no_inline_script_or_style() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Admin).await;
    for path in ["/", "/admin/users", "/account/password"] {
        let html = app.get(path).await.text().await.unwrap();
        assert!(!html.contains("<script"), "{path}");
        assert!(!html.contains("<style"), "{path}");
        assert!(!html.contains("style="), "{path}");
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "{path}: external asset"
        );
    }
}
