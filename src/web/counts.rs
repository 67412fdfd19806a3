//! The count team's pages (docs/accounting.md, "The count"): the tables of a gaming day with
//! their count state, and one table's count (the form, the signed counts with their comparison,
//! the void). Each handler parses the request, calls one use-case of `crate::accounting::counts`,
//! and renders its answer.

use std::collections::HashMap;

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{Days, NaiveDate};
use serde::Deserialize;

use crate::accounting::counts::{self, note_field, CountSheet, TableCount};
use crate::accounting::signatures::SecondPerson;
use crate::accounting::Saved;
use crate::config::Zone;
use crate::db::ids::DropCountId;
use crate::db::users::Role;
use crate::rules::accounting::DropComparison;
use crate::rules::money::Money;
use crate::web::error::AppError;
use crate::web::format::{money, result, when};
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// One kind's line of a comparison: (kind, recorded, counted, difference, differs).
pub struct CompareLine(
    pub &'static str,
    pub String,
    pub String,
    pub String,
    pub bool,
);

fn compare_lines(c: &DropComparison, currency: &str) -> Vec<CompareLine> {
    let line = |kind, recorded: Money, counted: Money, difference: Money| {
        CompareLine(
            kind,
            money(recorded, currency),
            money(counted, currency),
            result(difference, currency),
            difference.minor_units() != 0,
        )
    };
    let total = |d: &crate::rules::accounting::DropByKind| d.total().unwrap_or(Money::ZERO);
    vec![
        line("Cash", c.recorded.cash, c.counted.cash, c.cash),
        line("Markers", c.recorded.markers, c.counted.markers, c.markers),
        line(
            "Chip vouchers",
            c.recorded.chip_vouchers,
            c.counted.chip_vouchers,
            c.chip_vouchers,
        ),
        line("Total", total(&c.recorded), total(&c.counted), c.total),
    ]
}

/// A table's row on the day's page.
pub struct DayRow {
    pub code: String,
    pub name: String,
    pub state: &'static str,
    pub counted: bool,
    pub recorded: String,
    pub counted_total: Option<String>,
    pub difference: Option<String>,
    pub flagged: bool,
}

fn day_row(t: &TableCount) -> DayRow {
    let currency = &t.table.currency;
    DayRow {
        code: t.table.code.clone(),
        name: t.table.name.clone(),
        state: t.state.as_str(),
        counted: t.standing().is_some(),
        recorded: money(t.recorded.total().unwrap_or(Money::ZERO), currency),
        counted_total: t.standing().map(|c| money(c.total, currency)),
        difference: t.comparison.as_ref().map(|c| result(c.total, currency)),
        flagged: t.comparison.as_ref().is_some_and(DropComparison::flagged),
    }
}

#[derive(Template)]
#[template(path = "count_day.html")]
struct DayPage {
    nav: Nav,
    day: String,
    previous: String,
    next: String,
    closed: bool,
    /// Tables with business that day (or a count), then the others.
    rows: Vec<DayRow>,
    others: Vec<DayRow>,
}

#[derive(Deserialize)]
pub struct DayQuery {
    day: Option<String>,
}

fn parse_day(text: &str) -> Result<NaiveDate, AppError> {
    text.trim().parse().map_err(|_| AppError::BadField {
        field: "day",
        problem: "is not a date (YYYY-MM-DD)",
    })
}

/// `GET /count?day=YYYY-MM-DD`: the tables of the gaming day with their count; without a day,
/// the latest gaming day that has ended.
pub async fn day(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<DayQuery>,
) -> Result<HttpResponse, AppError> {
    let day = match query.into_inner().day.filter(|d| !d.trim().is_empty()) {
        Some(typed) => parse_day(&typed)?,
        None => {
            let today = state.config.gaming_day(state.clock.now());
            today.checked_sub_days(Days::new(1)).unwrap_or(today)
        }
    };
    let found = counts::day(&state.db, day).await?;
    let (rows, others): (Vec<&TableCount>, Vec<&TableCount>) =
        found.tables.iter().partition(|t| t.business);
    let page = DayPage {
        nav: session::nav(&session, Some(&user))?,
        day: day.to_string(),
        previous: day.pred_opt().unwrap_or(day).to_string(),
        next: day.succ_opt().unwrap_or(day).to_string(),
        closed: found.closed,
        rows: rows.into_iter().map(day_row).collect(),
        others: others.into_iter().map(day_row).collect(),
    };
    render(StatusCode::OK, &page)
}

/// A signed count as its page shows it.
pub struct CountView {
    pub id: i64,
    /// (denomination, notes, amount) of each banknote.
    pub notes: Vec<(String, i64, String)>,
    pub cash: String,
    pub markers: String,
    pub chip_vouchers: String,
    pub total: String,
    pub first: String,
    pub second: String,
    pub signed_at: String,
    /// (reason, by, when)
    pub void: Option<(String, String, String)>,
    pub may_void: bool,
}

/// A banknote's field of the form: (field name, denomination in minor units, as read, typed).
pub struct NoteField {
    pub name: String,
    pub minor: i64,
    pub denomination: String,
    pub value: String,
}

#[derive(Template)]
#[template(path = "count.html")]
struct CountPage {
    nav: Nav,
    code: String,
    name: String,
    currency: String,
    day: String,
    closed: bool,
    state: &'static str,
    may_count: bool,
    counts: Vec<CountView>,
    comparison: Vec<CompareLine>,
    flagged: bool,
    recorded: Vec<CompareLine>,
    fields: Vec<NoteField>,
    cash: String,
    markers: String,
    chip_vouchers: String,
    second_username: String,
    error: Option<String>,
}

