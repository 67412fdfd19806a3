//! The compliance export (docs/compliance.md): the cage's cash over its counter and the
//! compliance cases of the range, property-wide; and its check, which needs no database: each
//! case's transactions add up to its total and make the case it says (docs/rules.md §15), each
//! decision is one the officer may record.
//!
//! The rows come in order:
//! - `cage_cash`: one a record of the cage's cash (`direction` in or out, `amount`, `player`
//!   the card number, `state` recorded or void, the void's reason in `note`);
//! - `case`: one a transaction a case lists (`line_source` `buy_in` or `cage`, `line_id`,
//!   `line_day`, `amount` the transaction's), each row also naming the case (`document_id`, `kind`,
//!   `gaming_day`, `first_day`, `player`, `direction`, `currency`, `total`, `threshold`);
//! - `decision`: the case's decision, if it has one (`state` filed or dismissed, `reference`,
//!   `note` the reason).
//!
//! Amounts are in the currency's minor units.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use chrono::NaiveDate;
use diesel::PgConnection;

use crate::db::compliance as rows;
use crate::rules::compliance::{CaseKind, Thresholds};
use crate::rules::money::Money;

use super::check::{Checker, Problems, Row};
use super::table::{ColumnKind, Field, Format, TableWriter};
use super::{heads, utc_text, ChainRecord, Clock, ExportError, Manifest, Query, Written};

use ColumnKind::{Int, Text};

/// The compliance export's own columns (between `row` and the row's sum).
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("document", Text),
    ("document_id", Int),
    ("kind", Text),
    ("gaming_day", Text),
    ("first_day", Text),
    ("player", Text),
    ("direction", Text),
    ("currency", Text),
    ("total", Int),
    ("threshold", Int),
    ("line_source", Text),
    ("line_id", Int),
    ("line_day", Text),
    ("amount", Int),
    ("state", Text),
    ("reference", Text),
    ("at_utc", Text),
    ("at_local", Text),
    ("note", Text),
];

/// Where each column is in a row (`row` is 0).
mod at {
    pub const DOCUMENT: usize = 1;
    pub const DOCUMENT_ID: usize = 2;
    pub const KIND: usize = 3;
    pub const GAMING_DAY: usize = 4;
    pub const FIRST_DAY: usize = 5;
    pub const DIRECTION: usize = 7;
    pub const TOTAL: usize = 9;
    pub const THRESHOLD: usize = 10;
    pub const LINE_DAY: usize = 13;
    pub const AMOUNT: usize = 14;
    pub const STATE: usize = 15;
    pub const NOTE: usize = 19;
}

