//! The accounting export: every document of table accounting of the range (one table's or
//! every table's), one row per document line, and one `table_day` row per table and gaming day
//! with its reconciliation; and its check, which needs no database: every document's lines
//! add up to its total, and each table-day's win by inventory, win by rounds, variance and hold
//! follow from the file's own documents (void ones left out).
//!
//! The rows come by kind of document (openers and closers, fills and credits, buy-ins, fees,
//! counts), each document's rows together, and then the table-days. A row names its document
//! (`document`, `document_id`), the document's gaming day, table, currency, total and state, and
//! what the line is (`line`):
//! - `chips` (openers, closers, fills, credits) and `notes` (counts): a denomination, its count
//!   and their amount;
//! - `cash`, `marker`, `chip_voucher`: a buy-in of that kind, or a count's cash (as one total
//!   where the currency has no banknotes listed) and its non-cash items; `fee`: a table fee;
//! - `requested`, `issued`, `received`: a signed step of a fill or credit; `printed`,
//!   `reprinted`: its prints (`count`: the copy number); `void`: the void of any document (its
//!   reason in `note`); `explanation`: an opener's explanation;
//! - `difference`: an opener's count of a denomination less that of the closer it was checked
//!   against (`reference_id`), and its value (not part of the opener's total).
//!
//! Amounts are in the currency's minor units. What is held in memory while writing is one
//! document; while checking, one document, the sums of each table-day and each closer's chips.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;

use crate::db::export as db;
use crate::db::ids::TableId;
use crate::db::reconciliation::{self as reconciliation, TableDayRow};
use crate::rules::accounting::{differences, Denominations, Difference, Inventory};
use crate::rules::money::Money;
use crate::rules::reconciliation::{self as arithmetic, Documents, Drop};

use super::check::{Checker, Problems, Row};
use super::table::{ColumnKind, Field, Format, TableWriter};
use super::{table_chains, utc_text, Clock, ExportError, Manifest, Query, Written};

use ColumnKind::{Bool, Int, Text};

/// The accounting export's own columns (between `row` and the row's sum).
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("document", Text),
    ("document_id", Int),
    ("slip_number", Text),
    ("gaming_day", Text),
    ("table", Text),
    ("currency", Text),
    ("line", Text),
    ("denomination", Int),
    ("count", Int),
    ("amount", Int),
    ("total", Int),
    ("state", Text),
    ("seat", Int),
    ("shift_id", Int),
    ("signed_by", Text),
    ("second_signed_by", Text),
    ("at_utc", Text),
    ("at_local", Text),
    ("note", Text),
    ("opener", Int),
    ("closer", Int),
    ("fills", Int),
    ("credits", Int),
    ("drop", Int),
    ("drop_counted", Bool),
    ("house_result", Int),
    ("fees", Int),
    ("inventory_win", Int),
    ("rounds_win", Int),
    ("variance", Int),
    ("hold_percent", Text),
    ("reference_id", Int),
];

/// How many of [`COLUMNS`] an export written before `reference_id` has (its openers without
/// their differences, its fills and credits without their prints).
pub const BEFORE_REFERENCE: usize = 31;

/// Where each column is in a row (`row` is 0).
mod at {
    pub const DOCUMENT: usize = 1;
    pub const DOCUMENT_ID: usize = 2;
    pub const SLIP_NUMBER: usize = 3;
    pub const GAMING_DAY: usize = 4;
    pub const TABLE: usize = 5;
    pub const CURRENCY: usize = 6;
    pub const LINE: usize = 7;
    pub const DENOMINATION: usize = 8;
    pub const COUNT: usize = 9;
    pub const AMOUNT: usize = 10;
    pub const TOTAL: usize = 11;
    pub const STATE: usize = 12;
    pub const OPENER: usize = 20;
    pub const CLOSER: usize = 21;
    pub const FILLS: usize = 22;
    pub const CREDITS: usize = 23;
    pub const DROP: usize = 24;
    pub const DROP_COUNTED: usize = 25;
    pub const HOUSE_RESULT: usize = 26;
    pub const FEES: usize = 27;
    pub const INVENTORY_WIN: usize = 28;
    pub const ROUNDS_WIN: usize = 29;
    pub const VARIANCE: usize = 30;
    pub const HOLD_PERCENT: usize = 31;
    pub const REFERENCE_ID: usize = 32;
}

/// The kinds of document, as the `document` column names them.
const DOCUMENTS: [&str; 7] = [
    "opener", "closer", "fill", "credit", "buy_in", "fee", "count",
];

/// The `document` of a table-day's row.
const TABLE_DAY: &str = "table_day";

/// The lines that carry an amount, and the documents each belongs to.
fn value_line_of(line: &str) -> Option<&'static [&'static str]> {
    match line {
        "chips" => Some(&["opener", "closer", "fill", "credit"]),
        "notes" => Some(&["count"]),
        "cash" | "marker" | "chip_voucher" => Some(&["buy_in", "count"]),
        "fee" => Some(&["fee"]),
        _ => None,
    }
}

/// The lines that carry no amount (a step, a print, a void, an explanation), and their
/// documents.
fn record_line_of(line: &str) -> Option<&'static [&'static str]> {
    match line {
        "requested" | "issued" | "received" | PRINTED | REPRINTED => Some(&["fill", "credit"]),
        "void" => Some(&DOCUMENTS),
        "explanation" => Some(&["opener"]),
        _ => None,
    }
}

/// A fill's or credit's first print (`count`: its copy number, 1), and each later one.
const PRINTED: &str = "printed";
const REPRINTED: &str = "reprinted";

/// An opener's line for one denomination whose count differs from the previous closer's
/// (`reference_id`): `count` is the opener's less the closer's, `amount` that many chips' value.
/// Not part of the opener's total.
const DIFFERENCE: &str = "difference";

/// A line whose amount is a count of a denomination.
fn is_denominated(line: &str) -> bool {
    matches!(line, "chips" | "notes")
}

/// Hold in basis points as the file writes it: percent with two decimals (`13.75`, `-2.50`).
fn hold_text(basis_points: Option<i64>) -> Option<String> {
    basis_points.map(|bp| {
        let sign = if bp < 0 { "-" } else { "" };
        let abs = bp.unsigned_abs();
        format!("{sign}{}.{:02}", abs / 100, abs % 100)
    })
}

/// An opener's differences from the previous closer it was checked against, found as the
/// opener's check found them (`rules::accounting::differences`); none for a closer or for an
/// opener with no closer before it.
fn differences_of(slip: &db::InventorySlipLine) -> Result<Vec<Difference>, ExportError> {
    let (Some(denominations), Some(counts)) = (&slip.previous_denominations, &slip.previous_counts)
    else {
        return Ok(Vec::new());
    };
    let inventory = |denominations: &[Option<i64>], counts: &[Option<i64>]| {
        let amounts: Vec<Money> = denominations
            .iter()
            .map(|d| d.map(Money::from_minor_units))
            .collect::<Option<_>>()?;
        let counts: Vec<i64> = counts.iter().copied().collect::<Option<_>>()?;
        Inventory::new(Denominations::new(amounts).ok()?, counts).ok()
    };
    let bad = || {
        ExportError::Stored(format!(
            "inventory slip {} or the closer it was checked against does not read",
            slip.id
        ))
    };
    let before = inventory(denominations, counts).ok_or_else(bad)?;
    let after = inventory(&slip.denominations, &slip.counts).ok_or_else(bad)?;
    differences(&before, &after).ok_or_else(bad)
}

/// What every row of one document repeats.
struct Doc<'a> {
    document: &'static str,
    id: i64,
    slip_number: Option<String>,
    gaming_day: NaiveDate,
    table: &'a str,
    currency: &'a str,
    total: i64,
    state: &'static str,
}

