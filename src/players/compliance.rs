//! The compliance officer's work (docs/compliance.md): the cases the cash check raised (covered
//! transactions and structuring candidates) with their transactions and the player's
//! identification, the decision on each (filed with the filing's reference, or dismissed with
//! the reason), the thresholds of each currency (set by an administrator), and the pit board's
//! warning of players whose cash of the day nears or passes the threshold. Every decision, every
//! thresholds change and every opening of a case (it holds personal data) is an event on the
//! `compliance` chain.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::cash::{thresholds, COMPLIANCE_CHAIN};
use crate::accounting::record::{names, person};
use crate::accounting::slips::{Me, Person};
use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, NewAuditEvent};
use crate::db::compliance::{self as rows, CaseRow, DecisionRow, NewDecision, NewThresholds};
use crate::db::handle::Db;
use crate::db::ids::{BuyInId, CaseId, ObservationId, PlayerId, UserId};
use crate::db::players as player_rows;
use crate::db::users::Role;
use crate::rules::compliance::{CaseKind, Direction, Thresholds};
use crate::rules::money::Money;

/// Who reads the cases: compliance officers and auditors.
pub fn reads_cases(role: Role) -> bool {
    matches!(role, Role::Compliance | Role::Auditor)
}

/// A transaction listed in a case, as it was when the case was raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// "Buy-in 12 at PUSOY-01 seat 2" or "Cage 7".
    pub what: String,
    pub gaming_day: String,
    pub amount: Money,
    pub at: Option<DateTime<Utc>>,
}

/// A decision on a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// `filed` or `dismissed`.
    pub decision: String,
    pub reference: String,
    pub reason: String,
    pub by: Person,
    pub at: DateTime<Utc>,
}

/// A case as the compliance pages show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub id: CaseId,
    pub kind: CaseKind,
    pub gaming_day: NaiveDate,
    pub first_day: NaiveDate,
    pub player: Option<PlayerId>,
    /// "RC1001 Maria Reyes", or "no player known".
    pub player_text: String,
    pub direction: Direction,
    pub currency: String,
    pub total: Money,
    pub threshold: Money,
    pub transactions: Vec<Listed>,
    /// The identification as it was when raised: (what, value) pairs.
    pub identification: Vec<(&'static str, String)>,
    pub raised_at: DateTime<Utc>,
    pub decision: Option<Decision>,
    /// The buy-ins it lists that count for its player no more (read with the case alone).
    pub withdrawn: Vec<Withdrawn>,
    /// Whether any buy-in it lists counts for its player no more (read with lists of cases).
    pub basis_changed: bool,
}

/// A buy-in a case lists whose attribution to the case's player was withdrawn since it was
/// raised: the observation it was attributed from (the player carded from it) was voided. The
/// case stays as raised; this is why its basis changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdrawn {
    pub buy_in: BuyInId,
    pub observation: ObservationId,
    pub reason: String,
    pub by: Person,
    pub at: DateTime<Utc>,
}