pub(super) fn export(
    conn: &mut PgConnection,
    query: &Query,
    clock: Clock,
    format: Format,
    out: impl Write,
    mut manifest: Manifest,
) -> Result<Written, ExportError> {
    if let Some(code) = &query.table {
        return Err(ExportError::BadQuery(format!(
            "the compliance export is of the whole property: leave out the table ({code})"
        )));
    }
    let head = heads(conn)?.remove(rows::COMPLIANCE_CHAIN);
    manifest.chains = head
        .into_iter()
        .map(|head| ChainRecord {
            chain: rows::COMPLIANCE_CHAIN.to_owned(),
            before: None,
            last: None,
            head,
            tail: Vec::new(),
        })
        .collect();
    let cash = rows::cage_cash_between(conn, query.from, query.to)?;
    let players: BTreeMap<i64, String> = rows::cards(conn)?.into_iter().collect();
    let card = |id: Option<crate::db::ids::PlayerId>| {
        Field::opt_text(id.and_then(|id| players.get(&id.0).cloned()))
    };
    let mut writer = TableWriter::new(format, COLUMNS, out)?;
    for (row, void) in &cash {
        let (state, note) = match void {
            Some(v) => ("void", v.reason.clone()),
            None => ("recorded", row.note.clone()),
        };
        writer.write(&[
            Field::text("cage_cash"),
            Field::Int(row.id.0),
            Field::Null,
            Field::Text(row.gaming_day.to_string()),
            Field::Null,
            card(row.player_id),
            Field::text(row.direction.as_str()),
            Field::text(row.currency.as_str()),
            Field::Null,
            Field::Null,
            Field::Null,
            Field::Null,
            Field::Null,
            Field::Int(row.amount),
            Field::text(state),
            Field::Null,
            Field::Text(utc_text(row.created_at)),
            Field::Text(clock.local(row.created_at)),
            Field::Text(note),
        ])?;
    }
    let cases = rows::cases(conn, query.from, query.to, false, i64::MAX)?;
    for (case, decision) in cases.iter().rev() {
        let lines = case.transactions.as_array().cloned().unwrap_or_default();
        for line in &lines {
            let text = |key: &str| match &line[key] {
                serde_json::Value::String(s) => Field::Text(s.clone()),
                _ => Field::Null,
            };
            writer.write(&[
                Field::text("case"),
                Field::Int(case.id.0),
                Field::text(case.kind.as_str()),
                Field::Text(case.gaming_day.to_string()),
                Field::Text(case.first_day.to_string()),
                card(case.player_id),
                Field::text(case.direction.as_str()),
                Field::text(case.currency.as_str()),
                Field::Int(case.total),
                Field::Int(case.threshold),
                text("source"),
                Field::opt_int(line["id"].as_i64()),
                text("gaming_day"),
                Field::opt_int(line["amount"].as_i64()),
                Field::text("raised"),
                Field::Null,
                Field::Text(utc_text(case.raised_at)),
                Field::Text(clock.local(case.raised_at)),
                Field::Null,
            ])?;
        }
        if let Some(d) = decision {
            writer.write(&[
                Field::text("decision"),
                Field::Int(case.id.0),
                Field::text(case.kind.as_str()),
                Field::Text(case.gaming_day.to_string()),
                Field::Text(case.first_day.to_string()),
                card(case.player_id),
                Field::text(case.direction.as_str()),
                Field::text(case.currency.as_str()),
                Field::Int(case.total),
                Field::Int(case.threshold),
                Field::Null,
                Field::Null,
                Field::Null,
                Field::Null,
                Field::text(d.decision.as_str()),
                Field::text(d.reference.as_str()),
                Field::Text(utc_text(d.decided_at)),
                Field::Text(clock.local(d.decided_at)),
                Field::text(d.reason.as_str()),
            ])?;
        }
    }
    let rows = writer.finish(manifest)?;
    Ok(Written { rows })
}

/// A case as its rows tell it.
struct CaseSeen {
    first_row: u64,
    kind: String,
    gaming_day: String,
    first_day: String,
    total: i64,
    threshold: i64,
    /// Its transactions' amounts, by gaming day.
    days: BTreeMap<String, Vec<i64>>,
    decided: bool,
}

/// Checks a compliance export: each row's fields, then each case's arithmetic at its end.
pub(super) struct ComplianceCheck {
    from: NaiveDate,
    to: NaiveDate,
    cases: BTreeMap<i64, CaseSeen>,
    cage_ids: BTreeSet<i64>,
}

impl ComplianceCheck {
    pub(super) fn new(manifest: &Manifest) -> ComplianceCheck {
        ComplianceCheck {
            from: manifest.query.from,
            to: manifest.query.to,
            cases: BTreeMap::new(),
            cage_ids: BTreeSet::new(),
        }
    }

    fn int(row: &Row, column: usize, problems: &mut Problems) -> Option<i64> {
        match row.text(column).parse::<i64>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                problems.at(
                    row,
                    column,
                    format!("{:?} is not an amount above zero", row.text(column)),
                );
                None
            }
        }
    }

    fn in_range(&self, row: &Row, problems: &mut Problems) {
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
}

