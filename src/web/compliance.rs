//! Cash-transaction compliance (docs/compliance.md): the cage's cash desk (chips bought and
//! cashed, entered by a cashier), the compliance officer's cases with their decisions, and the
//! thresholds of each currency. Each handler parses the request, calls one use-case of
//! `crate::accounting::cash` or `crate::players::compliance`, and renders its answer.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{Duration, Utc};
use serde::Deserialize;

use crate::accounting::cash::{self, CageCash, CageCashForm, CageDay, Checked};
use crate::accounting::Saved;
use crate::config::Zone;
use crate::db::ids::{CageCashId, CaseId};
use crate::db::users::Role;
use crate::players::compliance::{
    self, Case, DecisionForm, DecisionRefused, InForce, Showing, ThresholdsForm,
};
use crate::rules::compliance::{CaseKind, Direction};
use crate::web::error::AppError;
use crate::web::format::{money, when};
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct CageCashView {
    pub id: i64,
    pub at: String,
    pub direction: &'static str,
    pub amount: String,
    pub player: String,
    pub note: String,
    pub recorded_by: String,
    pub void: Option<String>,
    pub may_void: bool,
}

#[derive(Template)]
#[template(path = "cage_cash.html")]
struct CageCashPage {
    nav: Nav,
    day: String,
    lines: Vec<CageCashView>,
    totals: Vec<(String, &'static str, String)>,
    currencies: Vec<String>,
    may_record: bool,
    typed: CageCashForm,
    error: Option<String>,
    error_field: &'static str,
}

fn cage_view(user: &CurrentUser, zone: Zone, line: &CageCash) -> CageCashView {
    CageCashView {
        id: line.id.0,
        at: when(line.at, zone),
        direction: match line.direction {
            Direction::In => "Chips bought (cash in)",
            Direction::Out => "Chips cashed (cash out)",
        },
        amount: money(line.amount, &line.currency),
        player: line
            .player
            .as_ref()
            .map(|(_, card, name)| format!("{card} {name}"))
            .unwrap_or_else(|| "—".to_owned()),
        note: line.note.clone(),
        recorded_by: line.recorded_by.name.clone(),
        void: line
            .void
            .as_ref()
            .map(|v| format!("Void: {} ({}, {})", v.reason, v.by.name, when(v.at, zone))),
        may_void: line.void.is_none()
            && matches!(user.role, Role::Cashier | Role::Admin)
            && line.recorded_by.id != user.id,
    }
}

fn cage_page(
    session: &Session,
    user: &CurrentUser,
    state: &AppState,
    day: CageDay,
    typed: CageCashForm,
    refused: Option<(Option<&'static str>, String)>,
) -> Result<HttpResponse, AppError> {
    let zone = state.config.zone();
    let status = if refused.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let page = CageCashPage {
        nav: session::nav(session, Some(user))?,
        day: day.day.to_string(),
        lines: day.lines.iter().map(|l| cage_view(user, zone, l)).collect(),
        totals: day
            .totals
            .iter()
            .map(|(c, d, a)| (c.clone(), d.title(), money(*a, c)))
            .collect(),
        currencies: day.currencies,
        may_record: user.role == Role::Cashier,
        typed,
        error_field: refused.as_ref().and_then(|r| r.0).unwrap_or(""),
        error: refused.map(|r| r.1),
    };
    render(status, &page)
}

/// `GET /cage/cash`: the cage's cash of the gaming day, and the form that records it.
pub async fn cage_cash(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let day = state.config.gaming_day(Utc::now());
    let shown = cash::show_cage_day(&state.db, day).await?;
    cage_page(
        &session,
        &user,
        &state,
        shown,
        CageCashForm::default(),
        None,
    )
}

#[derive(Deserialize)]
pub struct CageCashFields {
    #[serde(default)]
    direction: String,
    #[serde(default)]
    currency: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    card: String,
    #[serde(default)]
    note: String,
}

/// What the cashier is told of the check: the player's day against the reporting threshold
/// (never a structuring candidate: the player at the counter must not be tipped off).
fn checked_words(checked: &Checked, currency: &str, direction: Direction) -> String {
    let what = match direction {
        Direction::In => "cash in",
        Direction::Out => "cash out",
    };
    if checked.cases.iter().any(|(_, k)| *k == CaseKind::Covered) {
        format!(
            " The player's {what} today is above the reporting threshold: take and check \
             their identification."
        )
    } else if let Some((total, percent)) = checked.warned {
        format!(
            " The player's {what} today is {} ({percent} % of the reporting threshold).",
            money(total, currency)
        )
    } else {
        String::new()
    }
}

/// `POST /cage/cash`: records chips bought or cashed at the cage.
pub async fn record_cage_cash(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<CageCashFields>,
) -> Result<HttpResponse, AppError> {
    let f = form.into_inner();
    let typed = CageCashForm {
        direction: f.direction,
        currency: f.currency,
        amount: f.amount,
        card: f.card,
        note: f.note,
    };
    let day = state.config.gaming_day(Utc::now());
    match cash::record_cage_cash(&state.db, day, typed.clone(), user.me(&req)).await? {
        Saved::Done((saved, checked)) => {
            session::set_flash(
                &session,
                &format!(
                    "Recorded: {} {}.{}",
                    saved.direction.title().to_lowercase(),
                    money(saved.amount, &saved.currency),
                    checked_words(&checked, &saved.currency, saved.direction)
                ),
            )?;
            Ok(redirect("/cage/cash"))
        }
        Saved::Refused { reason, page } => cage_page(
            &session,
            &user,
            &state,
            page.day,
            typed,
            Some((page.field, reason)),
        ),
    }
}

#[derive(Deserialize)]
pub struct VoidFields {
    #[serde(default)]
    reason: String,
}

/// `POST /cage/cash/{id}/void`: voids the cage's cash with a reason.
pub async fn void_cage_cash(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<VoidFields>,
) -> Result<HttpResponse, AppError> {
    let id = CageCashId(path.into_inner());
    match cash::void_cage_cash(&state.db, id, form.into_inner().reason, user.me(&req)).await? {
        Saved::Done(_) => {
            session::set_flash(&session, &format!("Cage cash {id} is void."))?;
            Ok(redirect("/cage/cash"))
        }
        Saved::Refused { reason, page } => cage_page(
            &session,
            &user,
            &state,
            page.day,
            CageCashForm::default(),
            Some((page.field, reason)),
        ),
    }
}

pub struct CaseLine {
    pub id: i64,
    pub kind: &'static str,
    pub day: String,
    pub player: String,
    pub direction: &'static str,
    pub total: String,
    pub threshold: String,
    pub transactions: usize,
    pub decision: String,
    pub basis_changed: bool,
}

fn case_line(case: &Case) -> CaseLine {
    CaseLine {
        id: case.id.0,
        kind: case.kind.title(),
        day: if case.first_day == case.gaming_day {
            case.gaming_day.to_string()
        } else {
            format!("{} to {}", case.first_day, case.gaming_day)
        },
        player: case.player_text.clone(),
        direction: case.direction.title(),
        total: money(case.total, &case.currency),
        threshold: money(case.threshold, &case.currency),
        transactions: case.transactions.len(),
        decision: match &case.decision {
            None => "Open".to_owned(),
            Some(d) if d.decision == "filed" => "Filed".to_owned(),
            Some(_) => "Dismissed".to_owned(),
        },
        basis_changed: case.basis_changed,
    }
}

#[derive(Template)]
#[template(path = "compliance.html")]
struct CasesPage {
    nav: Nav,
    all: bool,
    from: String,
    to: String,
    cases: Vec<CaseLine>,
    listed: i64,
}

#[derive(Deserialize)]
pub struct CasesQuery {
    #[serde(default)]
    show: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
}

/// `GET /compliance?show=all&from=&to=`: the cases raised on those gaming days (the last 90 by
/// default), open ones only unless `show=all`.
pub async fn cases(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<CasesQuery>,
) -> Result<HttpResponse, AppError> {
    let q = query.into_inner();
    let today = state.config.gaming_day(Utc::now());
    let to = match q.to.trim() {
        "" => today,
        text => crate::web::forms::parse_day("to", text)?,
    };
    let from = match q.from.trim() {
        "" => to - Duration::days(89),
        text => crate::web::forms::parse_day("from", text)?,
    };
    let all = q.show == "all";
    let showing = if all { Showing::All } else { Showing::Open };
    let found = compliance::list(&state.db, from, to, showing, user.me(&req)).await?;
    let page = CasesPage {
        nav: session::nav(&session, Some(&user))?,
        all,
        from: from.to_string(),
        to: to.to_string(),
        cases: found.iter().map(case_line).collect(),
        listed: compliance::LISTED,
    };
    render(StatusCode::OK, &page)
}

#[derive(Template)]
#[template(path = "compliance_case.html")]
struct CasePage {
    nav: Nav,
    line: CaseLine,
    about: &'static str,
    raised: String,
    player_id: i64,
    identification: Vec<(&'static str, String)>,
    transactions: Vec<(String, String, String, String)>,
    decision: Option<(String, String, String, String)>,
    /// Why the case's basis changed since it was raised, a line per buy-in withdrawn.
    withdrawn: Vec<String>,
    may_decide: bool,
    typed: DecisionForm,
    error: Option<String>,
    error_field: &'static str,
}

fn case_page(
    session: &Session,
    user: &CurrentUser,
    zone: Zone,
    case: &Case,
    typed: DecisionForm,
    refused: Option<(Option<&'static str>, String)>,
) -> Result<HttpResponse, AppError> {
    let status = if refused.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let page = CasePage {
        nav: session::nav(session, Some(user))?,
        line: case_line(case),
        about: match case.kind {
            CaseKind::Covered if case.player.is_none() => {
                "One transaction above the threshold, no player known: identify the player \
                 from the table or the cage, and file it."
            }
            CaseKind::Covered => "The player's cash of the gaming day is above the threshold.",
            CaseKind::StructuringDay => {
                "Transactions each under the threshold whose sum of the gaming day is above it: \
                 a suspicious-transaction candidate."
            }
            CaseKind::StructuringDays => {
                "Gaming days each under the threshold whose sum over the window is above it: a \
                 suspicious-transaction candidate."
            }
        },
        raised: when(case.raised_at, zone),
        player_id: case.player.map_or(0, |p| p.0),
        identification: case.identification.clone(),
        transactions: case
            .transactions
            .iter()
            .map(|t| {
                (
                    t.what.clone(),
                    t.gaming_day.clone(),
                    t.at.map(|at| when(at, zone)).unwrap_or_default(),
                    money(t.amount, &case.currency),
                )
            })
            .collect(),
        decision: case.decision.as_ref().map(|d| {
            (
                if d.decision == "filed" {
                    "Filed".to_owned()
                } else {
                    "Dismissed".to_owned()
                },
                d.reference.clone(),
                d.reason.clone(),
                format!("{}, {}", d.by.name, when(d.at, zone)),
            )
        }),
        withdrawn: case
            .withdrawn
            .iter()
            .map(|w| {
                format!(
                    "Buy-in {}: attributed to the player when carded from observation {}, which \
                     {} voided on {}: \"{}\". It counts as theirs no more.",
                    w.buy_in,
                    w.observation,
                    w.by.name,
                    when(w.at, zone),
                    w.reason
                )
            })
            .collect(),
        may_decide: case.decision.is_none() && user.role == Role::Compliance,
        typed,
        error_field: refused.as_ref().and_then(|r| r.0).unwrap_or(""),
        error: refused.map(|r| r.1),
    };
    render(status, &page)
}

/// `GET /compliance/cases/{id}`: a case, its transactions, the player's identification and its
/// decision (or the form to record it).
pub async fn case(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let found = compliance::show(&state.db, CaseId(path.into_inner()), user.me(&req)).await?;
    case_page(
        &session,
        &user,
        state.config.zone(),
        &found,
        DecisionForm::default(),
        None,
    )
}

#[derive(Deserialize)]
pub struct DecisionFields {
    #[serde(default)]
    decision: String,
    #[serde(default)]
    reference: String,
    #[serde(default)]
    reason: String,
}

/// `POST /compliance/cases/{id}/decision`: records the compliance officer's decision.
pub async fn decide(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<DecisionFields>,
) -> Result<HttpResponse, AppError> {
    let id = CaseId(path.into_inner());
    let f = form.into_inner();
    let typed = DecisionForm {
        decision: f.decision,
        reference: f.reference,
        reason: f.reason,
    };
    match compliance::decide(&state.db, id, typed.clone(), user.me(&req)).await? {
        Ok(case) => {
            session::set_flash(
                &session,
                &format!(
                    "Case {id}: {}.",
                    case.decision.map_or("decided".to_owned(), |d| d.decision)
                ),
            )?;
            Ok(redirect(&format!("/compliance/cases/{id}")))
        }
        Err(DecisionRefused {
            field,
            reason,
            case,
        }) => case_page(
            &session,
            &user,
            state.config.zone(),
            &case,
            typed,
            Some((field, reason)),
        ),
    }
}

pub struct ThresholdView {
    pub currency: String,
    pub threshold: String,
    pub warn: String,
    pub window: String,
    pub set: String,
    pub replaced: bool,
}

#[derive(Template)]
#[template(path = "compliance_thresholds.html")]
struct ThresholdsPage {
    nav: Nav,
    rows: Vec<ThresholdView>,
    may_set: bool,
    typed: ThresholdsForm,
    error: Option<String>,
    error_field: &'static str,
}

fn thresholds_page(
    session: &Session,
    user: &CurrentUser,
    zone: Zone,
    rows: &[InForce],
    typed: ThresholdsForm,
    refused: Option<(Option<&'static str>, String)>,
) -> Result<HttpResponse, AppError> {
    let status = if refused.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let page = ThresholdsPage {
        nav: session::nav(session, Some(user))?,
        rows: rows
            .iter()
            .map(|r| ThresholdView {
                currency: r.currency.clone(),
                threshold: money(r.thresholds.threshold, &r.currency),
                warn: format!(
                    "{} % ({})",
                    r.thresholds.warn_percent,
                    money(r.thresholds.warn_at(), &r.currency)
                ),
                window: match r.thresholds.window_days {
                    0 | 1 => "none".to_owned(),
                    days => format!("{days} gaming days"),
                },
                set: match &r.set_by {
                    Some(by) => format!("{}, {}", by.name, when(r.set_at, zone)),
                    None => "as installed".to_owned(),
                },
                replaced: r.replaced,
            })
            .collect(),
        may_set: user.role == Role::Admin,
        typed,
        error_field: refused.as_ref().and_then(|r| r.0).unwrap_or(""),
        error: refused.map(|r| r.1),
    };
    render(status, &page)
}

/// `GET /compliance/thresholds`: each currency's thresholds in force and those they replaced.
pub async fn thresholds(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let rows = compliance::thresholds_list(&state.db).await?;
    thresholds_page(
        &session,
        &user,
        state.config.zone(),
        &rows,
        ThresholdsForm::default(),
        None,
    )
}

#[derive(Deserialize)]
pub struct ThresholdFields {
    #[serde(default)]
    currency: String,
    #[serde(default)]
    threshold: String,
    #[serde(default)]
    warn_percent: String,
    #[serde(default)]
    window_days: String,
}

/// `POST /compliance/thresholds`: puts a currency's thresholds in force (an administrator).
pub async fn set_thresholds(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<ThresholdFields>,
) -> Result<HttpResponse, AppError> {
    let f = form.into_inner();
    let typed = ThresholdsForm {
        currency: f.currency,
        threshold: f.threshold,
        warn_percent: f.warn_percent,
        window_days: f.window_days,
    };
    match compliance::set_thresholds(&state.db, typed.clone(), user.me(&req)).await? {
        Ok(_) => {
            session::set_flash(
                &session,
                &format!(
                    "Thresholds of {} in force from now on.",
                    typed.currency.trim().to_uppercase()
                ),
            )?;
            Ok(redirect("/compliance/thresholds"))
        }
        Err((field, reason, rows)) => thresholds_page(
            &session,
            &user,
            state.config.zone(),
            &rows,
            typed,
            Some((field, reason)),
        ),
    }
}
