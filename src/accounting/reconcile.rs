//! Win, hold and the reconciliation (docs/accounting.md): each table's gaming day read from its
//! documents (opener, closer, fills and credits received, buy-ins, the count) and from its
//! rounds (their house result, the points game's fees), the two wins compared, the variance's
//! likely causes listed with the pages where they are dealt with, and the investigations a
//! flagged day opens and a pit manager closes.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use diesel::PgConnection;
use serde_json::json;

use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::{InvestigationId, ShiftId, TableId, UserId};
use crate::db::reconciliation::{
    self as rows, ChipEventRow, InvestigationRow, NewInvestigation, ShiftRow, TableDayRow,
};
use crate::db::users::Role;
use crate::rules::money::Money;
use crate::rules::reconciliation::{
    self as arithmetic, ChipEvent, Documents, Reconciliation, ShiftSpan, Tolerance,
};

/// The most gaming days one accounting report covers (as the day's report: a quarter).
pub const MOST_DAYS: i64 = 92;

/// The days a day's hold is compared with: the table's hold over the 30 days before it.
pub const ROLLING_DAYS: i64 = 30;

/// What the reconciliation is measured against: the property's tolerance and hold band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub tolerance: Tolerance,
    /// Basis points (400: ±4 percentage points).
    pub hold_band: i64,
}

/// Something that explains (or may explain) why a table's two wins differ or are not final,
/// in words, with the page where it is seen to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub words: String,
    pub link: String,
}

/// One table's gaming day reconciled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDay {
    pub table: TableId,
    pub code: String,
    pub currency: String,
    pub day: NaiveDate,
    pub points_game: bool,
    pub documents: Documents,
    /// Buy-ins recorded at the table, cash and non-cash.
    pub bought_cash: Money,
    pub bought_non_cash: Money,
    /// The count's cash and non-cash, when counted.
    pub counted: Option<(Money, Money)>,
    pub house: Money,
    pub fees: Money,
    pub rounds: i64,
    /// An opener of the day holds the table until a pit manager explains it.
    pub held: bool,
    /// Fills and credits requested or issued, not yet received.
    pub cage_open: i64,
    pub reconciliation: Reconciliation,
    /// The table's hold over the [`ROLLING_DAYS`] before, where those days have a drop.
    pub rolling_hold: Option<i64>,
    /// The day's hold is outside the band around `rolling_hold`.
    pub hold_flagged: bool,
    pub causes: Vec<Cause>,
}

impl TableDay {
    /// The drop: counted, or recorded while the count is pending.
    pub fn drop(&self) -> Money {
        self.documents.drop.amount()
    }

    /// Whether someone should look at this table-day: its two wins differ or are not final (it
    /// has causes listed), its variance is flagged, or its hold is outside the band.
    pub fn needs_attention(&self) -> bool {
        !self.causes.is_empty() || self.reconciliation.flagged || self.hold_flagged
    }
}

/// The sum of many table-days of one currency: drop and win by inventory over the days whose
/// inventory win is known, and the win by rounds over all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    pub table_days: usize,
    /// Table-days with an inventory win (opener and closer in).
    pub reconciled: usize,
    pub drop: i128,
    pub inventory_win: i128,
    pub rounds_win: i128,
    pub variance: i128,
    pub flagged: usize,
    pub pending_counts: usize,
}

impl Totals {
    fn add(&mut self, day: &TableDay) {
        self.table_days += 1;
        self.rounds_win += i128::from(day.reconciliation.rounds_win.minor_units());
        if !day.documents.drop.is_counted() {
            self.pending_counts += 1;
        }
        if let (Some(win), Some(variance)) = (
            day.reconciliation.inventory_win,
            day.reconciliation.variance,
        ) {
            self.reconciled += 1;
            self.drop += i128::from(day.drop().minor_units());
            self.inventory_win += i128::from(win.minor_units());
            self.variance += i128::from(variance.minor_units());
        }
        if day.reconciliation.flagged {
            self.flagged += 1;
        }
    }

    /// The hold of the reconciled days, in basis points.
    pub fn hold(&self) -> Option<i64> {
        arithmetic::hold_of_sums(self.inventory_win, self.drop)
    }
}