impl Checker for ComplianceCheck {
    fn row(&mut self, row: Row, problems: &mut Problems) {
        self.in_range(&row, problems);
        let id = row.text(at::DOCUMENT_ID).parse::<i64>().unwrap_or(0);
        match row.text(at::DOCUMENT) {
            "cage_cash" => {
                if !self.cage_ids.insert(id) {
                    problems.at(
                        &row,
                        at::DOCUMENT_ID,
                        format!("cage cash {id} is written twice"),
                    );
                }
                if !matches!(row.text(at::DIRECTION), "in" | "out") {
                    problems.at(&row, at::DIRECTION, "is neither in nor out".to_owned());
                }
                Self::int(&row, at::AMOUNT, problems);
                match row.text(at::STATE) {
                    "recorded" => {}
                    "void" if !row.text(at::NOTE).trim().is_empty() => {}
                    "void" => problems.at(&row, at::NOTE, "a void gives its reason".to_owned()),
                    other => problems.at(&row, at::STATE, format!("{other:?} is not a state")),
                }
            }
            "case" => {
                if CaseKind::parse(row.text(at::KIND)).is_none() {
                    problems.at(
                        &row,
                        at::KIND,
                        format!("{:?} is not a case", row.text(at::KIND)),
                    );
                }
                let total = Self::int(&row, at::TOTAL, problems).unwrap_or(0);
                let threshold = Self::int(&row, at::THRESHOLD, problems).unwrap_or(0);
                let amount = Self::int(&row, at::AMOUNT, problems).unwrap_or(0);
                let line_day = row.text(at::LINE_DAY).to_owned();
                if line_day.as_str() < row.text(at::FIRST_DAY)
                    || line_day.as_str() > row.text(at::GAMING_DAY)
                {
                    problems.at(
                        &row,
                        at::LINE_DAY,
                        format!(
                            "{line_day} is outside the case's days {} to {}",
                            row.text(at::FIRST_DAY),
                            row.text(at::GAMING_DAY)
                        ),
                    );
                }
                let seen = self.cases.entry(id).or_insert_with(|| CaseSeen {
                    first_row: row.number,
                    kind: row.text(at::KIND).to_owned(),
                    gaming_day: row.text(at::GAMING_DAY).to_owned(),
                    first_day: row.text(at::FIRST_DAY).to_owned(),
                    total,
                    threshold,
                    days: BTreeMap::new(),
                    decided: false,
                });
                if seen.kind != row.text(at::KIND)
                    || seen.total != total
                    || seen.threshold != threshold
                    || seen.gaming_day != row.text(at::GAMING_DAY)
                    || seen.first_day != row.text(at::FIRST_DAY)
                {
                    problems.at(
                        &row,
                        at::KIND,
                        format!("case {id}'s rows disagree on what the case is"),
                    );
                }
                seen.days.entry(line_day).or_default().push(amount);
            }
            "decision" => {
                match row.text(at::STATE) {
                    "filed" => {}
                    "dismissed" if !row.text(at::NOTE).trim().is_empty() => {}
                    "dismissed" => {
                        problems.at(&row, at::NOTE, "a dismissal gives its reason".to_owned())
                    }
                    other => problems.at(&row, at::STATE, format!("{other:?} is not a decision")),
                }
                match self.cases.get_mut(&id) {
                    Some(case) if case.decided => {
                        problems.at(&row, at::DOCUMENT_ID, format!("case {id} is decided twice"))
                    }
                    Some(case) => case.decided = true,
                    None => problems.at(
                        &row,
                        at::DOCUMENT_ID,
                        format!("a decision on case {id}, whose transactions come after it"),
                    ),
                }
            }
            other => problems.at(
                &row,
                at::DOCUMENT,
                format!("{other:?} is not a document of this export"),
            ),
        }
    }

    fn finish(&mut self, problems: &mut Problems) {
        for (id, case) in &self.cases {
            let limits = Thresholds {
                threshold: Money::from_minor_units(case.threshold),
                warn_percent: 80,
                window_days: 0,
            };
            let all: Vec<i64> = case.days.values().flatten().copied().collect();
            let sum: i64 = all.iter().sum();
            let wrong = |what: String| format!("case {id} (row {}): {what}", case.first_row);
            if sum != case.total {
                problems.file(wrong(format!(
                    "its transactions add up to {sum}, not its total {}",
                    case.total
                )));
            }
            if !limits.covered(Money::from_minor_units(case.total)) {
                problems.file(wrong(format!(
                    "its total {} is not above the threshold {}",
                    case.total, case.threshold
                )));
            }
            let one_day = case.first_day == case.gaming_day
                && case.days.keys().all(|d| *d == case.gaming_day);
            let none_alone = all
                .iter()
                .all(|&a| !limits.covered(Money::from_minor_units(a)));
            let fits = match CaseKind::parse(&case.kind) {
                Some(CaseKind::Covered) => one_day,
                Some(CaseKind::StructuringDay) => one_day && all.len() >= 2 && none_alone,
                Some(CaseKind::StructuringDays) => {
                    case.days.len() >= 2
                        && case
                            .days
                            .values()
                            .all(|day| !limits.covered(Money::from_minor_units(day.iter().sum())))
                }
                None => true,
            };
            if !fits {
                problems.file(wrong(format!(
                    "its transactions do not make a {} (docs/rules.md §15)",
                    case.kind
                )));
            }
        }
    }
}
