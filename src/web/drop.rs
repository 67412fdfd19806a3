//! Buy-ins and table fees (docs/accounting.md, "Buy-ins and table fees"): a table's day of them
//! with its totals and void forms, the forms that record and void them (posted from the table
//! screen's Buy-in panel and from that page), and the JSON API. Each handler parses the request,
//! calls one use-case of `crate::accounting::drop`, and renders its answer.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::json;

use crate::accounting::drop::{self, BuyIn, BuyInForm, Fee, Page, RecordedBuyIn, TableDay, Void};
use crate::accounting::Saved;
use crate::config::Zone;
use crate::db::ids::{BuyInId, TableFeeId};
use crate::db::users::Role;
use crate::rules::compliance::CaseKind;
use crate::rules::drop::{BuyInKind, DropTotals};
use crate::rules::game::Game;
use crate::rules::money::Total;
use crate::web::error::AppError;
use crate::web::format::{money, when};
use crate::web::layout::Nav;
use crate::web::respond::{api_fields, api_refused, redirect, render, text_of};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// A sum with its currency: `PHP 12,500.00`.
pub fn sum(total: Total, currency: &str) -> String {
    format!("{currency} {}", total.major_text())
}

/// "Drop so far today: PHP 12,500.00 (cash PHP 10,000.00, non-cash PHP 2,500.00)", as the
/// table screen says it.
pub fn drop_line(totals: &DropTotals, currency: &str) -> String {
    format!(
        "{} (cash {}, non-cash {})",
        sum(totals.drop, currency),
        sum(totals.cash, currency),
        sum(totals.non_cash, currency)
    )
}

/// Whether `role` records buy-ins (the use-case checks the rest: the dealer's table).
fn records(role: Role) -> bool {
    matches!(role, Role::Dealer | Role::Supervisor | Role::Admin)
}

/// A void as the lists show it: (reason, by, when).
fn void_view(void: &Option<Void>, zone: Zone) -> Option<(String, String, String)> {
    void.as_ref()
        .map(|v| (v.reason.clone(), v.by.name.clone(), when(v.at, zone)))
}

pub struct BuyInView {
    pub id: i64,
    pub at: String,
    pub seat: u8,
    pub kind: &'static str,
    pub amount: String,
    pub recorded_by: String,
    pub void: Option<(String, String, String)>,
    pub may_void: bool,
}

pub struct FeeView {
    pub id: i64,
    pub at: String,
    pub amount: String,
    pub recorded_by: String,
    pub void: Option<(String, String, String)>,
    pub may_void: bool,
}

