//! Gaming days and their close: `/days` lists the recent days, `/days/{day}` shows one (its seal
//! once closed, or what keeps it open), and a pit manager or administrator closes it there
//! (`POST /days/{day}/close`, with a confirmation), sealing every chain's head in one event and
//! copying the seal to the seal file.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use serde::Deserialize;

use crate::db::seal_file::SealFiles;
use crate::db::users::Role;
use crate::pit::days::{self, Day};
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// How many recent gaming days `/days` lists.
const RECENT_DAYS: u64 = 7;

pub struct DayRow {
    pub day: String,
    pub closed: Option<String>,
    pub seal_hash: String,
}

#[derive(Template)]
#[template(path = "days.html")]
struct DaysPage {
    nav: Nav,
    today: String,
    rows: Vec<DayRow>,
}

/// `GET /days`: today and the days before it, each open or closed with its seal.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let today = state.config.gaming_day(Utc::now());
    let zone = state.config.zone();
    let closes = days::recent_closes(&state.db, 60).await?;
    let mut shown: Vec<NaiveDate> = today.iter_days().rev().take(RECENT_DAYS as usize).collect();
    shown.extend(closes.iter().map(|c| c.gaming_day));
    shown.sort_unstable_by(|a, b| b.cmp(a));
    shown.dedup();
    let rows = shown
        .into_iter()
        .map(|day| {
            let close = closes.iter().find(|c| c.gaming_day == day);
            DayRow {
                day: day.to_string(),
                closed: close.map(|c| when(c.closed_at, zone)),
                seal_hash: close.map(|c| hex::encode(&c.seal_hash)).unwrap_or_default(),
            }
        })
        .collect();
    let page = DaysPage {
        nav: session::nav(&session, Some(&user))?,
        today: today.to_string(),
        rows,
    };
    render(StatusCode::OK, &page)
}

pub struct ClosedView {
    pub at: String,
    pub by: String,
    pub seal_seq: i64,
    pub seal_hash: String,
}

#[derive(Template)]
#[template(path = "day.html")]
struct DayPage {
    nav: Nav,
    day: String,
    today: String,
    begun: bool,
    closed: Option<ClosedView>,
    blockers: Vec<String>,
    can_close: bool,
    seal_file: String,
}

fn parse_day(text: &str) -> Result<NaiveDate, AppError> {
    text.parse().map_err(|_| AppError::NotFound)
}

/// `GET /days/{day}`: the day's seal once closed, or what keeps it open.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn show(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    day: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let day = parse_day(&day)?;
    let today = state.config.gaming_day(Utc::now());
    let zone = state.config.zone();
    let Day {
        close,
        closer,
        blockers,
    } = days::day(&state.db, day, state.config.zone()).await?;
    let page = DayPage {
        nav: session::nav(&session, Some(&user))?,
        day: day.to_string(),
        today: today.to_string(),
        begun: day <= today,
        closed: close.map(|c| ClosedView {
            at: when(c.closed_at, zone),
            by: closer.map_or_else(
                || format!("user {}", c.closed_by),
                |u| format!("{} ({})", u.display_name, u.username),
            ),
            seal_seq: c.seal_seq,
            seal_hash: hex::encode(&c.seal_hash),
        }),
        blockers: blockers.iter().map(ToString::to_string).collect(),
        can_close: matches!(user.role, Role::Supervisor | Role::Admin),
        seal_file: state.config.seal_file.display().to_string(),
    };
    render(StatusCode::OK, &page)
}

#[derive(Debug, Deserialize)]
pub struct CloseForm {
    #[serde(default)]
    confirm: String,
}

/// `POST /days/{day}/close`: closes the day if nothing keeps it open, with the box ticked that
/// confirms it (nothing more can be recorded for the day afterwards).
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn close(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    day: web::Path<String>,
    form: web::Form<CloseForm>,
) -> Result<HttpResponse, AppError> {
    let day = parse_day(&day)?;
    let back = redirect(&format!("/days/{day}"));
    if form.confirm != "yes" {
        session::set_error_flash(
            &session,
            &format!(
                "Tick \"I confirm\" to close gaming day {day}: nothing more can be recorded for it afterwards."
            ),
        )?;
        return Ok(back);
    }
    let today = state.config.gaming_day(Utc::now());
    let actor = user.actor(&req);
    let seals = SealFiles::of(&state.config);
    match days::close(&state.db, day, today, actor, seals, state.config.zone()).await? {
        Ok(close) => session::set_flash(
            &session,
            &format!(
                "Gaming day {day} is closed. Its seal: {}.",
                hex::encode(&close.seal_hash)
            ),
        )?,
        Err(refused) => session::set_error_flash(&session, &refused)?,
    }
    Ok(back)
}