/// One line of a document: what differs from row to row.
#[derive(Debug, Default, Clone, Copy)]
struct DocLine<'a> {
    line: &'a str,
    denomination: Option<i64>,
    count: Option<i64>,
    amount: Option<i64>,
    seat: Option<i64>,
    shift_id: Option<i64>,
    signed_by: Option<&'a str>,
    second_signed_by: Option<&'a str>,
    at: Option<DateTime<Utc>>,
    note: Option<&'a str>,
    reference: Option<i64>,
}

/// The rows being written, with the casino's clock for local times.
struct Rows<W: Write> {
    writer: TableWriter<W>,
    fields: Vec<Field>,
    clock: Clock,
}

impl<W: Write> Rows<W> {
    fn line(&mut self, doc: &Doc<'_>, line: DocLine<'_>) -> Result<(), ExportError> {
        let fields = &mut self.fields;
        fields.clear();
        fields.extend([
            Field::text(doc.document),
            Field::Int(doc.id),
            Field::opt_text(doc.slip_number.as_deref()),
            Field::Text(doc.gaming_day.to_string()),
            Field::text(doc.table),
            Field::text(doc.currency),
            Field::text(line.line),
            Field::opt_int(line.denomination),
            Field::opt_int(line.count),
            Field::opt_int(line.amount),
            Field::Int(doc.total),
            Field::text(doc.state),
            Field::opt_int(line.seat),
            Field::opt_int(line.shift_id),
            Field::opt_text(line.signed_by),
            Field::opt_text(line.second_signed_by),
            Field::opt_text(line.at.map(utc_text)),
            Field::opt_text(line.at.map(|at| self.clock.local(at))),
            Field::opt_text(line.note),
        ]);
        // A document's row has no table-day figures.
        fields.resize(at::REFERENCE_ID - 1, Field::Null);
        fields.push(Field::opt_int(line.reference));
        fields.resize(COLUMNS.len(), Field::Null);
        self.writer.write(fields)
    }

    /// A document's lines of chips (or banknotes), each `like` but for its denomination, count
    /// and amount: `denominations` and `counts` in order.
    fn denominated(
        &mut self,
        doc: &Doc<'_>,
        denominations: &[Option<i64>],
        counts: &[Option<i64>],
        like: DocLine<'_>,
    ) -> Result<(), ExportError> {
        if denominations.len() != counts.len() {
            return Err(ExportError::Stored(format!(
                "{} {} has {} counts for {} denominations",
                doc.document,
                doc.id,
                counts.len(),
                denominations.len()
            )));
        }
        for (&denomination, &count) in denominations.iter().zip(counts) {
            let amount = denomination.zip(count).and_then(|(d, n)| d.checked_mul(n));
            self.line(
                doc,
                DocLine {
                    denomination,
                    count,
                    amount,
                    ..like
                },
            )?;
        }
        Ok(())
    }

    /// A void's row: its reason, who voided, when.
    fn void(
        &mut self,
        doc: &Doc<'_>,
        reason: Option<&str>,
        by: Option<&str>,
        at: Option<DateTime<Utc>>,
    ) -> Result<(), ExportError> {
        if reason.is_none() && by.is_none() && at.is_none() {
            return Ok(());
        }
        self.line(
            doc,
            DocLine {
                line: "void",
                signed_by: by,
                at,
                note: reason,
                ..DocLine::default()
            },
        )
    }

    fn inventory_slip(&mut self, slip: db::InventorySlipLine) -> Result<(), ExportError> {
        let document = match slip.kind.as_str() {
            "opener" => "opener",
            "closer" => "closer",
            other => {
                return Err(ExportError::Stored(format!(
                    "inventory slip {} is of kind {other:?}",
                    slip.id
                )))
            }
        };
        let doc = Doc {
            document,
            id: slip.id,
            slip_number: None,
            gaming_day: slip.gaming_day,
            table: &slip.table_code,
            currency: &slip.currency,
            total: slip.total,
            state: if slip.voided_at.is_some() {
                "void"
            } else {
                "signed"
            },
        };
        self.denominated(
            &doc,
            &slip.denominations,
            &slip.counts,
            DocLine {
                line: "chips",
                shift_id: slip.shift_id,
                signed_by: Some(&slip.dealer),
                second_signed_by: Some(&slip.supervisor),
                at: Some(slip.created_at),
                ..DocLine::default()
            },
        )?;
        for difference in differences_of(&slip)? {
            self.line(
                &doc,
                DocLine {
                    line: DIFFERENCE,
                    denomination: Some(difference.denomination.minor_units()),
                    count: Some(difference.after.saturating_sub(difference.before)),
                    amount: Some(difference.amount.minor_units()),
                    reference: slip.previous_closer_id,
                    ..DocLine::default()
                },
            )?;
        }
        if let Some(explanation) = &slip.explanation {
            self.line(
                &doc,
                DocLine {
                    line: "explanation",
                    signed_by: slip.explained_by.as_deref(),
                    at: slip.explained_at,
                    note: Some(explanation),
                    ..DocLine::default()
                },
            )?;
        }
        self.void(
            &doc,
            slip.void_reason.as_deref(),
            slip.voided_by.as_deref(),
            slip.voided_at,
        )
    }