fn text(value: &serde_json::Value, key: &str) -> String {
    match &value[key] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn listed(value: &serde_json::Value) -> Listed {
    let id = text(value, "id");
    let what = match value["source"].as_str() {
        Some("buy_in") => format!(
            "Buy-in {id} at {} seat {}",
            text(value, "table"),
            text(value, "seat")
        ),
        Some("cage") => format!("Cage {id}"),
        _ => format!("Transaction {id}"),
    };
    Listed {
        what,
        gaming_day: text(value, "gaming_day"),
        amount: Money::from_minor_units(value["amount"].as_i64().unwrap_or(0)),
        at: serde_json::from_value(value["at"].clone()).ok(),
    }
}

fn case_of(
    (row, decision): (CaseRow, Option<DecisionRow>),
    names: &HashMap<UserId, String>,
) -> Result<Case, AccountingError> {
    let bad = || AccountingError::BadStored(format!("compliance case {}", row.id));
    let kind = CaseKind::parse(&row.kind).ok_or_else(bad)?;
    let direction = Direction::parse(&row.direction).ok_or_else(bad)?;
    let ident = &row.identification;
    let player_text = match row.player_id {
        Some(_) => format!(
            "{} {} {}",
            text(ident, "card_number"),
            text(ident, "first_name"),
            text(ident, "last_name")
        ),
        None => "No player known".to_owned(),
    };
    let identification = if row.player_id.is_some() {
        vec![
            ("Card number", text(ident, "card_number")),
            (
                "Name",
                format!("{} {}", text(ident, "first_name"), text(ident, "last_name")),
            ),
            ("Date of birth", text(ident, "date_of_birth")),
            ("Identity document", text(ident, "id_reference")),
        ]
    } else {
        Vec::new()
    };
    let transactions = row
        .transactions
        .as_array()
        .map(|lines| lines.iter().map(listed).collect())
        .unwrap_or_default();
    Ok(Case {
        id: row.id,
        kind,
        gaming_day: row.gaming_day,
        first_day: row.first_day,
        player: row.player_id,
        player_text,
        direction,
        currency: row.currency,
        total: Money::from_minor_units(row.total),
        threshold: Money::from_minor_units(row.threshold),
        transactions,
        identification,
        raised_at: row.raised_at,
        decision: decision.map(|d| Decision {
            by: person(names, d.decided_by),
            decision: d.decision,
            reference: d.reference,
            reason: d.reason,
            at: d.decided_at,
        }),
        withdrawn: Vec::new(),
        basis_changed: false,
    })
}

fn cases_of(
    conn: &mut PgConnection,
    found: Vec<(CaseRow, Option<DecisionRow>)>,
) -> Result<Vec<Case>, AccountingError> {
    let names = names(
        conn,
        found
            .iter()
            .filter_map(|(_, d)| d.as_ref().map(|d| d.decided_by)),
    )?;
    found.into_iter().map(|row| case_of(row, &names)).collect()
}

/// Case `row` as its page shows it: with the buy-ins it lists that count for its player no more.
fn with_withdrawn(
    conn: &mut PgConnection,
    row: (CaseRow, Option<DecisionRow>),
) -> Result<Case, AccountingError> {
    let id = row.0.id;
    let mut case = cases_of(conn, vec![row])?
        .pop()
        .ok_or(AccountingError::NotFound("case"))?;
    let withdrawn = rows::withdrawn_in_cases(conn, &[id])?;
    let names = names(conn, withdrawn.iter().map(|w| w.voided_by))?;
    case.withdrawn = withdrawn
        .into_iter()
        .map(|w| Withdrawn {
            buy_in: w.buy_in_id,
            observation: w.observation_id,
            by: person(&names, w.voided_by),
            reason: w.reason,
            at: w.voided_at,
        })
        .collect();
    case.basis_changed = !case.withdrawn.is_empty();
    Ok(case)
}

fn refuse_unless_reader(me: &Me) -> Result<(), AccountingError> {
    if reads_cases(me.role) {
        Ok(())
    } else {
        Err(AccountingError::Refused(
            "The compliance cases are read by compliance officers and auditors.".to_owned(),
        ))
    }
}

/// Which cases a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Showing {
    /// Those without a decision.
    Open,
    /// All of them.
    All,
}

/// How many cases a list shows at most.
pub const LISTED: i64 = 200;

/// The cases raised on gaming days `from..=to`, newest first (at most [`LISTED`]).
pub async fn list(
    db: &Db,
    from: NaiveDate,
    to: NaiveDate,
    showing: Showing,
    me: Me,
) -> Result<Vec<Case>, AccountingError> {
    refuse_unless_reader(&me)?;
    db.run(move |conn| {
        let found = rows::cases(conn, from, to, showing == Showing::Open, LISTED)?;
        let mut cases = cases_of(conn, found)?;
        let ids: Vec<CaseId> = cases.iter().map(|c| c.id).collect();
        let changed = rows::withdrawn_in_cases(conn, &ids)?;
        for case in &mut cases {
            case.basis_changed = changed.iter().any(|line| line.case_id == case.id);
        }
        Ok(cases)
    })
    .await
}

fn event(
    conn: &mut PgConnection,
    me: &Me,
    action: AuditAction,
    target: String,
    day: Option<NaiveDate>,
    details: serde_json::Value,
) -> Result<(), AccountingError> {
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: COMPLIANCE_CHAIN,
            actor: &me.actor,
            action,
            target,
            details,
            gaming_day: day,
            table_id: None,
        },
    )?;
    Ok(())
}

/// Case `id`, with its identification; the opening is an event `compliance.case_read` (it
/// holds a player's personal data).
pub async fn show(db: &Db, id: CaseId, me: Me) -> Result<Case, AccountingError> {
    refuse_unless_reader(&me)?;
    db.run(move |conn| {
        conn.transaction(|conn| {
            let row = rows::case(conn, id)?.ok_or(AccountingError::NotFound("case"))?;
            let day = row.0.gaming_day;
            let case = with_withdrawn(conn, row)?;
            event(
                conn,
                &me,
                AuditAction::ComplianceCaseRead,
                format!("case:{id}"),
                Some(day),
                json!({ "case": id, "player": case.player }),
            )?;
            Ok(case)
        })
    })
    .await
}

/// A decision as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecisionForm {
    /// `filed` or `dismissed`.
    pub decision: String,
    pub reference: String,
    pub reason: String,
}

