//! The cage's pages (docs/accounting.md, "Fills and credits"): the cage's desk, a table's fills
//! and credits, a slip with its steps, a slip's print view, and the slips of a gaming day. Each
//! handler parses the request, calls one use-case of `crate::accounting::cage`, and renders.

use std::collections::HashMap;

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use serde::Deserialize;

use crate::accounting::cage::{self, CageDesk, Printed, Request, SignedIn, Slip, TableCage};
use crate::accounting::signatures::SecondPerson;
use crate::accounting::Saved;
use crate::config::Zone;
use crate::db::cage::{Kind, Step};
use crate::db::ids::{CageSlipId, CageSlipPrintId, ChipSetVersionId};
use crate::db::users::Role;
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// One step of a slip as pages show it.
pub struct StepView {
    pub step: &'static str,
    pub signer: String,
    pub second: Option<String>,
    pub reason: Option<String>,
    pub at: String,
}

/// A slip as pages show it.
pub struct SlipView {
    pub id: i64,
    pub number: String,
    pub kind: &'static str,
    pub table: String,
    pub table_name: String,
    pub day: String,
    pub currency: String,
    pub chip_set_version: i32,
    /// (denomination, chips, amount) of the denominations with chips.
    pub lines: Vec<(String, i64, String)>,
    pub total: String,
    pub state: &'static str,
    pub steps: Vec<StepView>,
    pub can_issue: bool,
    pub can_receive: bool,
    pub can_void: bool,
}

fn slip_view(slip: &Slip, zone: Zone, viewer: Role) -> SlipView {
    let state = slip.state();
    SlipView {
        id: slip.id.0,
        number: slip.number_text(),
        kind: slip.kind.title(),
        table: slip.table.code.clone(),
        table_name: slip.table.name.clone(),
        day: slip.gaming_day.to_string(),
        currency: slip.table.currency.clone(),
        chip_set_version: slip.chip_set_version,
        lines: slip
            .inventory
            .lines()
            .filter(|l| l.count > 0)
            .map(|l| (l.denomination.major_text(), l.count, l.amount.major_text()))
            .collect(),
        total: slip.inventory.total().major_text(),
        state: state.as_str(),
        steps: slip
            .steps
            .iter()
            .map(|s| StepView {
                step: s.step.as_str(),
                signer: s.signer.display_name.clone(),
                second: s.second.as_ref().map(|p| p.display_name.clone()),
                reason: s.reason.clone(),
                at: when(s.at, zone),
            })
            .collect(),
        can_issue: viewer == Role::Cashier && cage::may_follow(state, Step::Issued),
        can_receive: matches!(viewer, Role::Dealer | Role::Supervisor)
            && cage::may_follow(state, Step::Received),
        can_void: matches!(viewer, Role::Supervisor | Role::Cashier | Role::Admin)
            && cage::may_follow(state, Step::Void),
    }
}

fn slip_id(path: web::Path<i64>) -> CageSlipId {
    CageSlipId(path.into_inner())
}

fn signed_in(user: &CurrentUser) -> SignedIn {
    SignedIn {
        id: user.id,
        username: user.username.clone(),
        role: user.role,
    }
}

// The cage's desk.

#[derive(Template)]
#[template(path = "cage.html")]
struct DeskPage {
    nav: Nav,
    can_issue: bool,
    pending: Vec<SlipView>,
    in_transit: Vec<SlipView>,
}

pub async fn desk(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let CageDesk {
        pending,
        in_transit,
    } = cage::desk(&state.db).await?;
    let zone = state.config.zone();
    let page = DeskPage {
        nav: session::nav(&session, Some(&user))?,
        can_issue: user.role == Role::Cashier,
        pending: pending
            .iter()
            .map(|s| slip_view(s, zone, user.role))
            .collect(),
        in_transit: in_transit
            .iter()
            .map(|s| slip_view(s, zone, user.role))
            .collect(),
    };
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(cashier = %user.username))]
pub async fn issue(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let slip = cage::issue(&state.db, slip_id(path), signed_in(&user), user.actor(&req)).await?;
    session::set_flash(
        &session,
        &format!(
            "Issued {} {} to {}: {} {}.",
            slip.kind.as_str(),
            slip.number_text(),
            slip.table.code,
            slip.table.currency,
            slip.inventory.total().major_text()
        ),
    )?;
    Ok(redirect("/cage"))
}

// A table's fills and credits.

/// One denomination's field of the request form.
pub struct CountField {
    pub name: String,
    pub denomination: String,
    pub value: String,
}

#[derive(Template)]
#[template(path = "cage_table.html")]
struct TablePage {
    nav: Nav,
    code: String,
    name: String,
    currency: String,
    day: String,
    can_request: bool,
    /// The chip set version the form counts against: (id, version).
    chip_set: Option<(i64, i32)>,
    kind: &'static str,
    fields: Vec<CountField>,
    error: Option<String>,
    slips: Vec<SlipView>,
}