#[derive(Template)]
#[template(path = "buy_ins.html")]
struct BuyInsPage {
    nav: Nav,
    code: String,
    name: String,
    currency: String,
    day: String,
    previous: String,
    next: String,
    is_points: bool,
    /// The record forms: for those who record, on the current gaming day.
    may_record: bool,
    seats: Vec<u8>,
    kinds: Vec<(&'static str, &'static str)>,
    /// What was typed on a refused record form: (seat, amount, kind), and the fee's amount.
    typed: (String, String, String),
    fee_typed: String,
    /// The refusal, the field it is about (`""` for none), and which form it answers: shown
    /// beside that form, or above the lists (`top_error`) when the page has no such form.
    error: Option<String>,
    top_error: Option<String>,
    error_field: &'static str,
    error_form: &'static str,
    buy_ins: Vec<BuyInView>,
    fees: Vec<FeeView>,
    drop: String,
    cash: String,
    non_cash: String,
    by_kind: Vec<(&'static str, String)>,
    by_seat: Vec<(u8, String)>,
    fees_total: String,
}

/// What a refused form brings to the page: the refusal, its field and form, and what was typed.
#[derive(Default)]
struct Refusal {
    error: Option<String>,
    field: Option<&'static str>,
    form: &'static str,
    typed: BuyInForm,
    fee_typed: String,
}

fn page(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    today: NaiveDate,
    day: TableDay,
    refusal: Refusal,
) -> Result<BuyInsPage, AppError> {
    let currency = day.table.currency.clone();
    let buy_ins = day
        .buy_ins
        .iter()
        .map(|b| BuyInView {
            id: b.id.0,
            at: when(b.at, zone),
            seat: b.seat,
            kind: b.kind.title(),
            amount: money(b.amount, &currency),
            recorded_by: b.recorded_by.name.clone(),
            void: void_view(&b.void, zone),
            may_void: b.void.is_none()
                && drop::may_void(viewer.id, viewer.role, b.recorded_by.id, "buy-in").is_ok(),
        })
        .collect();
    let fees = day
        .fees
        .iter()
        .map(|f| FeeView {
            id: f.id.0,
            at: when(f.at, zone),
            amount: money(f.amount, &currency),
            recorded_by: f.recorded_by.name.clone(),
            void: void_view(&f.void, zone),
            may_void: f.void.is_none()
                && drop::may_void(viewer.id, viewer.role, f.recorded_by.id, "table fee").is_ok(),
        })
        .collect();
    let totals = &day.totals;
    let is_points = day.table.game == Game::Points;
    let may_record = records(viewer.role) && day.day == today;
    let beside_form =
        may_record && (refusal.form == "buy-in" || (refusal.form == "fee" && is_points));
    let (error, top_error) = match refusal.error {
        Some(error) if beside_form => (Some(error), None),
        other => (None, other),
    };
    Ok(BuyInsPage {
        nav: session::nav(session, Some(viewer))?,
        code: day.table.code.clone(),
        name: day.table.name.clone(),
        day: day.day.to_string(),
        previous: day.day.pred_opt().unwrap_or(day.day).to_string(),
        next: day.day.succ_opt().unwrap_or(day.day).to_string(),
        is_points,
        may_record,
        seats: day.table.seats(),
        kinds: BuyInKind::ALL
            .iter()
            .map(|k| (k.as_str(), k.title()))
            .collect(),
        typed: (refusal.typed.seat, refusal.typed.amount, refusal.typed.kind),
        fee_typed: refusal.fee_typed,
        error,
        top_error,
        error_field: refusal.field.unwrap_or(""),
        error_form: refusal.form,
        buy_ins,
        fees,
        drop: sum(totals.drop, &currency),
        cash: sum(totals.cash, &currency),
        non_cash: sum(totals.non_cash, &currency),
        by_kind: totals
            .by_kind
            .iter()
            .map(|(k, t)| (k.title(), sum(*t, &currency)))
            .collect(),
        by_seat: totals
            .by_seat
            .iter()
            .map(|(s, t)| (*s, sum(*t, &currency)))
            .collect(),
        fees_total: sum(totals.fees, &currency),
        currency,
    })
}

#[derive(Deserialize)]
pub struct DayQuery {
    day: Option<String>,
}

/// The gaming day asked for (`?day=YYYY-MM-DD`), or the current one.
fn day_of(state: &AppState, day: Option<&str>) -> Result<NaiveDate, AppError> {
    match day.map(str::trim).filter(|d| !d.is_empty()) {
        None => Ok(state.config.gaming_day(Utc::now())),
        Some(text) => text.parse().map_err(|_| AppError::BadField {
            field: "day",
            problem: "is not a date (YYYY-MM-DD)",
        }),
    }
}

/// `GET /tables/{code}/buy-ins?day=`: a table's buy-ins and fees of a gaming day.
pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    query: web::Query<DayQuery>,
) -> Result<HttpResponse, AppError> {
    let day = day_of(&state, query.day.as_deref())?;
    let today = state.config.gaming_day(Utc::now());
    let shown = drop::show(&state.db, path.into_inner(), day).await?;
    let page = page(
        &session,
        &user,
        state.config.zone(),
        today,
        shown,
        Refusal::default(),
    )?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct RecordForm {
    #[serde(default)]
    seat: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    kind: String,
    /// Where the form was posted from: `screen` (the table screen) or the buy-ins page.
    #[serde(default)]
    back: String,
}

/// Where a recording form goes back to when done: the table screen it came from, or the list.
fn back_to(code: &str, back: &str) -> String {
    if back == "screen" {
        format!("/tables/{code}")
    } else {
        format!("/tables/{code}/buy-ins")
    }
}

/// A refused form: the table's day page with the refusal beside the form, 422.
#[allow(clippy::too_many_arguments)]
fn refused(
    session: &Session,
    user: &CurrentUser,
    state: &AppState,
    reason: String,
    refused: Page,
    form: &'static str,
    typed: BuyInForm,
    fee_typed: String,
) -> Result<HttpResponse, AppError> {
    let today = state.config.gaming_day(Utc::now());
    let refusal = Refusal {
        error: Some(reason),
        field: refused.field,
        form,
        typed,
        fee_typed,
    };
    let page = page(
        session,
        user,
        state.config.zone(),
        today,
        refused.day,
        refusal,
    )?;
    render(StatusCode::UNPROCESSABLE_ENTITY, &page)
}

/// "Buy-in recorded: seat 2, PHP 5,000.00 cash.", and what the compliance check says the
/// table may hear: the seated player's cash in of the day against the reporting threshold
/// (never a structuring candidate: the player must not be tipped off).
fn recorded_words(recorded: &RecordedBuyIn) -> String {
    let buy_in = &recorded.buy_in;
    let mut words = format!(
        "Buy-in recorded: seat {}, {} {}.",
        buy_in.seat,
        money(buy_in.amount, &buy_in.currency),
        buy_in.kind.title().to_lowercase()
    );
    if recorded
        .checked
        .cases
        .iter()
        .any(|(_, kind)| *kind == CaseKind::Covered)
    {
        words.push_str(
            " The player's cash in today is above the reporting threshold: the pit manager \
             checks their identification.",
        );
    } else if let Some((total, percent)) = recorded.checked.warned {
        words.push_str(&format!(
            " The player's cash in today is {} ({percent} % of the reporting threshold): the \
             pit is warned.",
            money(total, &buy_in.currency)
        ));
    }
    words
}

/// `POST /tables/{code}/buy-ins`: records a buy-in, then back to where the form was.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn record(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    form: web::Form<RecordForm>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let form = form.into_inner();
    let typed = BuyInForm {
        seat: form.seat,
        amount: form.amount,
        kind: form.kind,
    };
    let day = state.config.gaming_day(Utc::now());
    let saved =
        drop::record_buy_in(&state.db, code.clone(), day, typed.clone(), user.me(&req)).await?;
    match saved {
        Saved::Done(recorded) => {
            session::set_flash(&session, &recorded_words(&recorded))?;
            Ok(redirect(&back_to(&code, &form.back)))
        }
        Saved::Refused { reason, page } => refused(
            &session,
            &user,
            &state,
            reason,
            page,
            "buy-in",
            typed,
            String::new(),
        ),
    }
}

