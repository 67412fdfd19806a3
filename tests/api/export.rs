//! Exports that verify offline: rounds and events exported from a real database, checked with
//! no database, and found out, row and field, when one field is edited, one row deleted or two
//! rows swapped.
use std::path::{Path, PathBuf};

use diesel::RunQueryDsl;
use pusoy_pit::db::seal_file;
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::export::{self, Clock, Format, Kind, Problem, Query, Source};
use reqwest::{Method, StatusCode};

use crate::helpers::{call, create_table, spawn_app, the_round, TestApp};

async fn rounds_at(app: &TestApp, code: &str, rounds: usize) {
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at(code).await;
    for n in 0..rounds {
        let (status, body) = call(
            app,
            Method::PUT,
            &format!("/api/v1/tables/{code}/rounds/export-{code}-{n}"),
            Some(the_round()),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
}

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "export-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Exports `kind` of today's gaming day (and the days either side) into a file.
pub(crate) fn export_to(app: &TestApp, kind: Kind, format: Format, table: Option<&str>) -> PathBuf {
    let today = app.config.gaming_day(chrono::Utc::now());
    let query = Query {
        kind,
        from: today.pred_opt().unwrap(),
        to: today.succ_opt().unwrap(),
        table: table.map(str::to_owned),
    };
    let path = scratch(&format!("{}.{}", kind.name(), format.extension()));
    let file = std::fs::File::create(&path).unwrap();
    export::export(
        &mut app.conn(),
        &query,
        clock(app),
        Source::primary(),
        format,
        file,
    )
    .unwrap();
    path
}

fn clock(app: &TestApp) -> Clock {
    Clock {
        utc_offset: app.config.utc_offset,
        gaming_day_start: app.config.gaming_day_start,
    }
}

pub(crate) fn problems(path: &Path) -> Vec<Problem> {
    export::verify(path).unwrap().problems
}

/// The file's lines; the data rows are `1..len - 1` (CSV: after the header), the manifest last.
pub(crate) fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

pub(crate) fn write_lines(path: &Path, lines: &[String]) -> PathBuf {
    let out = path.with_extension(format!(
        "{}.edited",
        path.extension().unwrap().to_string_lossy()
    ));
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
    out
}

/// A CSV line with one field replaced.
pub(crate) fn csv_edit(line: &str, field: usize, value: &str) -> String {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(line.as_bytes());
    let record = reader.records().next().unwrap().unwrap();
    let mut fields: Vec<String> = record.iter().map(str::to_owned).collect();
    fields[field] = value.to_owned();
    let mut writer = csv::WriterBuilder::new().from_writer(vec![]);
    writer.write_record(&fields).unwrap();
    String::from_utf8(writer.into_inner().unwrap())
        .unwrap()
        .trim_end()
        .to_owned()
}

pub(crate) fn column(path: &Path, name: &str) -> usize {
    let verified = export::verify(path).unwrap();
    verified
        .manifest
        .columns
        .iter()
        .position(|c| c == name)
        .unwrap()
}

pub(crate) fn says(
    problems: &[Problem],
    row: Option<u64>,
    field: Option<&str>,
    words: &str,
) -> bool {
    problems
        .iter()
        .any(|p| p.row == row && p.field.as_deref() == field && p.message.contains(words))
}

#[tokio::test]
async fn a_rounds_export_verifies_and_names_an_edited_result_a_deleted_row_and_a_swap() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-7");
    rounds_at(&app, "PUSOY-7", 3).await;
    // A voided round shows as void on each of its rows.
    let supervisor = app.create_user("pit", Role::Supervisor, "pit-password-123");
    diesel::sql_query(format!(
        "INSERT INTO round_voids (round_id, table_id, gaming_day, reason, note, voided_by) \
         SELECT id, table_id, gaming_day, 'misdeal', 'two cards up', {} FROM rounds \
         WHERE round_no = 2",
        supervisor.id
    ))
    .execute(&mut app.conn())
    .unwrap();

    let path = export_to(&app, Kind::Rounds, Format::Csv, Some("PUSOY-7"));
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![], "a fresh export is intact");
    assert_eq!(
        verified.rows, 12,
        "three rounds of a dealer and three seats"
    );
    assert_eq!(verified.manifest.rows, 12);
    assert_eq!(verified.manifest.profiles.len(), 1);
    assert_eq!(verified.manifest.chains.len(), 1);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("misdeal,two cards up,pit,"), "{text}");
    assert!(lines(&path).last().unwrap().starts_with("#manifest,"));

    // Seat 1 of the first round fouled and lost 1,000: say it lost 100 instead.
    let result = column(&path, "result");
    let mut edited = lines(&path);
    edited[2] = csv_edit(&edited[2], result, "-100");
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(
            &found,
            Some(2),
            Some("result"),
            "the engine settles \"-1000\""
        ),
        "{found:#?}"
    );
    assert!(
        says(&found, Some(4), Some("result"), "does not balance"),
        "{found:#?}"
    );
    assert!(
        says(&found, Some(2), Some("result"), "row_crc32"),
        "{found:#?}"
    );

    // One changed byte in a column the engine does not decide (the dealer's name).
    let dealer = column(&path, "dealer");
    let mut edited = lines(&path);
    let name = csv_edit(&edited[5], dealer, "dealez");
    edited[5] = name;
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(&found, Some(5), Some("dealer"), "changed"),
        "{found:#?}"
    );

    let mut deleted = lines(&path);
    deleted.remove(7);
    let found = problems(&write_lines(&path, &deleted));
    assert!(
        says(&found, Some(7), None, "row 7 is missing (deleted)"),
        "{found:#?}"
    );
    assert!(says(
        &found,
        None,
        None,
        "the manifest says 12 rows, the file holds 11"
    ));

    let mut swapped = lines(&path);
    swapped.swap(9, 10);
    let found = problems(&write_lines(&path, &swapped));
    assert!(
        says(&found, Some(10), Some("row"), "row 9 is out of order"),
        "{found:#?}"
    );
}

