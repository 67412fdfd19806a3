//! Win by inventory against win by rounds (docs/accounting.md, "Win, hold and the
//! reconciliation"), on scripted shifts whose rounds, buy-ins, fills, count and closer are known:
//! an honest shift reconciles to zero; a miscounted closer is its own variance, flagged, with an
//! investigation opened that the pit manager who signed the closer may not close; the gaming-day
//! close waits for every closer.
use chrono::{NaiveDate, Utc};
use diesel::prelude::*;
use pusoy_pit::db::accounting as rows;
use pusoy_pit::db::schema::investigations;
use pusoy_pit::db::users::Role;
use pusoy_pit::rules::money::Money;
use reqwest::StatusCode;

use crate::helpers::{create_table, location, record, spawn_app, the_round, TestApp, PASSWORD};

/// PHP 25, 100, 500, 1,000.
const DENOMINATIONS: [i64; 4] = [2_500, 10_000, 50_000, 100_000];

/// the_round() with these bets (minor units): seat 1 fouls and loses double its bet, seat 2
/// surrenders and pays its bet, seat 3 wins two hands of three and is paid its bet. What the house
/// wins is worked out here, apart from the engine.
fn round_with(bets: [i64; 3]) -> (serde_json::Value, i64) {
    let mut round = the_round();
    for (seat, bet) in bets.iter().enumerate() {
        round["seats"][seat]["bet"] = (*bet).into();
    }
    (round, 2 * bets[0] + bets[1] - bets[2])
}

/// PHP 275 a round: 2 × 100 + 100 − 25.
const BETS: [i64; 3] = [10_000, 10_000, 2_500];

/// Chips of `total` (minor units, a multiple of PHP 25) by denomination, largest first.
pub(crate) fn chips_of(total: i64) -> [i64; 4] {
    let mut left = total;
    let mut counts = [0; 4];
    for (i, d) in DENOMINATIONS.iter().enumerate().rev() {
        counts[i] = left / d;
        left %= d;
    }
    assert_eq!(left, 0, "{total} is not counted in chips");
    counts
}

pub(crate) struct Pit {
    pub(crate) dealer: TestApp,
    pub(crate) boss: TestApp,
    /// The count team's first counter (`count1`).
    pub(crate) counter: TestApp,
    pub(crate) chip_set_version: String,
    pub(crate) day: NaiveDate,
}