    fn cage_slip(&mut self, slip: db::CageSlipLine) -> Result<(), ExportError> {
        let kind: crate::db::cage::Kind = slip
            .kind
            .parse()
            .map_err(|e| ExportError::Stored(format!("cage slip {}: {e}", slip.id)))?;
        let steps: Vec<db::CageStep> = serde_json::from_str(&slip.steps).map_err(|e| {
            ExportError::Stored(format!(
                "the steps of cage slip {} do not read: {e}",
                slip.id
            ))
        })?;
        let step_name = |name: &str| -> Result<&'static str, ExportError> {
            ["requested", "issued", "received", "void"]
                .into_iter()
                .find(|s| *s == name)
                .ok_or_else(|| {
                    ExportError::Stored(format!("cage slip {} has a step {name:?}", slip.id))
                })
        };
        // Void ends a slip whatever came before; otherwise it is in its last step.
        let state = if steps.iter().any(|s| s.step == "void") {
            "void"
        } else {
            match steps.last() {
                Some(step) => step_name(&step.step)?,
                None => "requested",
            }
        };
        let doc = Doc {
            document: kind.as_str(),
            id: slip.id,
            slip_number: Some(crate::db::cage::number_text(kind, slip.year, slip.number)),
            gaming_day: slip.gaming_day,
            table: &slip.table_code,
            currency: &slip.currency,
            total: slip.total,
            state,
        };
        self.denominated(
            &doc,
            &slip.denominations,
            &slip.counts,
            DocLine {
                line: "chips",
                at: Some(slip.created_at),
                ..DocLine::default()
            },
        )?;
        for step in &steps {
            self.line(
                &doc,
                DocLine {
                    line: step_name(&step.step)?,
                    signed_by: Some(&step.signed_by),
                    second_signed_by: step.second_signed_by.as_deref(),
                    at: Some(step.at.with_timezone(&Utc)),
                    note: step.reason.as_deref(),
                    ..DocLine::default()
                },
            )?;
        }
        let prints: Vec<db::CagePrint> = serde_json::from_str(&slip.prints).map_err(|e| {
            ExportError::Stored(format!(
                "the prints of cage slip {} do not read: {e}",
                slip.id
            ))
        })?;
        for print in &prints {
            self.line(
                &doc,
                DocLine {
                    line: if print.copy > 1 { REPRINTED } else { PRINTED },
                    count: Some(i64::from(print.copy)),
                    signed_by: Some(&print.printed_by),
                    at: Some(print.at.with_timezone(&Utc)),
                    ..DocLine::default()
                },
            )?;
        }
        Ok(())
    }

    fn drop_line(&mut self, record: db::DropLine) -> Result<(), ExportError> {
        let (document, line) = match record.kind.as_str() {
            "fee" => ("fee", "fee"),
            "cash" => ("buy_in", "cash"),
            "marker" => ("buy_in", "marker"),
            "chip_voucher" => ("buy_in", "chip_voucher"),
            other => {
                return Err(ExportError::Stored(format!(
                    "buy-in {} is of kind {other:?}",
                    record.id
                )))
            }
        };
        let doc = Doc {
            document,
            id: record.id,
            slip_number: None,
            gaming_day: record.gaming_day,
            table: &record.table_code,
            currency: &record.currency,
            total: record.amount,
            state: if record.voided_at.is_some() {
                "void"
            } else {
                "recorded"
            },
        };
        self.line(
            &doc,
            DocLine {
                line,
                amount: Some(record.amount),
                seat: record.seat,
                shift_id: record.shift_id,
                signed_by: Some(&record.recorded_by),
                at: Some(record.created_at),
                ..DocLine::default()
            },
        )?;
        self.void(
            &doc,
            record.void_reason.as_deref(),
            record.voided_by.as_deref(),
            record.voided_at,
        )
    }

    fn count(&mut self, count: db::CountLine) -> Result<(), ExportError> {
        let doc = Doc {
            document: "count",
            id: count.id,
            slip_number: None,
            gaming_day: count.gaming_day,
            table: &count.table_code,
            currency: &count.currency,
            total: count.total,
            state: if count.voided_at.is_some() {
                "void"
            } else {
                "signed"
            },
        };
        let signed = |line: &'static str, amount: i64| DocLine {
            line,
            amount: Some(amount),
            signed_by: Some(&count.first_counter),
            second_signed_by: Some(&count.second_counter),
            at: Some(count.created_at),
            ..DocLine::default()
        };
        if count.note_denominations.is_empty() {
            // A currency with no banknotes listed: its cash was counted as one total.
            self.line(&doc, signed("cash", count.cash))?;
        } else {
            self.denominated(
                &doc,
                &count.note_denominations,
                &count.note_counts,
                signed("notes", 0),
            )?;
        }
        self.line(&doc, signed("marker", count.markers))?;
        self.line(&doc, signed("chip_voucher", count.chip_vouchers))?;
        self.void(
            &doc,
            count.void_reason.as_deref(),
            count.voided_by.as_deref(),
            count.voided_at,
        )
    }

    /// A table-day's row: what its documents add up to and its reconciliation, as
    /// `accounting::reconcile` reads them (`TableDayRow::documents`, `rules::reconciliation`).
    fn table_day(&mut self, day: &TableDayRow) -> Result<(), ExportError> {
        let documents = day.documents();
        let drop = documents.drop.amount();
        let inventory_win = arithmetic::inventory_win(&documents);
        let rounds_win = arithmetic::rounds_win(
            Money::from_minor_units(day.house),
            Money::from_minor_units(day.fees),
        );
        let variance = inventory_win
            .zip(rounds_win)
            .and_then(|(i, r)| i.minor_units().checked_sub(r.minor_units()));
        let hold = inventory_win.and_then(|win| arithmetic::hold_basis_points(win, drop));
        let state = if inventory_win.is_some() && documents.drop.is_counted() {
            "final"
        } else {
            "pending"
        };
        let fields = &mut self.fields;
        fields.clear();
        fields.extend([
            Field::text(TABLE_DAY),
            Field::Null,
            Field::Null,
            Field::Text(day.gaming_day.to_string()),
            Field::text(day.code.as_str()),
            Field::text(day.currency.as_str()),
        ]);
        fields.resize(at::STATE - 1, Field::Null);
        fields.push(Field::text(state));
        fields.resize(at::OPENER - 1, Field::Null);
        fields.extend([
            Field::opt_int(documents.opener.map(Money::minor_units)),
            Field::opt_int(documents.closer.map(Money::minor_units)),
            Field::Int(documents.fills.minor_units()),
            Field::Int(documents.credits.minor_units()),
            Field::Int(drop.minor_units()),
            Field::Bool(documents.drop.is_counted()),
            Field::Int(day.house),
            Field::Int(day.fees),
            Field::opt_int(inventory_win.map(Money::minor_units)),
            Field::opt_int(rounds_win.map(Money::minor_units)),
            Field::opt_int(variance),
            Field::opt_text(hold_text(hold)),
        ]);
        fields.resize(COLUMNS.len(), Field::Null);
        self.writer.write(fields)
    }
}

pub(super) fn export(
    conn: &mut PgConnection,
    query: &Query,
    clock: Clock,
    format: Format,
    out: impl Write,
    mut manifest: Manifest,
) -> Result<Written, ExportError> {
    let table = match &query.table {
        Some(code) => Some(
            db::tables(conn, Some(code))?
                .first()
                .map(|(id, _)| TableId(*id))
                .ok_or_else(|| ExportError::BadQuery(format!("there is no table {code}")))?,
        ),
        None => None,
    };
    manifest.chains = table_chains(conn, query.table.as_deref())?;
    let mut rows = Rows {
        writer: TableWriter::new(format, COLUMNS, out)?,
        fields: Vec::with_capacity(COLUMNS.len()),
        clock,
    };
    let (from, to, code) = (query.from, query.to, query.table.as_deref());
    db::each_inventory_slip(conn, from, to, code, |slip| rows.inventory_slip(slip))?;
    db::each_cage_slip(conn, from, to, code, |slip| rows.cage_slip(slip))?;
    db::each_buy_in(conn, from, to, code, |buy_in| rows.drop_line(buy_in))?;
    db::each_table_fee(conn, from, to, code, |fee| rows.drop_line(fee))?;
    db::each_drop_count(conn, from, to, code, |count| rows.count(count))?;
    for day in reconciliation::table_days(conn, from, to, table)? {
        rows.table_day(&day)?;
    }
    let rows = rows.writer.finish(manifest)?;
    Ok(Written { rows })
}

/// What a table-day's documents (not void) add up to, as the file says them.
#[derive(Debug, Default, Clone)]
struct DaySums {
    /// The first opener (lowest id) and the last closer (highest id): (id, total).
    opener: Option<(i64, i64)>,
    closer: Option<(i64, i64)>,
    /// Fills and credits received.
    fills: i64,
    credits: i64,
    /// Buy-ins recorded, of every kind.
    bought: i64,
    fees: i64,
    /// The last count (highest id): (id, total).
    count: Option<(i64, i64)>,
}

/// The document whose rows are being read.
struct Reading {
    document: String,
    id: i64,
    /// Its first row, and the fields every row of it repeats, as that row has them.
    first_row: u64,
    repeated: [String; 6],
    /// Its table and gaming day, when they read.
    table_day: Option<(String, NaiveDate)>,
    total: Option<i64>,
    state: String,
    /// The sum of its lines' amounts, and how many there are.
    lines: i128,
    value_lines: usize,
    /// Its lines without an amount (steps, prints, void, explanation), in file order.
    records: Vec<String>,
    /// Its chips by denomination (an opener's or closer's), its differences from the closer
    /// it names (an opener's), and its prints' copy numbers (a fill's or credit's).
    chips: BTreeMap<i64, i64>,
    differences: BTreeMap<i64, i64>,
    reference: Option<i64>,
    copies: Vec<Option<i64>>,
    /// A line could not be read: its sum is not checked.
    unreadable: bool,
}

/// The columns every row of a document repeats.
const REPEATED: [usize; 6] = [
    at::SLIP_NUMBER,
    at::GAMING_DAY,
    at::TABLE,
    at::CURRENCY,
    at::TOTAL,
    at::STATE,
];