/// One dealer's shift at a table: what was dropped and won by the rounds while they dealt. A
/// table's chips are counted at its opener and its closer: a shift has a win by inventory when
/// it was its table's one shift that day, or when the table was counted at its start and end
/// (a closer and an opener at each dealer change, as a casino that counts per shift does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShiftLine {
    pub shift: ShiftId,
    pub code: String,
    pub currency: String,
    pub day: NaiveDate,
    pub dealer: UserId,
    pub dealer_name: String,
    pub signed_on_at: DateTime<Utc>,
    pub signed_off_at: Option<DateTime<Utc>>,
    /// The buy-ins recorded during the shift (the count is of the table's whole day).
    pub drop: Money,
    /// The house result of the shift's rounds (void ones out) and its table fees.
    pub rounds_win: Money,
    pub rounds: i64,
    /// The rounds' win over the shift's drop, in basis points.
    pub hold: Option<i64>,
    /// The shift's win by inventory: its table's day's when it was the day's one shift, its own
    /// when the table was counted at its start and end.
    pub inventory_win: Option<Money>,
}

/// A dealer's shifts of one currency over the report's days.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DealerTotals {
    pub shifts: usize,
    pub rounds: i64,
    pub drop: i128,
    pub rounds_win: i128,
}

impl DealerTotals {
    fn add(&mut self, line: &ShiftLine) {
        self.shifts += 1;
        self.rounds += line.rounds;
        self.drop += i128::from(line.drop.minor_units());
        self.rounds_win += i128::from(line.rounds_win.minor_units());
    }

    /// The rounds' win over the drop of the dealer's shifts, in basis points.
    pub fn hold(&self) -> Option<i64> {
        arithmetic::hold_of_sums(self.rounds_win, self.drop)
    }
}

/// The dealer shifts `rows` as the report lists them. A shift's win by inventory is its
/// table's day's when it was the day's one shift; else its own when the table was counted at
/// its start and its end (`events`, [`arithmetic::shift_inventory_wins`]); else none.
fn shift_lines(
    rows: Vec<ShiftRow>,
    days: &[TableDay],
    events: &[ChipEventRow],
) -> Result<Vec<ShiftLine>, AccountingError> {
    let inventory: HashMap<(TableId, NaiveDate), Option<Money>> = days
        .iter()
        .map(|d| ((d.table, d.day), d.reconciliation.inventory_win))
        .collect();
    let by_shift = shift_wins(&rows, events)?;
    rows.into_iter()
        .map(|row| {
            let rounds_win = row
                .house
                .checked_add(row.fees)
                .map(Money::from_minor_units)
                .ok_or_else(|| {
                    AccountingError::BadStored(format!("the win of shift {}", row.shift_id))
                })?;
            let drop = Money::from_minor_units(row.bought);
            Ok(ShiftLine {
                inventory_win: if row.shifts_that_day == 1 {
                    inventory
                        .get(&(row.table_id, row.gaming_day))
                        .copied()
                        .flatten()
                } else {
                    by_shift.get(&row.shift_id).copied()
                },
                hold: arithmetic::hold_basis_points(rounds_win, drop),
                shift: row.shift_id,
                code: row.code,
                currency: row.currency,
                day: row.gaming_day,
                dealer: row.dealer_id,
                dealer_name: row.dealer,
                signed_on_at: row.signed_on_at,
                signed_off_at: row.signed_off_at,
                drop,
                rounds_win,
                rounds: row.rounds,
            })
        })
        .collect()
}

/// A table's chip events of one gaming day, each at its time.
type DayEvents = Vec<(DateTime<Utc>, ChipEvent)>;