#[derive(Deserialize)]
pub struct FeeForm {
    #[serde(default)]
    amount: String,
    #[serde(default)]
    back: String,
}

/// `POST /tables/{code}/fees`: records a points-game table fee, then back to where the form was.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn record_fee(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    form: web::Form<FeeForm>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let form = form.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let saved = drop::record_fee(
        &state.db,
        code.clone(),
        day,
        form.amount.clone(),
        user.me(&req),
    )
    .await?;
    match saved {
        Saved::Done(fee) => {
            session::set_flash(
                &session,
                &format!("Table fee recorded: {}.", money(fee.amount, &fee.currency)),
            )?;
            Ok(redirect(&back_to(&code, &form.back)))
        }
        Saved::Refused { reason, page } => refused(
            &session,
            &user,
            &state,
            reason,
            page,
            "fee",
            BuyInForm::default(),
            form.amount,
        ),
    }
}

#[derive(Deserialize)]
pub struct VoidForm {
    #[serde(default)]
    reason: String,
}

/// `POST /tables/{code}/buy-ins/{id}/void`: voids a buy-in with a reason.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn void_buy_in(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, i64)>,
    form: web::Form<VoidForm>,
) -> Result<HttpResponse, AppError> {
    let (code, id) = path.into_inner();
    let saved = drop::void_buy_in(
        &state.db,
        code.clone(),
        BuyInId(id),
        form.into_inner().reason,
        user.me(&req),
    )
    .await?;
    match saved {
        Saved::Done(buy_in) => {
            session::set_flash(
                &session,
                &format!(
                    "Voided buy-in {} (seat {}, {}).",
                    buy_in.id,
                    buy_in.seat,
                    money(buy_in.amount, &buy_in.currency)
                ),
            )?;
            Ok(redirect(&format!(
                "/tables/{code}/buy-ins?day={}",
                buy_in.gaming_day
            )))
        }
        Saved::Refused { reason, page } => refused(
            &session,
            &user,
            &state,
            reason,
            page,
            "void",
            BuyInForm::default(),
            String::new(),
        ),
    }
}

/// `POST /tables/{code}/fees/{id}/void`: voids a table fee with a reason.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn void_fee(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, i64)>,
    form: web::Form<VoidForm>,
) -> Result<HttpResponse, AppError> {
    let (code, id) = path.into_inner();
    let saved = drop::void_fee(
        &state.db,
        code.clone(),
        TableFeeId(id),
        form.into_inner().reason,
        user.me(&req),
    )
    .await?;
    match saved {
        Saved::Done(fee) => {
            session::set_flash(
                &session,
                &format!(
                    "Voided table fee {} ({}).",
                    fee.id,
                    money(fee.amount, &fee.currency)
                ),
            )?;
            Ok(redirect(&format!(
                "/tables/{code}/buy-ins?day={}",
                fee.gaming_day
            )))
        }
        Saved::Refused { reason, page } => refused(
            &session,
            &user,
            &state,
            reason,
            page,
            "void",
            BuyInForm::default(),
            String::new(),
        ),
    }
}

