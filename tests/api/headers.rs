use pusoy_pit::db::users::Role;
use pusoy_pit::web::access::{Allow, RULES};
use reqwest::header::CONTENT_TYPE;
use reqwest::{Response, StatusCode};

use crate::helpers::{create_table, open, record, spawn_app, spawn_app_with, the_round, TestApp};

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

/// Every page of the access table, opened with real data by each role that may open it: none
/// carries an inline script or style (the CSP forbids them, so a browser would drop them
/// silently) or loads anything from elsewhere.
#[tokio::test]
async fn pages_contain_no_inline_script_or_style() {
    let app = spawn_app().await;
    let table = create_table(&app, "PUSOY-1");
    // Each role's browser, and one of nobody signed in.
    let mut browsers: Vec<(Option<Role>, TestApp)> = Vec::new();
    for role in [
        Role::Dealer,
        Role::Supervisor,
        Role::Auditor,
        Role::Admin,
        Role::Cashier,
        Role::Count,
        Role::Host,
        Role::Compliance,
    ] {
        let browser = app.another_browser();
        browser.signed_in_as(role).await;
        browsers.push((Some(role), browser));
    }
    browsers.push((None, app.another_browser()));
    let dealer = &browsers[0].1;
    dealer.sign_on_at("PUSOY-1").await;
    let (status, round) = record(dealer, "PUSOY-1", "walk-0001", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{round}");
    let (status, voided) = record(dealer, "PUSOY-1", "walk-0002", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{voided}");
    let res = browsers[1]
        .1
        .post_form(
            &format!("/review/rounds/{}/void", voided["id"]),
            &[("reason", "misdeal")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    open(dealer, "PUSOY-1").await;
    let shift = app.open_shift("PUSOY-1").unwrap();
    let day = round["gaming_day"].as_str().unwrap().to_owned();
    // A fill at the table, issued and printed.
    crate::cage::add_php_chips(&browsers[3].1).await;
    let res = crate::cage::request(&browsers[1].1, "PUSOY-1", "fill", &[(500, "4")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let slip: i64 = {
        use diesel::prelude::*;
        use pusoy_pit::db::schema::cage_slips;
        cage_slips::table
            .select(cage_slips::id)
            .first(&mut app.conn())
            .unwrap()
    };
    let res = browsers[4]
        .1
        .post_form(&format!("/cage/slips/{slip}/print"), &[])
        .await;
    let print = crate::helpers::location(&res)
        .trim_start_matches("/cage/prints/")
        .to_owned();

    // A player, registered by a host.
    let player: i64 = {
        use diesel::prelude::*;
        let res = browsers[6]
            .1
            .post_form(
                "/players",
                &[
                    ("card_number", "HDR1001"),
                    ("first_name", "Ana"),
                    ("last_name", "Lim"),
                ],
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        pusoy_pit::db::schema::players::table
            .select(pusoy_pit::db::schema::players::id)
            .first(&mut app.conn())
            .unwrap()
    };

    // A covered transaction at the cage (no player known), for the case's page.
    let case: i64 = {
        use diesel::prelude::*;
        let res = browsers[4]
            .1
            .post_form(
                "/cage/cash",
                &[
                    ("direction", "in"),
                    ("currency", "PHP"),
                    ("amount", "6,000,000"),
                ],
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        pusoy_pit::db::schema::compliance_cases::table
            .select(pusoy_pit::db::schema::compliance_cases::id)
            .first(&mut app.conn())
            .unwrap()
    };

    // What `{id}` stands for depends on the route.
    let id_for = |pattern: &str| match pattern {
        p if p.starts_with("/review/rounds/") => voided["id"].to_string(),
        p if p.starts_with("/reports/shifts/") => shift.to_string(),
        p if p.starts_with("/admin/tables/") => table.to_string(),
        p if p.starts_with("/cage/slips/") => slip.to_string(),
        p if p.starts_with("/cage/prints/") => print.clone(),
        p if p.starts_with("/players/") => player.to_string(),
        p if p.starts_with("/compliance/cases/") => case.to_string(),
        p => panic!("{p}: say here what its {{id}} is"),
    };
    for rule in RULES.iter().filter(|r| r.method == "GET") {
        let mut path = rule
            .pattern
            .replace("{code}", "PUSOY-1")
            .replace("{key}", "walk-0001")
            .replace("{round_id}", &round["id"].to_string())
            .replace("{day}", &day)
            .replace("{file}", "app.css");
        if path.contains("{id}") {
            path = path.replace("{id}", &id_for(rule.pattern));
        }
        let mut pages = 0;
        for (role, browser) in &browsers {
            let allowed = match (rule.allow, role) {
                (Allow::Public, _) => true,
                (Allow::Roles(roles), Some(role)) => roles.contains(role),
                (Allow::Roles(_), None) => false,
            };
            if !allowed {
                continue;
            }
            let res = browser.get(&path).await;
            let html = res
                .headers()
                .get(CONTENT_TYPE)
                .is_some_and(|t| t.to_str().unwrap().starts_with("text/html"));
            if res.status() != StatusCode::OK || !html {
                continue;
            }
            pages += 1;
            let html = res.text().await.unwrap();
            for forbidden in ["<style", "style=", "http://", "https://"] {
                assert!(!html.contains(forbidden), "{path} as {role:?}: {forbidden}");
            }
            // Times in local time with the zone named (`UTC+08:00`), never in bare UTC.
            assert!(
                !crate::refused_pages::has_bare_utc(&html),
                "{path} as {role:?}: a time in UTC"
            );
            // Scripts only as files of our own, with nothing between the tags.
            for script in html.split("<script").skip(1) {
                let element = &script[..script.find("</script>").unwrap_or(script.len())];
                let (tag, body) = element.split_once('>').unwrap_or((element, ""));
                assert!(
                    tag.contains(" src=\"/static/") && body.is_empty(),
                    "{path} as {role:?}: inline script <script{element}"
                );
            }
        }
        // What is not a page: files, probes, JSON, and the address the round form posts to,
        // which a GET only sends back to the table screen.
        let not_pages = ["/static/", "/health", "/api/", ".svg", "/csv", "/download"];
        if !not_pages.iter().any(|p| path.contains(p)) && !path.ends_with("/round") {
            assert!(pages > 0, "{path}: no role saw the page");
        }
    }
}
