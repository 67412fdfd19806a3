//! Cash transactions with players (docs/compliance.md): the cage's cash over its counter
//! (chips bought and chips cashed, entered by a cashier), and the check every cash transaction
//! of a player goes through in the transaction that writes it — a buy-in in cash at a table
//! (its player: the rated player seated there) or the cage's cash. The check adds up the
//! player's cash of the gaming day and of the window before it (`rules::compliance`) and raises
//! the cases the compliance officer decides on. Everything here is an event on the
//! `compliance` chain, with its gaming day (and table, at a table).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::record::{attempt, day_open, names, person, Stop, Void};
use crate::accounting::slips::{Me, Person};
use crate::accounting::{AccountingError, Saved};
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::compliance::{
    self as rows, CageCashRow, CageCashVoidRow, CashLine, NewCageCash, NewCase, ThresholdRow,
};
use crate::db::handle::Db;
use crate::db::ids::{BuyInId, CageCashId, CaseId, PlayerId, TableId};
use crate::db::players::{self as player_rows, PlayerRow};
use crate::db::users::Role;
use crate::rules::compliance::{self as check_rules, CaseKind, Direction, PlayerCash, Thresholds};
use crate::rules::drop as arithmetic;
use crate::rules::money::Money;

pub use crate::db::compliance::COMPLIANCE_CHAIN;

/// A currency's thresholds as stored, read as the check uses them.
pub fn thresholds(row: &ThresholdRow) -> Thresholds {
    Thresholds {
        threshold: Money::from_minor_units(row.threshold),
        warn_percent: u8::try_from(row.warn_percent).unwrap_or(99),
        window_days: u16::try_from(row.window_days).unwrap_or(0),
    }
}

/// A cash transaction just written, as the check sees it.
pub(crate) struct CashTx<'a> {
    /// `buy_in` or `cage`, as a case lists it.
    pub source: &'static str,
    pub id: i64,
    pub at: DateTime<Utc>,
    /// `buy_in:ID` or `cage_cash:ID`: the event's target.
    pub target: String,
    pub day: NaiveDate,
    pub direction: Direction,
    pub currency: &'a str,
    pub amount: Money,
    pub player: Option<PlayerId>,
    pub table: Option<TableId>,
    pub table_code: Option<&'a str>,
    pub seat: Option<i16>,
}

/// What the check found, for the answer of the form that wrote the transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// The cases raised, in order.
    pub cases: Vec<(CaseId, CaseKind)>,
    /// The player's day's total when this transaction brought it to the warning, with its
    /// percentage of the threshold.
    pub warned: Option<(Money, i64)>,
}

fn line_json(line: &CashLine) -> serde_json::Value {
    json!({
        "source": line.source,
        "id": line.id,
        "gaming_day": line.gaming_day,
        "table": line.table_code,
        "seat": line.seat,
        "amount": line.amount,
        "at": line.at,
    })
}

fn identification(player: &PlayerRow) -> serde_json::Value {
    json!({
        "player": player.id,
        "card_number": player.card_number,
        "first_name": player.first_name,
        "last_name": player.last_name,
        "date_of_birth": player.date_of_birth,
        "id_reference": player.id_reference,
    })
}

fn compliance_event(
    conn: &mut PgConnection,
    actor: &Actor,
    action: AuditAction,
    target: String,
    day: NaiveDate,
    table: Option<TableId>,
    details: serde_json::Value,
) -> QueryResult<()> {
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: COMPLIANCE_CHAIN,
            actor,
            action,
            target,
            details,
            gaming_day: Some(day),
            table_id: table,
        },
    )?;
    Ok(())
}

/// Raises `kind` over `lines`, once (a concurrent transaction may have raised it first), with
/// its event `compliance.case_raised`.
#[allow(clippy::too_many_arguments)]
fn raise(
    conn: &mut PgConnection,
    actor: &Actor,
    tx: &CashTx<'_>,
    kind: CaseKind,
    first_day: NaiveDate,
    total: Money,
    limits: &Thresholds,
    lines: &[&CashLine],
    player: Option<&PlayerRow>,
) -> Result<Option<CaseId>, AccountingError> {
    let transactions: Vec<serde_json::Value> = lines.iter().map(|l| line_json(l)).collect();
    let identification = player.map(identification).unwrap_or_else(|| json!({}));
    let Some(case) = rows::insert_case(
        conn,
        &NewCase {
            kind: kind.as_str(),
            gaming_day: tx.day,
            first_day,
            player_id: tx.player,
            direction: tx.direction.as_str(),
            currency: tx.currency,
            total: total.minor_units(),
            threshold: limits.threshold.minor_units(),
            transactions: json!(transactions),
            identification: identification.clone(),
            table_id: tx.table,
        },
    )?
    else {
        return Ok(None);
    };
    compliance_event(
        conn,
        actor,
        AuditAction::ComplianceCaseRaised,
        format!("case:{}", case.id),
        tx.day,
        tx.table,
        json!({
            "case": case.id,
            "kind": kind.as_str(),
            "by": tx.target,
            "first_day": first_day,
            "direction": tx.direction.as_str(),
            "currency": tx.currency,
            "total": total,
            "threshold": limits.threshold,
            "transactions": transactions,
            "identification": identification,
        }),
    )?;
    Ok(Some(case.id))
}

