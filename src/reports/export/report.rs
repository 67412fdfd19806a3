//! The report export: the gaming-day report's lines over the range (one table's or every
//! table's), as the report page and its CSV have them: the whole range, each gaming day, table,
//! dealer and dealer's shift, each in its currency; and its check, which needs no database: every
//! line's worked-out shares agree with its figures, and the lines of each section (days, tables,
//! dealers, shifts) add up to the total line of their currency, figure by figure.
//!
//! Amounts (`handle`, `house_result`) are in the currency's minor units. The report is summed by
//! the database in one statement; what is held in memory is its lines (one per shift of the
//! range at most), never its rounds.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use chrono::NaiveDate;
use diesel::PgConnection;

use crate::db::export as db;
use crate::db::ids::TableId;
use crate::reports::figures::{percent, Figures};
use crate::reports::gaming_day::{self, Line, Subject};

use super::check::{Checker, Problem, Problems, Row};
use super::table::{ColumnKind, Field, Format, TableWriter};
use super::{table_chains, utc_text, Clock, ExportError, Manifest, Query, Written};

use ColumnKind::{Int, Text};

/// The report export's own columns (between `row` and the row's sum).
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("section", Text),
    ("gaming_day", Text),
    ("table", Text),
    ("dealer", Text),
    ("shift_id", Int),
    ("shift_on_utc", Text),
    ("shift_on_local", Text),
    ("shift_off_utc", Text),
    ("currency", Text),
    ("rounds", Int),
    ("seats", Int),
    ("handle", Int),
    ("house_result", Int),
    ("player_sets", Int),
    ("player_fouls", Int),
    ("dealer_sets", Int),
    ("dealer_fouls", Int),
    ("surrenders", Int),
    ("royalties", Int),
    ("player_sweeps", Int),
    ("dealer_sweeps", Int),
    ("voids", Int),
    ("pending", Int),
    ("sweeps", Int),
    ("result_share", Text),
    ("player_foul_rate", Text),
    ("dealer_foul_rate", Text),
];

/// Where each column is in a row (`row` is 0).
mod at {
    pub const SECTION: usize = 1;
    pub const GAMING_DAY: usize = 2;
    pub const TABLE: usize = 3;
    pub const DEALER: usize = 4;
    pub const SHIFT_ID: usize = 5;
    pub const CURRENCY: usize = 9;
    /// The summed figures, [`super::FIGURES`] of them, from here.
    pub const ROUNDS: usize = 10;
    pub const SWEEPS: usize = 24;
    pub const RESULT_SHARE: usize = 25;
    pub const PLAYER_FOUL_RATE: usize = 26;
    pub const DEALER_FOUL_RATE: usize = 27;
}

/// How many summed figures a line has (`rounds` to `pending`).
const FIGURES: usize = 14;

/// A line's summed figures, in the order of the columns.
fn figures_of(f: &Figures) -> [i64; FIGURES] {
    [
        f.rounds,
        f.seats,
        f.handle.minor_units(),
        f.house.minor_units(),
        f.player_sets,
        f.player_fouls,
        f.dealer_sets,
        f.dealer_fouls,
        f.surrenders,
        f.royalties,
        f.player_sweeps,
        f.dealer_sweeps,
        f.voids,
        f.pending,
    ]
}

/// The sections in the order they are written.
const SECTIONS: [&str; 5] = ["total", "day", "table", "dealer", "shift"];

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
    let report = gaming_day::report_of(conn, query.from, query.to, table)?;
    let mut writer = TableWriter::new(format, COLUMNS, out)?;
    let sections: [&[Line]; 5] = [
        &report.totals,
        &report.days,
        &report.tables,
        &report.dealers,
        &report.shifts,
    ];
    let mut fields = Vec::with_capacity(COLUMNS.len());
    for (section, lines) in SECTIONS.iter().zip(sections) {
        for line in lines {
            fields.clear();
            fields.push(Field::text(*section));
            fields.extend(subject_fields(&line.subject, clock));
            fields.push(Field::text(line.currency.as_str()));
            let f = &line.figures;
            fields.extend(figures_of(f).map(Field::Int));
            fields.extend([
                Field::Int(f.sweeps()),
                Field::Text(f.result_share()),
                Field::Text(f.player_foul_rate()),
                Field::Text(f.dealer_foul_rate()),
            ]);
            writer.write(&fields)?;
        }
    }
    let rows = writer.finish(manifest)?;
    Ok(Written { rows })
}