fn table_page(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    sheet: TableCage,
    typed: Option<(Kind, HashMap<String, String>, String)>,
) -> Result<TablePage, AppError> {
    let fields = crate::web::accounting::count_fields(sheet.chip_set.as_ref(), |d, name| {
        let value = typed
            .as_ref()
            .and_then(|(_, typed, _)| typed.get(&name).cloned())
            .unwrap_or_default();
        CountField {
            name,
            denomination: d.major_text(),
            value,
        }
    });
    Ok(TablePage {
        nav: session::nav(session, Some(viewer))?,
        code: sheet.table.code.clone(),
        name: sheet.table.name.clone(),
        currency: sheet.table.currency.clone(),
        day: sheet.day.to_string(),
        can_request: viewer.role == Role::Supervisor,
        chip_set: sheet.chip_set.as_ref().map(|s| (s.id.0, s.version)),
        kind: typed.as_ref().map_or("fill", |(kind, _, _)| kind.as_str()),
        fields,
        error: typed.map(|(_, _, reason)| reason),
        slips: sheet
            .slips
            .iter()
            .map(|s| slip_view(s, zone, viewer.role))
            .collect(),
    })
}

pub async fn table(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let day = state.config.gaming_day(Utc::now());
    let sheet = cage::table_page(&state.db, path.into_inner(), day).await?;
    let page = table_page(&session, &user, state.config.zone(), sheet, None)?;
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(supervisor = %user.username))]
pub async fn request(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    form: web::Form<HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let typed = form.into_inner();
    let kind: Kind = typed
        .get("kind")
        .and_then(|k| k.parse().ok())
        .ok_or(AppError::BadField {
            field: "kind",
            problem: "is neither fill nor credit",
        })?;
    let counted_against = typed
        .get("chip_set_version_id")
        .and_then(|id| id.parse::<i64>().ok())
        .map(ChipSetVersionId)
        .ok_or(AppError::BadField {
            field: "chip_set_version_id",
            problem: "is not the id of a chip set version",
        })?;
    let request = Request {
        code: code.clone(),
        kind,
        counted_against,
        typed: typed.clone(),
        day: state.config.gaming_day(Utc::now()),
    };
    match cage::request(&state.db, request, signed_in(&user), user.actor(&req)).await? {
        Saved::Done(slip) => {
            session::set_flash(
                &session,
                &format!(
                    "Requested {} {}: {} {}. The cage issues it next.",
                    slip.kind.as_str(),
                    slip.number_text(),
                    slip.table.currency,
                    slip.inventory.total().major_text()
                ),
            )?;
            Ok(redirect(&format!("/tables/{code}/cage")))
        }
        Saved::Refused { reason, page } => {
            let page = table_page(
                &session,
                &user,
                state.config.zone(),
                page,
                Some((kind, typed, reason)),
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

// One slip.

#[derive(Template)]
#[template(path = "cage_slip.html")]
struct SlipPage {
    nav: Nav,
    slip: SlipView,
    error: Option<String>,
    reason: String,
    /// What the signed-in account signs a receipt as, and what the second person signs as.
    receipt_roles: (&'static str, &'static str),
    can_print: bool,
}

fn slip_page(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    slip: &Slip,
    refused: Option<(String, String)>,
) -> Result<SlipPage, AppError> {
    let (mine, theirs) = cage::receipt_capacities(viewer.role);
    let (error, reason) = match refused {
        Some((error, reason)) => (Some(error), reason),
        None => (None, String::new()),
    };
    Ok(SlipPage {
        nav: session::nav(session, Some(viewer))?,
        slip: slip_view(slip, zone, viewer.role),
        error,
        reason,
        receipt_roles: (mine.title, theirs.title),
        can_print: viewer.role != Role::Auditor,
    })
}

pub async fn slip(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let slip = cage::show(&state.db, slip_id(path)).await?;
    let page = slip_page(&session, &user, state.config.zone(), &slip, None)?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct SecondForm {
    #[serde(default)]
    second_username: String,
    #[serde(default)]
    second_password: String,
    #[serde(default)]
    reason: String,
}

impl SecondForm {
    fn second(&self) -> SecondPerson {
        SecondPerson {
            username: self.second_username.clone(),
            password: self.second_password.clone(),
        }
    }
}

/// The answer to a step signed by two: back to the slip with a message, or its page with the
/// refusal (and the reason typed, for a void).
fn signed_answer(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    saved: Saved<Slip, Slip>,
    done: impl FnOnce(&Slip) -> String,
    reason: String,
) -> Result<HttpResponse, AppError> {
    match saved {
        Saved::Done(slip) => {
            session::set_flash(session, &done(&slip))?;
            Ok(redirect(&format!("/cage/slips/{}", slip.id.0)))
        }
        Saved::Refused { reason: why, page } => {
            let page = slip_page(session, viewer, zone, &page, Some((why, reason)))?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn receive(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<SecondForm>,
) -> Result<HttpResponse, AppError> {
    let saved = cage::receive(
        &state.db,
        state.secrets(),
        slip_id(path),
        signed_in(&user),
        form.second(),
        user.actor(&req),
    )
    .await?;
    signed_answer(
        &session,
        &user,
        state.config.zone(),
        saved,
        |slip| {
            format!(
                "Received {} {} at {}.",
                slip.kind.as_str(),
                slip.number_text(),
                slip.table.code
            )
        },
        String::new(),
    )
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn void(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<SecondForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let saved = cage::void(
        &state.db,
        state.secrets(),
        slip_id(path),
        form.reason.clone(),
        signed_in(&user),
        form.second(),
        user.actor(&req),
    )
    .await?;
    signed_answer(
        &session,
        &user,
        state.config.zone(),
        saved,
        |slip| format!("Voided {} {}.", slip.kind.as_str(), slip.number_text()),
        form.reason,
    )
}

/// Records a print and shows it: a GET changes nothing, so printing is this POST, which then
/// sends the browser to the print's view.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn print(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let print = cage::print(&state.db, slip_id(path), user.id, user.actor(&req)).await?;
    Ok(redirect(&format!("/cage/prints/{}", print.0)))
}

#[derive(Template)]
#[template(path = "cage_print.html")]
struct PrintPage {
    nav: Nav,
    slip: SlipView,
    reprint: bool,
    copy_number: i32,
    printed_by: String,
    printed_at: String,
}

pub async fn printed(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let Printed {
        slip,
        copy_number,
        printed_by,
        at,
    } = cage::printed(&state.db, CageSlipPrintId(path.into_inner())).await?;
    let zone = state.config.zone();
    let page = PrintPage {
        nav: session::nav(&session, Some(&user))?,
        // Nothing to act on from a print.
        slip: slip_view(&slip, zone, Role::Auditor),
        reprint: copy_number > 1,
        copy_number,
        printed_by: printed_by.display_name,
        printed_at: when(at, zone),
    };
    render(StatusCode::OK, &page)
}

// The slips of a gaming day.

#[derive(Template)]
#[template(path = "cage_day.html")]
struct DayPage {
    nav: Nav,
    day: String,
    previous: String,
    next: String,
    slips: Vec<SlipView>,
    /// (kind, slips not void, their total) per currency: `Fill`, 3, `PHP 12,000.00`.
    totals: Vec<(&'static str, usize, String)>,
}

#[derive(Deserialize)]
pub struct DayQuery {
    day: Option<String>,
}

/// The slips of the gaming day `?day=YYYY-MM-DD` (today's without it).
pub async fn day(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<DayQuery>,
) -> Result<HttpResponse, AppError> {
    let day: NaiveDate = match query.into_inner().day.filter(|d| !d.trim().is_empty()) {
        None => state.config.gaming_day(Utc::now()),
        Some(typed) => typed.trim().parse().map_err(|_| AppError::BadField {
            field: "day",
            problem: "is not a date (YYYY-MM-DD)",
        })?,
    };
    let slips = cage::day_list(&state.db, day).await?;
    let zone = state.config.zone();
    let mut totals = Vec::new();
    for kind in Kind::ALL {
        let mut by_currency: Vec<(String, i64, usize)> = Vec::new();
        for slip in slips
            .iter()
            .filter(|s| s.kind == kind && s.state() != Step::Void)
        {
            let total = slip.inventory.total().minor_units();
            match by_currency
                .iter_mut()
                .find(|(c, _, _)| *c == slip.table.currency)
            {
                Some(entry) => {
                    entry.1 = entry.1.saturating_add(total);
                    entry.2 += 1;
                }
                None => by_currency.push((slip.table.currency.clone(), total, 1)),
            }
        }
        for (currency, total, n) in by_currency {
            totals.push((
                kind.title(),
                n,
                format!(
                    "{currency} {}",
                    crate::rules::money::Money::from_minor_units(total).major_text()
                ),
            ));
        }
    }
    let page = DayPage {
        nav: session::nav(&session, Some(&user))?,
        day: day.to_string(),
        previous: day.pred_opt().unwrap_or(day).to_string(),
        next: day.succ_opt().unwrap_or(day).to_string(),
        slips: slips
            .iter()
            .map(|s| slip_view(s, zone, user.role))
            .collect(),
        totals,
    };
    render(StatusCode::OK, &page)
}