#[tokio::test]
async fn an_events_export_verifies_and_names_edited_details_a_deleted_event_and_a_swap() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-8");
    rounds_at(&app, "PUSOY-8", 2).await;

    let path = export_to(&app, Kind::Events, Format::Jsonl, None);
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![], "a fresh export is intact");
    let rows = lines(&path);
    assert!(rows.last().unwrap().starts_with("{\"manifest\":"));
    let settled = rows
        .iter()
        .position(|line| line.contains("\"action\":\"round.settled\""))
        .unwrap();

    // A round's result in its event's details, changed: the chain's hash finds it.
    let mut edited = rows.clone();
    let mut event: serde_json::Value = serde_json::from_str(&edited[settled]).unwrap();
    event["details"]["settlement"]["dealer"]["result"] = serde_json::json!(1);
    edited[settled] = serde_json::to_string(&event).unwrap();
    let found = problems(&write_lines(&path, &edited));
    let row = settled as u64 + 1;
    assert!(
        says(&found, Some(row), None, "content changed"),
        "{found:#?}"
    );
    assert!(
        says(&found, Some(row), Some("details"), "row_crc32"),
        "{found:#?}"
    );

    let mut edited = rows.clone();
    let mut event: serde_json::Value = serde_json::from_str(&edited[settled]).unwrap();
    let hash = event["hash"]
        .as_str()
        .unwrap()
        .replace('a', "b")
        .replace('0', "1");
    event["hash"] = serde_json::json!(hash);
    edited[settled] = serde_json::to_string(&event).unwrap();
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(&found, Some(row), Some("hash"), "the hash was changed"),
        "{found:#?}"
    );

    let mut deleted = rows.clone();
    deleted.remove(settled);
    let found = problems(&write_lines(&path, &deleted));
    assert!(
        says(&found, Some(row), Some("seq"), "missing before this row"),
        "{found:#?}"
    );
    assert!(
        says(&found, Some(row), Some("prev_hash"), "link broken"),
        "{found:#?}"
    );

    let mut swapped = rows.clone();
    swapped.swap(settled - 1, settled);
    let found = problems(&write_lines(&path, &swapped));
    assert!(
        says(&found, Some(row), Some("row"), "out of order"),
        "{found:#?}"
    );
}

#[tokio::test]
async fn a_report_export_verifies_and_names_a_line_that_no_longer_adds_up() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-5");
    create_table(&app, "PUSOY-4");
    rounds_at(&app, "PUSOY-5", 3).await;
    let supervisor = app.create_user("pit", Role::Supervisor, "pit-password-123");
    diesel::sql_query(format!(
        "INSERT INTO round_voids (round_id, table_id, gaming_day, reason, note, voided_by) \
         SELECT id, table_id, gaming_day, 'misdeal', 'two cards up', {} FROM rounds \
         WHERE round_no = 2",
        supervisor.id
    ))
    .execute(&mut app.conn())
    .unwrap();

    for format in [Format::Csv, Format::Jsonl] {
        let path = export_to(&app, Kind::Report, format, None);
        let verified = export::verify(&path).unwrap();
        assert_eq!(verified.problems, vec![], "a fresh export is intact");
        // The whole range, the day, the table, the dealer and the shift: one line each.
        assert_eq!(
            verified.rows,
            5,
            "{}",
            std::fs::read_to_string(&path).unwrap()
        );
        assert_eq!(
            verified.manifest.chains.len(),
            2,
            "both tables' chain heads"
        );
    }
    let path = export_to(&app, Kind::Report, Format::Csv, None);
    let rows = lines(&path);
    let (rounds, voids, handle) = (
        column(&path, "rounds"),
        column(&path, "voids"),
        column(&path, "handle"),
    );
    let field = |line: &str, at: usize| {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        reader.records().next().unwrap().unwrap()[at].to_owned()
    };
    assert!(rows[1].starts_with("1,total,"), "{rows:?}");
    assert_eq!(
        field(&rows[1], rounds),
        "2",
        "the voided round is out of the totals"
    );
    assert_eq!(field(&rows[1], voids), "1");
    assert_eq!(
        field(&rows[1], handle),
        "2000",
        "two rounds of bets 500 + 200 + 300, minor units"
    );

    // The day's handle raised: its row is changed, and the days no longer add up to the total.
    let mut edited = rows.clone();
    assert!(edited[2].starts_with("2,day,"), "{edited:?}");
    edited[2] = csv_edit(&edited[2], handle, "2001");
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(
            &found,
            Some(1),
            Some("handle"),
            "the day lines in PHP add up to 2001, the total line says 2000"
        ),
        "{found:#?}"
    );
    assert!(
        says(&found, Some(2), Some("handle"), "row_crc32"),
        "{found:#?}"
    );
    // A share that does not follow from the line's figures.
    let share = column(&path, "result_share");
    let mut edited = rows.clone();
    edited[3] = csv_edit(&edited[3], share, "99.00 %");
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(
            &found,
            Some(3),
            Some("result_share"),
            "does not follow from the line's figures"
        ),
        "{found:#?}"
    );
    // The shift's line (the last) deleted: a row short, and the shifts add up to nothing.
    let mut deleted = rows.clone();
    deleted.remove(5);
    let found = problems(&write_lines(&path, &deleted));
    assert!(
        says(
            &found,
            None,
            None,
            "the manifest says 5 rows, the file holds 4"
        ),
        "{found:#?}"
    );
    assert!(
        says(
            &found,
            Some(1),
            Some("rounds"),
            "the shift lines in PHP add up to 0"
        ),
        "{found:#?}"
    );

    // One table's report: the other table has no rounds, so no lines.
    let path = export_to(&app, Kind::Report, Format::Csv, Some("PUSOY-4"));
    let verified = export::verify(&path).unwrap();
    assert_eq!((verified.rows, verified.problems), (0, vec![]));
    let path = export_to(&app, Kind::Report, Format::Jsonl, Some("PUSOY-5"));
    let verified = export::verify(&path).unwrap();
    assert_eq!((verified.rows, verified.problems), (5, vec![]));
}

