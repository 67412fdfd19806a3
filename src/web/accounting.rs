//! Table accounting's pages (docs/accounting.md): chip sets, a table's par, its slips. Each handler
//! parses the request, calls one use-case of `crate::accounting`, and renders its answer.

use std::collections::HashMap;

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::accounting::chips::{self, ChipSetHistory, ChipSetVersion};
use crate::accounting::par::{self, count_field, Par, ParSheet};
use crate::accounting::signatures::SecondPerson;
use crate::accounting::slips::{self, SlipsPage};
use crate::accounting::Saved;
use crate::config::Zone;
use crate::db::ids::{ChipSetId, ChipSetVersionId, SlipId, TableId};
use crate::db::users::Role;
use crate::rules::accounting::Denominations;
use crate::rules::money::Money;
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// Denominations as people read them: `25 · 100 · 1,000`.
fn read(denominations: &Denominations) -> String {
    denominations
        .as_slice()
        .iter()
        .map(|d| d.major_text().trim_end_matches(".00").to_owned())
        .collect::<Vec<_>>()
        .join(" · ")
}

pub struct ChipSetRow {
    pub id: i64,
    pub currency: String,
    /// The version in force.
    pub version: i32,
    pub denominations: String,
    /// The new-version form's field: the version in force as typed, or what was refused.
    pub typed: String,
    pub error: Option<String>,
    /// Older versions, newest first: (version, denominations, when saved).
    pub history: Vec<(i32, String, String)>,
}

#[derive(Template)]
#[template(path = "admin_chips.html")]
struct ChipsPage {
    nav: Nav,
    can_manage: bool,
    rows: Vec<ChipSetRow>,
    currency: String,
    denominations: String,
    error: Option<String>,
}

/// A refused form: which chip set (`None`: the new one), what was typed, why.
struct Refusal {
    set: Option<ChipSetId>,
    typed: String,
    reason: String,
}

fn chips_page(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    sets: Vec<ChipSetHistory>,
    refused: Option<Refusal>,
    currency: String,
) -> Result<ChipsPage, AppError> {
    let rows = sets
        .into_iter()
        .filter_map(|set| {
            let latest = set.latest()?.clone();
            let refusal = refused.as_ref().filter(|r| r.set == Some(set.id));
            Some(ChipSetRow {
                id: set.id.0,
                currency: set.currency.clone(),
                version: latest.version,
                denominations: read(&latest.denominations),
                typed: refusal
                    .map_or_else(|| latest.denominations.to_string(), |r| r.typed.clone()),
                error: refusal.map(|r| r.reason.clone()),
                history: set
                    .versions
                    .iter()
                    .rev()
                    .skip(1)
                    .map(|v| (v.version, read(&v.denominations), when(v.created_at, zone)))
                    .collect(),
            })
        })
        .collect();
    let new = refused.filter(|r| r.set.is_none());
    Ok(ChipsPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        rows,
        currency,
        denominations: new.as_ref().map(|r| r.typed.clone()).unwrap_or_default(),
        error: new.map(|r| r.reason),
    })
}