/// The wins by inventory of the shifts of the table-days counted per shift, by shift.
fn shift_wins(
    rows: &[ShiftRow],
    events: &[ChipEventRow],
) -> Result<HashMap<ShiftId, Money>, AccountingError> {
    let mut by_day: BTreeMap<(TableId, NaiveDate), DayEvents> = BTreeMap::new();
    for row in events {
        let total = Money::from_minor_units(row.total);
        let event = match row.kind.as_str() {
            "opener" => ChipEvent::Opener(total),
            "closer" => ChipEvent::Closer(total),
            "fill" => ChipEvent::Fill(total),
            "credit" => ChipEvent::Credit(total),
            other => {
                return Err(AccountingError::BadStored(format!(
                    "a document of kind {other:?} at table {}",
                    row.table_id
                )))
            }
        };
        by_day
            .entry((row.table_id, row.gaming_day))
            .or_default()
            .push((row.at, event));
    }
    let mut shifts_of: HashMap<(TableId, NaiveDate), Vec<&ShiftRow>> = HashMap::new();
    for row in rows {
        let day = (row.table_id, row.gaming_day);
        if by_day.contains_key(&day) {
            shifts_of.entry(day).or_default().push(row);
        }
    }
    let mut wins = HashMap::new();
    for (day, events) in &by_day {
        let shifts = shifts_of.remove(day).unwrap_or_default();
        let spans: Vec<ShiftSpan<DateTime<Utc>>> = shifts
            .iter()
            .map(|r| ShiftSpan {
                on: r.signed_on_at,
                off: r.signed_off_at,
                drop: Money::from_minor_units(r.bought),
            })
            .collect();
        let found = arithmetic::shift_inventory_wins(events, &spans);
        for (shift, win) in shifts.iter().zip(found) {
            if let Some(win) = win {
                wins.insert(shift.shift_id, win);
            }
        }
    }
    Ok(wins)
}

/// An investigation as its page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Investigation {
    pub row: InvestigationRow,
    pub code: String,
    /// What was found, who closed it and when; `None` while open.
    pub closing: Option<(String, String, chrono::DateTime<chrono::Utc>)>,
}

/// The accounting report of gaming days `from` to `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub days: Vec<TableDay>,
    /// By currency: the range, the month to `to`, the year to `to`.
    pub range: BTreeMap<String, Totals>,
    pub month: BTreeMap<String, Totals>,
    pub year: BTreeMap<String, Totals>,
    /// By table over the range, by currency.
    pub tables: BTreeMap<(String, String), Totals>,
    /// Every dealer shift of the range, by day, table and time.
    pub shifts: Vec<ShiftLine>,
    /// By dealer (name, account, currency).
    pub dealers: BTreeMap<(String, UserId, String), DealerTotals>,
    /// Investigations of the range, and every one still open.
    pub investigations: Vec<Investigation>,
    pub settings: Settings,
}

/// Refuses a range that runs backwards or covers more than [`MOST_DAYS`].
pub fn check_range(from: NaiveDate, to: NaiveDate) -> Result<(), AccountingError> {
    if to < from {
        return Err(AccountingError::Refused(format!(
            "The range runs backwards: {from} is after {to}."
        )));
    }
    if (to - from).num_days() >= MOST_DAYS {
        return Err(AccountingError::Refused(format!(
            "A report covers at most {MOST_DAYS} gaming days; {from} to {to} is {} days.",
            (to - from).num_days() + 1
        )));
    }
    Ok(())
}

fn money(currency: &str, amount: Money) -> String {
    format!("{currency} {}", amount.major_text())
}

/// What may explain the day's variance, or keeps its figures from being final.
fn causes_of(row: &TableDayRow, open_drafts: &[String], today: NaiveDate) -> Vec<Cause> {
    let (code, day, currency) = (&row.code, row.gaming_day, &row.currency);
    let slips = format!("/tables/{code}/slips?day={day}");
    let mut causes = Vec::new();
    if row.opener.is_none() {
        causes.push(Cause {
            words: "no opener was signed".to_owned(),
            link: slips.clone(),
        });
    }
    if row.closer.is_none() {
        causes.push(Cause {
            words: "no closer yet".to_owned(),
            link: slips,
        });
    }
    let recorded = Money::from_minor_units(row.bought_cash.saturating_add(row.bought_non_cash));
    match (row.counted_cash, row.counted_non_cash) {
        (Some(cash), Some(non_cash)) => {
            let cash_off = cash.saturating_sub(row.bought_cash);
            let non_cash_off = non_cash.saturating_sub(row.bought_non_cash);
            if cash_off != 0 || non_cash_off != 0 {
                causes.push(Cause {
                    words: format!(
                        "the count differs from the buy-ins recorded: cash {}, non-cash {}",
                        money(currency, Money::from_minor_units(cash_off)),
                        money(currency, Money::from_minor_units(non_cash_off))
                    ),
                    link: format!("/count/{day}/{code}"),
                });
            }
        }
        _ => causes.push(Cause {
            words: format!(
                "the drop is not counted yet (buy-ins recorded: {})",
                money(currency, recorded)
            ),
            link: format!("/count/{day}/{code}"),
        }),
    }
    if row.void_rounds > 0 {
        causes.push(Cause {
            words: format!("{} round(s) voided", row.void_rounds),
            link: format!("/review?day={day}&table={}&void=void", row.table_id),
        });
    }
    if row.pending > 0 {
        causes.push(Cause {
            words: format!("{} round(s) waiting for approval", row.pending),
            link: format!("/review?day={day}&table={}&approval=pending", row.table_id),
        });
    }
    if row.cage_open > 0 {
        causes.push(Cause {
            words: format!("{} fill(s) or credit(s) not received", row.cage_open),
            link: format!("/tables/{code}/cage"),
        });
    }
    if day >= today && !open_drafts.is_empty() {
        causes.push(Cause {
            words: format!(
                "{} round(s) being entered, not confirmed",
                open_drafts.len()
            ),
            link: format!("/tables/{code}"),
        });
    }
    causes
}