/// A `table_day` row, kept to the end (when every document has been read).
struct DayRow {
    row: Row,
    table_day: (String, NaiveDate),
}

/// Checks an accounting export: each document's lines against its total and its state against
/// its steps, and at the end each table-day's figures against the documents of that day.
pub(super) struct AccountingCheck {
    from: NaiveDate,
    to: NaiveDate,
    table: Option<String>,
    reading: Option<Reading>,
    /// Documents read to their end, to find one whose rows are not together.
    done: HashSet<(String, i64)>,
    /// Each table-day's documents (not void) summed.
    sums: BTreeMap<(String, NaiveDate), DaySums>,
    /// The table-days with any document (void ones too).
    documented: BTreeSet<(String, NaiveDate)>,
    days: Vec<DayRow>,
    /// The chips of each closer read, by id: an opener's differences name one.
    closers: HashMap<i64, BTreeMap<i64, i64>>,
}

/// A whole number in `column` of `row`, `None` when empty; a problem when it does not read.
fn int_at(row: &Row, column: usize, problems: &mut Problems) -> Result<Option<i64>, ()> {
    let text = row.text(column);
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<i64>().map(Some).map_err(|_| {
        problems.at(row, column, format!("{text:?} is not a whole number"));
    })
}

/// An opener's difference line: a denomination, a count other than zero (either sign), that
/// many chips' value, and the closer it was compared with.
fn difference_line(reading: &mut Reading, row: &Row, problems: &mut Problems) {
    if reading.document != "opener" {
        problems.at(
            row,
            at::LINE,
            format!("a {} has no {DIFFERENCE} line", reading.document),
        );
        return;
    }
    let (Ok(denomination), Ok(count), Ok(amount), Ok(reference)) = (
        int_at(row, at::DENOMINATION, problems),
        int_at(row, at::COUNT, problems),
        int_at(row, at::AMOUNT, problems),
        int_at(row, at::REFERENCE_ID, problems),
    ) else {
        return;
    };
    let (Some(denomination), Some(count), Some(amount), Some(reference)) =
        (denomination, count, amount, reference)
    else {
        problems.at(
            row,
            at::LINE,
            format!("a {DIFFERENCE} line has a denomination, a count, an amount and the closer"),
        );
        return;
    };
    if denomination <= 0 {
        problems.at(
            row,
            at::DENOMINATION,
            format!("{denomination} is not a denomination"),
        );
    }
    if count == 0 {
        problems.at(row, at::COUNT, "a difference of no chips".to_owned());
    }
    let times = i128::from(count) * i128::from(denomination);
    if times != i128::from(amount) {
        problems.at(
            row,
            at::AMOUNT,
            format!("{count} × {denomination} is {times}, the line says {amount}"),
        );
    }
    if reading.reference.is_some_and(|r| r != reference) {
        problems.at(
            row,
            at::REFERENCE_ID,
            format!("an opener is checked against one closer, not {reference} too"),
        );
    }
    reading.reference = Some(reference);
    reading.differences.insert(denomination, count);
}

impl AccountingCheck {
    pub(super) fn new(manifest: &Manifest) -> AccountingCheck {
        AccountingCheck {
            from: manifest.query.from,
            to: manifest.query.to,
            table: manifest.query.table.clone(),
            reading: None,
            done: HashSet::new(),
            sums: BTreeMap::new(),
            documented: BTreeSet::new(),
            days: Vec::new(),
            closers: HashMap::new(),
        }
    }

    /// The row's table and gaming day, within the query, or the problems with them.
    fn table_day(&self, row: &Row, problems: &mut Problems) -> Option<(String, NaiveDate)> {
        let table = row.text(at::TABLE);
        if table.is_empty() {
            problems.at(row, at::TABLE, "a row must name its table".to_owned());
            return None;
        }
        if let Some(query) = &self.table {
            if table != query {
                problems.at(
                    row,
                    at::TABLE,
                    format!("the export is of table {query}, not {table}"),
                );
            }
        }
        let text = row.text(at::GAMING_DAY);
        let Ok(day) = text.parse::<NaiveDate>() else {
            problems.at(row, at::GAMING_DAY, format!("{text:?} is not a date"));
            return None;
        };
        if day < self.from || day > self.to {
            problems.at(
                row,
                at::GAMING_DAY,
                format!("{day} is outside the range {} to {}", self.from, self.to),
            );
        }
        Some((table.to_owned(), day))
    }

    /// Starts reading a document at its first row.
    fn start(&mut self, row: &Row, document: &str, id: i64, problems: &mut Problems) {
        if self.done.contains(&(document.to_owned(), id)) {
            problems.at(
                row,
                at::DOCUMENT_ID,
                format!("{document} {id} again: a document's rows are together"),
            );
        }
        let table_day = self.table_day(row, problems);
        if let Some(key) = &table_day {
            self.documented.insert(key.clone());
        }
        let mut unreadable = false;
        let total = match int_at(row, at::TOTAL, problems) {
            Ok(Some(total)) => Some(total),
            Ok(None) => {
                problems.at(row, at::TOTAL, format!("{document} {id} has no total"));
                unreadable = true;
                None
            }
            Err(()) => {
                unreadable = true;
                None
            }
        };
        self.reading = Some(Reading {
            document: document.to_owned(),
            id,
            first_row: row.number,
            repeated: REPEATED.map(|column| row.text(column).to_owned()),
            table_day,
            total,
            state: row.text(at::STATE).to_owned(),
            lines: 0,
            value_lines: 0,
            records: Vec::new(),
            chips: BTreeMap::new(),
            differences: BTreeMap::new(),
            reference: None,
            copies: Vec::new(),
            unreadable,
        });
    }

    /// A line of the document being read.
    fn line(&mut self, row: &Row, problems: &mut Problems) {
        let Some(reading) = self.reading.as_mut() else {
            return;
        };
        for (column, first) in REPEATED.iter().zip(&reading.repeated) {
            if row.text(*column) != first {
                problems.at(
                    row,
                    *column,
                    format!(
                        "{:?} differs from {:?} on row {}, the first row of {} {}",
                        row.text(*column),
                        first,
                        reading.first_row,
                        reading.document,
                        reading.id
                    ),
                );
            }
        }
        let line = row.text(at::LINE);
        let document = reading.document.as_str();
        if let Some(documents) = value_line_of(line) {
            if !documents.contains(&document) {
                problems.at(row, at::LINE, format!("a {document} has no {line} line"));
            }
            let amount = match int_at(row, at::AMOUNT, problems) {
                Ok(Some(amount)) => amount,
                Ok(None) => {
                    problems.at(row, at::AMOUNT, format!("a {line} line has an amount"));
                    reading.unreadable = true;
                    return;
                }
                Err(()) => {
                    reading.unreadable = true;
                    return;
                }
            };
            reading.value_lines += 1;
            reading.lines += i128::from(amount);
            if amount < 0 {
                problems.at(row, at::AMOUNT, format!("{amount} is below zero"));
            }
            if is_denominated(line) {
                let (Ok(denomination), Ok(count)) = (
                    int_at(row, at::DENOMINATION, problems),
                    int_at(row, at::COUNT, problems),
                ) else {
                    return;
                };
                match (denomination, count) {
                    (Some(denomination), Some(count)) if denomination > 0 && count >= 0 => {
                        if line == "chips" {
                            reading.chips.insert(denomination, count);
                        }
                        let times = i128::from(count) * i128::from(denomination);
                        if times != i128::from(amount) {
                            problems.at(
                                row,
                                at::AMOUNT,
                                format!(
                                    "{count} × {denomination} is {times}, the line says {amount}"
                                ),
                            );
                        }
                    }
                    (Some(denomination), _) if denomination <= 0 => problems.at(
                        row,
                        at::DENOMINATION,
                        format!("{denomination} is not a denomination"),
                    ),
                    (Some(_), Some(count)) => {
                        problems.at(row, at::COUNT, format!("{count} is below zero"))
                    }
                    (None, _) => problems.at(
                        row,
                        at::DENOMINATION,
                        format!("a {line} line names its denomination"),
                    ),
                    (_, None) => problems.at(row, at::COUNT, format!("a {line} line has a count")),
                }
            }
        } else if line == DIFFERENCE {
            difference_line(reading, row, problems);
        } else if let Some(documents) = record_line_of(line) {
            if !documents.contains(&document) {
                problems.at(row, at::LINE, format!("a {document} has no {line} line"));
            }
            if !row.text(at::AMOUNT).is_empty() {
                problems.at(row, at::AMOUNT, format!("a {line} line has no amount"));
            }
            if line == PRINTED || line == REPRINTED {
                reading
                    .copies
                    .push(int_at(row, at::COUNT, problems).ok().flatten());
            }
            reading.records.push(line.to_owned());
        } else {
            problems.at(
                row,
                at::LINE,
                format!("{line:?} is not a line of a document"),
            );
        }
    }