/// A refused decision: the field it is about, the reason, and the case to show again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionRefused {
    pub field: Option<&'static str>,
    pub reason: String,
    pub case: Case,
}

/// Records the decision on case `id`: filed (with the filing's reference, if any) or
/// dismissed with the reason. By a compliance officer; once. `compliance.decided` on the
/// `compliance` chain.
pub async fn decide(
    db: &Db,
    id: CaseId,
    form: DecisionForm,
    me: Me,
) -> Result<Result<Case, DecisionRefused>, AccountingError> {
    db.run(move |conn| {
        let refusal = |conn: &mut PgConnection,
                       field: Option<&'static str>,
                       reason: String|
         -> Result<Result<Case, DecisionRefused>, AccountingError> {
            let row = rows::case(conn, id)?.ok_or(AccountingError::NotFound("case"))?;
            let case = with_withdrawn(conn, row)?;
            Ok(Err(DecisionRefused {
                field,
                reason,
                case,
            }))
        };
        if me.role != Role::Compliance {
            return refusal(
                conn,
                None,
                "A case is decided by a compliance officer.".to_owned(),
            );
        }
        let decision = form.decision.trim();
        let reference = form.reference.trim();
        let reason = form.reason.trim();
        let problem = match decision {
            "filed" | "dismissed" if reference.chars().count() > 120 => Some((
                "reference",
                "A filing's reference is at most 120 characters.",
            )),
            "dismissed" if reason.is_empty() => Some(("reason", "Say why the case is dismissed.")),
            "filed" | "dismissed" if reason.chars().count() > 1000 => {
                Some(("reason", "A reason is at most 1,000 characters."))
            }
            "filed" | "dismissed" => None,
            _ => Some(("decision", "Choose filed or dismissed.")),
        };
        if let Some((field, reason)) = problem {
            return refusal(conn, Some(field), reason.to_owned());
        }
        let done = conn.transaction(|conn| {
            let (row, _) = rows::case(conn, id)?.ok_or(AccountingError::NotFound("case"))?;
            let Some(saved) = rows::insert_decision(
                conn,
                &NewDecision {
                    case_id: id,
                    decision,
                    reference,
                    reason,
                    decided_by: me.id,
                },
            )?
            else {
                return Ok(false);
            };
            event(
                conn,
                &me,
                AuditAction::ComplianceDecided,
                format!("case:{id}"),
                Some(row.gaming_day),
                json!({
                    "case": id,
                    "kind": row.kind,
                    "player": row.player_id,
                    "decision": saved.decision,
                    "reference": saved.reference,
                    "reason": saved.reason,
                }),
            )?;
            Ok::<bool, AccountingError>(true)
        })?;
        if !done {
            return refusal(conn, None, format!("Case {id} is decided already."));
        }
        let row = rows::case(conn, id)?.ok_or(AccountingError::NotFound("case"))?;
        Ok(Ok(with_withdrawn(conn, row)?))
    })
    .await
}

/// A currency's thresholds in force, and who set them when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InForce {
    pub currency: String,
    pub thresholds: Thresholds,
    /// `None`: the defaults the software came with.
    pub set_by: Option<Person>,
    pub set_at: DateTime<Utc>,
    /// Whether a later row replaced it.
    pub replaced: bool,
}

/// Every currency's thresholds, the ones in force first of each currency, then those they
/// replaced.
pub async fn thresholds_list(db: &Db) -> Result<Vec<InForce>, AccountingError> {
    db.run(thresholds_of).await
}

fn thresholds_of(conn: &mut PgConnection) -> Result<Vec<InForce>, AccountingError> {
    let found = rows::threshold_history(conn)?;
    let names = names(conn, found.iter().filter_map(|r| r.set_by))?;
    let mut seen = std::collections::BTreeSet::new();
    Ok(found
        .into_iter()
        .map(|row| InForce {
            replaced: !seen.insert(row.currency.clone()),
            thresholds: thresholds(&row),
            set_by: row.set_by.map(|id| person(&names, id)),
            set_at: row.set_at,
            currency: row.currency,
        })
        .collect())
}

/// Thresholds as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThresholdsForm {
    pub currency: String,
    pub threshold: String,
    pub warn_percent: String,
    pub window_days: String,
}

