//! Table accounting (docs/accounting.md): chip sets and a table's par, each kept in versions
//! that are only ever inserted and audited.
use diesel::prelude::*;
use pusoy_pit::db::audit_log::table_chain;
use pusoy_pit::db::ids::TableId;
use pusoy_pit::db::schema::{chip_set_versions, chip_sets, table_pars};
use pusoy_pit::db::users::Role;
use reqwest::StatusCode;

use crate::helpers::{count, create_table, location, spawn_app, TestApp};

const PHP_CHIPS: &str = "25 100 500 1,000 5,000 10,000";

/// The id of the chip set of `currency`.
fn chip_set_id(app: &TestApp, currency: &str) -> i64 {
    chip_sets::table
        .filter(chip_sets::currency.eq(currency))
        .select(chip_sets::id)
        .first(&mut app.conn())
        .unwrap()
}

/// (version, denominations in minor units) of every version of a chip set, oldest first.
fn chip_set_versions_of(app: &TestApp, set: i64) -> Vec<(i32, Vec<Option<i64>>)> {
    chip_set_versions::table
        .filter(chip_set_versions::chip_set_id.eq(set))
        .order(chip_set_versions::version.asc())
        .select((chip_set_versions::version, chip_set_versions::denominations))
        .load(&mut app.conn())
        .unwrap()
}

/// (version, counts, total) of every par version of a table, oldest first.
fn pars_of(app: &TestApp, table: i64) -> Vec<(i32, Vec<Option<i64>>, i64)> {
    table_pars::table
        .filter(table_pars::table_id.eq(table))
        .order(table_pars::version.asc())
        .select((table_pars::version, table_pars::counts, table_pars::total))
        .load(&mut app.conn())
        .unwrap()
}

fn php(amounts: &[i64]) -> Vec<Option<i64>> {
    amounts.iter().map(|a| Some(a * 100)).collect()
}