fn may_void(viewer: &CurrentUser, count: &counts::Count) -> bool {
    count.void.is_none()
        && match viewer.role {
            Role::Admin => true,
            Role::Count => viewer.id != count.first.id && viewer.id != count.second.id,
            _ => false,
        }
}

fn count_page(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    sheet: CountSheet,
    typed: Option<(HashMap<String, String>, String)>,
) -> Result<CountPage, AppError> {
    let t = &sheet.count;
    let currency = t.table.currency.clone();
    let field = |name: &str| {
        typed
            .as_ref()
            .and_then(|(t, _)| t.get(name).cloned())
            .unwrap_or_default()
    };
    let counts = t
        .counts
        .iter()
        .map(|c| CountView {
            id: c.id.0,
            notes: c
                .notes
                .iter()
                .flat_map(|n| n.lines())
                .map(|l| (l.denomination.major_text(), l.count, l.amount.major_text()))
                .collect(),
            cash: money(c.counted.cash, &currency),
            markers: money(c.counted.markers, &currency),
            chip_vouchers: money(c.counted.chip_vouchers, &currency),
            total: money(c.total, &currency),
            first: c.first.name.clone(),
            second: c.second.name.clone(),
            signed_at: when(c.signed_at, zone),
            void: c
                .void
                .as_ref()
                .map(|(reason, by, at)| (reason.clone(), by.name.clone(), when(*at, zone))),
            may_void: may_void(viewer, c),
        })
        .collect();
    let fields = sheet
        .banknotes
        .as_ref()
        .map(|set| {
            set.as_slice()
                .iter()
                .map(|&d| {
                    let name = note_field(d);
                    NoteField {
                        value: field(&name),
                        minor: d.minor_units(),
                        denomination: d.major_text(),
                        name,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let recorded = crate::rules::accounting::compare_drop(t.recorded, t.recorded)
        .map(|c| compare_lines(&c, &currency))
        .unwrap_or_default();
    Ok(CountPage {
        nav: session::nav(session, Some(viewer))?,
        code: t.table.code.clone(),
        name: t.table.name.clone(),
        day: sheet.day.to_string(),
        closed: sheet.closed,
        state: t.state.as_str(),
        may_count: viewer.role == Role::Count && sheet.begun && t.standing().is_none(),
        counts,
        comparison: t
            .comparison
            .as_ref()
            .map(|c| compare_lines(c, &currency))
            .unwrap_or_default(),
        flagged: t.comparison.as_ref().is_some_and(DropComparison::flagged),
        recorded,
        fields,
        cash: field("cash"),
        markers: field("markers"),
        chip_vouchers: field("chip_vouchers"),
        second_username: field("second_username"),
        error: typed.map(|(_, reason)| reason),
        currency,
    })
}

/// `GET /count/{day}/{code}`: the table's count of the day, and the form while none stands.
pub async fn table(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, AppError> {
    let (day, code) = path.into_inner();
    let day: NaiveDate = day.parse().map_err(|_| AppError::NotFound)?;
    let today = state.config.gaming_day(state.clock.now());
    let sheet = counts::show(&state.db, code, day, today).await?;
    let page = count_page(&session, &user, state.config.zone(), sheet, None)?;
    render(StatusCode::OK, &page)
}

/// `POST /count/{day}/{code}`: two counters sign the count.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn sign(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, String)>,
    form: web::Form<HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let (day, code) = path.into_inner();
    let day: NaiveDate = day.parse().map_err(|_| AppError::NotFound)?;
    let mut typed = form.into_inner();
    // The password goes to the check and nowhere else: not back into the page.
    let password = typed.remove("second_password").unwrap_or_default();
    let form = counts::CountForm {
        second: SecondPerson {
            username: typed.get("second_username").cloned().unwrap_or_default(),
            password,
        },
        typed: typed.clone(),
    };
    let today = state.config.gaming_day(state.clock.now());
    let saved = counts::sign(
        &state.db,
        state.secrets(),
        code.clone(),
        day,
        today,
        crate::web::reconciliation::settings(&state.config),
        form,
        user.me(&req),
    )
    .await?;
    match saved {
        Saved::Done(id) => {
            session::set_flash(
                &session,
                &format!("Signed the count of {code} for {day} (count {id})."),
            )?;
            Ok(redirect(&format!("/count/{day}/{code}")))
        }
        Saved::Refused { reason, page } => {
            let page = count_page(
                &session,
                &user,
                state.config.zone(),
                page,
                Some((typed, reason)),
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[derive(Deserialize)]
pub struct VoidForm {
    #[serde(default)]
    reason: String,
}

/// `POST /count/{day}/{code}/{id}/void`: voids a count with a reason.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn void(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, String, i64)>,
    form: web::Form<VoidForm>,
) -> Result<HttpResponse, AppError> {
    let (day, code, id) = path.into_inner();
    let day: NaiveDate = day.parse().map_err(|_| AppError::NotFound)?;
    let reason = form.into_inner().reason;
    let today = state.config.gaming_day(state.clock.now());
    let saved = counts::void(
        &state.db,
        code.clone(),
        day,
        DropCountId(id),
        reason.clone(),
        today,
        user.me(&req),
    )
    .await?;
    match saved {
        Saved::Done(id) => {
            session::set_flash(
                &session,
                &format!("Voided count {id} of {code}: it may be counted again."),
            )?;
            Ok(redirect(&format!("/count/{day}/{code}")))
        }
        Saved::Refused { reason: why, page } => {
            let typed = HashMap::from([("reason".to_owned(), reason)]);
            let page = count_page(
                &session,
                &user,
                state.config.zone(),
                page,
                Some((typed, why)),
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}