    /// Ends the document being read: its lines against its total, its state against its
    /// records; then adds it (unless void) to its table-day's sums.
    fn finish_document(&mut self, problems: &mut Problems) {
        let Some(reading) = self.reading.take() else {
            return;
        };
        let at_first = |column: usize, message: String| super::check::Problem {
            row: Some(reading.first_row),
            field: Some(COLUMNS[column - 1].0.to_owned()),
            message,
        };
        let what = format!("{} {}", reading.document, reading.id);
        if reading.value_lines == 0 && !reading.unreadable {
            problems.found.push(at_first(
                at::LINE,
                format!("{what} has no line with an amount"),
            ));
        }
        if let (Some(total), false) = (reading.total, reading.unreadable) {
            if reading.lines != i128::from(total) {
                problems.found.push(at_first(
                    at::TOTAL,
                    format!(
                        "the lines of {what} add up to {}, its total says {total}",
                        reading.lines
                    ),
                ));
            }
        }
        let void = reading.records.iter().any(|r| r == "void");
        let expected = match reading.document.as_str() {
            "fill" | "credit" => {
                let steps: Vec<&str> = reading
                    .records
                    .iter()
                    .map(String::as_str)
                    .filter(|r| !matches!(*r, "void" | PRINTED | REPRINTED))
                    .collect();
                let numbered = (1..).map(Some);
                if !reading
                    .copies
                    .iter()
                    .copied()
                    .eq(numbered.take(reading.copies.len()))
                {
                    problems.found.push(at_first(
                        at::COUNT,
                        format!(
                            "the prints of {what} are copies {:?}: 1, 2, 3... in order",
                            reading.copies
                        ),
                    ));
                }
                let printed = reading
                    .records
                    .iter()
                    .filter(|r| matches!(r.as_str(), PRINTED | REPRINTED));
                if printed.enumerate().any(|(i, r)| (r == PRINTED) != (i == 0)) {
                    problems.found.push(at_first(
                        at::LINE,
                        format!("{what}'s first print is printed, each later one reprinted"),
                    ));
                }
                let in_order = ["requested", "issued", "received"];
                if !in_order.starts_with(&steps) || steps.is_empty() {
                    problems.found.push(at_first(
                        at::LINE,
                        format!(
                            "the steps of {what} are {steps:?}: requested, issued, received, \
                             each once and in order"
                        ),
                    ));
                }
                if void {
                    "void"
                } else {
                    steps.last().copied().unwrap_or("requested")
                }
            }
            _ if void => "void",
            "buy_in" | "fee" => "recorded",
            _ => "signed",
        };
        if reading.state != expected {
            problems.found.push(at_first(
                at::STATE,
                format!("{what} is {:?}; its rows make it {expected}", reading.state),
            ));
        }
        if reading.records.iter().filter(|r| *r == "void").count() > 1 {
            problems
                .found
                .push(at_first(at::LINE, format!("{what} is voided twice")));
        }
        self.done.insert((reading.document.clone(), reading.id));
        match reading.document.as_str() {
            "closer" => {
                self.closers.insert(reading.id, reading.chips.clone());
            }
            "opener" => self.check_differences(&reading, &what, problems),
            _ => {}
        }
        let (Some(key), Some(total), false) = (reading.table_day, reading.total, void) else {
            return;
        };
        let sums = self.sums.entry(key).or_default();
        let id = reading.id;
        // The first opener, the last closer and the last count stand (by id).
        match reading.document.as_str() {
            "opener" if sums.opener.is_none_or(|(first, _)| id < first) => {
                sums.opener = Some((id, total));
            }
            "closer" if sums.closer.is_none_or(|(last, _)| id > last) => {
                sums.closer = Some((id, total));
            }
            "count" if sums.count.is_none_or(|(last, _)| id > last) => {
                sums.count = Some((id, total));
            }
            "fill" if expected == "received" => sums.fills = sums.fills.saturating_add(total),
            "credit" if expected == "received" => sums.credits = sums.credits.saturating_add(total),
            "buy_in" => sums.bought = sums.bought.saturating_add(total),
            "fee" => sums.fees = sums.fees.saturating_add(total),
            _ => {}
        }
    }

    /// An opener's differences against its chips and those of the closer they name, when that
    /// closer is in the file: each denomination whose count differs, by how many, and no other.
    fn check_differences(&self, reading: &Reading, what: &str, problems: &mut Problems) {
        let Some(reference) = reading.reference else {
            return;
        };
        let Some(closer) = self.closers.get(&reference) else {
            problems.note(format!(
                "the differences of {what} name closer {reference}, which is not in the file: \
                 not checked"
            ));
            return;
        };
        let mut expected = BTreeMap::new();
        for denomination in closer.keys().chain(reading.chips.keys()) {
            let count = |chips: &BTreeMap<i64, i64>| chips.get(denomination).copied().unwrap_or(0);
            let by = count(&reading.chips).saturating_sub(count(closer));
            if by != 0 {
                expected.insert(*denomination, by);
            }
        }
        if expected != reading.differences {
            problems.found.push(super::check::Problem {
                row: Some(reading.first_row),
                field: Some(COLUMNS[at::REFERENCE_ID - 1].0.to_owned()),
                message: format!(
                    "{what} against closer {reference} differs by {expected:?} (denomination: \
                     chips), its difference lines say {:?}",
                    reading.differences
                ),
            });
        }
    }