/// A table's days with an inventory win, in order, and the running sums of win and drop.
type RunningSums = (Vec<NaiveDate>, Vec<(i64, i64)>);

/// The table-days of `rows` reconciled, each with its rolling hold from the rows before it
/// (`rows` must reach back [`ROLLING_DAYS`] before the first day wanted).
fn reconciled(
    rows: &[TableDayRow],
    wanted: impl Fn(NaiveDate) -> bool,
    drafts: &HashMap<TableId, Vec<String>>,
    settings: Settings,
    today: NaiveDate,
) -> Result<Vec<TableDay>, AccountingError> {
    // Per table, its days with an inventory win in day order, and the running sums of win and
    // drop over them: a day's 30 days before are two binary searches away.
    let mut known: HashMap<TableId, RunningSums> = HashMap::new();
    let mut ordered: Vec<&TableDayRow> = rows.iter().collect();
    ordered.sort_by_key(|r| (r.table_id, r.gaming_day));
    for row in ordered {
        let documents = row.documents();
        if let Some(win) = arithmetic::inventory_win(&documents) {
            let (days, sums) = known.entry(row.table_id).or_default();
            let (win_before, drop_before) = sums.last().copied().unwrap_or((0, 0));
            days.push(row.gaming_day);
            sums.push((
                win_before.saturating_add(win.minor_units()),
                drop_before.saturating_add(documents.drop.amount().minor_units()),
            ));
        }
    }
    let rolling = |table: TableId, day: NaiveDate| -> (i64, i64) {
        let Some((days, sums)) = known.get(&table) else {
            return (0, 0);
        };
        let since = day - chrono::Duration::days(ROLLING_DAYS);
        let (start, end) = (
            days.partition_point(|d| *d < since),
            days.partition_point(|d| *d < day),
        );
        let at = |i: usize| if i == 0 { (0, 0) } else { sums[i - 1] };
        let ((win_end, drop_end), (win_start, drop_start)) = (at(end), at(start));
        (
            win_end.saturating_sub(win_start),
            drop_end.saturating_sub(drop_start),
        )
    };
    let mut days = Vec::new();
    for row in rows.iter().filter(|r| wanted(r.gaming_day)) {
        let documents = row.documents();
        let reconciliation = arithmetic::reconcile(
            &documents,
            Money::from_minor_units(row.house),
            Money::from_minor_units(row.fees),
            settings.tolerance,
        )
        .ok_or_else(|| {
            AccountingError::BadStored(format!("the figures of {} on {}", row.code, row.gaming_day))
        })?;
        let (win, drop) = rolling(row.table_id, row.gaming_day);
        let rolling_hold = arithmetic::hold_basis_points(
            Money::from_minor_units(win),
            Money::from_minor_units(drop),
        );
        let hold_flagged = match (reconciliation.hold, rolling_hold) {
            (Some(hold), Some(_)) => arithmetic::hold_out_of_band(
                hold,
                Money::from_minor_units(win),
                Money::from_minor_units(drop),
                settings.hold_band,
            )
            .unwrap_or(false),
            _ => false,
        };
        let open = drafts.get(&row.table_id).map(Vec::as_slice).unwrap_or(&[]);
        days.push(TableDay {
            table: row.table_id,
            code: row.code.clone(),
            currency: row.currency.clone(),
            day: row.gaming_day,
            points_game: row.points_game,
            documents,
            bought_cash: Money::from_minor_units(row.bought_cash),
            bought_non_cash: Money::from_minor_units(row.bought_non_cash),
            counted: row
                .counted_cash
                .zip(row.counted_non_cash)
                .map(|(c, n)| (Money::from_minor_units(c), Money::from_minor_units(n))),
            house: Money::from_minor_units(row.house),
            fees: Money::from_minor_units(row.fees),
            rounds: row.rounds,
            held: row.held,
            cage_open: row.cage_open,
            reconciliation,
            rolling_hold,
            hold_flagged,
            causes: if reconciliation.variance == Some(Money::ZERO) && reconciliation.is_final {
                Vec::new()
            } else {
                causes_of(row, open, today)
            },
        });
    }
    Ok(days)
}

