//! Table accounting's pages (docs/accounting.md): chip sets and a table's par. Each handler
//! parses the request, calls one use-case of `crate::accounting`, and renders its answer.

use std::collections::HashMap;

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::accounting::chips::{self, ChipSetHistory};
use crate::accounting::par::{self, count_field, Par, ParSheet};
use crate::accounting::Saved;
use crate::config::Zone;
use crate::db::ids::{ChipSetId, ChipSetVersionId, TableId};
use crate::db::users::Role;
use crate::rules::accounting::Denominations;
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
    let fields = sheet
        .chip_set
        .as_ref()
        .map(|set| {
            set.denominations
                .as_slice()
                .iter()
                .map(|&d| {
                    let name = count_field(d);
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
                })
                .collect()
        })
        .unwrap_or_default();
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