pub async fn chip_sets(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let sets = chips::list(&state.db).await?;
    let page = chips_page(
        &session,
        &user,
        state.config.zone(),
        sets,
        None,
        String::new(),
    )?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct NewChipSetForm {
    #[serde(default)]
    currency: String,
    #[serde(default)]
    denominations: String,
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn create_chip_set(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    form: web::Form<NewChipSetForm>,
) -> Result<HttpResponse, AppError> {
    let NewChipSetForm {
        currency,
        denominations,
    } = form.into_inner();
    let saved = chips::create(
        &state.db,
        currency.clone(),
        denominations.clone(),
        admin.actor(&req),
    )
    .await?;
    match saved {
        Saved::Done(set) => {
            session::set_flash(
                &session,
                &format!("Created the {} chip set (v1).", set.currency),
            )?;
            Ok(redirect("/admin/chips"))
        }
        Saved::Refused { reason, page } => {
            let refusal = Refusal {
                set: None,
                typed: denominations,
                reason,
            };
            let page = chips_page(
                &session,
                &admin,
                state.config.zone(),
                page,
                Some(refusal),
                currency,
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[derive(Deserialize)]
pub struct ChipSetVersionForm {
    #[serde(default)]
    denominations: String,
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn new_chip_set_version(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<ChipSetVersionForm>,
) -> Result<HttpResponse, AppError> {
    let id = ChipSetId(path.into_inner());
    let denominations = form.into_inner().denominations;
    let saved = chips::new_version(&state.db, id, denominations.clone(), admin.actor(&req)).await?;
    match saved {
        Saved::Done((currency, version)) => {
            session::set_flash(
                &session,
                &format!("Saved the {currency} chip set as v{}.", version.version),
            )?;
            Ok(redirect("/admin/chips"))
        }
        Saved::Refused { reason, page } => {
            let refusal = Refusal {
                set: Some(id),
                typed: denominations,
                reason,
            };
            let page = chips_page(
                &session,
                &admin,
                state.config.zone(),
                page,
                Some(refusal),
                String::new(),
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

/// One denomination's field of the par form.
pub struct ParField {
    pub name: String,
    pub denomination: String,
    pub value: String,
}

/// One par version as the page shows it.
pub struct ParView {
    pub version: i32,
    pub chip_set_version: i32,
    pub total: String,
    /// (denomination, chips, amount)
    pub lines: Vec<(String, i64, String)>,
    pub saved: String,
}

#[derive(Template)]
#[template(path = "admin_par.html")]
struct ParPage {
    nav: Nav,
    can_manage: bool,
    table_id: i64,
    code: String,
    name: String,
    currency: String,
    /// The chip set version the form counts against: (id, version).
    chip_set: Option<(i64, i32)>,
    fields: Vec<ParField>,
    in_force: Option<ParView>,
    /// Older versions, newest first.
    history: Vec<ParView>,
    error: Option<String>,
}

fn par_view(par: &Par, zone: Zone) -> ParView {
    ParView {
        version: par.version,
        chip_set_version: par.chip_set_version,
        total: par.inventory.total().major_text(),
        lines: par
            .inventory
            .lines()
            .map(|l| (l.denomination.major_text(), l.count, l.amount.major_text()))
            .collect(),
        saved: when(par.created_at, zone),
    }
}

fn par_page(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    sheet: ParSheet,
    typed: Option<(HashMap<String, String>, String)>,
) -> Result<ParPage, AppError> {
    let in_force = sheet.in_force();
    let fields = count_fields(sheet.chip_set.as_ref(), |d, name| {
        let value = match &typed {
            Some((typed, _)) => typed.get(&name).cloned().unwrap_or_default(),
            None => in_force
                .and_then(|p| p.inventory.lines().find(|l| l.denomination == d))
                .map(|l| l.count.to_string())
                .unwrap_or_default(),
        };
        ParField {
            name,
            denomination: d.major_text(),
            value,
        }
    });
    Ok(ParPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        table_id: sheet.table.id.0,
        code: sheet.table.code.clone(),
        name: sheet.table.name.clone(),
        currency: sheet.table.currency.clone(),
        chip_set: sheet.chip_set.as_ref().map(|s| (s.id.0, s.version)),
        fields,
        in_force: in_force.map(|p| par_view(p, zone)),
        history: sheet
            .versions
            .iter()
            .rev()
            .skip(1)
            .map(|p| par_view(p, zone))
            .collect(),
        error: typed.map(|(_, reason)| reason),
    })
}

pub async fn table_par(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let sheet = par::show(&state.db, TableId(path.into_inner())).await?;
    let page = par_page(&session, &user, state.config.zone(), sheet, None)?;
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn set_table_par(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let table = TableId(path.into_inner());
    let typed = form.into_inner();
    let counted_against = typed
        .get("chip_set_version_id")
        .and_then(|id| id.parse::<i64>().ok())
        .map(ChipSetVersionId)
        .ok_or(AppError::BadField {
            field: "chip_set_version_id",
            problem: "is not the id of a chip set version",
        })?;
    let saved = par::set(
        &state.db,
        table,
        counted_against,
        typed.clone(),
        admin.actor(&req),
    )
    .await?;
    match saved {
        Saved::Done((code, version)) => {
            session::set_flash(&session, &format!("Saved the par of {code} as v{version}."))?;
            Ok(redirect(&format!("/admin/tables/{}/par", table.0)))
        }
        Saved::Refused { reason, page } => {
            let page = par_page(
                &session,
                &admin,
                state.config.zone(),
                page,
                Some((typed, reason)),
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

/// One denomination's line of a slip: (denomination, chips, amount).
pub struct SlipLine(pub String, pub i64, pub String);

/// A slip as its page shows it.
pub struct SlipView {
    pub id: i64,
    pub kind: &'static str,
    pub chip_set_version: i32,
    pub lines: Vec<SlipLine>,
    pub total: String,
    pub par_total: Option<String>,
    pub dealer: String,
    pub supervisor: String,
    pub signed_at: String,
    pub previous_closer: Option<i64>,
    /// (denomination, closer's chips, opener's chips, amount)
    pub differences: Vec<(String, i64, i64, String)>,
    pub difference: Option<String>,
    pub limit: Option<String>,
    pub held: bool,
    /// (text, by, when)
    pub explanation: Option<(String, String, String)>,
    pub void: Option<(String, String, String)>,
    /// Whether the viewer may void it (a supervisor or administrator who signed none of it).
    pub may_void: bool,
}

/// A count field of the form: (field name, denomination in minor units, denomination as read,
/// par chips, value typed).
pub struct CountField {
    pub name: String,
    pub minor: i64,
    pub denomination: String,
    pub par: i64,
    pub value: String,
}

#[derive(Template)]
#[template(path = "slips.html")]
struct SlipsView {
    nav: Nav,
    code: String,
    name: String,
    currency: String,
    day: String,
    slips: Vec<SlipView>,
    /// Whether the viewer counts and signs slips.
    may_sign: bool,
    may_decide: bool,
    next: &'static str,
    form: CountFormView,
    held: Option<i64>,
    limit: String,
}

/// The count form of an opener or closer (`templates/slip_form.html`), on the slips page or
/// the table screen.
pub struct CountFormView {
    pub code: String,
    pub currency: String,
    pub next: &'static str,
    pub chip_set: Option<(i64, i32)>,
    pub fields: Vec<CountField>,
    pub par_total: Option<String>,
    /// What keeps a closer from being signed, with where to go.
    pub dealer_on_shift: Option<String>,
    pub open_round: bool,
    /// As whom the second person signs.
    pub second_signs_as: &'static str,
    pub second_username: String,
    pub error: Option<String>,
    /// Where a signed slip goes back to: `screen` (the table screen) or `slips`.
    pub back: &'static str,
}

/// One field per denomination of chip set `set`, in the set's order (none without a chip set),
/// each made by `field` from the denomination and its form name ([`count_field`]): the count
/// grids of the slips, par and cage pages.
pub fn count_fields<F>(
    set: Option<&ChipSetVersion>,
    mut field: impl FnMut(Money, String) -> F,
) -> Vec<F> {
    set.map(|set| {
        set.denominations
            .as_slice()
            .iter()
            .map(|&d| field(d, count_field(d)))
            .collect()
    })
    .unwrap_or_default()
}

/// The count form of `page` for `viewer`, with what was typed and the refusal, if any.
pub fn count_form_view(
    viewer: &CurrentUser,
    page: &SlipsPage,
    typed: Option<&(HashMap<String, String>, String)>,
    back: &'static str,
) -> CountFormView {
    let amount = |m: crate::rules::money::Money| m.major_text();
    let fields = count_fields(page.chip_set.as_ref(), |d, name| CountField {
        value: typed
            .and_then(|(t, _)| t.get(&name).cloned())
            .unwrap_or_default(),
        par: page.par.as_ref().map_or(0, |p| p.count_of(d)),
        minor: d.minor_units(),
        denomination: amount(d),
        name,
    });
    CountFormView {
        code: page.table.code.clone(),
        currency: page.table.currency.clone(),
        next: page.next.as_str(),
        chip_set: page.chip_set.as_ref().map(|s| (s.id.0, s.version)),
        fields,
        par_total: page.par.as_ref().map(|p| amount(p.total())),
        dealer_on_shift: page.dealer_on_shift.clone(),
        open_round: page.open_round.is_some(),
        second_signs_as: if viewer.role == Role::Dealer {
            "the supervisor"
        } else {
            "the dealer"
        },
        second_username: typed
            .and_then(|(t, _)| t.get("second_username").cloned())
            .unwrap_or_default(),
        error: typed.map(|(_, reason)| reason.clone()),
        back,
    }
}

fn slips_view(
    session: &Session,
    viewer: &CurrentUser,
    zone: Zone,
    page: SlipsPage,
    typed: Option<(HashMap<String, String>, String)>,
) -> Result<SlipsView, AppError> {
    let currency = page.table.currency.clone();
    let amount = |m: crate::rules::money::Money| m.major_text();
    let person_when = |(text, who, at): &(String, slips::Person, chrono::DateTime<chrono::Utc>)| {
        (text.clone(), who.name.clone(), when(*at, zone))
    };
    let slips = page
        .slips
        .iter()
        .map(|s| SlipView {
            id: s.id.0,
            kind: s.kind.as_str(),
            chip_set_version: s.chip_set_version,
            lines: s
                .inventory
                .lines()
                .map(|l| SlipLine(amount(l.denomination), l.count, amount(l.amount)))
                .collect(),
            total: amount(s.inventory.total()),
            par_total: s.par_total.map(amount),
            dealer: s.dealer.name.clone(),
            supervisor: s.supervisor.name.clone(),
            signed_at: when(s.signed_at, zone),
            previous_closer: s.previous_closer.map(|c| c.0),
            differences: s
                .differences
                .iter()
                .map(|d| {
                    (
                        amount(d.denomination),
                        d.before,
                        d.after,
                        d.amount.signed_text(),
                    )
                })
                .collect(),
            difference: s.difference.map(amount),
            limit: s.limit.map(amount),
            held: s.held,
            explanation: s.explanation.as_ref().map(person_when),
            void: s.void.as_ref().map(person_when),
            may_void: s.void.is_none()
                && matches!(viewer.role, Role::Supervisor | Role::Admin)
                && viewer.id != s.dealer.id
                && viewer.id != s.supervisor.id,
        })
        .collect();
    let form = count_form_view(viewer, &page, typed.as_ref(), "slips");
    Ok(SlipsView {
        nav: session::nav(session, Some(viewer))?,
        code: page.table.code.clone(),
        name: page.table.name.clone(),
        day: page.day.to_string(),
        slips,
        may_sign: matches!(viewer.role, Role::Dealer | Role::Supervisor | Role::Admin),
        may_decide: matches!(viewer.role, Role::Supervisor | Role::Admin),
        next: page.next.as_str(),
        form,
        held: page.held.map(|s| s.0),
        limit: amount(page.limit),
        currency,
    })
}

#[derive(Deserialize)]
pub struct DayQuery {
    day: Option<String>,
}

/// The gaming day a slips request is about: `?day=` if given, else today's.
fn slips_day(state: &AppState, day: Option<&str>) -> Result<chrono::NaiveDate, AppError> {
    match day.filter(|d| !d.is_empty()) {
        None => Ok(state.config.gaming_day(chrono::Utc::now())),
        Some(text) => text.parse().map_err(|_| AppError::BadField {
            field: "day",
            problem: "is not a date (YYYY-MM-DD)",
        }),
    }
}

pub async fn table_slips(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    query: web::Query<DayQuery>,
) -> Result<HttpResponse, AppError> {
    let day = slips_day(&state, query.day.as_deref())?;
    let page = slips::show(
        &state.db,
        path.into_inner(),
        day,
        state.config.opener_difference_limit,
    )
    .await?;
    let view = slips_view(&session, &user, state.config.zone(), page, None)?;
    render(StatusCode::OK, &view)
}

/// Answers a slip form's use-case: back to the slips page (the table screen, for a form sent
/// from there: `back=screen`) with a word, or the slips page again with the refusal.
fn slip_answer(
    session: &Session,
    user: &CurrentUser,
    state: &AppState,
    code: &str,
    saved: Saved<SlipId, SlipsPage>,
    done: &str,
    typed: HashMap<String, String>,
) -> Result<HttpResponse, AppError> {
    match saved {
        Saved::Done(id) => {
            session::set_flash(session, &format!("{done} (slip {id})."))?;
            if typed.get("back").map(String::as_str) == Some("screen") {
                return Ok(redirect(&format!("/tables/{code}")));
            }
            Ok(redirect(&format!("/tables/{code}/slips")))
        }
        Saved::Refused { reason, page } => {
            let view = slips_view(
                session,
                user,
                state.config.zone(),
                page,
                Some((typed, reason)),
            )?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &view)
        }
    }
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn sign_slip(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    form: web::Form<HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let mut typed = form.into_inner();
    let counted_against = typed
        .get("chip_set_version_id")
        .and_then(|id| id.parse::<i64>().ok())
        .map(ChipSetVersionId)
        .ok_or(AppError::BadField {
            field: "chip_set_version_id",
            problem: "is not the id of a chip set version",
        })?;
    // The password goes to the check and nowhere else: not back into the page.
    let password = typed.remove("second_password").unwrap_or_default();
    let form = slips::CountForm {
        kind: typed.get("kind").cloned().unwrap_or_default(),
        counted_against,
        typed: typed.clone(),
        second: SecondPerson {
            username: typed.get("second_username").cloned().unwrap_or_default(),
            password,
        },
    };
    let day = state.config.gaming_day(chrono::Utc::now());
    let saved = slips::sign(
        &state.db,
        state.secrets(),
        code.clone(),
        day,
        state.config.opener_difference_limit,
        crate::web::reconciliation::settings(&state.config),
        form,
        user.me(&req),
    )
    .await?;
    let done = format!(
        "Signed the {} of {code}",
        typed.get("kind").map_or("slip", String::as_str)
    );
    slip_answer(&session, &user, &state, &code, saved, &done, typed)
}

#[derive(Deserialize)]
pub struct SlipNoteForm {
    #[serde(default)]
    text: String,
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn void_slip(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, i64)>,
    form: web::Form<SlipNoteForm>,
) -> Result<HttpResponse, AppError> {
    let (code, id) = path.into_inner();
    let day = state.config.gaming_day(chrono::Utc::now());
    let saved = slips::void(
        &state.db,
        code.clone(),
        SlipId(id),
        form.into_inner().text,
        day,
        state.config.opener_difference_limit,
        user.me(&req),
    )
    .await?;
    slip_answer(
        &session,
        &user,
        &state,
        &code,
        saved,
        "Voided",
        HashMap::new(),
    )
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn explain_slip(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, i64)>,
    form: web::Form<SlipNoteForm>,
) -> Result<HttpResponse, AppError> {
    let (code, id) = path.into_inner();
    let day = state.config.gaming_day(chrono::Utc::now());
    let saved = slips::explain(
        &state.db,
        code.clone(),
        SlipId(id),
        form.into_inner().text,
        day,
        state.config.opener_difference_limit,
        user.me(&req),
    )
    .await?;
    let done = format!("Explained the difference: {code} takes rounds again");
    slip_answer(&session, &user, &state, &code, saved, &done, HashMap::new())
}