fn drafts_of(
    conn: &mut PgConnection,
    rows: &[TableDayRow],
) -> Result<HashMap<TableId, Vec<String>>, AccountingError> {
    let mut tables: Vec<TableId> = rows.iter().map(|r| r.table_id).collect();
    tables.sort();
    tables.dedup();
    let mut drafts: HashMap<TableId, Vec<String>> = HashMap::new();
    for (table, key) in rows::open_drafts(conn, &tables)? {
        drafts.entry(table).or_default().push(key);
    }
    Ok(drafts)
}

/// One table's gaming day reconciled, in the caller's transaction (`None`: nothing happened
/// at the table that day).
pub fn table_day(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
    settings: Settings,
    today: NaiveDate,
) -> Result<Option<TableDay>, AccountingError> {
    let rows = rows::table_days(
        conn,
        day - chrono::Duration::days(ROLLING_DAYS),
        day,
        Some(table),
    )?;
    let drafts = drafts_of(conn, &rows)?;
    Ok(reconciled(&rows, |d| d == day, &drafts, settings, today)?
        .into_iter()
        .next())
}

/// A table's rounds of one gaming day as the pit board summed them (its own statement reads
/// them once; the board's accounting takes them from there rather than summing them again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRounds {
    pub table: TableId,
    pub code: String,
    pub currency: String,
    pub points_game: bool,
    /// The house result of the rounds not void, in minor units.
    pub house: i64,
    pub rounds: i64,
    pub void_rounds: i64,
    /// Rounds of the day waiting for approval, not void.
    pub pending: i64,
}

/// Every table's accounting of gaming day `day` as the pit board shows it, by table (a table
/// with nothing recorded that day is absent), its rounds' figures `played` (every table's, as
/// the board summed them). No rolling hold: the board reads one day only.
pub fn board_lines(
    conn: &mut PgConnection,
    day: NaiveDate,
    played: &[DayRounds],
    settings: Settings,
) -> Result<HashMap<TableId, TableDay>, AccountingError> {
    let rows = with_rounds(rows::document_days(conn, day)?, day, played);
    let drafts = drafts_of(conn, &rows)?;
    Ok(reconciled(&rows, |d| d == day, &drafts, settings, day)?
        .into_iter()
        .map(|d| (d.table, d))
        .collect())
}

/// The table-days of gaming day `day` with their documents (`documents`, rounds' figures zero),
/// given the rounds' figures of `played`: as `rows::table_days` reads that day, a table that
/// only dealt rounds included.
fn with_rounds(
    mut documents: Vec<TableDayRow>,
    day: NaiveDate,
    played: &[DayRounds],
) -> Vec<TableDayRow> {
    for table in played {
        if table.rounds == 0 && table.void_rounds == 0 {
            continue;
        }
        let at = match documents.iter().position(|r| r.table_id == table.table) {
            Some(at) => at,
            None => {
                documents.push(TableDayRow {
                    table_id: table.table,
                    gaming_day: day,
                    code: table.code.clone(),
                    currency: table.currency.clone(),
                    points_game: false,
                    opener: None,
                    closer: None,
                    held: false,
                    fills: 0,
                    credits: 0,
                    cage_open: 0,
                    bought_cash: 0,
                    bought_non_cash: 0,
                    counted: None,
                    counted_cash: None,
                    counted_non_cash: None,
                    fees: 0,
                    house: 0,
                    rounds: 0,
                    void_rounds: 0,
                    pending: 0,
                });
                documents.len() - 1
            }
        };
        let row = &mut documents[at];
        row.points_game = table.points_game;
        row.house = table.house;
        row.rounds = table.rounds;
        row.void_rounds = table.void_rounds;
        row.pending = table.pending;
    }
    documents.sort_by(|a, b| a.code.cmp(&b.code));
    documents
}