pub(crate) async fn pit() -> Pit {
    let dealer = spawn_app().await;
    create_table(&dealer, "T1");
    let conn = &mut dealer.conn();
    let set = rows::insert_chip_set(conn, "PHP").unwrap();
    let denominations: Vec<Money> = DENOMINATIONS
        .iter()
        .map(|&d| Money::from_minor_units(d))
        .collect();
    let version = rows::insert_chip_set_version(conn, set.id, 1, &denominations, None).unwrap();
    dealer.create_user("dee", Role::Dealer, PASSWORD);
    dealer.create_user("boss", Role::Supervisor, PASSWORD);
    dealer.create_user("boss2", Role::Supervisor, PASSWORD);
    dealer.create_user("cash", Role::Cashier, PASSWORD);
    dealer.create_user("count1", Role::Count, PASSWORD);
    dealer.create_user("count2", Role::Count, PASSWORD);
    assert_eq!(
        dealer.sign_in("dee", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let boss = dealer.another_browser();
    assert_eq!(
        boss.sign_in("boss", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let counter = dealer.another_browser();
    assert_eq!(
        counter.sign_in("count1", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let day = dealer.config.gaming_day(Utc::now());
    Pit {
        dealer,
        boss,
        counter,
        chip_set_version: version.id.0.to_string(),
        day,
    }
}

fn last_buy_in(app: &TestApp) -> i64 {
    use pusoy_pit::db::schema::buy_ins;
    buy_ins::table
        .select(diesel::dsl::max(buy_ins::id))
        .first::<Option<i64>>(&mut app.conn())
        .unwrap()
        .unwrap()
}

fn user_id(app: &TestApp, username: &str) -> i64 {
    use pusoy_pit::db::schema::users;
    users::table
        .filter(users::username.eq(username))
        .select(users::id)
        .first(&mut app.conn())
        .unwrap()
}

fn table_id(app: &TestApp, code: &str) -> i64 {
    use pusoy_pit::db::schema::gaming_tables;
    gaming_tables::table
        .filter(gaming_tables::code.eq(code))
        .select(gaming_tables::id)
        .first(&mut app.conn())
        .unwrap()
}

impl Pit {
    /// Signs an opener or closer of `code` from the dealer's browser with `boss` second.
    async fn slip_at(&self, code: &str, kind: &str, chips: [i64; 4]) {
        let counts: Vec<(String, String)> = DENOMINATIONS
            .iter()
            .zip(chips)
            .map(|(d, n)| (format!("count-{d}"), n.to_string()))
            .collect();
        let mut fields: Vec<(&str, &str)> = vec![
            ("kind", kind),
            ("chip_set_version_id", &self.chip_set_version),
            ("second_username", "boss"),
            ("second_password", PASSWORD),
        ];
        fields.extend(counts.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let res = self
            .dealer
            .post_form(&format!("/tables/{code}/slips"), &fields)
            .await;
        assert_eq!(
            res.status(),
            StatusCode::SEE_OTHER,
            "{}",
            res.text().await.unwrap()
        );
        assert_eq!(location(&res), format!("/tables/{code}/slips"));
    }

    pub(crate) async fn slip(&self, kind: &str, chips: [i64; 4]) {
        self.slip_at("T1", kind, chips).await;
    }

    /// A round at T1 with [`BETS`] (the house wins PHP 275), recorded by the dealer: its id.
    async fn round(&self, key: &str) -> i64 {
        let (round, _) = round_with(BETS);
        let (status, body) = record(&self.dealer, "T1", key, round).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["id"].as_i64().unwrap()
    }

    /// Page `path` as the pit manager reads it.
    async fn read(&self, path: &str) -> String {
        self.boss.get(path).await.text().await.unwrap()
    }

    /// The accounting report of the day, as the pit manager reads it.
    async fn page(&self) -> String {
        self.boss
            .get(&format!("/reports/accounting?day={}", self.day))
            .await
            .text()
            .await
            .unwrap()
    }

    /// Round `id` voided by the pit manager (wrong cards).
    async fn void(&self, id: i64) {
        let res = self
            .boss
            .post_form(
                &format!("/review/rounds/{id}/void"),
                &[("reason", "wrong_cards"), ("note", "seat 2 misread")],
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
    }

    /// A buy-in at seat `seat` of `code`, recorded by the dealer on shift through the API.
    async fn buy_in(&self, code: &str, seat: i16, kind: &str, amount: i64) {
        let (status, body) = crate::helpers::call(
            &self.dealer,
            reqwest::Method::POST,
            &format!("/api/v1/tables/{code}/buy-ins"),
            Some(serde_json::json!({
                "seat": seat,
                "amount": Money::from_minor_units(amount).plain_text(),
                "kind": kind,
            })),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }

    /// A fill (or credit) of `thousands` 1,000 chips at `code`, requested, issued and received.
    fn cage(&self, code: &str, kind: &str, number: i32, thousands: i64) {
        self.cage_until(code, kind, number, thousands, "received");
    }

    /// A fill (or credit) of `thousands` 1,000 chips at `code`, taken through its steps up to
    /// `last` (`requested`, `issued` or `received`): its id.
    fn cage_until(&self, code: &str, kind: &str, number: i32, thousands: i64, last: &str) -> i64 {
        let conn = &mut self.dealer.conn();
        let version: i64 = self.chip_set_version.parse().unwrap();
        let id: i64 = diesel::sql_query(
            "INSERT INTO cage_slips (kind, year, number, table_id, gaming_day, \
                 chip_set_version_id, counts, total) \
             VALUES ($5, 2026, $6, $1, $2, $3, ARRAY[0, 0, 0, $4]::bigint[], $4 * 100000) \
             RETURNING id",
        )
        .bind::<diesel::sql_types::BigInt, _>(table_id(&self.dealer, code))
        .bind::<diesel::sql_types::Date, _>(self.day)
        .bind::<diesel::sql_types::BigInt, _>(version)
        .bind::<diesel::sql_types::BigInt, _>(thousands)
        .bind::<diesel::sql_types::Text, _>(kind)
        .bind::<diesel::sql_types::Integer, _>(number)
        .get_result::<Id>(conn)
        .unwrap()
        .id;
        for (step, first, second) in [
            ("requested", "boss", None),
            ("issued", "cash", None),
            ("received", "dee", Some("boss2")),
        ] {
            diesel::sql_query(
                "INSERT INTO cage_slip_steps (slip_id, step, signed_by, second_signed_by) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind::<diesel::sql_types::BigInt, _>(id)
            .bind::<diesel::sql_types::Text, _>(step)
            .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, first))
            .bind::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>, _>(
                second.map(|s| user_id(&self.dealer, s)),
            )
            .execute(conn)
            .unwrap();
            if step == last {
                break;
            }
        }
        id
    }

    /// The count team's count of `code`: cash and markers.
    pub(crate) fn count(&self, code: &str, cash: i64, markers: i64) {
        diesel::sql_query(
            "INSERT INTO drop_counts (table_id, gaming_day, currency, note_denominations, \
                 note_counts, cash, markers, chip_vouchers, total, first_counter, second_counter) \
             VALUES ($1, $2, 'PHP', ARRAY[100000]::bigint[], ARRAY[$3 / 100000]::bigint[], $3, \
                 $4, 0, $3 + $4, $5, $6)",
        )
        .bind::<diesel::sql_types::BigInt, _>(table_id(&self.dealer, code))
        .bind::<diesel::sql_types::Date, _>(self.day)
        .bind::<diesel::sql_types::BigInt, _>(cash)
        .bind::<diesel::sql_types::BigInt, _>(markers)
        .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, "count1"))
        .bind::<diesel::sql_types::BigInt, _>(user_id(&self.dealer, "count2"))
        .execute(&mut self.dealer.conn())
        .unwrap();
    }

    /// The count team's count of T1 on its form: `thousands` PHP 1,000 notes and the markers
    /// as typed, signed by `count1` and `count2`.
    async fn count_signed(&self, thousands: i64, markers: &str) {
        let notes = thousands.to_string();
        let fields = [
            ("notes-100000", notes.as_str()),
            ("markers", markers),
            ("chip_vouchers", ""),
            ("second_username", "count2"),
            ("second_password", PASSWORD),
        ];
        let res = self
            .counter
            .post_form(&format!("/count/{}/T1", self.day), &fields)
            .await;
        assert_eq!(
            res.status(),
            StatusCode::SEE_OTHER,
            "{}",
            res.text().await.unwrap()
        );
    }

    /// The shift: opener PHP 18,000; two rounds (+550); buy-ins PHP 3,000 cash and a
    /// PHP 1,000 marker, paid in chips; a fill of PHP 5,000. The tray then holds
    /// 18,000 − 4,000 + 550 + 5,000 = 19,550.
    pub(crate) async fn play(&self) {
        // 40 × 25 + 20 × 100 + 10 × 500 + 10 × 1,000 = 18,000.
        self.slip("opener", [40, 20, 10, 10]).await;
        self.dealer.sign_on_at("T1").await;
        for key in ["recon-0001", "recon-0002"] {
            self.round(key).await;
        }
        self.buy_in("T1", 1, "cash", 300_000).await;
        self.buy_in("T1", 2, "marker", 100_000).await;
        self.cage("T1", "fill", 1, 5);
        self.dealer.sign_off_at("T1").await;
    }

    /// The accounting report's CSV rows of today, by column name.
    async fn rows(&self) -> Vec<std::collections::HashMap<String, String>> {
        let res = self
            .boss
            .get(&format!("/reports/accounting/csv?day={}", self.day))
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        let text = res.text().await.unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let headers = reader.headers().unwrap().clone();
        reader
            .records()
            .map(|record| {
                headers
                    .iter()
                    .map(str::to_owned)
                    .zip(record.unwrap().iter().map(str::to_owned))
                    .collect()
            })
            .collect()
    }

    async fn row(&self) -> std::collections::HashMap<String, String> {
        let mut rows = self.rows().await;
        assert_eq!(rows.len(), 1, "{rows:?}");
        rows.remove(0)
    }
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
}

#[tokio::test]
async fn an_honest_shift_reconciles_to_zero() {
    let p = pit().await;
    p.play().await;
    p.count("T1", 300_000, 100_000);
    // 19,550 = 19 × 1,000 + 1 × 500 + 2 × 25.
    p.slip("closer", chips_of(1_955_000)).await;
    let row = p.row().await;
    assert_eq!(row["opener"], "18000.00");
    assert_eq!(row["closer"], "19550.00");
    assert_eq!(row["fills"], "5000.00");
    assert_eq!(row["drop"], "4000.00");
    assert_eq!(row["drop_counted"], "true");
    assert_eq!(
        row["house_result"],
        Money::from_minor_units(2 * round_with(BETS).1).plain_text()
    );
    assert_eq!(row["house_result"], "550.00");
    // 19,550 − 18,000 + 0 − 5,000 + 4,000 = 550: the rounds' win.
    assert_eq!(row["inventory_win"], "550.00");
    assert_eq!(row["rounds_win"], "550.00");
    assert_eq!(row["variance"], "0.00");
    assert_eq!(row["flagged"], "false");
    assert_eq!(row["final"], "true");
    assert_eq!(row["hold_percent"], "13.75");
    assert!(investigations_of(&p.dealer).is_empty());
    let page = p
        .boss
        .get(&format!("/reports/accounting?day={}", p.day))
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.unwrap();
    assert!(page.contains("PHP 4,000.00"), "{page}");
    assert!(page.contains("13.75 %"), "{page}");
    // By dealer shift: the shift was the table's only one that day, so its win by inventory is
    // the table's; its drop is the buy-ins recorded while it lasted.
    let shifts = section(&page, "id=\"shifts\"");
    assert!(shifts.contains("dee Test"), "{shifts}");
    assert!(
        shifts.contains(
            "<td class=\"amount\">PHP 4,000.00</td><td class=\"amount\">PHP +550.00</td>\
             <td class=\"amount\">13.75 %</td><td class=\"amount\">PHP +550.00</td>"
        ),
        "{shifts}"
    );
    let dealers = section(&page, "id=\"dealers\"");
    assert!(dealers.contains("dee Test"), "{dealers}");
    // The pit board's tile: the opener, the counted drop, both wins.
    let (status, board) =
        crate::helpers::call(&p.boss, reqwest::Method::GET, "/api/v1/pit", None).await;
    assert_eq!(status, StatusCode::OK);
    let tile = &board["tables"][0];
    assert_eq!(
        tile["accounting_text"],
        "Opener PHP 18,000.00 · drop PHP 4,000.00 counted"
    );
    let win = tile["win_text"].as_str().unwrap();
    assert!(win.starts_with("Win: inventory PHP +550.00"), "{win}");
    assert!(win.ends_with("variance PHP 0.00"), "{win}");
}

/// A round voided after it was dealt: its chips moved, so the win by inventory keeps it while the
/// win by rounds leaves it out; the variance is that round, and the void is named as its cause.
#[tokio::test]
async fn a_void_round_is_out_of_the_rounds_win_and_named_as_a_cause() {
    let p = pit().await;
    p.slip("opener", [40, 20, 10, 10]).await;
    p.dealer.sign_on_at("T1").await;
    p.round("void-0001").await;
    let voided = p.round("void-0002").await;
    p.dealer.sign_off_at("T1").await;
    p.void(voided).await;
    p.count("T1", 0, 0);
    // The tray took both rounds: 18,000 + 550 = 18,550.
    p.slip("closer", chips_of(1_855_000)).await;
    let row = p.row().await;
    assert_eq!(row["house_result"], "275.00");
    assert_eq!(row["inventory_win"], "550.00");
    assert_eq!(row["variance"], "275.00");
    assert!(row["causes"].contains("1 round(s) voided"), "{row:?}");
    let page = p.page().await;
    assert!(page.contains("&#38;table=1&#38;void=void"), "{page}");
}

/// Two shifts at a table in one day: each has the drop recorded while it lasted and the win of
/// its rounds; neither gets a share of the day's win by inventory (the chips were counted once,
/// for the day); the dealer's line sums both.
#[tokio::test]
async fn each_shift_has_its_drop_and_rounds_and_no_share_of_the_count() {
    let p = pit().await;
    p.slip("opener", [40, 20, 10, 10]).await;
    for (key, seat, kind, amount) in [
        ("shift-0001", 1, "cash", 300_000),
        ("shift-0002", 2, "marker", 100_000),
    ] {
        p.dealer.sign_on_at("T1").await;
        p.round(key).await;
        p.buy_in("T1", seat, kind, amount).await;
        p.dealer.sign_off_at("T1").await;
    }
    p.count("T1", 300_000, 100_000);
    // 18,000 − 4,000 + 550 = 14,550 = 14 × 1,000 + 1 × 500 + 2 × 25.
    p.slip("closer", chips_of(1_455_000)).await;
    let row = p.row().await;
    assert_eq!(row["inventory_win"], "550.00");
    assert_eq!(row["variance"], "0.00");
    let page = p.page().await;
    let shifts = section(&page, "id=\"shifts\"");
    assert_eq!(
        shifts.matches("<tr><th scope=\"row\">").count(),
        2,
        "{shifts}"
    );
    for drop in ["PHP 3,000.00", "PHP 1,000.00"] {
        let line = format!("<td class=\"amount\">{drop}</td><td class=\"amount\">PHP +275.00</td>");
        assert!(shifts.contains(&line), "{line} in {shifts}");
    }
    assert_eq!(
        shifts
            .matches("<td class=\"amount\">\u{2013}</td></tr>")
            .count(),
        2,
        "no shift has a win by inventory: {shifts}"
    );
    let dealers = section(&page, "id=\"dealers\"");
    assert!(
        dealers.contains(
            "<td class=\"amount\">2</td><td class=\"amount\">2</td>\
             <td class=\"amount\">PHP 4,000.00</td><td class=\"amount\">PHP +550.00</td>\
             <td class=\"amount\">13.75 %</td>"
        ),
        "{dealers}"
    );
}

#[tokio::test]
async fn a_table_counted_at_each_dealer_change_has_a_win_by_inventory_per_shift() {
    let p = pit().await;
    // 18,000 at the start; each shift's players buy chips, the house wins 275 a round, and the
    // chips are counted when the dealer leaves and again before the next deals.
    let mut tray = 1_800_000;
    p.slip("opener", chips_of(tray)).await;
    for (n, (key, seat, kind, amount)) in [
        ("per-shift-0001", 1, "cash", 300_000),
        ("per-shift-0002", 2, "marker", 100_000),
    ]
    .into_iter()
    .enumerate()
    {
        if n > 0 {
            p.slip("opener", chips_of(tray)).await;
        }
        p.dealer.sign_on_at("T1").await;
        p.round(key).await;
        p.buy_in("T1", seat, kind, amount).await;
        p.dealer.sign_off_at("T1").await;
        tray = tray - amount + 27_500;
        p.slip("closer", chips_of(tray)).await;
    }
    p.count("T1", 300_000, 100_000);
    // The day: its first opener and its last closer, as when counted once.
    let row = p.row().await;
    assert_eq!(row["inventory_win"], "550.00");
    assert_eq!(row["variance"], "0.00");
    let page = p.page().await;
    let shifts = section(&page, "id=\"shifts\"");
    // Each shift: its drop, its rounds' win and hold, and its own win by inventory.
    for (drop, hold) in [("PHP 3,000.00", "9.17 %"), ("PHP 1,000.00", "27.50 %")] {
        let line = format!(
            "<td class=\"amount\">{drop}</td><td class=\"amount\">PHP +275.00</td>\
             <td class=\"amount\">{hold}</td><td class=\"amount\">PHP +275.00</td></tr>"
        );
        assert!(shifts.contains(&line), "{line} in {shifts}");
    }
}

#[tokio::test]
async fn the_table_screen_offers_the_openers_count_until_one_stands() {
    let p = pit().await;
    p.dealer.sign_on_at("T1").await;
    let screen = p.dealer.get("/tables/T1").await.text().await.unwrap();
    let count = section(&screen, "id=\"count\"");
    assert!(count.contains("Count the opener"), "{count}");
    assert!(count.contains("action=\"/tables/T1/slips\""), "{count}");
    assert!(count.contains("name=\"back\" value=\"screen\""), "{count}");
    assert!(count.contains("name=\"count-100000\""), "{count}");
    // Signed from the screen, back to the screen, which no longer asks for it.
    let counts: Vec<(String, String)> = DENOMINATIONS
        .iter()
        .zip(chips_of(1_800_000))
        .map(|(d, n)| (format!("count-{d}"), n.to_string()))
        .collect();
    let mut fields: Vec<(&str, &str)> = vec![
        ("kind", "opener"),
        ("chip_set_version_id", &p.chip_set_version),
        ("second_username", "boss"),
        ("second_password", PASSWORD),
        ("back", "screen"),
    ];
    fields.extend(counts.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let res = p.dealer.post_form("/tables/T1/slips", &fields).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/tables/T1");
    let screen = p.dealer.get("/tables/T1").await.text().await.unwrap();
    assert!(!screen.contains("id=\"count\""), "{screen}");
    // After a closer the next dealer's screen asks for the opener again.
    p.dealer.sign_off_at("T1").await;
    p.slip("closer", chips_of(1_800_000)).await;
    p.dealer.sign_on_at("T1").await;
    let screen = p.dealer.get("/tables/T1").await.text().await.unwrap();
    assert!(screen.contains("Count the opener"), "{screen}");
}

fn investigations_of(app: &TestApp) -> Vec<(i64, i64)> {
    investigations::table
        .select((investigations::id, investigations::variance))
        .order(investigations::id)
        .load(&mut app.conn())
        .unwrap()
}

#[tokio::test]
async fn a_miscounted_closer_is_the_variance_flagged_and_investigated() {
    let p = pit().await;
    p.play().await;
    // Before the count, the figures wait for it.
    let row = p.row().await;
    assert_eq!(row["drop_counted"], "false");
    assert_eq!(row["final"], "false");
    assert!(row["causes"].contains("no closer yet"), "{row:?}");
    assert!(row["causes"].contains("not counted yet"), "{row:?}");
    // Two 1,000 chips short: 17,550. The closer first; the count then makes the day final.
    p.slip("closer", chips_of(1_755_000)).await;
    assert!(
        investigations_of(&p.dealer).is_empty(),
        "not final before the count"
    );
    p.count_signed(3, "1000").await;
    let row = p.row().await;
    assert_eq!(row["inventory_win"], "-1450.00");
    assert_eq!(row["variance"], "-2000.00");
    assert_eq!(row["flagged"], "true");
    // The fixed PHP 1,000 is above 2 % of the PHP 4,000 drop.
    assert_eq!(row["tolerance"], "1000.00");
    let (_, board) = crate::helpers::call(&p.boss, reqwest::Method::GET, "/api/v1/pit", None).await;
    let kinds: Vec<&str> = board["tables"][0]["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["variance"], "{board}");
    let opened = investigations_of(&p.dealer);
    assert_eq!(opened, [(opened[0].0, -200_000)]);
    let events = p.dealer.audit("investigation.opened");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].details["variance"], -200_000);
    assert_eq!(events[0].actor_name, "count1");

    let close = format!("/reports/accounting/investigations/{}/close", opened[0].0);
    // The dealer may not; the pit manager who signed the closer may not.
    let res = p
        .dealer
        .post_form(&close, &[("findings", "x"), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = p
        .boss
        .post_form(
            &close,
            &[("findings", "two chips in the float"), ("back", "")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(res.text().await.unwrap().contains("another pit manager"));
    let other = p.dealer.another_browser();
    other.sign_in("boss2", PASSWORD).await;
    let res = other
        .post_form(&close, &[("findings", "  "), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let back = format!("day={}", p.day);
    let res = other
        .post_form(
            &close,
            &[
                ("findings", "Two 1,000 chips were under the float tray."),
                ("back", &back),
            ],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let closed = p.dealer.audit("investigation.closed");
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].actor_name, "boss2");
    let page = other
        .get(&format!("/reports/accounting?day={}", p.day))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Two 1,000 chips were under the float tray."),
        "{page}"
    );
    // Closed once.
    let res = other
        .post_form(&close, &[("findings", "again"), ("back", "")])
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn the_gaming_day_closes_only_when_every_table_has_its_closer() {
    let p = pit().await;
    p.play().await;
    p.dealer.end_today();
    let close = format!("/days/{}/close", p.day);
    let res = p.boss.post_form(&close, &[("confirm", "yes")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let page = p.read(&format!("/days/{}", p.day)).await;
    assert!(
        page.contains("T1: the table took rounds or opened this day and has no closer"),
        "{page}"
    );
    assert!(
        page.contains(&format!("/tables/T1/slips?day={}", p.day)),
        "{page}"
    );
    p.slip("closer", chips_of(1_955_000)).await;
    // A credit requested and not received: once closed, the day's documents are
    // final, and it could be neither received nor voided.
    let credit = p.cage_until("T1", "credit", 1, 1, "requested");
    let res = p.boss.post_form(&close, &[("confirm", "yes")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert!(p.dealer.audit("day.closed").is_empty());
    let page = p.read(&format!("/days/{}", p.day)).await;
    assert!(
        page.contains("T1: credit C-2026-00001 is requested and not received"),
        "{page}"
    );
    assert!(page.contains(&format!("/cage/slips/{credit}")), "{page}");
    diesel::sql_query(
        "INSERT INTO cage_slip_steps (slip_id, step, signed_by, second_signed_by, reason) \
         VALUES ($1, 'void', $2, $3, 'not needed')",
    )
    .bind::<diesel::sql_types::BigInt, _>(credit)
    .bind::<diesel::sql_types::BigInt, _>(user_id(&p.dealer, "cash"))
    .bind::<diesel::sql_types::BigInt, _>(user_id(&p.dealer, "boss2"))
    .execute(&mut p.dealer.conn())
    .unwrap();
    let res = p.boss.post_form(&close, &[("confirm", "yes")]).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(p.dealer.audit("day.closed").len(), 1);
}

/// Over several days and every table, the page lists only the table-days that need attention
/// (and no shift), saying how many it left to each table's report, which lists them all.
#[tokio::test]
async fn a_range_over_every_table_lists_what_needs_attention() {
    let p = pit().await;
    p.play().await;
    p.slip("closer", chips_of(1_955_000)).await;
    let range = format!(
        "/reports/accounting?from={}&to={}",
        p.day - chrono::Duration::days(1),
        p.day
    );
    let line = format!("id=\"day-{}-T1\"", p.day);
    // The count is pending: not final, listed.
    let page = p.read(&range).await;
    assert!(page.contains("1 of 1 table-days listed"), "{page}");
    assert!(page.contains(&line), "{page}");
    assert!(page.contains("1 dealer shift: each table"), "{page}");
    assert!(
        page.contains(&format!("{}&amp;table=T1", range.replace('&', "&amp;"))),
        "{page}"
    );
    // Counted, it reconciles to zero and is final: left to the table's report.
    p.count("T1", 300_000, 100_000);
    let page = p.read(&range).await;
    assert!(page.contains("0 of 1 table-days listed"), "{page}");
    assert!(!page.contains(&line), "{page}");
    assert!(
        page.contains("Every table-day reconciles and is final."),
        "{page}"
    );
    let page = p.read(&format!("{range}&table=T1")).await;
    assert!(page.contains(&line), "{page}");
    assert!(
        !page.contains("days-note") && !page.contains("shifts-note"),
        "{page}"
    );
    assert!(section(&page, "id=\"shifts\"").contains(&p.day.to_string()));
}

/// A closed day's documents are final: its close wrote each table-day's figures, which
/// stay true because no slip, void, explanation or fill or credit step is written for that
/// day afterwards (the app answers why; the database refuses underneath).
#[tokio::test]
async fn a_closed_days_documents_are_final() {
    let p = pit().await;
    p.play().await;
    p.slip("closer", chips_of(1_955_000)).await;
    p.dealer.end_today();
    let res = p
        .boss
        .post_form(&format!("/days/{}/close", p.day), &[("confirm", "yes")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let closed = p.row().await;
    assert_eq!(closed["variance"], "0.00", "{closed:?}");
    assert_eq!(closed["drop_counted"], "false", "{closed:?}");
    let conn = &mut p.dealer.conn();
    let figures: Vec<(i64, i64, i64)> = diesel::sql_query(
        "SELECT fills, closer, rounds FROM closed_table_days WHERE gaming_day = $1",
    )
    .bind::<diesel::sql_types::Date, _>(p.day)
    .load::<TableDayFigures>(conn)
    .unwrap()
    .into_iter()
    .map(|f| (f.fills, f.closer, f.rounds))
    .collect();
    assert_eq!(figures, [(500_000, 1_955_000, 2)]);

    // Voiding the closer: refused, in words, and nothing written.
    let closer: i64 =
        diesel::sql_query("SELECT max(id) AS id FROM inventory_slips WHERE kind = 'closer'")
            .get_result::<Id>(conn)
            .unwrap()
            .id;
    let boss2 = p.dealer.another_browser();
    assert_eq!(
        boss2.sign_in("boss2", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let res = boss2
        .post_form(
            &format!("/tables/T1/slips/{closer}/void"),
            &[("text", "recounted")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(&format!("The gaming day {} is closed", p.day)),
        "{body}"
    );
    assert!(p.dealer.audit("slip.void").is_empty());
    // Underneath, the database refuses each kind of document of the closed day.
    p.dealer.create_user("adm", Role::Admin, PASSWORD);
    let fill: i64 = diesel::sql_query("SELECT max(id) AS id FROM cage_slips")
        .get_result::<Id>(conn)
        .unwrap()
        .id;
    for (sql, id) in [
        (
            "INSERT INTO inventory_slip_voids (slip_id, reason, voided_by) \
             SELECT $1, 'late', id FROM users WHERE username = 'boss2'",
            closer,
        ),
        (
            "INSERT INTO opener_explanations (slip_id, explanation, written_by) \
             SELECT $1, 'late', id FROM users WHERE username = 'boss2'",
            closer,
        ),
        (
            "INSERT INTO cage_slip_steps (slip_id, step, signed_by, second_signed_by, reason) \
             SELECT $1, 'void', c.id, b.id, 'late' FROM users c, users b \
             WHERE c.username = 'adm' AND b.username = 'count1'",
            fill,
        ),
        (
            "INSERT INTO inventory_slips (table_id, kind, gaming_day, chip_set_version_id, \
                 counts, total, dealer_id, supervisor_id) \
             SELECT s.table_id, 'closer', s.gaming_day, s.chip_set_version_id, s.counts, \
                 s.total, s.dealer_id, s.supervisor_id FROM inventory_slips s WHERE s.id = $1",
            closer,
        ),
    ] {
        let err = diesel::sql_query(sql)
            .bind::<diesel::sql_types::BigInt, _>(id)
            .execute(conn)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("gaming day closed:"), "{sql}: {err}");
    }
    assert_eq!(p.row().await, closed);
    for sql in [
        "UPDATE closed_table_days SET fills = 0",
        "DELETE FROM closed_table_days",
    ] {
        let err = diesel::sql_query(sql)
            .execute(conn)
            .unwrap_err()
            .to_string();
        assert!(err.contains("immutable"), "{sql}: {err}");
    }
    // The count comes after the close, and is read as it is.
    p.count("T1", 300_000, 100_000);
    let counted = p.row().await;
    assert_eq!(
        (
            counted["drop_counted"].as_str(),
            counted["variance"].as_str()
        ),
        ("true", "0.00"),
        "{counted:?}"
    );
}

#[derive(QueryableByName)]
struct TableDayFigures {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    fills: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    closer: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    rounds: i64,
}

#[tokio::test]
async fn the_hold_chart_and_a_bad_range_answer_clearly() {
    let p = pit().await;
    p.play().await;
    p.count("T1", 300_000, 100_000);
    p.slip("closer", chips_of(1_955_000)).await;
    let res = p
        .boss
        .get(&format!(
            "/reports/accounting/hold.svg?day={}&currency=PHP",
            p.day
        ))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let svg = res.text().await.unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("T1: hold 13.8 %"),
        "{svg}"
    );
    let res = p.boss.get("/reports/accounting?day=yesterday").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = p
        .boss
        .get("/reports/accounting?from=2026-01-01&to=2026-12-31")
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.text().await.unwrap().contains("at most 92 gaming days"));
    let res = p.boss.get("/reports/accounting?table=NOPE").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("There is no table NOPE."));
    let res = p.dealer.get("/reports/accounting").await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

/// A property over random shifts, one at each of three tables: random rounds (the bets drawn),
/// buy-ins, fills and credits, then an honest closer and count. Each table's win by inventory
/// equals its win by rounds, to the centavo.
#[tokio::test]
async fn random_honest_shifts_reconcile_to_zero() {
    use rand::{Rng, SeedableRng};
    let seed: u64 = rand::random();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let p = pit().await;
    let codes = ["T1", "T2", "T3"];
    for code in &codes[1..] {
        create_table(&p.dealer, code);
    }
    let mut numbers = (1..).map(|n: i32| n);
    for (t, code) in codes.iter().enumerate() {
        // The opener: 10,000 to 60,000 in 1,000 chips and some small ones.
        let opener = rng.random_range(10..60) * 100_000 + rng.random_range(0..40) * 2_500;
        p.slip_at(code, "opener", chips_of(opener)).await;
        p.dealer.sign_on_at(code).await;
        let (mut tray, mut cash, mut markers) = (opener, 0, 0);
        for n in 0..rng.random_range(1..6) {
            match rng.random_range(0..4) {
                0 => {
                    let bets = [
                        rng.random_range(1..=2) * 5_000,
                        rng.random_range(1..=2) * 5_000,
                        rng.random_range(1..=2) * 5_000,
                    ];
                    let (round, house) = round_with(bets);
                    let key = format!("prop-{t}-{n:04}");
                    let (status, body) = record(&p.dealer, code, &key, round).await;
                    assert_eq!(status, StatusCode::CREATED, "seed {seed}: {body}");
                    tray += house;
                }
                1 => {
                    let amount = rng.random_range(1..200) * 2_500;
                    if rng.random_bool(0.8) {
                        p.buy_in(code, rng.random_range(1..=3), "cash", amount)
                            .await;
                        cash += amount;
                    } else {
                        p.buy_in(code, rng.random_range(1..=3), "marker", amount)
                            .await;
                        markers += amount;
                    }
                    tray -= amount;
                }
                2 => {
                    let thousands = rng.random_range(1..10);
                    p.cage(code, "fill", numbers.next().unwrap_or(1), thousands);
                    tray += thousands * 100_000;
                }
                _ => {
                    let thousands = rng.random_range(1..5);
                    if tray >= thousands * 100_000 {
                        p.cage(code, "credit", numbers.next().unwrap_or(1), thousands);
                        tray -= thousands * 100_000;
                    }
                }
            }
        }
        p.dealer.sign_off_at(code).await;
        p.count(code, cash, markers);
        p.slip_at(code, "closer", chips_of(tray)).await;
    }
    let rows = p.rows().await;
    assert_eq!(rows.len(), 3, "seed {seed}: {rows:?}");
    for row in rows {
        assert_eq!(row["variance"], "0.00", "seed {seed}: {row:?}");
        assert_eq!(
            row["inventory_win"], row["rounds_win"],
            "seed {seed}: {row:?}"
        );
        assert_eq!(row["final"], "true", "seed {seed}: {row:?}");
    }
    assert!(investigations_of(&p.dealer).is_empty(), "seed {seed}");
}

/// The shifts of a closed day are read from the sums its close wrote (`closed_day_round_sums`),
/// not round by round: the report reads the same before and after the close, a void round out of
/// its shift's win and each shift its own rounds; the sums are one row a shift, and never change.
#[tokio::test]
async fn a_closed_day_reads_the_same_from_the_sums_its_close_wrote() {
    let p = pit().await;
    p.slip("opener", [40, 20, 10, 10]).await;
    let mut ids = Vec::new();
    for (shift, seat, kind, amount) in [(1, 1, "cash", 300_000), (2, 2, "marker", 100_000)] {
        p.dealer.sign_on_at("T1").await;
        for n in 1..=2 {
            ids.push(p.round(&format!("sums-{shift}-{n:04}")).await);
        }
        p.buy_in("T1", seat, kind, amount).await;
        p.dealer.sign_off_at("T1").await;
    }
    p.void(ids[1]).await;
    // A buy-in recorded and voided: it counts for nothing, open or closed.
    p.dealer.sign_on_at("T1").await;
    p.buy_in("T1", 3, "cash", 200_000).await;
    p.dealer.sign_off_at("T1").await;
    let res = p
        .boss
        .post_form(
            &format!("/tables/T1/buy-ins/{}/void", last_buy_in(&p.dealer)),
            &[("reason", "wrong table")],
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    p.count("T1", 300_000, 100_000);
    // The tray took all four rounds: 18,000 − 4,000 + 4 × 275 = 15,100.
    p.slip("closer", chips_of(1_510_000)).await;
    let report = || async {
        let page = p.page().await;
        (
            p.row().await,
            section(&page, "id=\"shifts\"").to_owned(),
            section(&page, "id=\"dealers\"").to_owned(),
        )
    };
    let open = report().await;
    assert_eq!(open.0["house_result"], "825.00");
    assert_eq!(open.0["variance"], "275.00");
    assert!(
        open.1.contains("PHP +275.00") && open.1.contains("PHP +550.00"),
        "{}",
        open.1
    );

    p.dealer.end_today();
    let res = p
        .boss
        .post_form(&format!("/days/{}/close", p.day), &[("confirm", "yes")])
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(p.dealer.audit("day.closed").len(), 1);
    let sums: Vec<(i64, i64, i64)> = diesel::sql_query(
        "SELECT house, rounds, void_rounds FROM closed_day_round_sums \
         WHERE gaming_day = $1 ORDER BY shift_id",
    )
    .bind::<diesel::sql_types::Date, _>(p.day)
    .load::<Sums>(&mut p.dealer.conn())
    .unwrap()
    .into_iter()
    .map(|s| (s.house, s.rounds, s.void_rounds))
    .collect();
    assert_eq!(sums, [(27_500, 1, 1), (55_000, 2, 0)]);
    let drops: Vec<(i64, i64)> = diesel::sql_query(
        "SELECT cash, non_cash FROM closed_day_drop_sums WHERE gaming_day = $1 ORDER BY shift_id",
    )
    .bind::<diesel::sql_types::Date, _>(p.day)
    .load::<DropSums>(&mut p.dealer.conn())
    .unwrap()
    .into_iter()
    .map(|s| (s.cash, s.non_cash))
    .collect();
    assert_eq!(
        drops,
        [(300_000, 0), (0, 100_000), (0, 0)],
        "the third shift's is void"
    );
    assert_eq!(report().await, open);
    for sql in [
        "UPDATE closed_day_round_sums SET house = 0",
        "DELETE FROM closed_day_round_sums",
        "UPDATE closed_day_drop_sums SET cash = 0",
        "DELETE FROM closed_day_drop_sums",
    ] {
        let err = diesel::sql_query(sql)
            .execute(&mut p.dealer.conn())
            .unwrap_err()
            .to_string();
        assert!(err.contains("immutable"), "{sql}: {err}");
    }
}

#[derive(QueryableByName)]
struct DropSums {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    cash: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    non_cash: i64,
}

#[derive(QueryableByName)]
struct Sums {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    house: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    rounds: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    void_rounds: i64,
}

/// The page's `<section ...>` whose opening tag holds `marker`, up to its end.
fn section<'a>(page: &'a str, marker: &str) -> &'a str {
    let start = page
        .find(marker)
        .unwrap_or_else(|| panic!("no section {marker}"));
    let end = page[start..]
        .find("</section>")
        .map_or(page.len(), |e| start + e);
    &page[start..end]
}