#[tokio::test]
async fn verify_export_exits_with_1_and_names_the_row_of_a_changed_byte() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-9");
    rounds_at(&app, "PUSOY-9", 1).await;
    let path = export_to(&app, Kind::Events, Format::Csv, Some("PUSOY-9"));
    let run = |file: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pusoy-pit"))
            .args(["audit", "verify-export"])
            .arg(file)
            .output()
            .unwrap()
    };
    let good = run(&path);
    assert_eq!(good.status.code(), Some(0), "{good:?}");
    assert!(String::from_utf8_lossy(&good.stdout).contains(": intact: "));

    let mut edited = lines(&path);
    let target = column(&path, "target");
    let line = edited[1].clone();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(line.as_bytes());
    let record = reader.records().next().unwrap().unwrap();
    let mut value = record[target].to_owned();
    value.push('x');
    edited[1] = csv_edit(&line, target, &value);
    let bad = run(&write_lines(&path, &edited));
    let out = String::from_utf8_lossy(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{out}");
    assert!(out.contains("NOT intact"), "{out}");
    assert!(out.contains("row 1, field target: changed"), "{out}");
}

#[tokio::test]
async fn an_auditor_downloads_an_export_that_verifies_and_a_bad_range_is_refused_on_the_form() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-6");
    rounds_at(&app, "PUSOY-6", 1).await;
    let auditor = app.another_browser();
    auditor.signed_in_as(Role::Auditor).await;
    let today = app.config.gaming_day(chrono::Utc::now());
    let res = auditor
        .get(&format!(
            "/audit/exports/download?kind=rounds&from={today}&to={today}&table=PUSOY-6&format=jsonl"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()["content-disposition"],
        format!("attachment; filename=\"pusoy-rounds-{today}_{today}-PUSOY-6.jsonl\"").as_str()
    );
    let path = scratch("download.jsonl");
    std::fs::write(&path, res.bytes().await.unwrap()).unwrap();
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    assert_eq!(verified.rows, 4);
    // The gaming-day report, the same way.
    let res = auditor
        .get(&format!(
            "/audit/exports/download?kind=report&from={today}&to={today}&format=csv"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let path = scratch("report.csv");
    std::fs::write(&path, res.bytes().await.unwrap()).unwrap();
    let verified = export::verify(&path).unwrap();
    assert_eq!((verified.rows, verified.problems), (5, vec![]));

    let res = auditor
        .get("/audit/exports/download?kind=rounds&from=2026-01-02&to=2026-01-01&format=csv")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.text().await.unwrap().contains("after it ends"));
    let res = auditor
        .get(&format!(
            "/audit/exports/download?kind=rounds&from={today}&to={today}&table=NOPE-1&format=csv"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("There is no table NOPE-1"));
    let res = auditor
        .get("/audit/exports/download?kind=hands&from=x&to=2026-01-01&format=pdf")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let page = res.text().await.unwrap();
    assert!(
        page.contains(
            "Choose rounds, audit events, the gaming-day report, the accounting documents, the \
             compliance records or the players&#39; ratings"
        ),
        "{page}"
    );
    assert!(page.contains("is not a date"), "{page}");
    assert!(page.contains("Choose CSV or JSON Lines"), "{page}");

    // A dealer may not.
    let res = app.get("/audit/exports").await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_points_rounds_export_carries_points_and_matrix_verifies_and_names_edited_points() {
    let app = spawn_app().await;
    crate::points::create_points_table(&app, "POINTS-X");
    app.signed_in_as(Role::Dealer).await;
    app.sign_on_at("POINTS-X").await;
    let (status, body) = crate::helpers::record(
        &app,
        "POINTS-X",
        "export-points-1",
        crate::points::points_round(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let path = export_to(&app, Kind::Rounds, Format::Csv, Some("POINTS-X"));
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![], "a fresh points export is intact");
    assert_eq!(verified.rows, 3, "one row per player, no dealer's row");
    let text = std::fs::read_to_string(&path).unwrap();
    // Seat 1's dragon: 13 from each of the others, PHP 26.00; no pusoy.
    assert!(
        text.contains(r#",dragon,26,"{""2"":13,""3"":13}",false,"#),
        "{text}"
    );
    let json_path = export_to(&app, Kind::Rounds, Format::Jsonl, Some("POINTS-X"));
    assert_eq!(export::verify(&json_path).unwrap().problems, vec![]);

    // Seat 2 mis-set and lost 19 points: say 9, then say it scored 0 against seat 1.
    let points = column(&path, "points");
    let mut edited = lines(&path);
    edited[2] = csv_edit(&edited[2], points, "-9");
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(
            &found,
            Some(2),
            Some("points"),
            "the engine settles \"-19\""
        ),
        "{found:#?}"
    );
    let against = column(&path, "against");
    let mut edited = lines(&path);
    edited[2] = csv_edit(&edited[2], against, r#"{"1":0,"3":-6}"#);
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(&found, Some(2), Some("against"), "the engine settles"),
        "{found:#?}"
    );
    // A changed result no longer balances and is not the points times the unit.
    let result = column(&path, "result");
    let mut edited = lines(&path);
    edited[3] = csv_edit(&edited[3], result, "-600");
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(
            &found,
            Some(3),
            Some("result"),
            "the engine settles \"-700\""
        ),
        "{found:#?}"
    );
    assert!(
        says(&found, Some(3), Some("result"), "does not balance"),
        "{found:#?}"
    );
}

/// What does not read as a row is named by its data line, and the rows around it are still
/// checked: a line that is not JSON, a member the export does not have, a value of the wrong
/// type; in CSV, a line short of a field and a header that is not the manifest's.
#[tokio::test]
async fn lines_that_do_not_read_as_rows_are_named_and_the_rest_still_checked() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-9");
    rounds_at(&app, "PUSOY-9", 2).await;

    let path = export_to(&app, Kind::Events, Format::Jsonl, None);
    let rows = lines(&path);
    let data = rows.len() - 1;
    assert!(data >= 4, "{rows:#?}");
    let mut edited = rows.clone();
    edited[0] = "not json".to_owned();
    let mut event: serde_json::Value = serde_json::from_str(&edited[1]).unwrap();
    event["x"] = serde_json::json!(1);
    edited[1] = serde_json::to_string(&event).unwrap();
    let mut event: serde_json::Value = serde_json::from_str(&edited[2]).unwrap();
    event["seq"] = serde_json::json!("three");
    edited[2] = serde_json::to_string(&event).unwrap();
    let verified = export::verify(&write_lines(&path, &edited)).unwrap();
    let found = &verified.problems;
    assert!(
        says(found, None, None, "data line 1: not a JSON object"),
        "{found:#?}"
    );
    assert!(
        says(found, None, None, "data line 2: unknown fields [\"x\"]"),
        "{found:#?}"
    );
    assert!(
        says(found, Some(3), Some("seq"), "a value of the wrong type"),
        "{found:#?}"
    );
    // Every line counted, and the last row's chain still checked to the manifest's head.
    assert_eq!(verified.rows, data as u64);
    assert!(
        !found.iter().any(|p| p.row == Some(data as u64)),
        "{found:#?}"
    );

    let path = export_to(&app, Kind::Events, Format::Csv, None);
    let rows = lines(&path);
    let mut edited = rows.clone();
    edited[0] = edited[0].replacen("row,", "line,", 1);
    let fields = rows[0].split(',').count();
    edited[2] = edited[2].rsplit_once(',').unwrap().0.to_owned();
    let found = problems(&write_lines(&path, &edited));
    assert!(
        says(
            found.as_slice(),
            None,
            None,
            "the header line is not the manifest's columns"
        ),
        "{found:#?}"
    );
    assert!(
        says(
            found.as_slice(),
            None,
            None,
            &format!("data line 2: {} fields, not {fields}", fields - 1)
        ),
        "{found:#?}"
    );
}

/// The rows of an events export, as JSON values (the manifest left off).
fn event_rows(path: &Path) -> Vec<serde_json::Value> {
    let rows = lines(path);
    rows[..rows.len() - 1]
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Where each event of `chain` is in the file, and its seq.
fn chain_rows(rows: &[serde_json::Value], chain: &str) -> Vec<(usize, i64)> {
    rows.iter()
        .enumerate()
        .filter(|(_, row)| row["chain"] == chain)
        .map(|(at, row)| (at, row["seq"].as_i64().unwrap()))
        .collect()
}

/// An events export holds every chain's events in the order they were written (by id), each
/// chain's in sequence order; a chain whose ids were changed (so that the order of its ids is
/// not its order) still exports whole and in sequence order, and verifies.
#[tokio::test]
async fn an_events_export_holds_rows_by_id_and_a_chain_whose_ids_changed_still_verifies() {
    use crate::audit_trail::{append_events, tamper};
    let app = spawn_app().await;
    append_events(&app, "t:one", 3);
    append_events(&app, "t:two", 3);
    append_events(&app, "t:one", 3);

    let path = export_to(&app, Kind::Events, Format::Jsonl, None);
    assert_eq!(problems(&path), vec![], "a fresh export is intact");
    let rows = event_rows(&path);
    let ids: Vec<i64> = rows.iter().map(|row| row["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    let one = chain_rows(&rows, "t:one");
    let two = chain_rows(&rows, "t:two");
    assert_eq!(
        one.iter().map(|r| r.1).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert!(
        one[2].0 < two[0].0 && two[2].0 < one[3].0,
        "chains as written: {one:?} {two:?}"
    );

    tamper(
        &app,
        "UPDATE audit_events SET id = id + 1000000 WHERE chain = 't:one' AND seq = 2",
    );
    let path = export_to(&app, Kind::Events, Format::Jsonl, None);
    assert_eq!(problems(&path), vec![], "still intact");
    let rows = event_rows(&path);
    let one = chain_rows(&rows, "t:one");
    let two = chain_rows(&rows, "t:two");
    assert_eq!(
        one.iter().map(|r| r.1).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6],
        "the chain in sequence order"
    );
    assert!(
        two[2].0 < one[1].0,
        "from seq 2 on, the chain is read on its own after the rest: {one:?} {two:?}"
    );
    let manifest = export::verify(&path).unwrap().manifest;
    let record = manifest.chains.iter().find(|c| c.chain == "t:one").unwrap();
    assert_eq!(record.last.as_ref().map(|last| last.seq), Some(6));

    // Details stored as `jsonb` (spaced, before they were kept as hashed) are exported in
    // the canonical form their hash covers.
    tamper(
        &app,
        "UPDATE audit_events SET details = details::jsonb::text::json WHERE chain = 't:two'",
    );
    let path = export_to(&app, Kind::Events, Format::Jsonl, None);
    assert_eq!(problems(&path), vec![], "still intact");
    let texts: Vec<String> = lines(&path)
        .into_iter()
        .filter(|line| line.starts_with(r#"{"row":"#) && line.contains(r#""chain":"t:two""#))
        .collect();
    assert_eq!(texts.len(), 3);
    for (line, n) in texts.iter().zip(1..) {
        assert!(
            line.contains(&format!(r#""details":{{"n":{n}}}"#)),
            "{line}"
        );
    }

    // A format it does not know is refused, by name.
    let mut rows = lines(&path);
    let manifest = rows.len() - 1;
    rows[manifest] = rows[manifest].replace(export::FORMAT, "pusoy-pit export 9");
    let refused = export::verify(&write_lines(&path, &rows)).unwrap_err();
    assert!(
        refused.to_string().contains(
            "this program reads pusoy-pit export 1, pusoy-pit export 2, pusoy-pit export 3, \
             pusoy-pit export 4"
        ),
        "{refused}"
    );
}

/// The CSV export at `path` as a build before format 3 wrote it: each row ends with
/// `row_sha256` (the first 16 bytes of the SHA-256 of its fields) where format 3 has
/// `row_crc32`, and the manifest, of format `format`, has each column's SHA-256
/// (`column_sha256`) and the SHA-256 of these rows.
fn before_format_3(path: &Path, format: &str) -> PathBuf {
    use sha2::{Digest, Sha256};
    let path = &as_format_3(path);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    let mut records = reader.records().map(Result::unwrap);
    let mut names: Vec<String> = records.next().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(names.last().unwrap(), "row_crc32");
    *names.last_mut().unwrap() = "row_sha256".to_owned();
    let mut data = csv::Writer::from_writer(Vec::new());
    data.write_record(&names).unwrap();
    let mut sums = vec![Sha256::new(); names.len()];
    let mut trailer = None;
    for record in records {
        if record.get(0) == Some("#manifest") {
            trailer = Some(record[1].to_owned());
            break;
        }
        let mut fields: Vec<String> = record.iter().map(str::to_owned).collect();
        let last = fields.len() - 1;
        assert_eq!(fields[last].len(), 8, "a CRC-32 in hex: {fields:?}");
        let mut row = Sha256::new();
        for field in &fields[..last] {
            row.update(field.as_bytes());
            row.update([0x1f]);
        }
        fields[last] = hex::encode(&row.finalize()[..16]);
        for (sum, field) in sums.iter_mut().zip(&fields) {
            sum.update(field.as_bytes());
            sum.update([0x1e]);
        }
        data.write_record(&fields).unwrap();
    }
    let data = data.into_inner().unwrap();
    let mut manifest: serde_json::Value = serde_json::from_str(&trailer.unwrap()).unwrap();
    manifest["format"] = format.into();
    manifest["columns"] = names.into();
    manifest["data_sha256"] = hex::encode(Sha256::digest(&data)).into();
    manifest.as_object_mut().unwrap().remove("column_crc32");
    manifest["column_sha256"] = sums
        .into_iter()
        .map(|sum| hex::encode(sum.finalize()))
        .collect();
    let mut trailer = csv::Writer::from_writer(Vec::new());
    trailer
        .write_record(["#manifest", manifest.to_string().as_str()])
        .unwrap();
    let out = path.with_extension(format!("{}.csv", format.replace(' ', "-")));
    std::fs::write(&out, [data, trailer.into_inner().unwrap()].concat()).unwrap();
    out
}

/// The CSV export at `path` as a build of format 3 wrote it: a rounds export without the
/// round's event and its chain's events.
fn as_format_3(path: &Path) -> PathBuf {
    forge_csv(path, |names, rows, manifest| {
        if let Some(from) = names.iter().position(|n| n == "event_chain") {
            names.drain(from..from + 4);
            for row in rows.iter_mut() {
                row.drain(from..from + 4);
            }
        }
        manifest["format"] = "pusoy-pit export 3".into();
        manifest["columns"] = names.clone().into();
    })
}

#[tokio::test]
async fn exports_of_formats_1_and_2_still_verify_by_their_sha256_sums() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-5");
    rounds_at(&app, "PUSOY-5", 2).await;
    for (kind, name) in [(Kind::Rounds, "dealer"), (Kind::Events, "at_local")] {
        let path = export_to(&app, kind, Format::Csv, Some("PUSOY-5"));
        let manifest = export::verify(&path).unwrap().manifest;
        assert_eq!(manifest.format, export::FORMAT);
        assert_eq!(manifest.columns.last().unwrap(), "row_crc32");
        assert!(manifest.column_sha256.is_empty());
        assert_eq!(manifest.column_crc32.len(), manifest.columns.len());
        assert!(
            manifest.column_crc32.iter().all(|sum| sum.len() == 8),
            "{:?}",
            manifest.column_crc32
        );
        let field = column(&path, name);

        // Format 3: read, and said to be neither tied to its events nor checked against seals.
        let old = export::verify(&as_format_3(&path)).unwrap();
        assert_eq!(old.problems, vec![], "format 3");
        assert!(
            old.notes.iter().any(|n| n.contains("no seal file given")),
            "{:?}",
            old.notes
        );
        if kind == Kind::Rounds {
            assert!(
                old.notes.iter().any(|n| n.contains("before format 4")),
                "{:?}",
                old.notes
            );
        }

        for format in ["pusoy-pit export 1", "pusoy-pit export 2"] {
            let old = before_format_3(&path, format);
            assert_eq!(problems(&old), vec![], "{format}");
            // The SHA-256 sums name the row and the field of a change.
            let mut edited = lines(&old);
            edited[2] = csv_edit(&edited[2], field, "changed");
            let found = problems(&write_lines(&old, &edited));
            assert!(
                says(&found, Some(2), Some(name), "its row_sha256 does not match"),
                "{format}: {found:#?}"
            );
        }

        // A format-3 manifest without its columns' CRC-32s is refused, by name.
        let mut rows = lines(&path);
        let last = rows.len() - 1;
        let mut manifest: serde_json::Value = serde_json::from_str(
            &csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(lines(&path)[last].as_bytes())
                .records()
                .next()
                .unwrap()
                .unwrap()[1],
        )
        .unwrap();
        manifest.as_object_mut().unwrap().remove("column_crc32");
        rows[last] = csv_edit(&rows[last], 1, &manifest.to_string());
        let refused = export::verify(&write_lines(&path, &rows)).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("the manifest's column_crc32 has 0 sums for"),
            "{refused}"
        );
    }
}

/// `pusoy-pit export rounds` of today's gaming day to `out`, as the app's role, with the app's
/// seal file and data directory.
fn export_command(app: &TestApp, out: &Path, data_dir: &Path) -> std::process::Output {
    let today = app.config.gaming_day(chrono::Utc::now()).to_string();
    std::process::Command::new(env!("CARGO_BIN_EXE_pusoy-pit"))
        .args([
            "export", "rounds", "--format", "csv", "--from", &today, "--to", &today,
        ])
        .arg("--out")
        .arg(out)
        .env("DATABASE_URL", app.config.database_url.as_deref().unwrap())
        .env("PUSOY_MIGRATE", "false")
        .env("PUSOY_SEAL_FILE", &app.config.seal_file)
        .env("PUSOY_DATA_DIR", data_dir)
        .output()
        .unwrap()
}

#[tokio::test]
async fn an_export_follows_no_planted_link_and_never_writes_onto_the_seals_or_the_data() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-1");
    rounds_at(&app, "PUSOY-1", 2).await;
    let out = scratch("rounds.csv");
    let dir = out.parent().unwrap().to_owned();
    let data_dir = dir.join("var");
    std::fs::create_dir_all(&data_dir).unwrap();

    // A link planted where the export used to write its temporary file is not followed.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("rounds.csv.part")).unwrap();
    let done = export_command(&app, &out, &data_dir);
    assert!(done.status.success(), "{done:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(std::fs::read_to_string(&out).unwrap().contains("round_no"));

    // The seal file, the data directory and a directory are refused, and nothing is left.
    std::fs::write(&app.config.seal_file, "sealed\n").unwrap();
    let seal = app.config.seal_file.clone();
    for (target, says) in [
        (seal.clone(), "is the seal file"),
        (data_dir.join("rounds.csv"), "is in the data directory"),
        (dir.clone(), "is a directory"),
    ] {
        let refused = export_command(&app, &target, &data_dir);
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{target:?}");
        assert!(said.contains(says), "{target:?}: {said}");
    }
    assert_eq!(std::fs::read_to_string(&seal).unwrap(), "sealed\n");
    assert!(!data_dir.join("rounds.csv").exists());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".pusoy-export-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_file(&seal);
}

/// The CSV export at `path` forged as an insider would: `edit` changes its rows (each the
/// record's fields, `row` first, given the column names) and its manifest, and then every sum
/// is worked out again (each row's, each column's, the data's), so that the file agrees with
/// itself throughout.
pub(crate) fn forge_csv(
    path: &Path,
    edit: impl FnOnce(&mut Vec<String>, &mut [Vec<String>], &mut serde_json::Value),
) -> PathBuf {
    use sha2::{Digest, Sha256};
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    let mut records = reader.records().map(Result::unwrap);
    let mut names: Vec<String> = records.next().unwrap().iter().map(str::to_owned).collect();
    let mut rows = Vec::new();
    let mut manifest = None;
    for record in records {
        if record.get(0) == Some("#manifest") {
            manifest = Some(serde_json::from_str::<serde_json::Value>(&record[1]).unwrap());
            break;
        }
        rows.push(record.iter().map(str::to_owned).collect::<Vec<_>>());
    }
    let mut manifest = manifest.unwrap();
    edit(&mut names, &mut rows, &mut manifest);
    let mut columns = vec![crc32fast::Hasher::new(); names.len()];
    let mut data = csv::Writer::from_writer(Vec::new());
    data.write_record(&names).unwrap();
    for fields in &mut rows {
        let last = fields.len() - 1;
        let mut row = crc32fast::Hasher::new();
        for field in &fields[..last] {
            row.update(field.as_bytes());
            row.update(&[0x1f]);
        }
        fields[last] = format!("{:08x}", row.finalize());
        for (sum, field) in columns.iter_mut().zip(fields.iter()) {
            sum.update(field.as_bytes());
            sum.update(&[0x1e]);
        }
        data.write_record(&*fields).unwrap();
    }
    let data = data.into_inner().unwrap();
    manifest["column_crc32"] = columns
        .into_iter()
        .map(|sum| format!("{:08x}", sum.finalize()))
        .collect();
    manifest["data_sha256"] = hex::encode(Sha256::digest(&data)).into();
    let mut trailer = csv::Writer::from_writer(Vec::new());
    trailer
        .write_record(["#manifest", manifest.to_string().as_str()])
        .unwrap();
    let out = path.with_extension("forged.csv");
    std::fs::write(&out, [data, trailer.into_inner().unwrap()].concat()).unwrap();
    out
}

/// Where column `name` is among `names`.
fn at(names: &[String], name: &str) -> usize {
    names.iter().position(|n| n == name).unwrap()
}

/// Seat 2 of round `round` staked twice as much and lost twice as much, the dealer's result
/// to match: a round that settles again and balances, as a forger would make it.
fn double_seat_2(names: &[String], rows: &mut [Vec<String>], round: &str) -> u64 {
    let (id, place, bet, result) = (
        at(names, "round_id"),
        at(names, "place"),
        at(names, "bet"),
        at(names, "result"),
    );
    let seat = rows
        .iter()
        .position(|r| r[id] == round && r[place] == "seat2")
        .unwrap();
    let lost: i64 = rows[seat][result].parse().unwrap();
    let staked: i64 = rows[seat][bet].parse().unwrap();
    rows[seat][bet] = (staked * 2).to_string();
    rows[seat][result] = (lost * 2).to_string();
    let dealer = rows
        .iter()
        .position(|r| r[id] == round && r[place] == "dealer")
        .unwrap();
    let was: i64 = rows[dealer][result].parse().unwrap();
    rows[dealer][result] = (was - lost).to_string();
    rows[seat][0].parse().unwrap()
}

/// The events of `chain` from row `from` on hashed again, each after the one before, and the
/// manifest's last position and head of the chain moved to the new last hash.
fn rehash_chain(
    names: &[String],
    rows: &mut [Vec<String>],
    manifest: &mut serde_json::Value,
    from: usize,
) {
    use pusoy_pit::db::audit_log::{Details, HashBuffers, HashedFields};
    use pusoy_pit::db::ids::{TableId, UserId};
    let col = |name: &str| at(names, name);
    let chain = rows[from][col("chain")].clone();
    let mut prev = hex::decode(&rows[from][col("prev_hash")]).unwrap();
    let mut buffers = HashBuffers::default();
    for row in rows[from..].iter_mut().filter(|r| r[col("chain")] == chain) {
        let int = |name: &str| row[col(name)].parse::<i64>().ok();
        let fields = HashedFields {
            chain: &row[col("chain")],
            seq: int("seq").unwrap(),
            at: chrono::DateTime::parse_from_rfc3339(&row[col("at_utc")])
                .unwrap()
                .with_timezone(&chrono::Utc),
            actor_user_id: int("actor_user_id").map(UserId),
            actor_name: &row[col("actor_name")],
            action: &row[col("action")],
            target: &row[col("target")],
            details: Details::Text(&row[col("details")]),
            client_addr: Some(row[col("client_addr")].as_str()).filter(|a| !a.is_empty()),
            gaming_day: row[col("gaming_day")].parse().ok(),
            table_id: int("table_id").map(TableId),
        };
        let hash = buffers.hash(&prev, &fields).unwrap();
        row[col("prev_hash")] = hex::encode(&prev);
        row[col("hash")] = hex::encode(hash);
        prev = hash.to_vec();
    }
    for record in manifest["chains"].as_array_mut().unwrap() {
        if record["chain"] == chain.as_str() {
            record["last"]["hash"] = hex::encode(&prev).into();
            record["head"]["hash"] = hex::encode(&prev).into();
        }
    }
}

/// Closes today's gaming day as a supervisor, its seal copied to the app's seal file.
fn close_today(app: &TestApp) {
    use pusoy_pit::db::{audit_log::Actor, days, seal_file::SealFiles};
    let supervisor = app.create_user("closer", Role::Supervisor, "closer-password-123");
    let today = app.config.gaming_day(chrono::Utc::now());
    let actor = Actor::user(supervisor.id, "closer", None);
    let seals = SealFiles::of(&app.config);
    days::seal_day(&mut app.conn(), today, supervisor.id, &actor, &seals).unwrap();
}

/// A rounds export's events forged to match: the `round.settled` event of round `round` in its
/// `chain_events` changed as `change` says, then every round's `event_hash` and the chain's
/// last position in the manifest worked out again along the chain, as a forger would.
fn rewalk_rounds(
    names: &[String],
    rows: &mut [Vec<String>],
    manifest: &mut serde_json::Value,
    round: &str,
    change: impl Fn(&mut serde_json::Value),
) {
    use serde_json::value::RawValue;
    use sha2::{Digest, Sha256};
    let (id, events, hash) = (
        at(names, "round_id"),
        at(names, "chain_events"),
        at(names, "event_hash"),
    );
    let first = rows
        .iter()
        .position(|r| r[id] == round && !r[events].is_empty())
        .unwrap();
    let texts: Vec<Box<RawValue>> = serde_json::from_str(&rows[first][events]).unwrap();
    let mut texts: Vec<String> = texts.iter().map(|t| t.get().to_owned()).collect();
    let mut settled: serde_json::Value = serde_json::from_str(texts.last().unwrap()).unwrap();
    change(&mut settled[8]);
    *texts.last_mut().unwrap() = settled.to_string();
    rows[first][events] = format!("[{}]", texts.join(","));
    let record = &mut manifest["chains"].as_array_mut().unwrap()[0];
    let mut prev = hex::decode(record["before"]["hash"].as_str().unwrap()).unwrap();
    let mut step = |text: &str| {
        let mut hasher = Sha256::new();
        hasher.update(&prev);
        hasher.update(text.as_bytes());
        prev = hasher.finalize().to_vec();
        hex::encode(&prev)
    };
    let mut hashes = std::collections::BTreeMap::new();
    let mut last = String::new();
    for row in rows.iter().filter(|r| !r[events].is_empty()) {
        let texts: Vec<Box<RawValue>> = serde_json::from_str(&row[events]).unwrap();
        for text in texts {
            last = step(text.get());
        }
        hashes.insert(row[id].clone(), last.clone());
    }
    for row in rows.iter_mut() {
        row[hash] = hashes[&row[id]].clone();
    }
    let tail: Vec<String> = serde_json::from_value(record["tail"].clone()).unwrap_or_default();
    for text in &tail {
        last = step(text);
    }
    record["last"]["hash"] = last.into();
}

/// Seat 2's stake and loss doubled in a `round.settled` event's details, the dealer's result
/// to match (as `double_seat_2` changes the rows).
fn double_seat_2_recorded(details: &mut serde_json::Value) {
    let entered = details["round"]["seats"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["seat"] == 2)
        .unwrap();
    entered["bet"] = (entered["bet"].as_i64().unwrap() * 2).into();
    let settled = details["settlement"]["seats"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["seat"] == 2)
        .unwrap();
    let lost = settled["result"].as_i64().unwrap();
    settled["result"] = (lost * 2).into();
    let dealer = &mut details["settlement"]["dealer"]["result"];
    *dealer = (dealer.as_i64().unwrap() - lost).into();
}

/// `pusoy-pit audit verify-export FILE [--seals SEALS]`: whether it exits 0, and what it says.
fn verify_export_command(file: &Path, seals: Option<&Path>) -> (bool, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pusoy-pit"));
    command.args(["audit", "verify-export"]).arg(file);
    if let Some(seals) = seals {
        command.arg("--seals").arg(seals);
    }
    let done = command.output().unwrap();
    (
        done.status.success(),
        String::from_utf8_lossy(&done.stdout).into_owned(),
    )
}

/// The forgeries of issue 32: a rounds export whose bet and result were changed consistently
/// (the round settles again and balances) with its sums and manifest worked out again, and an
/// events export whose round event was changed and its chain hashed again with its manifest.
/// Without the seals they verify (and the verdict says nothing was checked against seals);
/// against the seal file they are refused, by row and field.
#[tokio::test]
async fn forged_exports_are_refused_against_the_seals() {
    let app = spawn_app().await;
    create_table(&app, "PUSOY-4");
    rounds_at(&app, "PUSOY-4", 3).await;
    app.sign_off_at("PUSOY-4").await;
    close_today(&app);
    let seals = seal_file::read(&app.config.seal_file).unwrap();
    let sealed = |path: &Path| export::verify_against(path, Some(seals.as_slice())).unwrap();

    let rounds = export_to(&app, Kind::Rounds, Format::Csv, Some("PUSOY-4"));
    let fresh = sealed(&rounds);
    assert_eq!(fresh.problems, vec![], "a fresh export is intact");
    assert_eq!(fresh.notes, Vec::<String>::new(), "and wholly sealed");
    assert!(export::verify(&rounds).unwrap().notes[0].contains("no seal file given"));
    let first = export::verify(&rounds).unwrap().manifest;
    assert_eq!(first.day_seals.len(), 1);
    assert!(!first.day_seals[0].heads.is_empty());

    // The rows alone changed: their round's event says otherwise, seals or not.
    let mut seat_row = 0;
    let forged = forge_csv(&rounds, |names, rows, _| {
        let first = rows[0][at(names, "round_id")].clone();
        seat_row = double_seat_2(names, rows, &first);
    });
    let found = problems(&forged);
    assert!(
        says(
            &found,
            Some(seat_row),
            Some("bet"),
            "its round.settled event records \"200\""
        ),
        "{found:#?}"
    );
    // The rows and the event they carry changed, and the chain walked again: only the seals
    // find it, at the round whose events they no longer confirm.
    let mut first_row = 0;
    let forged = forge_csv(&rounds, |names, rows, manifest| {
        let first = rows[0][at(names, "round_id")].clone();
        double_seat_2(names, rows, &first);
        rewalk_rounds(names, rows, manifest, &first, double_seat_2_recorded);
        first_row = rows[0][0].parse().unwrap();
    });
    let unsealed = export::verify(&forged).unwrap();
    assert_eq!(unsealed.problems, vec![], "without the seals it passes");
    let found = sealed(&forged).problems;
    assert!(
        says(&found, Some(first_row), Some("chain_events"), "the seal of"),
        "{found:#?}"
    );
    let (intact, said) = verify_export_command(&forged, None);
    assert!(
        intact && said.contains("note: not checked against the seals"),
        "{said}"
    );
    let (intact, said) = verify_export_command(&forged, Some(&app.config.seal_file));
    assert!(!intact && said.contains("NOT intact"), "{said}");

    let events = export_to(&app, Kind::Events, Format::Csv, Some("PUSOY-4"));
    assert_eq!(sealed(&events).problems, vec![], "a fresh export is intact");
    let forged = forge_csv(&events, |names, rows, manifest| {
        let settled = rows
            .iter()
            .position(|r| r[at(names, "action")] == "round.settled")
            .unwrap();
        let details = &mut rows[settled][at(names, "details")];
        assert!(details.contains("\"bet\":200"), "{details}");
        *details = details.replace("\"bet\":200", "\"bet\":400");
        rehash_chain(names, rows, manifest, settled);
    });
    assert_eq!(problems(&forged), vec![], "without the seals it passes");
    let found = sealed(&forged).problems;
    assert!(
        found.iter().any(|p| p.row.is_some()
            && p.field.as_deref() == Some("hash")
            && p.message.contains("the seal of")),
        "{found:#?}"
    );
    let (intact, said) = verify_export_command(&forged, Some(&app.config.seal_file));
    assert!(!intact && said.contains("field hash"), "{said}");
}