fn investigations_of(
    conn: &mut PgConnection,
    rows: Vec<InvestigationRow>,
) -> Result<Vec<Investigation>, AccountingError> {
    let ids: Vec<InvestigationId> = rows.iter().map(|r| r.id).collect();
    let closings = rows::closings_of(conn, &ids)?;
    let mut people: Vec<UserId> = closings.iter().map(|c| c.closed_by).collect();
    people.sort();
    people.dedup();
    let names: HashMap<UserId, String> = crate::db::accounting::names_of(conn, &people)?
        .into_iter()
        .collect();
    let mut codes: HashMap<TableId, String> = HashMap::new();
    let mut found = Vec::new();
    for row in rows {
        let code = match codes.get(&row.table_id) {
            Some(code) => code.clone(),
            None => {
                let code = crate::db::accounting::par_table(conn, row.table_id)?
                    .map(|t| t.code)
                    .unwrap_or_else(|| format!("table {}", row.table_id));
                codes.insert(row.table_id, code.clone());
                code
            }
        };
        let closing = closings
            .iter()
            .find(|c| c.investigation_id == row.id)
            .map(|c| {
                (
                    c.findings.clone(),
                    names
                        .get(&c.closed_by)
                        .cloned()
                        .unwrap_or_else(|| format!("user {}", c.closed_by)),
                    c.closed_at,
                )
            });
        found.push(Investigation { row, code, closing });
    }
    Ok(found)
}

/// The accounting report of gaming days `from` to `to` (of the table with code `table`, or of
/// every table).
pub async fn report(
    db: &Db,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<String>,
    settings: Settings,
    today: NaiveDate,
) -> Result<Report, AccountingError> {
    check_range(from, to)?;
    db.run(move |conn| {
        let table = match table {
            Some(code) => Some(
                crate::db::accounting::par_table_by_code(conn, &code)?
                    .ok_or_else(|| AccountingError::Refused(format!("There is no table {code}.")))?
                    .id,
            ),
            None => None,
        };
        let year_start = NaiveDate::from_ymd_opt(to.year(), 1, 1).unwrap_or(to);
        let month_start = to.with_day(1).unwrap_or(to);
        let reach = (from - chrono::Duration::days(ROLLING_DAYS)).min(year_start);
        let rows = rows::table_days(conn, reach, to, table)?;
        let drafts = drafts_of(conn, &rows)?;
        let all = reconciled(
            &rows,
            |d| d >= year_start.min(from),
            &drafts,
            settings,
            today,
        )?;
        let (mut range, mut month, mut year) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
        let mut tables: BTreeMap<(String, String), Totals> = BTreeMap::new();
        for day in &all {
            let currency = day.currency.clone();
            if day.day >= from {
                range
                    .entry(currency.clone())
                    .or_insert_with(Totals::default)
                    .add(day);
                tables
                    .entry((day.code.clone(), currency.clone()))
                    .or_default()
                    .add(day);
            }
            if day.day >= month_start {
                month
                    .entry(currency.clone())
                    .or_insert_with(Totals::default)
                    .add(day);
            }
            if day.day >= year_start {
                year.entry(currency)
                    .or_insert_with(Totals::default)
                    .add(day);
            }
        }
        let investigations = rows::investigations_listed(conn, from, to)?
            .into_iter()
            .filter(|i| table.is_none_or(|t| t == i.table_id))
            .collect();
        let investigations = investigations_of(conn, investigations)?;
        let days: Vec<TableDay> = all.into_iter().filter(|d| d.day >= from).collect();
        let shifts = shift_lines(
            rows::dealer_shifts(conn, from, to, table)?,
            &days,
            &rows::chip_events(conn, from, to, table)?,
        )?;
        let mut dealers: BTreeMap<(String, UserId, String), DealerTotals> = BTreeMap::new();
        for line in &shifts {
            dealers
                .entry((line.dealer_name.clone(), line.dealer, line.currency.clone()))
                .or_default()
                .add(line);
        }
        Ok(Report {
            from,
            to,
            days,
            range,
            month,
            year,
            tables,
            shifts,
            dealers,
            investigations,
            settings,
        })
    })
    .await
}