    /// A table-day's figures against what its documents in the file add up to.
    fn check_day(&self, day: &DayRow, problems: &mut Problems) {
        let row = &day.row;
        let sums = self.sums.get(&day.table_day).cloned().unwrap_or_default();
        let documents = Documents {
            opener: sums.opener.map(|(_, total)| Money::from_minor_units(total)),
            closer: sums.closer.map(|(_, total)| Money::from_minor_units(total)),
            fills: Money::from_minor_units(sums.fills),
            credits: Money::from_minor_units(sums.credits),
            drop: match sums.count {
                Some((_, counted)) => Drop::Counted(Money::from_minor_units(counted)),
                None => Drop::Pending {
                    recorded: Money::from_minor_units(sums.bought),
                },
            },
        };
        let drop = documents.drop.amount();
        let inventory_win = arithmetic::inventory_win(&documents).map(Money::minor_units);
        let expect = |problems: &mut Problems, column: usize, expected: Option<i64>, from: &str| {
            let Ok(found) = int_at(row, column, problems) else {
                return;
            };
            if found != expected {
                let text = |n: Option<i64>| n.map_or_else(|| "none".to_owned(), |n| n.to_string());
                problems.at(
                    row,
                    column,
                    format!(
                        "{from} give {}, the row says {}",
                        text(expected),
                        text(found)
                    ),
                );
            }
        };
        let documents_say = "the table-day's documents in the file";
        expect(
            problems,
            at::OPENER,
            sums.opener.map(|o| o.1),
            documents_say,
        );
        expect(
            problems,
            at::CLOSER,
            sums.closer.map(|c| c.1),
            documents_say,
        );
        expect(problems, at::FILLS, Some(sums.fills), documents_say);
        expect(problems, at::CREDITS, Some(sums.credits), documents_say);
        expect(problems, at::DROP, Some(drop.minor_units()), documents_say);
        expect(problems, at::FEES, Some(sums.fees), documents_say);
        expect(
            problems,
            at::INVENTORY_WIN,
            inventory_win,
            "closer − opener + credits − fills + drop of the documents",
        );
        // The house result is the rounds', which the file does not hold: taken as the row says.
        let house = match int_at(row, at::HOUSE_RESULT, problems) {
            Ok(Some(house)) => house,
            Ok(None) => {
                problems.at(
                    row,
                    at::HOUSE_RESULT,
                    "a table-day has a house result".to_owned(),
                );
                return;
            }
            Err(()) => return,
        };
        let rounds_win = arithmetic::rounds_win(
            Money::from_minor_units(house),
            Money::from_minor_units(sums.fees),
        )
        .map(Money::minor_units);
        expect(
            problems,
            at::ROUNDS_WIN,
            rounds_win,
            "the house result plus the documents' fees",
        );
        expect(
            problems,
            at::VARIANCE,
            inventory_win
                .zip(rounds_win)
                .and_then(|(i, r)| i.checked_sub(r)),
            "win by inventory − win by rounds",
        );
        let counted = if documents.drop.is_counted() {
            "true"
        } else {
            "false"
        };
        if row.text(at::DROP_COUNTED) != counted {
            problems.at(
                row,
                at::DROP_COUNTED,
                format!(
                    "{:?}: the documents {} a count",
                    row.text(at::DROP_COUNTED),
                    if documents.drop.is_counted() {
                        "hold"
                    } else {
                        "hold no"
                    }
                ),
            );
        }
        let hold = hold_text(
            inventory_win
                .and_then(|win| arithmetic::hold_basis_points(Money::from_minor_units(win), drop)),
        );
        if row.text(at::HOLD_PERCENT) != hold.as_deref().unwrap_or("") {
            problems.at(
                row,
                at::HOLD_PERCENT,
                format!(
                    "{:?}: win by inventory ÷ drop of the documents is {}",
                    row.text(at::HOLD_PERCENT),
                    hold.as_deref().unwrap_or("none (no win or no drop)")
                ),
            );
        }
        let state = if inventory_win.is_some() && documents.drop.is_counted() {
            "final"
        } else {
            "pending"
        };
        if row.text(at::STATE) != state {
            problems.at(
                row,
                at::STATE,
                format!(
                    "{:?}: with the documents in the file the day is {state}",
                    row.text(at::STATE)
                ),
            );
        }
    }
}

impl Checker for AccountingCheck {
    fn row(&mut self, row: Row, problems: &mut Problems) {
        let document = row.text(at::DOCUMENT);
        if document == TABLE_DAY {
            self.finish_document(problems);
            let Some(table_day) = self.table_day(&row, problems) else {
                return;
            };
            if self.days.iter().any(|d| d.table_day == table_day) {
                problems.at(
                    &row,
                    at::DOCUMENT,
                    format!(
                        "a second table_day row for {} on {}",
                        table_day.0, table_day.1
                    ),
                );
                return;
            }
            self.days.push(DayRow { row, table_day });
            return;
        }
        if !DOCUMENTS.contains(&document) {
            self.finish_document(problems);
            problems.at(
                &row,
                at::DOCUMENT,
                format!(
                    "{document:?} is not a document ({}, {TABLE_DAY})",
                    DOCUMENTS.join(", ")
                ),
            );
            return;
        }
        let id = match int_at(&row, at::DOCUMENT_ID, problems) {
            Ok(Some(id)) => id,
            Ok(None) => {
                self.finish_document(problems);
                problems.at(&row, at::DOCUMENT_ID, format!("a {document} has an id"));
                return;
            }
            Err(()) => {
                self.finish_document(problems);
                return;
            }
        };
        let same = self
            .reading
            .as_ref()
            .is_some_and(|r| r.document == document && r.id == id);
        if !same {
            self.finish_document(problems);
            let document = document.to_owned();
            self.start(&row, &document, id, problems);
        }
        self.line(&row, problems);
    }