/// Checks a cash transaction just written in the caller's transaction: adds up its player's
/// cash (locking the player, so two transactions of theirs are added up one after the other),
/// raises what `rules::compliance` finds, and records the transaction on the `compliance`
/// chain when its player is known (`cash.recorded`) and the pit's warning (`cash.approaching`).
/// A currency without thresholds is not checked.
pub(crate) fn check(
    conn: &mut PgConnection,
    actor: &Actor,
    tx: &CashTx<'_>,
) -> Result<Checked, AccountingError> {
    let mut checked = Checked::default();
    let Some(row) = rows::thresholds_of(conn, tx.currency)? else {
        return Ok(checked);
    };
    let limits = thresholds(&row);
    let Some(player_id) = tx.player else {
        let found = check_rules::check_unknown(&limits, tx.amount);
        if found.covered {
            let line = CashLine {
                source: tx.source.to_owned(),
                id: tx.id,
                gaming_day: tx.day,
                table_code: tx.table_code.map(str::to_owned),
                seat: tx.seat,
                amount: tx.amount.minor_units(),
                at: tx.at,
            };
            let raised = raise(
                conn,
                actor,
                tx,
                CaseKind::Covered,
                tx.day,
                tx.amount,
                &limits,
                &[&line],
                None,
            )?;
            checked
                .cases
                .extend(raised.map(|id| (id, CaseKind::Covered)));
        }
        return Ok(checked);
    };
    let player =
        player_rows::lock_player(conn, player_id)?.ok_or(AccountingError::NotFound("player"))?;
    let window = i64::from(limits.window_days.max(1));
    let first_day = tx.day - Duration::days(window - 1);
    let lines = rows::player_cash(
        conn,
        player_id,
        tx.direction.as_str(),
        tx.currency,
        first_day,
        tx.day,
    )?;
    let (today, earlier): (Vec<&CashLine>, Vec<&CashLine>) =
        lines.iter().partition(|l| l.gaming_day == tx.day);
    let mut by_day: BTreeMap<NaiveDate, i64> = BTreeMap::new();
    for line in &earlier {
        *by_day.entry(line.gaming_day).or_default() += line.amount;
    }
    let day_amounts: Vec<Money> = today
        .iter()
        .map(|l| Money::from_minor_units(l.amount))
        .collect();
    let earlier_days: Vec<Money> = by_day
        .values()
        .map(|&a| Money::from_minor_units(a))
        .collect();
    let raised_rows = rows::raised(
        conn,
        player_id,
        tx.direction.as_str(),
        tx.currency,
        first_day,
        tx.day,
    )?;
    let has = |kind: CaseKind, same_day: bool| {
        raised_rows
            .iter()
            .any(|(k, d)| k == kind.as_str() && (!same_day || *d == tx.day))
    };
    let found = check_rules::check(
        &limits,
        &PlayerCash {
            day: &day_amounts,
            new: tx.amount,
            earlier_days: &earlier_days,
            raised: check_rules::Raised {
                covered: has(CaseKind::Covered, true),
                structuring_day: has(CaseKind::StructuringDay, true),
                structuring_days: has(CaseKind::StructuringDays, false),
            },
        },
    );
    compliance_event(
        conn,
        actor,
        AuditAction::CashRecorded,
        tx.target.clone(),
        tx.day,
        tx.table,
        json!({
            "player": player_id,
            "direction": tx.direction.as_str(),
            "currency": tx.currency,
            "amount": tx.amount,
            "day_total": found.day_total,
        }),
    )?;
    for kind in found.kinds() {
        let (first, total, listed): (NaiveDate, Money, Vec<&CashLine>) = match kind {
            CaseKind::StructuringDays => (
                earlier.first().map_or(tx.day, |l| l.gaming_day),
                found.window_total,
                lines.iter().collect(),
            ),
            _ => (tx.day, found.day_total, today.clone()),
        };
        if let Some(id) = raise(
            conn,
            actor,
            tx,
            kind,
            first,
            total,
            &limits,
            &listed,
            Some(&player),
        )? {
            checked.cases.push((id, kind));
        }
    }
    if found.warned {
        let percent = limits.percent_of(found.day_total);
        compliance_event(
            conn,
            actor,
            AuditAction::CashApproaching,
            format!("player:{player_id}"),
            tx.day,
            tx.table,
            json!({
                "player": player_id,
                "by": tx.target,
                "direction": tx.direction.as_str(),
                "currency": tx.currency,
                "day_total": found.day_total,
                "threshold": limits.threshold,
                "percent": percent,
            }),
        )?;
        checked.warned = Some((found.day_total, percent));
    }
    Ok(checked)
}