/// Opens an investigation of table `table`'s gaming day `day` when its figures are final and
/// its variance beyond the tolerance, unless one with the same variance was opened before; in
/// the caller's transaction, after the document that made them final was written. Its event
/// (`investigation.opened`) is on the table's chain, by the account whose document it was.
pub fn open_if_flagged(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
    settings: Settings,
    actor: &Actor,
) -> Result<Option<InvestigationId>, AccountingError> {
    let Some(found) = table_day(conn, table, day, settings, day)? else {
        return Ok(None);
    };
    let rec = found.reconciliation;
    let (Some(inventory_win), Some(variance)) = (rec.inventory_win, rec.variance) else {
        return Ok(None);
    };
    if !(rec.is_final && rec.flagged) {
        return Ok(None);
    }
    let before = rows::investigations_of(conn, table, day)?;
    if before.iter().any(|i| i.variance == variance.minor_units()) {
        return Ok(None);
    }
    let row = rows::insert_investigation(
        conn,
        &NewInvestigation {
            table_id: table,
            gaming_day: day,
            currency: &found.currency,
            inventory_win: inventory_win.minor_units(),
            rounds_win: rec.rounds_win.minor_units(),
            variance: variance.minor_units(),
            tolerance: rec.tolerance.minor_units(),
        },
    )?;
    let causes: Vec<String> = found.causes.iter().map(|c| c.words.clone()).collect();
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: &format!("table:{table}"),
            actor,
            action: AuditAction::InvestigationOpened,
            target: format!("investigation:{}", row.id),
            details: json!({
                "investigation": row.id,
                "table": found.code,
                "currency": found.currency,
                "inventory_win": inventory_win,
                "rounds_win": rec.rounds_win,
                "variance": variance,
                "tolerance": rec.tolerance,
                "drop": found.drop(),
                "drop_counted": found.documents.drop.is_counted(),
                "causes": causes,
            }),
            gaming_day: Some(day),
            table_id: Some(table),
        },
    )?;
    Ok(Some(row.id))
}

/// The account closing an investigation.
#[derive(Debug, Clone)]
pub struct Closer {
    pub id: UserId,
    pub role: Role,
    pub actor: Actor,
}

/// Closes investigation `id` with what was found, by a pit manager or an administrator who
/// signed none of the table's slips that day, dealt none of its shifts and recorded none of
/// its buy-ins (they would be closing an inquiry into their own work).
pub async fn close(
    db: &Db,
    id: InvestigationId,
    findings: String,
    by: Closer,
) -> Result<Investigation, AccountingError> {
    db.run(move |conn| {
        use diesel::Connection;
        conn.transaction(|conn| {
            if !matches!(by.role, Role::Supervisor | Role::Admin) {
                return Err(AccountingError::Refused(
                    "Only a pit manager or an administrator closes an investigation.".to_owned(),
                ));
            }
            let findings = findings.trim();
            if findings.is_empty() {
                return Err(AccountingError::Refused(
                    "Write what was found before closing the investigation.".to_owned(),
                ));
            }
            if findings.chars().count() > 4_000 {
                return Err(AccountingError::Refused(
                    "What was found is at most 4,000 characters.".to_owned(),
                ));
            }
            let row =
                rows::investigation(conn, id)?.ok_or(AccountingError::NotFound("investigation"))?;
            if !rows::closings_of(conn, &[id])?.is_empty() {
                return Err(AccountingError::Refused(
                    "This investigation is closed already.".to_owned(),
                ));
            }
            if rows::worked_at(conn, row.table_id, row.gaming_day, by.id)? {
                return Err(AccountingError::Refused(
                    "You signed a slip, dealt or recorded a buy-in at this table that day: \
                     another pit manager closes this investigation."
                        .to_owned(),
                ));
            }
            rows::insert_closing(conn, id, findings, by.id)?;
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &format!("table:{}", row.table_id),
                    actor: &by.actor,
                    action: AuditAction::InvestigationClosed,
                    target: format!("investigation:{id}"),
                    details: json!({
                        "investigation": id,
                        "variance": Money::from_minor_units(row.variance),
                        "findings": findings,
                    }),
                    gaming_day: Some(row.gaming_day),
                    table_id: Some(row.table_id),
                },
            )?;
            let mut found = investigations_of(conn, vec![row])?;
            found
                .pop()
                .ok_or(AccountingError::NotFound("investigation"))
        })
    })
    .await
}
