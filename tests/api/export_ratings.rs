//! The ratings export from a real database: two players rated at a table (one seated, away,
//! back and gone, the other still playing), exported as CSV and JSON Lines, by the command
//! line and from the Exports page, verified with no database; a figure edited in the file, the
//! file's sums worked out again, named by rating and field; a bad range and a role that may
//! not export refused.
use std::collections::HashMap;
use std::path::Path;

use pusoy_pit::db::users::Role;
use pusoy_pit::reports::export::{self, Format, Kind};
use reqwest::StatusCode;

use crate::export::{csv_edit, export_to, forge_csv, lines, says, scratch, write_lines};
use crate::helpers::{record, the_round, PASSWORD};
use crate::players::{
    at_table, buy_in, floor, observe, register, seat_of, store_house_edge, TABLE,
};

/// The data rows of a CSV export, by column name.
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
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

/// `pusoy-pit` run with `args` against the app's database; its output.
fn command(app: &crate::helpers::TestApp, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pusoy-pit"))
        .args(args)
        .env("DATABASE_URL", app.config.database_url.as_deref().unwrap())
        .env("PUSOY_MIGRATE", "false")
        .env("PUSOY_SEAL_FILE", &app.config.seal_file)
        .output()
        .unwrap()
}

#[tokio::test]
async fn ratings_export_and_verify_and_an_edited_figure_is_named_by_rating_and_field() {
    let f = floor().await;
    register(&f.host, "RC-1001", "Maria").await;
    register(&f.host, "RC-1002", "Juan").await;
    store_house_edge(&f.app);
    // Juan sits at seat 1 for the whole evening and is still playing when it is exported.
    at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "1"), ("card", "RC1002")],
    )
    .await;
    // Maria at seat 3: a round, away for one, back for a bigger one, gone with 1,500.
    at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings"),
        &[("seat", "3"), ("card", "RC1001")],
    )
    .await;
    buy_in(&f.dealer, "2,000").await;
    let (status, body) = record(&f.dealer, TABLE, "rated-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let first = seat_of(&f.app, "rated-round-1", 3);
    at_table(&f.dealer, &format!("/tables/{TABLE}/ratings/3/pause"), &[]).await;
    let (status, body) = record(&f.dealer, TABLE, "away-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    at_table(&f.dealer, &format!("/tables/{TABLE}/ratings/3/resume"), &[]).await;
    let mut bigger = the_round();
    bigger["seats"][2]["bet"] = 400.into();
    let (status, body) = record(&f.dealer, TABLE, "rated-round-2", bigger).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let second = seat_of(&f.app, "rated-round-2", 3);
    at_table(
        &f.dealer,
        &format!("/tables/{TABLE}/ratings/3/leave"),
        &[("walked_with", "1,500")],
    )
    .await;

    let path = export_to(&f.app, Kind::Ratings, Format::Csv, None);
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    assert_eq!(verified.notes, Vec::<String>::new());
    assert_eq!(verified.manifest.kind, Kind::Ratings);
    assert_eq!(verified.manifest.chains[0].chain, "players");
    let rows = rows(&path);
    assert_eq!(verified.rows, rows.len() as u64);
    let lines_of = |card: &str| -> Vec<&str> {
        let id = &rows.iter().find(|r| r["card_number"] == card).unwrap()["rating_id"];
        rows.iter()
            .filter(|r| &r["rating_id"] == id)
            .map(|r| r["line"].as_str())
            .collect()
    };
    // Maria's rating, its pause, and the two rounds she played (not the one while away).
    assert_eq!(lines_of("RC1001"), ["rating", "pause", "round", "round"]);
    // Juan's, running: every round of the evening at seat 1.
    assert_eq!(lines_of("RC1002"), ["rating", "round", "round", "round"]);
    let maria = rows.iter().find(|r| r["card_number"] == "RC1001").unwrap();
    let total_bet = first.0 + second.0;
    let theoretical = (total_bet * 20_000 + 500_000) / 1_000_000;
    for (name, value) in [
        ("player_name", "Maria Santos".to_owned()),
        ("table", TABLE.to_owned()),
        ("seat", "3".to_owned()),
        ("currency", "PHP".to_owned()),
        ("hands", "2".to_owned()),
        ("total_bet", total_bet.to_string()),
        ("average_bet", (total_bet / 2).to_string()),
        ("largest_bet", second.0.to_string()),
        ("player_result", (first.1 + second.1).to_string()),
        ("actual_win", (-(first.1 + second.1)).to_string()),
        ("theoretical_win", theoretical.to_string()),
        ("theoretical_complete", "true".to_owned()),
        ("bought_in", "200000".to_owned()),
        ("walked_with", "150000".to_owned()),
    ] {
        assert_eq!(maria[name], value, "{name}");
    }
    let juan = rows.iter().find(|r| r["card_number"] == "RC1002").unwrap();
    assert_eq!(
        (juan["ended_utc"].as_str(), juan["walked_with"].as_str()),
        ("", "")
    );
    // No personal data beyond the card number and the name.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("P7654321") && !text.contains("1980-04-02") && !text.contains("corner"),
        "{text}"
    );

    // Maria's theoretical win raised by one, every sum of the file worked out again: only the
    // figure that no longer follows from her rounds is named, by row, field and rating.
    let at = 1 + rows
        .iter()
        .position(|r| r["card_number"] == "RC1001")
        .unwrap();
    let rating = maria["rating_id"].clone();
    let forged = forge_csv(&path, |names, rows, _| {
        let column = names.iter().position(|n| n == "theoretical_win").unwrap();
        rows[at - 1][column] = (theoretical + 1).to_string();
    });
    let found = export::verify(&forged).unwrap().problems;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        says(
            &found,
            Some(at as u64),
            Some("theoretical_win"),
            &format!(
                "rating {rating}: its 2 round(s) and pauses make {theoretical}, the row says {}",
                theoretical + 1
            )
        ),
        "{found:?}"
    );
    // A round's bet changed as well: the total, average and largest bet no longer follow.
    let bet_row = 1 + rows
        .iter()
        .position(|r| r["rating_id"] == rating && r["line"] == "round")
        .unwrap();
    let forged = forge_csv(&path, |names, rows, _| {
        let column = names.iter().position(|n| n == "bet").unwrap();
        rows[bet_row - 1][column] = "1".to_owned();
    });
    let found = export::verify(&forged).unwrap().problems;
    for field in ["total_bet", "average_bet", "theoretical_win"] {
        assert!(
            says(
                &found,
                Some(at as u64),
                Some(field),
                &format!("rating {rating}")
            ),
            "{field}: {found:?}"
        );
    }
    // Edited without the sums: the row's and the column's sums name the field too.
    let mut edited = lines(&path);
    let column = crate::export::column(&path, "hands");
    edited[at] = csv_edit(&edited[at], column, "3");
    let edited = write_lines(&path, &edited);
    let found = export::verify(&edited).unwrap().problems;
    assert!(
        says(&found, Some(at as u64), Some("hands"), "changed"),
        "{found:?}"
    );
    assert!(
        says(
            &found,
            Some(at as u64),
            Some("hands"),
            "make 2, the row says 3"
        ),
        "{found:?}"
    );

    // JSON Lines verifies the same.
    let jsonl = export_to(&f.app, Kind::Ratings, Format::Jsonl, Some(TABLE));
    let verified = export::verify(&jsonl).unwrap();
    assert_eq!(
        (verified.rows, verified.problems),
        (rows.len() as u64, vec![])
    );

    // The command line writes it, and `audit verify-export` checks it and names the forgery.
    let today = f.app.config.gaming_day(chrono::Utc::now()).to_string();
    let out = scratch("ratings-cli.jsonl");
    let done = command(
        &f.app,
        &[
            "export",
            "ratings",
            "--format",
            "jsonl",
            "--from",
            &today,
            "--to",
            &today,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(done.status.success(), "{done:?}");
    assert_eq!(export::verify(&out).unwrap().problems, vec![]);
    let checked = command(&f.app, &["audit", "verify-export", out.to_str().unwrap()]);
    assert!(checked.status.success(), "{checked:?}");
    assert!(
        String::from_utf8_lossy(&checked.stdout).contains("intact"),
        "{checked:?}"
    );
    let forged = forge_csv(&path, |names, rows, _| {
        let column = names.iter().position(|n| n == "theoretical_win").unwrap();
        rows[at - 1][column] = (theoretical + 1).to_string();
    });
    let refused = command(
        &f.app,
        &["audit", "verify-export", forged.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(
        said.contains(&format!("row {at}, field theoretical_win: rating {rating}")),
        "{said}"
    );

    // The Exports page: a host downloads the ratings (the only kind offered them) and they
    // verify; a range that ends before it starts is refused with the reason.
    let page = f.host.get("/audit/exports").await.text().await.unwrap();
    assert!(
        page.contains("<option value=\"ratings\" selected>") && !page.contains("value=\"rounds\""),
        "{page}"
    );
    let res = f
        .host
        .get(&format!(
            "/audit/exports/download?kind=ratings&from={today}&to={today}&table=&format=csv"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let download = scratch("ratings.csv");
    std::fs::write(&download, res.bytes().await.unwrap()).unwrap();
    let verified = export::verify(&download).unwrap();
    assert_eq!(
        (verified.rows, verified.problems),
        (rows.len() as u64, vec![])
    );
    let res = f
        .host
        .get("/audit/exports/download?kind=ratings&from=2026-03-02&to=2026-03-01&format=csv")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let page = res.text().await.unwrap();
    assert!(
        page.contains("the range starts (2026-03-02) after it ends (2026-03-01)"),
        "{page}"
    );

    // A host may not export the rounds, nor an administrator (who sees no players) the
    // ratings: each refusal is audited with its reason.
    let res = f
        .host
        .get(&format!(
            "/audit/exports/download?kind=rounds&from={today}&to={today}&format=csv"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    f.app.create_user("boss-admin", Role::Admin, PASSWORD);
    let admin = f.app.another_browser();
    assert_eq!(
        admin.sign_in("boss-admin", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let res = admin
        .get(&format!(
            "/audit/exports/download?kind=ratings&from={today}&to={today}&format=csv"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let page = res.text().await.unwrap();
    assert!(page.contains("exported by those who read them"), "{page}");
    let denied = f.app.audit("authz.denied");
    assert_eq!(
        denied
            .iter()
            .filter(|e| e.target == "GET /audit/exports/download")
            .count(),
        2,
        "{denied:?}"
    );
    // The supervisor reads ratings, and so may export them.
    let res = f
        .supervisor
        .get(&format!(
            "/audit/exports/download?kind=ratings&from={today}&to={today}&format=jsonl"
        ))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn unrated_observations_are_exported_with_their_rounds_and_their_estimates_verified() {
    let f = floor().await;
    store_house_edge(&f.app);
    // Seat 3 observed for two rounds at an estimated 25.00, then ended with 600 walked with; a
    // second observation at seat 1, still running, is void.
    let ended = observe(&f.supervisor, "man, 50s, red shirt", "25").await;
    for key in ["observed-round-1", "observed-round-2"] {
        let (status, body) = record(&f.dealer, TABLE, key, the_round()).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let res = f
        .supervisor
        .post_form(
            &format!("/tables/{TABLE}/observations/{ended}/end"),
            &[("walked_with", "600")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let res = f
        .supervisor
        .post_form(
            &format!("/tables/{TABLE}/observations"),
            &[
                ("seat", "1"),
                ("description", "woman, 20s"),
                ("average_bet", "10"),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let other = f.app.another_browser();
    f.app.create_user("other-pit", Role::Supervisor, PASSWORD);
    other.sign_in("other-pit", PASSWORD).await;
    let res = other
        .post_form(
            &format!("/tables/{TABLE}/observations/{}/void", ended + 1),
            &[("reason", "a carded player after all")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);

    let path = export_to(&f.app, Kind::Ratings, Format::Csv, Some(TABLE));
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    let rows = rows(&path);
    let lines: Vec<&str> = rows.iter().map(|r| r["line"].as_str()).collect();
    assert_eq!(
        lines,
        [
            "observation",
            "observed_round",
            "observed_round",
            "observation"
        ]
    );
    let first = &rows[0];
    for (name, value) in [
        ("observation_id", ended.to_string()),
        ("table", TABLE.to_owned()),
        ("seat", "3".to_owned()),
        ("description", "man, 50s, red shirt".to_owned()),
        ("hands", "2".to_owned()),
        ("estimated_average_bet", "2500".to_owned()),
        ("estimated_total_bet", "5000".to_owned()),
        // 2 % of 25.00, twice.
        ("estimated_theoretical_win", "100".to_owned()),
        ("theoretical_complete", "true".to_owned()),
        ("walked_with", "60000".to_owned()),
        ("rating_id", String::new()),
        ("void_reason", String::new()),
    ] {
        assert_eq!(first[name], value, "{name}");
    }
    assert_eq!(rows[3]["void_reason"], "a carded player after all");

    // An estimate edited is named by row, field and observation; a round moved to another
    // table is named too.
    let forged = forge_csv(&path, |names, rows, _| {
        let column = names
            .iter()
            .position(|n| n == "estimated_theoretical_win")
            .unwrap();
        rows[0][column] = "101".to_owned();
        let table = names.iter().position(|n| n == "table").unwrap();
        rows[1][table] = "OTHER-9".to_owned();
    });
    let found = export::verify(&forged).unwrap().problems;
    assert!(
        says(
            &found,
            Some(1),
            Some("estimated_theoretical_win"),
            &format!("observation {ended}: its 2 round(s) make 100, the row says 101")
        ),
        "{found:?}"
    );
    assert!(
        says(
            &found,
            Some(2),
            Some("table"),
            &format!("observation {ended} says")
        ),
        "{found:?}"
    );

    // JSON Lines verifies the same.
    let jsonl = export_to(&f.app, Kind::Ratings, Format::Jsonl, Some(TABLE));
    let verified = export::verify(&jsonl).unwrap();
    assert_eq!((verified.rows, verified.problems), (4, vec![]));
}

/// The problems `verify-export` finds in the export at `path` once `edit` has changed its rows
/// (the file's sums worked out again).
fn forged(
    path: &Path,
    edit: impl FnOnce(&mut Vec<String>, &mut [Vec<String>]),
) -> Vec<pusoy_pit::reports::export::Problem> {
    let forged = forge_csv(path, |names, rows, _| edit(names, rows));
    export::verify(&forged).unwrap().problems
}

#[tokio::test]
async fn a_carded_observation_and_its_rating_name_each_other_and_the_check_holds_them_to_it() {
    let f = floor().await;
    let player = register(&f.host, "RC-4004", "Rosa").await;
    let observation = observe(&f.supervisor, "woman, 40s, blue scarf", "25").await;
    let (status, body) = record(&f.dealer, TABLE, "observed-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let res = f
        .supervisor
        .post_form(
            &format!("/tables/{TABLE}/observations/{observation}/card"),
            &[("card", "RC4004")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let (status, body) = record(&f.dealer, TABLE, "rated-round-1", the_round()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let path = export_to(&f.app, Kind::Ratings, Format::Csv, Some(TABLE));
    let verified = export::verify(&path).unwrap();
    assert_eq!(verified.problems, vec![]);
    let rows = rows(&path);
    let lines: Vec<&str> = rows.iter().map(|r| r["line"].as_str()).collect();
    assert_eq!(lines, ["rating", "round", "observation", "observed_round"]);
    let (rating, observed) = (&rows[0], &rows[2]);
    assert_eq!(rating["observation_id"], observation.to_string());
    assert_eq!(observed["rating_id"], rating["rating_id"]);
    assert_eq!(observed["player_id"], player.to_string());
    assert_eq!(observed["card_number"], "RC4004");
    assert_eq!(observed["player_name"], "Rosa Santos");
    assert_eq!(observed["ended_utc"], rating["started_utc"]);
    assert_eq!(
        (rating["hands"].as_str(), observed["hands"].as_str()),
        ("1", "1")
    );
    let id = rating["rating_id"].clone();

    // The rating moved a second from the observation's end: time lost between them.
    let column = |names: &[String], name: &str| names.iter().position(|n| n == name).unwrap();
    let found = forged(&path, |names, rows| {
        let at = column(names, "started_utc");
        let started = chrono::DateTime::parse_from_rfc3339(&rows[0][at]).unwrap();
        rows[0][at] = (started + chrono::TimeDelta::seconds(1))
            .with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    });
    assert!(
        says(
            &found,
            Some(1),
            Some("started_utc"),
            &format!("rating {id} starts at")
        ),
        "{found:?}"
    );
    // Another player's card on the rating, and a rating that names no observation.
    let found = forged(&path, |names, rows| {
        rows[0][column(names, "card_number")] = "RC9999".to_owned();
    });
    assert!(
        says(
            &found,
            Some(1),
            Some("card_number"),
            &format!("rating {id} goes on from observation {observation}, whose row says")
        ),
        "{found:?}"
    );
    let found = forged(&path, |names, rows| {
        rows[0][column(names, "observation_id")] = String::new();
    });
    assert!(
        says(
            &found,
            Some(3),
            Some("rating_id"),
            &format!("observation {observation} is carded as rating {id}, whose row names no observation")
        ),
        "{found:?}"
    );
    // The observation carded as a rating begun in the range that the file does not hold.
    let found = forged(&path, |names, rows| {
        rows[2][column(names, "rating_id")] = "999999".to_owned();
    });
    assert!(
        says(
            &found,
            Some(3),
            Some("rating_id"),
            &format!("observation {observation} is carded as rating 999999, begun on")
        ),
        "{found:?}"
    );
    assert!(
        says(
            &found,
            Some(1),
            Some("observation_id"),
            &format!("rating {id} goes on from observation {observation}, which is carded as rating 999999")
        ),
        "{found:?}"
    );
    // An observation carded that never ended.
    let found = forged(&path, |names, rows| {
        rows[2][column(names, "ended_utc")] = String::new();
        rows[2][column(names, "ended_local")] = String::new();
    });
    assert!(
        says(
            &found,
            Some(3),
            Some("ended_utc"),
            &format!("observation {observation} is carded as rating {id} and has no end")
        ),
        "{found:?}"
    );

    // JSON Lines verifies the same.
    let jsonl = export_to(&f.app, Kind::Ratings, Format::Jsonl, Some(TABLE));
    let verified = export::verify(&jsonl).unwrap();
    assert_eq!((verified.rows, verified.problems), (4, vec![]));
}