/// `gaming_day` to `shift_off_utc` of a line.
fn subject_fields(subject: &Subject, clock: Clock) -> [Field; 7] {
    let none = || Field::Null;
    match subject {
        Subject::Total => [none(), none(), none(), none(), none(), none(), none()],
        Subject::Day(day) => [
            Field::Text(day.to_string()),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
        ],
        Subject::Table(t) => [
            none(),
            Field::text(t.code.as_str()),
            none(),
            none(),
            none(),
            none(),
            none(),
        ],
        Subject::Dealer(d) => [
            none(),
            none(),
            Field::text(d.username.as_str()),
            none(),
            none(),
            none(),
            none(),
        ],
        Subject::Shift {
            table,
            dealer,
            shift,
        } => [
            Field::Text(shift.gaming_day.to_string()),
            Field::text(table.code.as_str()),
            Field::text(dealer.username.as_str()),
            Field::Int(shift.id.0),
            Field::Text(utc_text(shift.signed_on_at)),
            Field::Text(clock.local(shift.signed_on_at)),
            Field::opt_text(shift.signed_off_at.map(utc_text)),
        ],
    }
}

/// What a line of each section must name (the columns that may not be empty).
fn required(section: &str) -> &'static [usize] {
    match section {
        "day" => &[at::GAMING_DAY],
        "table" => &[at::TABLE],
        "dealer" => &[at::DEALER],
        "shift" => &[at::GAMING_DAY, at::TABLE, at::DEALER, at::SHIFT_ID],
        _ => &[],
    }
}

/// Checks a report export's lines one by one, and at the end that each section's lines add up
/// to the total line of their currency.
pub(super) struct ReportCheck {
    from: NaiveDate,
    to: NaiveDate,
    table: Option<String>,
    /// Each currency's total line: its row number and figures.
    totals: BTreeMap<String, (u64, [i64; FIGURES])>,
    /// The sums of each section's lines, by (section, currency).
    sums: BTreeMap<(String, String), [i64; FIGURES]>,
    /// The lines seen, by (section, subject, currency), to find one written twice.
    seen: BTreeSet<(String, String, String)>,
}

impl ReportCheck {
    pub(super) fn new(manifest: &Manifest) -> ReportCheck {
        ReportCheck {
            from: manifest.query.from,
            to: manifest.query.to,
            table: manifest.query.table.clone(),
            totals: BTreeMap::new(),
            sums: BTreeMap::new(),
            seen: BTreeSet::new(),
        }
    }

    /// The line's summed figures, or the problems with them.
    fn figures(row: &Row, problems: &mut Problems) -> Option<[i64; FIGURES]> {
        let mut figures = [0; FIGURES];
        let mut fine = true;
        for (i, figure) in figures.iter_mut().enumerate() {
            let column = at::ROUNDS + i;
            match row.text(column).parse::<i64>() {
                // Only the house result may be below zero.
                Ok(n) if n >= 0 || column == at::ROUNDS + 3 => *figure = n,
                _ => {
                    problems.at(
                        row,
                        column,
                        format!("{:?} is not a count or an amount", row.text(column)),
                    );
                    fine = false;
                }
            }
        }
        fine.then_some(figures)
    }