// The JSON API.

fn void_json(void: &Option<Void>) -> serde_json::Value {
    match void {
        None => serde_json::Value::Null,
        Some(v) => json!({
            "reason": v.reason,
            "voided_by": {"id": v.by.id, "name": v.by.name},
            "voided_at": v.at.to_rfc3339_opts(SecondsFormat::Secs, true),
        }),
    }
}

/// A buy-in as the API answers it: amounts as decimal strings in major units, as sent.
fn buy_in_json(code: &str, b: &BuyIn) -> serde_json::Value {
    json!({
        "id": b.id,
        "table": code,
        "gaming_day": b.gaming_day,
        "shift_id": b.shift,
        "seat": b.seat,
        "kind": b.kind.as_str(),
        "amount": b.amount.plain_text(),
        "currency": b.currency,
        "recorded_by": {"id": b.recorded_by.id, "name": b.recorded_by.name},
        "recorded_at": b.at.to_rfc3339_opts(SecondsFormat::Secs, true),
        "void": void_json(&b.void),
    })
}

fn fee_json(f: &Fee) -> serde_json::Value {
    json!({
        "id": f.id,
        "gaming_day": f.gaming_day,
        "shift_id": f.shift,
        "amount": f.amount.plain_text(),
        "currency": f.currency,
        "recorded_by": {"id": f.recorded_by.id, "name": f.recorded_by.name},
        "recorded_at": f.at.to_rfc3339_opts(SecondsFormat::Secs, true),
        "void": void_json(&f.void),
    })
}

fn totals_json(t: &DropTotals) -> serde_json::Value {
    let by_kind: serde_json::Map<String, serde_json::Value> = BuyInKind::ALL
        .iter()
        .map(|k| {
            let total = t.by_kind.get(k).copied().unwrap_or_default();
            (k.as_str().to_owned(), total.plain_text().into())
        })
        .collect();
    let by_seat: serde_json::Map<String, serde_json::Value> = t
        .by_seat
        .iter()
        .map(|(s, total)| (s.to_string(), total.plain_text().into()))
        .collect();
    json!({
        "drop": t.drop.plain_text(),
        "cash": t.cash.plain_text(),
        "non_cash": t.non_cash.plain_text(),
        "by_kind": by_kind,
        "by_seat": by_seat,
        "fees": t.fees.plain_text(),
        "buy_ins": t.buy_ins,
        "table_fees": t.fee_count,
    })
}

/// `GET /api/v1/tables/{code}/buy-ins?day=`: the day's buy-ins and fees with their totals.
pub async fn api_list(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<DayQuery>,
) -> Result<HttpResponse, AppError> {
    let day = day_of(&state, query.day.as_deref())?;
    let shown = drop::show(&state.db, path.into_inner(), day).await?;
    let code = &shown.table.code;
    Ok(HttpResponse::Ok().json(json!({
        "table": code,
        "currency": shown.table.currency,
        "game": shown.table.game,
        "gaming_day": shown.day,
        "buy_ins": shown.buy_ins.iter().map(|b| buy_in_json(code, b)).collect::<Vec<_>>(),
        "fees": shown.fees.iter().map(fee_json).collect::<Vec<_>>(),
        "totals": totals_json(&shown.totals),
    })))
}

/// `POST /api/v1/tables/{code}/buy-ins`: `{"seat": 2, "amount": "5000.00", "kind": "cash"}`
/// (`kind` optional, cash): 201 with the buy-in; 422 with `error` and the `field` refused.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn api_record(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let fields = match api_fields(&body, "buy-in", &["seat", "amount", "kind"])? {
        Ok(fields) => fields,
        Err(refused) => return Ok(refused),
    };
    let form = match (
        text_of(&fields, "seat", true),
        text_of(&fields, "amount", false),
        text_of(&fields, "kind", false),
    ) {
        (Ok(seat), Ok(amount), Ok(kind)) => BuyInForm { seat, amount, kind },
        (Err((reason, field)), _, _)
        | (_, Err((reason, field)), _)
        | (_, _, Err((reason, field))) => return Ok(api_refused(&reason, Some(field))),
    };
    let day = state.config.gaming_day(Utc::now());
    match drop::record_buy_in(&state.db, code.clone(), day, form, user.me(&req)).await? {
        Saved::Done(recorded) => {
            Ok(HttpResponse::Created().json(buy_in_json(&code, &recorded.buy_in)))
        }
        Saved::Refused { reason, page } => Ok(api_refused(&reason, page.field)),
    }
}