/// Signs this browser in as an administrator and adds the PHP chip set.
async fn admin_with_php_chips(app: &TestApp) -> i64 {
    app.signed_in_as(Role::Admin).await;
    let res = app
        .post_form(
            "/admin/chips",
            &[("currency", "php"), ("denominations", PHP_CHIPS)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    chip_set_id(app, "PHP")
}

/// The id of the chip set version in force for `set`, as the par form sends it.
fn newest_version_id(app: &TestApp, set: i64) -> String {
    chip_set_versions::table
        .filter(chip_set_versions::chip_set_id.eq(set))
        .order(chip_set_versions::version.desc())
        .select(chip_set_versions::id)
        .first::<i64>(&mut app.conn())
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn an_administrator_adds_a_chip_set_and_each_edit_is_a_new_version() {
    let app = spawn_app().await;
    let set = admin_with_php_chips(&app).await;
    assert_eq!(
        chip_set_versions_of(&app, set),
        [(1, php(&[25, 100, 500, 1_000, 5_000, 10_000]))]
    );
    let created = app.audit("chips.create");
    assert_eq!(created.len(), 1);
    assert_eq!(created[0].details["currency"], "PHP");
    assert_eq!(
        created[0].details["denominations"],
        serde_json::json!([2_500, 10_000, 50_000, 100_000, 500_000, 1_000_000])
    );

    let res = app
        .post_form(
            &format!("/admin/chips/{set}"),
            &[("denominations", "25 100 500 1000 5000 10000 50000")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    // Version 1 is as it was; version 2 is beside it.
    assert_eq!(
        chip_set_versions_of(&app, set),
        [
            (1, php(&[25, 100, 500, 1_000, 5_000, 10_000])),
            (2, php(&[25, 100, 500, 1_000, 5_000, 10_000, 50_000])),
        ]
    );
    let edited = app.audit("chips.new_version");
    assert_eq!(edited.len(), 1);
    assert_eq!(edited[0].details["version"], 2);
    assert_eq!(edited[0].details["before"][5], 1_000_000);
    assert_eq!(edited[0].details["after"][6], 5_000_000);

    let page = app.get("/admin/chips").await.text().await.unwrap();
    assert!(
        page.contains("PHP <span class=\"hint\">v2</span>"),
        "{page}"
    );
    assert!(
        page.contains("25 · 100 · 500 · 1,000 · 5,000 · 10,000 · 50,000"),
        "{page}"
    );
    assert!(
        page.contains("v1: 25 · 100 · 500 · 1,000 · 5,000 · 10,000"),
        "{page}"
    );
    assert!(page.contains("Save as v3"), "{page}");
}

#[tokio::test]
async fn a_supervisor_reads_the_chip_sets_but_cannot_change_them() {
    let app = spawn_app().await;
    let set = admin_with_php_chips(&app).await;
    let supervisor = app.another_browser();
    supervisor.signed_in_as(Role::Supervisor).await;
    let page = supervisor.get("/admin/chips").await.text().await.unwrap();
    assert!(page.contains("25 · 100 · 500"), "{page}");
    assert!(!page.contains("Save as v2"), "{page}");
    let res = supervisor
        .post_form(&format!("/admin/chips/{set}"), &[("denominations", "25")])
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert_eq!(chip_set_versions_of(&app, set).len(), 1);
}

#[tokio::test]
async fn chip_set_refusals_say_why_keep_what_was_typed_and_change_nothing() {
    let app = spawn_app().await;
    let set = admin_with_php_chips(&app).await;
    for (path, fields, says) in [
        (
            "/admin/chips".to_owned(),
            vec![("currency", "PESO"), ("denominations", "25 100")],
            "Enter a 3-letter currency code such as PHP.",
        ),
        (
            "/admin/chips".to_owned(),
            vec![("currency", "USD"), ("denominations", "1 5 5 25")],
            "5.00 is entered twice.",
        ),
        (
            "/admin/chips".to_owned(),
            vec![("currency", "USD"), ("denominations", "")],
            "Enter at least one denomination.",
        ),
        (
            "/admin/chips".to_owned(),
            vec![("currency", "PHP"), ("denominations", "25 100")],
            "PHP has a chip set already: save a new version of it instead.",
        ),
        (
            format!("/admin/chips/{set}"),
            vec![("denominations", "25 1oo")],
            "&#34;1oo&#34; is not an amount",
        ),
        (
            format!("/admin/chips/{set}"),
            vec![("denominations", "10,000 5,000 1,000 500 100 25")],
            "These are the denominations of v1 already: nothing to save.",
        ),
    ] {
        let res = app.post_form(&path, &fields).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{fields:?}");
        let page = res.text().await.unwrap();
        assert!(page.contains(says), "{fields:?}: {page}");
        let typed = fields.last().unwrap().1;
        assert!(
            page.contains(&format!("value=\"{}\"", typed)),
            "{fields:?}: {page}"
        );
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM chip_sets"), 1);
    assert_eq!(chip_set_versions_of(&app, set).len(), 1);
    assert_eq!(app.audit("chips.create").len(), 1);
    assert!(app.audit("chips.new_version").is_empty());

    let res = app
        .post_form("/admin/chips/999999", &[("denominations", "25")])
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_par_is_counted_by_denomination_and_each_change_is_a_new_audited_version() {
    let app = spawn_app().await;
    let table = create_table(&app, "PUSOY-1");
    let set = admin_with_php_chips(&app).await;
    let version = newest_version_id(&app, set);
    let form = app.get(&format!("/admin/tables/{table}/par")).await;
    assert_eq!(form.status(), StatusCode::OK);
    let form = form.text().await.unwrap();
    assert!(
        form.contains("No par has been set for this table."),
        "{form}"
    );
    assert!(form.contains("name=\"count-2500\""), "{form}");
    assert!(form.contains("name=\"count-1000000\""), "{form}");

    // 100 × 25 + 100 × 100 + 40 × 500 + 20 × 1,000 + 4 × 5,000 (no 10,000s).
    let first = [
        ("chip_set_version_id", version.as_str()),
        ("count-2500", "100"),
        ("count-10000", "100"),
        ("count-50000", "40"),
        ("count-100000", "20"),
        ("count-500000", "4"),
        ("count-1000000", ""),
    ];
    let res = app
        .post_form(&format!("/admin/tables/{table}/par"), &first)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), format!("/admin/tables/{table}/par"));
    assert_eq!(
        pars_of(&app, table),
        [(
            1,
            vec![Some(100), Some(100), Some(40), Some(20), Some(4), Some(0)],
            7_250_000
        )]
    );
    let page = app
        .get(&format!("/admin/tables/{table}/par"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("In force: v1"), "{page}");
    assert!(page.contains("PHP 72,500.00"), "{page}");
    // The form starts from the par in force.
    assert!(
        page.contains("name=\"count-50000\" type=\"text\" inputmode=\"numeric\" value=\"40\""),
        "{page}"
    );

    let mut second = first;
    second[6] = ("count-1000000", "2");
    let res = app
        .post_form(&format!("/admin/tables/{table}/par"), &second)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let pars = pars_of(&app, table);
    assert_eq!(pars.len(), 2);
    assert_eq!(pars[0].2, 7_250_000, "version 1 is kept as it was");
    assert_eq!(pars[1].0, 2);
    assert_eq!(pars[1].2, 9_250_000);

    let events = app.audit("table.par");
    assert_eq!(events.len(), 2);
    let last = &events[1];
    assert_eq!(last.chain, table_chain(TableId(table)));
    assert_eq!(last.table_id, Some(TableId(table)));
    assert_eq!(last.details["version"], 2);
    assert_eq!(last.details["total"], 9_250_000);
    assert_eq!(last.details["before_total"], 7_250_000);
    assert_eq!(
        last.details["lines"][5],
        serde_json::json!({"denomination": 1_000_000, "count": 2})
    );
}

#[tokio::test]
async fn a_par_refused_says_why_and_changes_nothing() {
    let app = spawn_app().await;
    let table = create_table(&app, "PUSOY-1");
    app.signed_in_as(Role::Admin).await;
    let path = format!("/admin/tables/{table}/par");

    // The table's currency has no chip set yet.
    let page = app.get(&path).await.text().await.unwrap();
    assert!(page.contains("PHP has no chip set yet"), "{page}");
    let res = app
        .post_form(&path, &[("chip_set_version_id", "1"), ("count-2500", "4")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = res.text().await.unwrap();
    assert!(page.contains("PHP has no chip set yet"), "{page}");

    let res = app
        .post_form(
            "/admin/chips",
            &[("currency", "PHP"), ("denominations", PHP_CHIPS)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let set = chip_set_id(&app, "PHP");
    let v1 = newest_version_id(&app, set);
    let good = [("chip_set_version_id", v1.as_str()), ("count-2500", "4")];
    for (fields, says) in [
        (
            vec![("chip_set_version_id", v1.as_str()), ("count-2500", "-4")],
            "The count of 25.00 chips is below zero.",
        ),
        (
            vec![("chip_set_version_id", v1.as_str()), ("count-10000", "2.5")],
            "The count of 100.00 chips is not a whole number of chips",
        ),
    ] {
        let res = app.post_form(&path, &fields).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{fields:?}");
        let page = res.text().await.unwrap();
        assert!(page.contains(says), "{fields:?}: {page}");
        // What was typed comes back.
        let (name, typed) = fields[1];
        assert!(
            page.contains(&format!(
                "name=\"{name}\" type=\"text\" inputmode=\"numeric\" value=\"{typed}\""
            )),
            "{page}"
        );
    }
    let res = app.post_form(&path, &good).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    // The same par again is no new version.
    let res = app.post_form(&path, &good).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("This is par v1 already: nothing to save."));

    // A form counted against a chip set version that is no longer the newest.
    let res = app
        .post_form(
            &format!("/admin/chips/{set}"),
            &[("denominations", "25 100 500 1000 5000 10000 50000")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = app
        .post_form(
            &path,
            &[("chip_set_version_id", v1.as_str()), ("count-2500", "8")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("The PHP chip set changed to v2 while this form was open: count again."));

    assert_eq!(pars_of(&app, table).len(), 1);
    assert_eq!(app.audit("table.par").len(), 1);

    // A form that does not name its chip set version is not one of ours.
    let res = app.post_form(&path, &[("count-2500", "8")]).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = app
        .post_form(
            "/admin/tables/999999/par",
            &[("chip_set_version_id", v1.as_str())],
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn stored_versions_are_never_changed_or_deleted() {
    let app = spawn_app().await;
    let table = create_table(&app, "PUSOY-1");
    let set = admin_with_php_chips(&app).await;
    let v1 = newest_version_id(&app, set);
    let res = app
        .post_form(
            &format!("/admin/tables/{table}/par"),
            &[("chip_set_version_id", v1.as_str()), ("count-2500", "4")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let conn = &mut app.conn();
    for sql in [
        "UPDATE chip_set_versions SET denominations = '{100}'",
        "DELETE FROM chip_set_versions",
        "UPDATE table_pars SET total = 0, counts = '{0,0,0,0,0,0}'",
        "DELETE FROM table_pars",
    ] {
        let err = diesel::sql_query(sql).execute(conn).unwrap_err();
        assert!(
            err.to_string().contains("are never changed or deleted"),
            "{sql}: {err}"
        );
    }
    assert_eq!(pars_of(&app, table)[0].2, 10_000);
}
