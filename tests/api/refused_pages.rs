//! What a person sees when something is refused (issue 33, items 4 and 6): the page they came
//! from again, with the navigation bar, the reason at its top and what they chose kept; no
//! button they may not use; times in local time with the zone named, never in bare UTC.
use chrono::NaiveDate;
use diesel::prelude::*;
use pusoy_pit::db::ids::TableId;
use pusoy_pit::db::users::Role;
use reqwest::header::REFERER;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{call, count, create_table, spawn_app, the_round, TestApp, PASSWORD};

/// The navigation bar every signed-in page carries.
const NAV: &str = "<nav class=\"menu\" aria-label=\"Main\">";

/// Whether `page` names UTC bare (`17:16 UTC`), not as a zone's offset (`UTC+08:00`).
pub fn has_bare_utc(page: &str) -> bool {
    page.match_indices("UTC")
        .any(|(at, _)| !matches!(page.as_bytes().get(at + 3), Some(b'+' | b'-')))
}

async fn record(app: &TestApp, code: &str, key: &str) -> Value {
    let path = format!("/api/v1/tables/{code}/rounds/{key}");
    let (status, body) = call(app, Method::PUT, &path, Some(the_round())).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// A table `code` with a dealer signed on in a browser of their own (returned), a supervisor
/// signed in on `app`, and one round recorded by the dealer.
async fn round_at(app: &TestApp, code: &str) -> (i64, TestApp, Value) {
    let table = create_table(app, code);
    let dealer = app.another_browser();
    dealer.signed_in_as(Role::Dealer).await;
    dealer.sign_on_at(code).await;
    app.signed_in_as(Role::Supervisor).await;
    let round = record(&dealer, code, "refused-0001").await;
    (table, dealer, round)
}

fn set_threshold(app: &TestApp, table: i64, threshold: Option<i64>) {
    use pusoy_pit::db::schema::gaming_tables;
    diesel::update(gaming_tables::table.find(TableId(table)))
        .set(gaming_tables::approval_threshold.eq(threshold))
        .execute(&mut app.conn())
        .unwrap();
}

async fn page_of(res: reqwest::Response, status: StatusCode) -> String {
    assert_eq!(res.status(), status);
    res.text().await.unwrap()
}

#[tokio::test]
async fn a_refused_void_shows_the_round_again_with_the_reason_and_the_choice_kept() {
    let app = spawn_app().await;
    let (_, _, round) = round_at(&app, "PUSOY-1").await;
    let path = format!("/review/rounds/{}/void", round["id"]);

    let res = app
        .post_form(&path, &[("reason", "other"), ("note", " ")])
        .await;
    let page = page_of(res, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert!(page.contains(NAV), "the navigation bar: {page}");
    assert!(
        page.contains("Table PUSOY-1 · Round 1"),
        "the round's page: {page}"
    );
    assert!(
        page.contains("<strong>Not done:</strong> A void for another reason needs a note"),
        "the reason at the top: {page}"
    );
    assert!(page.contains("<option value=\"other\" selected>"), "{page}");
    assert!(
        page.contains(
            "id=\"void-note\" name=\"note\" type=\"text\" maxlength=\"500\" value=\" \" autofocus"
        ),
        "the field in question has the cursor: {page}"
    );
    assert!(!page.contains("Go to the home page"), "{page}");

    let res = app.post_form(&path, &[]).await;
    let page = page_of(res, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert!(page.contains("Choose why the round is void"), "{page}");
    assert!(
        page.contains("id=\"void-reason\" name=\"reason\" required autofocus"),
        "{page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_voids"), 0);
}

#[tokio::test]
async fn an_approval_refused_shows_the_round_and_no_approve_button_is_offered_to_who_may_not() {
    let app = spawn_app().await;
    let (table, _dealer, _) = round_at(&app, "PUSOY-1").await;
    set_threshold(&app, table, Some(1));
    // The supervisor enters this round themselves: not theirs to approve.
    let round = record(&app, "PUSOY-1", "refused-0002").await;
    let url = format!("/tables/PUSOY-1/rounds/{}", round["id"]);

    let page = page_of(app.get(&url).await, StatusCode::OK).await;
    assert!(page.contains("Pending approval"), "{page}");
    assert!(
        !page.contains("id=\"approve\""),
        "no Approve button: {page}"
    );
    assert!(
        page.contains("another pit manager must decide on it"),
        "{page}"
    );

    let path = format!("/review/rounds/{}/approve", round["id"]);
    let page = page_of(app.post_form(&path, &[]).await, StatusCode::FORBIDDEN).await;
    assert!(page.contains(NAV), "{page}");
    assert!(page.contains("Table PUSOY-1 · Round 2"), "{page}");
    assert!(
        page.contains("<strong>Not done:</strong> You entered Round 2 at PUSOY-1"),
        "{page}"
    );
    assert_eq!(count(&app, "SELECT count(*) AS n FROM round_approvals"), 0);

    // Another pit manager may, until the day is closed.
    let other = app.another_browser();
    other.create_user("pitboss2", Role::Supervisor, PASSWORD);
    other.sign_in("pitboss2", PASSWORD).await;
    let page = page_of(other.get(&url).await, StatusCode::OK).await;
    assert!(page.contains("id=\"approve\""), "{page}");
    let day: NaiveDate = round["gaming_day"].as_str().unwrap().parse().unwrap();
    diesel::sql_query(
        "INSERT INTO gaming_day_closes (gaming_day, closed_by, seal_seq, seal_hash) \
         SELECT $1, id, 1, '\\x00' FROM users LIMIT 1",
    )
    .bind::<diesel::sql_types::Date, _>(day)
    .execute(&mut app.conn())
    .unwrap();
    let page = page_of(other.get(&url).await, StatusCode::OK).await;
    assert!(!page.contains("id=\"approve\""), "{page}");
    assert!(!page.contains("id=\"void\""), "{page}");
    assert!(
        page.contains(&format!("Gaming day {day} is closed")),
        "{page}"
    );
}

#[tokio::test]
async fn a_bad_review_filter_shows_the_queue_form_with_the_filters_kept() {
    let app = spawn_app().await;
    round_at(&app, "PUSOY-1").await;
    let res = app
        .get("/review?approval=bogus&void=void&sort=oldest")
        .await;
    let page = page_of(res, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert!(page.contains(NAV), "{page}");
    assert!(
        page.contains("<strong>Not done:</strong> approval: &#34;bogus&#34; is not a choice"),
        "{page}"
    );
    assert!(page.contains("id=\"queue-filters\""), "the form: {page}");
    assert!(
        page.contains("<option value=\"void\" selected>"),
        "kept: {page}"
    );
    assert!(
        page.contains("<option value=\"oldest\" selected>"),
        "kept: {page}"
    );
    assert!(page.contains("id=\"f-approval\" autofocus"), "{page}");
    assert!(page.contains("id=\"queue-refused\""), "{page}");
    assert!(!page.contains("class=\"round-code\""), "no rounds: {page}");
}

#[tokio::test]
async fn a_report_range_too_long_shows_the_form_with_the_days_kept() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Supervisor).await;
    let res = app.get("/reports?from=2026-01-01&to=2026-06-30").await;
    let page = page_of(res, StatusCode::BAD_REQUEST).await;
    assert!(page.contains(NAV), "{page}");
    assert!(page.contains("<strong>Not done:</strong>"), "{page}");
    assert!(page.contains("92"), "{page}");
    assert!(page.contains("value=\"2026-01-01\""), "kept: {page}");
    assert!(
        page.contains("value=\"2026-06-30\" required autofocus"),
        "kept: {page}"
    );
}

#[tokio::test]
async fn a_refused_page_keeps_the_navigation_bar_and_a_way_back() {
    let app = spawn_app().await;
    app.signed_in_as(Role::Dealer).await;
    let res = app
        .client
        .get(app.url("/review"))
        .header(REFERER, app.url("/tables"))
        .send()
        .await
        .unwrap();
    let page = page_of(res, StatusCode::FORBIDDEN).await;
    assert!(page.contains(NAV), "{page}");
    assert!(page.contains("id=\"go-back\" href=\"/tables\""), "{page}");
    // A page of elsewhere is not linked.
    let res = app
        .client
        .get(app.url("/review"))
        .header(REFERER, "http://example.com/tables")
        .send()
        .await
        .unwrap();
    let page = page_of(res, StatusCode::FORBIDDEN).await;
    assert!(!page.contains("id=\"go-back\""), "{page}");
}

#[tokio::test]
async fn a_table_taken_and_a_day_kept_open_say_when_in_local_time() {
    let app = spawn_app().await;
    let (_, _, round) = round_at(&app, "PUSOY-1").await;
    let second = app.another_browser();
    second.create_user("maria", Role::Dealer, PASSWORD);
    second.sign_in("maria", PASSWORD).await;
    second.post_form("/tables/PUSOY-1/sign-on", &[]).await;
    let page = second.get("/tables").await.text().await.unwrap();
    assert!(page.contains("signed on since 20"), "{page}");
    assert!(page.contains("(PHT, UTC+08:00)."), "{page}");
    assert!(!has_bare_utc(&page), "{page}");

    let day = round["gaming_day"].as_str().unwrap();
    let page = page_of(app.get(&format!("/days/{day}")).await, StatusCode::OK).await;
    assert!(page.contains("is on shift since 20"), "{page}");
    assert!(!has_bare_utc(&page), "{page}");
}

#[tokio::test]
async fn a_round_entered_again_is_named_by_its_number_and_a_dealer_is_not_sent_to_the_queue() {
    let app = spawn_app().await;
    let (_, dealer, round) = round_at(&app, "PUSOY-1").await;
    let url = format!("/tables/PUSOY-1/rounds/{}", round["id"]);
    let page = page_of(dealer.get(&url).await, StatusCode::OK).await;
    assert!(!page.contains("href=\"/review\""), "{page}");
    let page = page_of(app.get(&url).await, StatusCode::OK).await;
    assert!(page.contains("id=\"review-queue-link\""), "{page}");

    let id = round["id"].as_i64().unwrap();
    let res = app
        .post_form(
            &format!("/review/rounds/{id}/void"),
            &[("reason", "misdeal")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let fields = [
        ("dealer_back", "2c 2d 2h 5s 6s"),
        ("dealer_middle", "7c 7d 8h 9s Tc"),
        ("dealer_front", "Jc Qd Kh"),
        ("seat1_action", "play"),
        ("seat1_bet", "7"),
        ("seat1_back", "8c 8d 9h Ts Jd"),
        ("seat1_middle", "Ac Ad Ah 3s 4s"),
        ("seat1_front", "Qc Kd As"),
        ("step", "confirm"),
    ];
    let res = app
        .post_form(&format!("/review/rounds/{id}/reenter"), &fields)
        .await;
    assert_eq!(
        res.status(),
        StatusCode::SEE_OTHER,
        "{}",
        res.text().await.unwrap()
    );
    let new_url = crate::helpers::location(&res).to_owned();
    let page = page_of(app.get(&new_url).await, StatusCode::OK).await;
    assert!(
        page.contains(&format!("href=\"{url}\">round 1 at PUSOY-1 (void)</a>")),
        "{page}"
    );
    let page = page_of(app.get(&url).await, StatusCode::OK).await;
    assert!(
        page.contains(&format!("href=\"{new_url}\">round 2 at PUSOY-1</a>")),
        "{page}"
    );
}