/// Buy-ins attributed to `player` that count as theirs no more (the observation they were
/// attributed from was voided: `why` says which, by whom and why). Each in cash, `withdrawn`,
/// is taken back on the `compliance` chain (`cash.withdrawn`, beside its `cash.recorded`).
/// A case that lists any of `all` stays as it was raised, for the compliance officer to decide:
/// nothing re-checks or closes it; `compliance.case_basis_changed` names the buy-ins it lists
/// that are withdrawn and `why`. Answers the cases.
pub(crate) fn withdrawn(
    conn: &mut PgConnection,
    actor: &Actor,
    player: PlayerId,
    withdrawn: &[CashTx<'_>],
    all: &[BuyInId],
    why: &serde_json::Value,
) -> Result<Vec<CaseId>, AccountingError> {
    for tx in withdrawn {
        compliance_event(
            conn,
            actor,
            AuditAction::CashWithdrawn,
            tx.target.clone(),
            tx.day,
            tx.table,
            json!({
                "player": player,
                "direction": tx.direction.as_str(),
                "currency": tx.currency,
                "amount": tx.amount,
                "why": why,
            }),
        )?;
    }
    let listings = rows::cases_listing_buy_ins(conn, player, all)?;
    let mut cases: Vec<CaseId> = Vec::new();
    for listing in &listings {
        if cases.last() == Some(&listing.case_id) {
            continue;
        }
        let buy_ins: Vec<BuyInId> = listings
            .iter()
            .filter(|l| l.case_id == listing.case_id)
            .map(|l| l.buy_in_id)
            .collect();
        compliance_event(
            conn,
            actor,
            AuditAction::ComplianceCaseBasisChanged,
            format!("case:{}", listing.case_id),
            listing.gaming_day,
            None,
            json!({
                "case": listing.case_id,
                "player": player,
                "withdrawn_buy_ins": buy_ins,
                "why": why,
            }),
        )?;
        cases.push(listing.case_id);
    }
    Ok(cases)
}

/// Cash over the cage's counter as the lists show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CageCash {
    pub id: CageCashId,
    pub gaming_day: NaiveDate,
    pub direction: Direction,
    pub currency: String,
    pub amount: Money,
    /// The player's card number and name, when known.
    pub player: Option<(PlayerId, String, String)>,
    pub note: String,
    pub recorded_by: Person,
    pub at: DateTime<Utc>,
    pub void: Option<Void>,
}

/// The cage's cash of a gaming day, and what a form's answer adds: what it raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CageDay {
    pub day: NaiveDate,
    pub lines: Vec<CageCash>,
    /// Totals not void, per currency and direction.
    pub totals: Vec<(String, Direction, Money)>,
    /// The currencies the form offers: those with thresholds in force.
    pub currencies: Vec<String>,
}

/// Cash as typed at the cage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CageCashForm {
    /// `in` or `out`.
    pub direction: String,
    pub currency: String,
    pub amount: String,
    /// The player's card number, when they gave it.
    pub card: String,
    pub note: String,
}

/// What a refused cage form shows: the field it is about, if any, and the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CagePage {
    pub field: Option<&'static str>,
    pub day: CageDay,
}