    /// The worked-out columns against the line's own figures.
    fn derived(row: &Row, f: &[i64; FIGURES], problems: &mut Problems) {
        let [_, _, handle, house, player_sets, player_fouls, dealer_sets, dealer_fouls, _, _, player_sweeps, dealer_sweeps, _, _] =
            *f;
        let expected = [
            (at::SWEEPS, (player_sweeps + dealer_sweeps).to_string()),
            (at::RESULT_SHARE, percent(house, handle)),
            (at::PLAYER_FOUL_RATE, percent(player_fouls, player_sets)),
            (at::DEALER_FOUL_RATE, percent(dealer_fouls, dealer_sets)),
        ];
        for (column, expected) in expected {
            if row.text(column) != expected {
                problems.at(
                    row,
                    column,
                    format!(
                        "{:?} does not follow from the line's figures ({expected})",
                        row.text(column)
                    ),
                );
            }
        }
        for (fouls, sets, what) in [
            (player_fouls, player_sets, "player"),
            (dealer_fouls, dealer_sets, "dealer"),
        ] {
            if fouls > sets {
                let column = if what == "player" {
                    at::ROUNDS + 5
                } else {
                    at::ROUNDS + 7
                };
                problems.at(
                    row,
                    column,
                    format!("{fouls} {what} fouls out of {sets} sets"),
                );
            }
        }
    }

    /// The line's subject: what it names, as the section requires, within the query.
    fn subject(&self, row: &Row, section: &str, problems: &mut Problems) -> String {
        for &column in required(section) {
            if row.text(column).is_empty() {
                problems.at(row, column, format!("a {section} line must name it"));
            }
        }
        if section == "day" {
            match row.text(at::GAMING_DAY).parse::<NaiveDate>() {
                Ok(day) if day < self.from || day > self.to => problems.at(
                    row,
                    at::GAMING_DAY,
                    format!("{day} is outside the range {} to {}", self.from, self.to),
                ),
                Ok(_) => {}
                Err(_) => problems.at(
                    row,
                    at::GAMING_DAY,
                    format!("{:?} is not a date", row.text(at::GAMING_DAY)),
                ),
            }
        }
        if let Some(table) = &self.table {
            let named = row.text(at::TABLE);
            if !named.is_empty() && named != table {
                problems.at(
                    row,
                    at::TABLE,
                    format!("the export is of table {table}, not {named}"),
                );
            }
        }
        (at::GAMING_DAY..at::CURRENCY)
            .map(|column| row.text(column))
            .collect::<Vec<_>>()
            .join("\u{1f}")
    }
}

impl Checker for ReportCheck {
    fn row(&mut self, row: Row, problems: &mut Problems) {
        let section = row.text(at::SECTION).to_owned();
        if !SECTIONS.contains(&section.as_str()) {
            problems.at(
                &row,
                at::SECTION,
                format!("{section:?} is not a section ({})", SECTIONS.join(", ")),
            );
            return;
        }
        let subject = self.subject(&row, &section, problems);
        let currency = row.text(at::CURRENCY).to_owned();
        if !self
            .seen
            .insert((section.clone(), subject, currency.clone()))
        {
            problems.at(
                &row,
                at::SECTION,
                format!("a second {section} line for the same subject and currency"),
            );
        }
        let Some(figures) = Self::figures(&row, problems) else {
            return;
        };
        Self::derived(&row, &figures, problems);
        if section == "total" {
            self.totals.insert(currency, (row.number, figures));
        } else {
            let sum = self.sums.entry((section, currency)).or_insert([0; FIGURES]);
            for (sum, figure) in sum.iter_mut().zip(figures) {
                *sum = sum.saturating_add(figure);
            }
        }
    }

    fn finish(&mut self, problems: &mut Problems) {
        let currencies: BTreeSet<&String> = self
            .totals
            .keys()
            .chain(self.sums.keys().map(|(_, currency)| currency))
            .collect();
        for currency in currencies {
            let Some((total_row, total)) = self.totals.get(currency) else {
                problems.file(format!(
                    "there are lines in {currency} but no total line for {currency}"
                ));
                continue;
            };
            for section in &SECTIONS[1..] {
                let sum = self
                    .sums
                    .get(&(section.to_string(), currency.clone()))
                    .copied()
                    .unwrap_or([0; FIGURES]);
                for (i, (sum, total)) in sum.iter().zip(total).enumerate() {
                    if sum != total {
                        let name = COLUMNS[at::ROUNDS - 1 + i].0;
                        problems.found.push(Problem {
                            row: Some(*total_row),
                            field: Some(name.to_owned()),
                            message: format!(
                                "the {section} lines in {currency} add up to {sum}, the total \
                                 line says {total}"
                            ),
                        });
                    }
                }
            }
        }
    }
}