    fn finish(&mut self, problems: &mut Problems) {
        self.finish_document(problems);
        for day in &self.days {
            self.check_day(day, problems);
        }
        let with_rows: BTreeSet<&(String, NaiveDate)> =
            self.days.iter().map(|d| &d.table_day).collect();
        for key in &self.documented {
            if !with_rows.contains(key) {
                problems.file(format!(
                    "{} has documents on {} but no table_day row",
                    key.0, key.1
                ));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::{FixedOffset, NaiveTime, TimeZone};
    use csv::StringRecord;

    use super::super::check::Problem;
    use super::super::{QueryRecord, Source, AMOUNTS, FORMAT};
    use super::*;

    const DAY: &str = "2026-11-20";
    /// PHP 25, 100, 500, 1,000.
    const CHIPS: [i64; 4] = [2_500, 10_000, 50_000, 100_000];

    fn day() -> NaiveDate {
        DAY.parse().unwrap()
    }

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 20, 3, minute, 0).unwrap()
    }

    fn chips() -> Vec<Option<i64>> {
        CHIPS.iter().copied().map(Some).collect()
    }

    fn counts(counts: [i64; 4]) -> Vec<Option<i64>> {
        counts.iter().copied().map(Some).collect()
    }

    fn slip(id: i64, kind: &str, n: [i64; 4], total: i64, void: bool) -> db::InventorySlipLine {
        db::InventorySlipLine {
            id,
            kind: kind.to_owned(),
            gaming_day: day(),
            table_code: "T1".to_owned(),
            currency: "PHP".to_owned(),
            shift_id: None,
            denominations: chips(),
            counts: counts(n),
            total,
            dealer: "dee".to_owned(),
            supervisor: "boss".to_owned(),
            created_at: at(id as u32),
            explanation: None,
            explained_by: None,
            explained_at: None,
            void_reason: void.then(|| "miscounted".to_owned()),
            voided_by: void.then(|| "boss2".to_owned()),
            voided_at: void.then(|| at(40)),
            previous_closer_id: None,
            previous_denominations: None,
            previous_counts: None,
            difference_limit: None,
            held: false,
        }
    }

    fn cage(id: i64, kind: &str, thousands: i64, steps: &[&str]) -> db::CageSlipLine {
        let steps: Vec<serde_json::Value> = steps
            .iter()
            .map(|step| {
                serde_json::json!({"step": step, "signed_by": "boss",
                    "second_signed_by": null, "reason": null, "at": "2026-11-20T11:30:00+08:00"})
            })
            .collect();
        db::CageSlipLine {
            id,
            kind: kind.to_owned(),
            year: 2026,
            number: 1,
            gaming_day: day(),
            table_code: "T1".to_owned(),
            currency: "PHP".to_owned(),
            denominations: chips(),
            counts: counts([0, 0, 0, thousands]),
            total: thousands * 100_000,
            created_at: at(10),
            steps: serde_json::to_string(&steps).unwrap(),
            prints: "[]".to_owned(),
        }
    }

    fn buy_in(id: i64, kind: &str, amount: i64, void: bool) -> db::DropLine {
        db::DropLine {
            id,
            gaming_day: day(),
            table_code: "T1".to_owned(),
            currency: "PHP".to_owned(),
            shift_id: Some(1),
            seat: Some(2),
            kind: kind.to_owned(),
            amount,
            recorded_by: "dee".to_owned(),
            created_at: at(20),
            void_reason: void.then(|| "wrong seat".to_owned()),
            voided_by: void.then(|| "boss".to_owned()),
            voided_at: void.then(|| at(21)),
        }
    }

    /// The scripted shift of tests/api/reconciliation.rs: opener PHP 18,000, a fill of
    /// PHP 5,000 (a credit requested and voided), buy-ins PHP 3,000 cash and a PHP 1,000
    /// marker (a third voided), counted as recorded, the closer PHP 19,550 (a first closer of
    /// PHP 10,000, miscounted, voided): win by inventory PHP 550, the rounds' too.
    fn export() -> (Manifest, Vec<u8>) {
        let clock = Clock {
            utc_offset: FixedOffset::east_opt(8 * 3600).unwrap(),
            gaming_day_start: NaiveTime::from_hms_opt(6, 0, 0).unwrap(),
        };
        let manifest = Manifest {
            format: FORMAT.to_owned(),
            kind: super::super::Kind::Accounting,
            query: QueryRecord {
                from: day(),
                to: day(),
                table: None,
                window_from: "2026-11-19T22:00:00.000000Z".to_owned(),
                window_to: "2026-11-20T22:00:00.000000Z".to_owned(),
            },
            utc_offset: "+08:00".to_owned(),
            gaming_day_start: "06:00".to_owned(),
            exported_at: "2026-11-21T00:00:00.000000Z".to_owned(),
            source: Source::primary(),
            columns: Vec::new(),
            rows: 0,
            data_sha256: String::new(),
            column_sha256: Vec::new(),
            column_crc32: Vec::new(),
            chains: Vec::new(),
            day_seals: Vec::new(),
            profiles: BTreeMap::new(),
            amounts: AMOUNTS.to_owned(),
            tables: BTreeMap::new(),
        };
        let mut out = Vec::new();
        {
            let mut rows = Rows {
                writer: TableWriter::new(Format::Csv, COLUMNS, &mut out).unwrap(),
                fields: Vec::new(),
                clock,
            };
            rows.inventory_slip(slip(1, "opener", [40, 20, 10, 10], 1_800_000, false))
                .unwrap();
            rows.inventory_slip(slip(6, "closer", [2, 0, 1, 19], 1_955_000, false))
                .unwrap();
            rows.inventory_slip(slip(9, "closer", [0, 0, 0, 10], 1_000_000, true))
                .unwrap();
            // The chips counted again for a new dealer: two 500s over and a 1,000 short of the
            // closer, the same total (PHP 2,000 that does not match).
            rows.inventory_slip(db::InventorySlipLine {
                previous_closer_id: Some(6),
                previous_denominations: Some(chips()),
                previous_counts: Some(counts([2, 0, 1, 19])),
                difference_limit: Some(100_000),
                held: true,
                ..slip(10, "opener", [2, 0, 3, 18], 1_955_000, false)
            })
            .unwrap();
            // Printed at the cage, and again.
            let prints = r#"[{"copy": 1, "printed_by": "cash", "at": "2026-11-20T11:20:00+08:00"},
                {"copy": 2, "printed_by": "cash", "at": "2026-11-20T11:25:00+08:00"}]"#;
            rows.cage_slip(db::CageSlipLine {
                prints: prints.to_owned(),
                ..cage(7, "fill", 5, &["requested", "issued", "received"])
            })
            .unwrap();
            rows.cage_slip(cage(8, "credit", 1, &["requested", "void"]))
                .unwrap();
            rows.drop_line(buy_in(3, "cash", 300_000, false)).unwrap();
            rows.drop_line(buy_in(4, "marker", 100_000, false)).unwrap();
            rows.drop_line(buy_in(5, "cash", 50_000, true)).unwrap();
            rows.count(db::CountLine {
                id: 2,
                gaming_day: day(),
                table_code: "T1".to_owned(),
                currency: "PHP".to_owned(),
                note_denominations: vec![Some(100_000)],
                note_counts: vec![Some(3)],
                cash: 300_000,
                markers: 100_000,
                chip_vouchers: 0,
                total: 400_000,
                first_counter: "count1".to_owned(),
                second_counter: "count2".to_owned(),
                created_at: at(50),
                void_reason: None,
                voided_by: None,
                voided_at: None,
            })
            .unwrap();
            rows.table_day(&TableDayRow {
                table_id: TableId(1),
                gaming_day: day(),
                code: "T1".to_owned(),
                currency: "PHP".to_owned(),
                points_game: false,
                opener: Some(1_800_000),
                closer: Some(1_955_000),
                held: false,
                fills: 500_000,
                credits: 0,
                cage_open: 0,
                bought_cash: 300_000,
                bought_non_cash: 100_000,
                counted: Some(400_000),
                counted_cash: Some(300_000),
                counted_non_cash: Some(100_000),
                fees: 0,
                house: 55_000,
                rounds: 2,
                void_rounds: 0,
                pending: 0,
            })
            .unwrap();
            rows.writer.finish(manifest.clone()).unwrap();
        }
        let text = String::from_utf8(out.clone()).unwrap();
        let manifest_line = text.lines().last().unwrap();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(manifest_line.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        (serde_json::from_str(&record[1]).unwrap(), out)
    }

    /// The file's data rows.
    fn records(file: &[u8]) -> Vec<StringRecord> {
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(file);
        let mut rows: Vec<StringRecord> = reader.records().map(Result::unwrap).collect();
        rows.pop(); // the manifest
        rows
    }

    /// What the accounting check (only) finds in `rows`.
    fn check(manifest: &Manifest, rows: &[StringRecord]) -> Vec<Problem> {
        let mut problems = Problems::new(manifest.columns.clone());
        let mut checker = AccountingCheck::new(manifest);
        for (i, row) in rows.iter().enumerate() {
            checker.row(Row::new(i as u64 + 1, row.clone()), &mut problems);
        }
        checker.finish(&mut problems);
        problems.found
    }

    fn column(name: &str) -> usize {
        1 + COLUMNS.iter().position(|c| c.0 == name).unwrap()
    }

    /// The row number (from 1) of the first row whose columns hold these values.
    fn find(rows: &[StringRecord], wanted: &[(&str, &str)]) -> usize {
        1 + rows
            .iter()
            .position(|r| wanted.iter().all(|(c, v)| &r[column(c)] == *v))
            .unwrap()
    }

    fn set(rows: &mut [StringRecord], row: usize, name: &str, value: &str) {
        let mut fields: Vec<String> = rows[row - 1].iter().map(str::to_owned).collect();
        fields[column(name)] = value.to_owned();
        rows[row - 1] = StringRecord::from(fields);
    }

    fn named(problems: &[Problem], row: usize, field: &str) -> bool {
        problems
            .iter()
            .any(|p| p.row == Some(row as u64) && p.field.as_deref() == Some(field))
    }

    #[test]
    fn the_untouched_file_is_intact_and_its_table_day_reconciles() {
        let (_, file) = export();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("accounting.csv");
        std::fs::write(&path, &file).unwrap();
        let verified = super::super::verify(&path).unwrap();
        assert!(verified.problems.is_empty(), "{:?}", verified.problems);
        assert!(verified.notes.is_empty(), "{:?}", verified.notes);
        let rows = records(&file);
        assert_eq!(verified.rows, rows.len() as u64);
        let day = &rows[find(&rows, &[("document", "table_day")]) - 1];
        for (name, value) in [
            ("opener", "1800000"),
            ("closer", "1955000"),
            ("fills", "500000"),
            ("credits", "0"),
            ("drop", "400000"),
            ("drop_counted", "true"),
            ("inventory_win", "55000"),
            ("rounds_win", "55000"),
            ("variance", "0"),
            ("hold_percent", "13.75"),
            ("state", "final"),
        ] {
            assert_eq!(&day[column(name)], value, "{name}");
        }
        let fill = &rows[find(&rows, &[("document", "fill"), ("line", "received")]) - 1];
        assert_eq!(&fill[column("slip_number")], "F-2026-00001");
        assert_eq!(&fill[column("state")], "received");
        assert_eq!(
            &fill[column("at_local")],
            "2026-11-20 11:30:00.000000 +08:00"
        );
    }

    #[test]
    fn an_openers_differences_follow_from_it_and_the_closer_before_it() {
        let (manifest, file) = export();
        let rows = records(&file);
        let differences: Vec<(&str, &str, &str, &str)> = rows
            .iter()
            .filter(|r| &r[column("line")] == "difference")
            .map(|r| {
                (
                    &r[column("denomination")],
                    &r[column("count")],
                    &r[column("amount")],
                    &r[column("reference_id")],
                )
            })
            .collect();
        assert_eq!(
            differences,
            [
                ("50000", "2", "100000", "6"),
                ("100000", "-1", "-100000", "6")
            ]
        );
        // A difference made to agree with itself but not with the counts.
        let mut changed = rows.clone();
        let line = find(
            &changed,
            &[("line", "difference"), ("denomination", "50000")],
        );
        set(&mut changed, line, "count", "3");
        set(&mut changed, line, "amount", "150000");
        let problems = check(&manifest, &changed);
        let opener = find(&changed, &[("document", "opener"), ("document_id", "10")]);
        assert!(named(&problems, opener, "reference_id"), "{problems:?}");
        // One left out.
        let mut changed = rows.clone();
        changed.remove(line - 1);
        assert!(
            named(&check(&manifest, &changed), opener, "reference_id"),
            "a difference left out"
        );
        // Its own arithmetic.
        let mut changed = rows;
        set(&mut changed, line, "amount", "90000");
        assert!(named(&check(&manifest, &changed), line, "amount"));
    }

    #[test]
    fn a_slips_prints_are_numbered_and_only_the_first_is_the_original() {
        let (manifest, file) = export();
        let rows = records(&file);
        let printed: Vec<(&str, &str, &str)> = rows
            .iter()
            .filter(|r| r[column("line")].contains("printed"))
            .map(|r| {
                (
                    &r[column("line")],
                    &r[column("count")],
                    &r[column("signed_by")],
                )
            })
            .collect();
        assert_eq!(
            printed,
            [("printed", "1", "cash"), ("reprinted", "2", "cash")]
        );
        let fill = find(&rows, &[("document", "fill")]);
        let reprint = find(&rows, &[("line", "reprinted")]);
        let mut changed = rows.clone();
        set(&mut changed, reprint, "count", "3");
        assert!(named(&check(&manifest, &changed), fill, "count"));
        let mut changed = rows;
        set(&mut changed, reprint, "line", "printed");
        assert!(named(&check(&manifest, &changed), fill, "line"));
    }

    #[test]
    fn a_changed_amount_is_named_against_its_count_and_its_documents_total() {
        let (manifest, file) = export();
        let mut rows = records(&file);
        let line = find(
            &rows,
            &[
                ("document", "closer"),
                ("document_id", "6"),
                ("denomination", "100000"),
            ],
        );
        let first = find(&rows, &[("document", "closer"), ("document_id", "6")]);
        set(&mut rows, line, "amount", "1800000");
        let problems = check(&manifest, &rows);
        assert!(named(&problems, line, "amount"), "{problems:?}");
        assert!(named(&problems, first, "total"), "{problems:?}");
        assert_eq!(problems.len(), 2, "{problems:?}");
        // A count changed with its amount still adds up to the total no longer, and the
        // opener counted after that closer no longer differs from it as its lines say.
        let mut rows = records(&file);
        set(&mut rows, line, "count", "18");
        set(&mut rows, line, "amount", "1800000");
        let problems = check(&manifest, &rows);
        assert!(named(&problems, first, "total"), "{problems:?}");
        let opener = find(&rows, &[("document", "opener"), ("document_id", "10")]);
        assert!(named(&problems, opener, "reference_id"), "{problems:?}");
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    #[test]
    fn a_changed_total_is_named_and_so_is_the_table_days_figure_it_feeds() {
        let (manifest, file) = export();
        let mut rows = records(&file);
        let day = find(&rows, &[("document", "table_day")]);
        let lines: Vec<usize> = (1..=rows.len())
            .filter(|&n| &rows[n - 1][column("document")] == "fill")
            .collect();
        for &n in &lines {
            set(&mut rows, n, "total", "600000");
        }
        let problems = check(&manifest, &rows);
        assert!(named(&problems, lines[0], "total"), "{problems:?}");
        for field in ["fills", "inventory_win", "variance", "hold_percent"] {
            assert!(named(&problems, day, field), "{field}: {problems:?}");
        }
        // One row of a document with another total than its first row's.
        let mut rows = records(&file);
        set(&mut rows, lines[1], "total", "600000");
        let problems = check(&manifest, &rows);
        assert!(named(&problems, lines[1], "total"), "{problems:?}");
    }

    #[test]
    fn each_table_day_figure_follows_from_the_documents() {
        let (manifest, file) = export();
        let day = find(&records(&file), &[("document", "table_day")]);
        for (field, value) in [
            ("opener", "1700000"),
            ("closer", "1000000"),
            ("drop", "450000"),
            ("inventory_win", "65000"),
            ("rounds_win", "0"),
            ("variance", "10000"),
            ("hold_percent", "16.25"),
            ("drop_counted", "false"),
            ("state", "pending"),
        ] {
            let mut rows = records(&file);
            set(&mut rows, day, field, value);
            let problems = check(&manifest, &rows);
            assert!(named(&problems, day, field), "{field}: {problems:?}");
            assert_eq!(problems.len(), 1, "{field}: {problems:?}");
        }
        // The house result is the rounds': changed, the rounds' win and variance follow it.
        let mut rows = records(&file);
        set(&mut rows, day, "house_result", "60000");
        let problems = check(&manifest, &rows);
        assert!(named(&problems, day, "rounds_win"), "{problems:?}");
        assert!(named(&problems, day, "variance"), "{problems:?}");
    }

    #[test]
    fn a_void_document_counts_for_nothing_and_its_void_is_its_state() {
        let (manifest, file) = export();
        let rows = records(&file);
        let day = find(&rows, &[("document", "table_day")]);
        // The voided closer without its void row: it stands, and it is the day's last.
        let void = find(&rows, &[("document", "closer"), ("line", "void")]);
        let mut unvoided: Vec<StringRecord> = rows.clone();
        unvoided.remove(void - 1);
        for n in 1..=unvoided.len() {
            if &unvoided[n - 1][column("document_id")] == "9" {
                set(&mut unvoided, n, "state", "signed");
            }
        }
        let problems = check(&manifest, &unvoided);
        assert!(named(&problems, day - 1, "closer"), "{problems:?}");
        assert!(named(&problems, day - 1, "inventory_win"), "{problems:?}");
        // A state that is not what its rows make it.
        let mut rows = rows;
        let credit = find(&rows, &[("document", "credit")]);
        let credit_lines: Vec<usize> = (credit..=rows.len())
            .take_while(|&n| &rows[n - 1][column("document")] == "credit")
            .collect();
        for &n in &credit_lines {
            set(&mut rows, n, "state", "received");
        }
        let problems = check(&manifest, &rows);
        assert!(named(&problems, credit, "state"), "{problems:?}");
    }
}