fn cage_cash_of(
    (row, void): (CageCashRow, Option<CageCashVoidRow>),
    players: &BTreeMap<PlayerId, PlayerRow>,
    names: &std::collections::HashMap<crate::db::ids::UserId, String>,
) -> Result<CageCash, AccountingError> {
    let direction = Direction::parse(&row.direction)
        .ok_or_else(|| AccountingError::BadStored(format!("cage cash {}", row.id)))?;
    Ok(CageCash {
        id: row.id,
        gaming_day: row.gaming_day,
        direction,
        currency: row.currency,
        amount: Money::from_minor_units(row.amount),
        player: row.player_id.and_then(|id| {
            players.get(&id).map(|p| {
                (
                    id,
                    p.card_number.clone(),
                    format!("{} {}", p.first_name, p.last_name),
                )
            })
        }),
        note: row.note,
        recorded_by: person(names, row.recorded_by),
        at: row.created_at,
        void: void.map(|v| Void {
            reason: v.reason,
            by: person(names, v.voided_by),
            at: v.voided_at,
        }),
    })
}

/// The cage's cash of gaming day `day`, in the caller's turn of the database.
pub fn cage_day(conn: &mut PgConnection, day: NaiveDate) -> Result<CageDay, AccountingError> {
    let found = rows::cage_cash_of_day(conn, day)?;
    let mut ids: Vec<PlayerId> = found.iter().filter_map(|(r, _)| r.player_id).collect();
    ids.sort();
    ids.dedup();
    let players: BTreeMap<PlayerId, PlayerRow> = player_rows::players_of(conn, &ids)?
        .into_iter()
        .map(|p| (p.id, p))
        .collect();
    let names = names(
        conn,
        found.iter().flat_map(|(r, v)| {
            std::iter::once(r.recorded_by).chain(v.as_ref().map(|v| v.voided_by))
        }),
    )?;
    let lines = found
        .into_iter()
        .map(|row| cage_cash_of(row, &players, &names))
        .collect::<Result<Vec<_>, _>>()?;
    let mut sums: BTreeMap<(String, Direction), i64> = BTreeMap::new();
    for line in lines.iter().filter(|l| l.void.is_none()) {
        *sums
            .entry((line.currency.clone(), line.direction))
            .or_default() += line.amount.minor_units();
    }
    let mut currencies: Vec<String> = rows::threshold_history(conn)?
        .into_iter()
        .map(|t| t.currency)
        .collect();
    currencies.dedup();
    Ok(CageDay {
        day,
        lines,
        totals: sums
            .into_iter()
            .map(|((c, d), a)| (c, d, Money::from_minor_units(a)))
            .collect(),
        currencies,
    })
}

/// The cage's cash of gaming day `day`, for its page.
pub async fn show_cage_day(db: &Db, day: NaiveDate) -> Result<CageDay, AccountingError> {
    db.run(move |conn| cage_day(conn, day)).await
}

fn cage_answer<T>(
    conn: &mut PgConnection,
    day: NaiveDate,
    change: impl FnOnce(&mut PgConnection) -> Result<T, Stop>,
) -> Result<Saved<T, CagePage>, AccountingError> {
    let (field, reason) = match attempt(conn, change)? {
        Ok(done) => return Ok(Saved::Done(done)),
        Err(refusal) => refusal,
    };
    Ok(Saved::Refused {
        reason,
        page: CagePage {
            field,
            day: cage_day(conn, day)?,
        },
    })
}

/// A card number as typed or scanned: spaces and dashes dropped, in capitals.
pub fn card_number(typed: &str) -> String {
    typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_uppercase()
}