/// Puts a currency's thresholds in force from now on (the earlier ones stay, replaced): by an
/// administrator. `compliance.thresholds_set` on the `compliance` chain, with those replaced.
pub async fn set_thresholds(
    db: &Db,
    form: ThresholdsForm,
    me: Me,
) -> Result<Result<Vec<InForce>, (Option<&'static str>, String, Vec<InForce>)>, AccountingError> {
    db.run(move |conn| {
        let checked = (|| {
            if me.role != Role::Admin {
                return Err((None, "Thresholds are set by an administrator.".to_owned()));
            }
            let currency = form.currency.trim().to_uppercase();
            if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
                return Err((
                    Some("currency"),
                    "A currency is three letters (PHP, USD).".to_owned(),
                ));
            }
            let threshold = Money::parse_major(form.threshold.trim())
                .filter(|m| m.is_positive())
                .ok_or((
                    Some("threshold"),
                    "Enter the threshold, an amount above zero (5,000,000).".to_owned(),
                ))?;
            let warn: i16 = form
                .warn_percent
                .trim()
                .parse()
                .ok()
                .filter(|p| (1..=99).contains(p))
                .ok_or((
                    Some("warn_percent"),
                    "The warning is a percentage of the threshold from 1 to 99.".to_owned(),
                ))?;
            let window: i16 = form
                .window_days
                .trim()
                .parse()
                .ok()
                .filter(|d| (0..=31).contains(d))
                .ok_or((
                    Some("window_days"),
                    "The window is 0 (none) to 31 gaming days.".to_owned(),
                ))?;
            Ok((currency, threshold, warn, window))
        })();
        let (currency, threshold, warn, window) = match checked {
            Ok(values) => values,
            Err((field, reason)) => return Ok(Err((field, reason, thresholds_of(conn)?))),
        };
        conn.transaction(|conn| {
            let before = rows::thresholds_of(conn, &currency)?;
            let row = rows::insert_thresholds(
                conn,
                &NewThresholds {
                    currency: &currency,
                    threshold: threshold.minor_units(),
                    warn_percent: warn,
                    window_days: window,
                    set_by: me.id,
                },
            )?;
            event(
                conn,
                &me,
                AuditAction::ComplianceThresholdsSet,
                format!("thresholds:{currency}"),
                None,
                json!({
                    "currency": currency,
                    "threshold": row.threshold,
                    "warn_percent": row.warn_percent,
                    "window_days": row.window_days,
                    "replaced": before.map(|b| json!({
                        "threshold": b.threshold,
                        "warn_percent": b.warn_percent,
                        "window_days": b.window_days,
                    })),
                }),
            )?;
            Ok::<(), AccountingError>(())
        })?;
        Ok(Ok(thresholds_of(conn)?))
    })
    .await
}

/// A player whose cash of the day nears or passes the threshold: the pit board's warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CashWarning {
    pub card_number: String,
    pub name: String,
    pub direction: Direction,
    pub currency: String,
    pub total: Money,
    pub percent: i64,
    /// Above the threshold (a covered transaction), not only near it.
    pub covered: bool,
}

/// The players whose cash in or cash out of gaming day `day` has reached the warning of its
/// currency, highest share of the threshold first; in the caller's turn of the database.
pub fn warnings(
    conn: &mut PgConnection,
    day: NaiveDate,
) -> Result<Vec<CashWarning>, AccountingError> {
    let limits: BTreeMap<String, Thresholds> = rows::threshold_history(conn)?
        .into_iter()
        .rev()
        .map(|row| (row.currency.clone(), thresholds(&row)))
        .collect();
    let Some(lowest) = limits.values().map(|t| t.warn_at().minor_units()).min() else {
        return Ok(Vec::new());
    };
    let totals = rows::day_totals(conn, day, lowest)?;
    let ids: Vec<PlayerId> = totals.iter().map(|t| PlayerId(t.player_id)).collect();
    let players: HashMap<PlayerId, player_rows::PlayerRow> = player_rows::players_of(conn, &ids)?
        .into_iter()
        .map(|p| (p.id, p))
        .collect();
    let mut found: Vec<CashWarning> = totals
        .into_iter()
        .filter_map(|t| {
            let limit = limits.get(&t.currency)?;
            let total = Money::from_minor_units(t.total);
            if total < limit.warn_at() {
                return None;
            }
            let player = players.get(&PlayerId(t.player_id))?;
            Some(CashWarning {
                card_number: player.card_number.clone(),
                name: format!("{} {}", player.first_name, player.last_name),
                direction: Direction::parse(&t.direction)?,
                currency: t.currency,
                total,
                percent: limit.percent_of(total),
                covered: limit.covered(total),
            })
        })
        .collect();
    found.sort_by(|a, b| {
        b.percent
            .cmp(&a.percent)
            .then(a.card_number.cmp(&b.card_number))
    });
    Ok(found)
}

/// A player's cases, newest first, for their page (compliance officers and auditors).
pub fn cases_of_player(
    conn: &mut PgConnection,
    player: PlayerId,
) -> Result<Vec<Case>, AccountingError> {
    let found = rows::cases_of(conn, player)?;
    cases_of(conn, found)
}
