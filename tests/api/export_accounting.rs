//! The accounting export from a real database: a scripted day (opener, rounds, buy-ins, a fill,
//! the count, the closer) exported as CSV, JSON Lines and from the Exports page, verified with
//! no database, and an amount edited in the file named by row and field.
use pusoy_pit::db::users::Role;
use pusoy_pit::reports::export::{self, Format, Kind};
use reqwest::StatusCode;

use crate::export::{column, csv_edit, export_to, lines, says, scratch, write_lines};
use crate::helpers::PASSWORD;
use crate::reconciliation::{chips_of, pit};

/// The data rows of a CSV export, by column name.
fn rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let mut rows: Vec<_> = reader
        .records()
        .map(|record| {
            headers
                .iter()
                .map(str::to_owned)
                .zip(record.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect();
    rows.pop(); // the manifest
    rows
}

#[tokio::test]
async fn an_accounting_day_exports_verifies_and_an_edited_amount_is_named() {
    let p = pit().await;
    // Opener PHP 18,000, two rounds (+550), buy-ins PHP 3,000 cash and a PHP 1,000 marker,
    // a fill of PHP 5,000; counted as recorded; closer PHP 19,550.
    p.play().await;
    p.count("T1", 300_000, 100_000);
    p.slip("closer", chips_of(1_955_000)).await;
    // The chips counted again for the next dealer: two 500s where a 1,000 was (held).
    assert_eq!(chips_of(1_955_000), [2, 0, 1, 19]);
    p.slip("opener", [2, 0, 3, 18]).await;
    // The fill printed at the cage, then printed again.
    use diesel::RunQueryDsl;
    diesel::sql_query(
        "INSERT INTO cage_slip_prints (slip_id, copy_number, printed_by) \
         SELECT c.id, n, u.id FROM cage_slips c, users u, generate_series(1, 2) n \
         WHERE u.username = 'cash' ORDER BY n",
    )
    .execute(&mut p.dealer.conn())
    .unwrap();

    let path = export_to(&p.dealer, Kind::Accounting, Format::Csv, Some("T1"));
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    assert_eq!(verified.notes, Vec::<String>::new());
    assert_eq!(verified.manifest.kind, Kind::Accounting);
    let rows = rows(&path);
    assert_eq!(verified.rows, rows.len() as u64);
    let kinds: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["document"].as_str()).collect();
    assert_eq!(
        kinds,
        ["buy_in", "closer", "count", "fill", "opener", "table_day"]
            .into_iter()
            .collect::<std::collections::BTreeSet<&str>>()
    );
    let day = rows.iter().find(|r| r["document"] == "table_day").unwrap();
    for (name, value) in [
        ("gaming_day", p.day.to_string().as_str()),
        ("table", "T1"),
        ("currency", "PHP"),
        ("opener", "1800000"),
        ("closer", "1955000"),
        ("fills", "500000"),
        ("credits", "0"),
        ("drop", "400000"),
        ("drop_counted", "true"),
        ("house_result", "55000"),
        ("inventory_win", "55000"),
        ("rounds_win", "55000"),
        ("variance", "0"),
        ("hold_percent", "13.75"),
        ("state", "final"),
    ] {
        assert_eq!(day[name], value, "{name}");
    }
    // The fill's steps, each signed, with the slip's number and total.
    let steps: Vec<(&str, &str, &str)> = rows
        .iter()
        .filter(|r| {
            r["document"] == "fill" && ["requested", "issued", "received"].contains(&&*r["line"])
        })
        .map(|r| {
            assert_eq!(r["slip_number"], "F-2026-00001");
            assert_eq!(r["total"], "500000");
            (
                r["line"].as_str(),
                r["signed_by"].as_str(),
                r["second_signed_by"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("requested", "boss", ""),
            ("issued", "cash", ""),
            ("received", "dee", "boss2")
        ]
    );
    // The second opener's differences from the closer, and the fill's prints.
    let closer = rows.iter().find(|r| r["document"] == "closer").unwrap();
    let differences: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .filter(|r| r["line"] == "difference")
        .map(|r| {
            (
                r["denomination"].as_str(),
                r["count"].as_str(),
                r["amount"].as_str(),
                r["reference_id"].as_str(),
            )
        })
        .collect();
    let id = closer["document_id"].as_str();
    assert_eq!(
        differences,
        [
            ("50000", "2", "100000", id),
            ("100000", "-1", "-100000", id)
        ]
    );
    let prints: Vec<(&str, &str, &str)> = rows
        .iter()
        .filter(|r| r["document"] == "fill" && r["line"].ends_with("printed"))
        .map(|r| {
            (
                r["line"].as_str(),
                r["count"].as_str(),
                r["signed_by"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        prints,
        [("printed", "1", "cash"), ("reprinted", "2", "cash")]
    );
    // The first opener's lines, by denomination, signed by the dealer and the supervisor.
    let first_opener = rows.iter().find(|r| r["document"] == "opener").unwrap();
    let opener: Vec<(&str, &str, &str)> = rows
        .iter()
        .filter(|r| r["document"] == "opener" && r["document_id"] == first_opener["document_id"])
        .map(|r| {
            assert_eq!(
                (r["signed_by"].as_str(), r["second_signed_by"].as_str()),
                ("dee", "boss")
            );
            (
                r["denomination"].as_str(),
                r["count"].as_str(),
                r["amount"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        opener,
        [
            ("2500", "40", "100000"),
            ("10000", "20", "200000"),
            ("50000", "10", "500000"),
            ("100000", "10", "1000000")
        ]
    );

    // One amount of the closer changed: its row and field are named, against its count and
    // against the closer's total.
    let at = 1 + rows
        .iter()
        .position(|r| r["document"] == "closer" && r["denomination"] == "100000")
        .unwrap();
    let first = 1 + rows.iter().position(|r| r["document"] == "closer").unwrap();
    assert_eq!(rows[at - 1]["amount"], "1900000");
    let mut edited = lines(&path);
    edited[at] = csv_edit(&edited[at], column(&path, "amount"), "1800000");
    let edited = write_lines(&path, &edited);
    let found = export::verify(&edited).unwrap().problems;
    let at = at as u64;
    assert!(
        says(
            &found,
            Some(at),
            Some("amount"),
            "19 × 100000 is 1900000, the line says 1800000"
        ),
        "{found:?}"
    );
    assert!(
        says(&found, Some(at), Some("amount"), "changed"),
        "{found:?}"
    );
    assert!(
        says(
            &found,
            Some(first as u64),
            Some("total"),
            "add up to 1855000, its total says 1955000"
        ),
        "{found:?}"
    );

    // JSON Lines, and the Exports page's download, verify the same.
    let jsonl = export_to(&p.dealer, Kind::Accounting, Format::Jsonl, Some("T1"));
    let verified = export::verify(&jsonl).unwrap();
    assert_eq!(
        (verified.rows, verified.problems),
        (rows.len() as u64, vec![])
    );
    p.dealer.create_user("aud", Role::Auditor, PASSWORD);
    let auditor = p.dealer.another_browser();
    assert_eq!(
        auditor.sign_in("aud", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let res = auditor
        .get(&format!(
            "/audit/exports/download?kind=accounting&from={0}&to={0}&table=T1&format=csv",
            p.day
        ))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let download = scratch("accounting.csv");
    std::fs::write(&download, res.bytes().await.unwrap()).unwrap();
    let verified = export::verify(&download).unwrap();
    assert_eq!(
        (verified.rows, verified.problems),
        (rows.len() as u64, vec![])
    );
}