/// Records cash over the cage's counter on gaming day `day` (the current one): chips bought
/// (`in`) or cashed (`out`), in a currency with thresholds, with the player's card when they
/// gave it (an unknown card is refused). By a cashier; not on a closed day. `cash.cage_recorded`
/// on the `compliance` chain, then the check ([`check`]).
pub async fn record_cage_cash(
    db: &Db,
    day: NaiveDate,
    form: CageCashForm,
    me: Me,
) -> Result<Saved<(CageCash, Checked), CagePage>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            if me.role != Role::Cashier {
                return Err(Stop::Refused(
                    "Cash over the cage's counter is recorded by a cashier.".to_owned(),
                ));
            }
            day_open(conn, day)?;
            let direction = Direction::parse(form.direction.trim()).ok_or_else(|| {
                Stop::Field(
                    "direction",
                    "Choose chips bought (cash in) or chips cashed (cash out).".to_owned(),
                )
            })?;
            let currency = form.currency.trim().to_uppercase();
            if rows::thresholds_of(conn, &currency)?.is_none() {
                return Err(Stop::Field(
                    "currency",
                    format!(
                        "{currency:?} is not a currency the cage takes: choose one of the list."
                    ),
                ));
            }
            let amount = arithmetic::amount(&form.amount)
                .map_err(|err| Stop::Field("amount", err.to_string()))?;
            let card = card_number(&form.card);
            let player = if card.is_empty() {
                None
            } else {
                let found = player_rows::by_card(conn, &card)?.ok_or_else(|| {
                    Stop::Field(
                        "card",
                        format!(
                            "No player has card {card}: check the number, or leave it empty \
                             for a player who gave none."
                        ),
                    )
                })?;
                Some(found.id)
            };
            let note = form.note.trim();
            if note.chars().count() > 500 {
                return Err(Stop::Field(
                    "note",
                    "A note is at most 500 characters.".to_owned(),
                ));
            }
            let row = rows::insert_cage_cash(
                conn,
                &NewCageCash {
                    gaming_day: day,
                    direction: direction.as_str(),
                    currency: &currency,
                    amount: amount.minor_units(),
                    player_id: player,
                    note,
                    recorded_by: me.id,
                },
            )?;
            compliance_event(
                conn,
                &me.actor,
                AuditAction::CashCageRecorded,
                format!("cage_cash:{}", row.id),
                day,
                None,
                json!({
                    "cage_cash": row.id,
                    "direction": direction.as_str(),
                    "currency": currency,
                    "amount": amount,
                    "player": player,
                    "note": note,
                }),
            )?;
            let checked = check(
                conn,
                &me.actor,
                &CashTx {
                    source: "cage",
                    id: row.id.0,
                    at: row.created_at,
                    table_code: None,
                    seat: None,
                    target: format!("cage_cash:{}", row.id),
                    day,
                    direction,
                    currency: &currency,
                    amount,
                    player,
                    table: None,
                },
            )?;
            let saved = reread(conn, row.id)?;
            Ok((saved, checked))
        };
        cage_answer(conn, day, change)
    })
    .await
}

fn reread(conn: &mut PgConnection, id: CageCashId) -> Result<CageCash, AccountingError> {
    let row = rows::cage_cash_one(conn, id)?.ok_or(AccountingError::NotFound("cage cash"))?;
    let players: BTreeMap<PlayerId, PlayerRow> =
        player_rows::players_of(conn, &row.0.player_id.into_iter().collect::<Vec<_>>())?
            .into_iter()
            .map(|p| (p.id, p))
            .collect();
    let names = names(
        conn,
        std::iter::once(row.0.recorded_by).chain(row.1.as_ref().map(|v| v.voided_by)),
    )?;
    cage_cash_of(row, &players, &names)
}

/// Voids cage cash `id` with a reason: by a cashier or an administrator who did not record it,
/// not on a closed gaming day, not twice. It stays on the list, struck, out of the totals and
/// of later checks; a case it helped raise stays for the compliance officer (who dismisses it
/// with the reason). `cash.cage_void` on the `compliance` chain.
pub async fn void_cage_cash(
    db: &Db,
    id: CageCashId,
    reason: String,
    me: Me,
) -> Result<Saved<CageCash, CagePage>, AccountingError> {
    db.run(move |conn| {
        let (row, _) =
            rows::cage_cash_one(conn, id)?.ok_or(AccountingError::NotFound("cage cash"))?;
        let day = row.gaming_day;
        let change = |conn: &mut PgConnection| {
            if !matches!(me.role, Role::Cashier | Role::Admin) {
                return Err(Stop::Refused(
                    "Only a cashier or an administrator voids the cage's cash.".to_owned(),
                ));
            }
            if me.id == row.recorded_by {
                return Err(Stop::Refused(
                    "You recorded this cash: another cashier or an administrator voids it."
                        .to_owned(),
                ));
            }
            day_open(conn, day)?;
            let reason = match reason.trim() {
                "" => {
                    return Err(Stop::Field(
                        "reason",
                        "Say why the cash is void.".to_owned(),
                    ))
                }
                r if r.chars().count() > 500 => {
                    return Err(Stop::Field(
                        "reason",
                        "A reason is at most 500 characters.".to_owned(),
                    ))
                }
                r => r.to_owned(),
            };
            if rows::insert_cage_cash_void(conn, id, &reason, me.id)?.is_none() {
                return Err(Stop::Refused(format!("Cage cash {id} is void already.")));
            }
            compliance_event(
                conn,
                &me.actor,
                AuditAction::CashCageVoid,
                format!("cage_cash:{id}"),
                day,
                None,
                json!({
                    "cage_cash": id,
                    "direction": row.direction,
                    "currency": row.currency,
                    "amount": row.amount,
                    "player": row.player_id,
                    "recorded_by": row.recorded_by,
                    "reason": reason,
                }),
            )?;
            Ok(reread(conn, id)?)
        };
        cage_answer(conn, day, change)
    })
    .await
}
