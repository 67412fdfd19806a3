//! Unrated observations (docs/players.md, "Unrated observations"): a table's observations of
//! the gaming day with their estimates, and the pit manager's forms that record, end, void
//! them and card their players. Each handler parses the request, calls one use-case of
//! `crate::players::observations`, and renders its answer: done, back to the page with what
//! was done; refused, the page again (422) with the reason beside the field it names.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use serde::Deserialize;

use crate::accounting::drop::may_void;
use crate::accounting::Saved;
use crate::db::ids::ObservationId;
use crate::players::observations::{
    self, Clock, Observation, ObservationForm, Page, TableObservations, DESCRIPTION_MOST,
};
use crate::players::observes;
use crate::web::error::AppError;
use crate::web::format::{money, sum, when};
use crate::web::layout::Nav;
use crate::web::players::{duration, theoretical};
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// An observation as the page lists it; every figure but the hands is an estimate.
pub struct ObservationView {
    pub id: i64,
    pub seat: u8,
    pub description: String,
    pub average_bet: String,
    pub started: String,
    pub ended: Option<String>,
    pub time: String,
    pub hands: u32,
    pub total_bet: String,
    pub theoretical_win: String,
    pub walked_with: String,
    pub recorded_by: String,
    /// (reason, by, when).
    pub void: Option<(String, String, String)>,
    /// The player it was carded as.
    pub carded: Option<CardedView>,
    /// Running, and the viewer a pit manager: it may be ended, or its player carded.
    pub may_end: bool,
    /// Ended on the current gaming day, not void, not carded, and the viewer a pit manager:
    /// its player may be carded after the fact.
    pub may_card_ended: bool,
    pub may_void: bool,
}

/// The player an observation was carded as, and the rating it goes on as.
pub struct CardedView {
    pub player_id: i64,
    pub name: String,
    pub card_number: String,
    pub rating: i64,
    /// Carded after it ended: the rating spans its time.
    pub after_end: bool,
    pub by: String,
}

fn view(
    o: &Observation,
    viewer: &CurrentUser,
    zone: crate::config::Zone,
    today: NaiveDate,
) -> ObservationView {
    ObservationView {
        id: o.id.0,
        seat: o.seat,
        description: o.description.clone(),
        average_bet: money(o.average_bet, &o.currency),
        started: when(o.started_at, zone),
        ended: o.ended_at.map(|at| when(at, zone)),
        time: duration(o.estimate.seconds_played),
        hands: o.estimate.hands,
        total_bet: sum(o.estimate.total_bet, &o.currency),
        theoretical_win: theoretical(
            o.estimate.theoretical_win,
            o.estimate.theoretical_complete,
            &o.currency,
        ),
        walked_with: o
            .walked_with
            .map_or_else(|| "–".to_owned(), |m| money(m, &o.currency)),
        recorded_by: o.recorded_by.name.clone(),
        void: o
            .void
            .as_ref()
            .map(|v| (v.reason.clone(), v.by.name.clone(), when(v.at, zone))),
        carded: o.carded.as_ref().map(|c| CardedView {
            player_id: c.player.0,
            name: c.name.clone(),
            card_number: c.card_number.clone(),
            rating: c.rating.0,
            after_end: c.after_end,
            by: c.by.name.clone(),
        }),
        may_card_ended: observes(viewer.role)
            && o.void.is_none()
            && o.ended_at.is_some()
            && o.carded.is_none()
            && o.gaming_day == today,
        may_end: observes(viewer.role) && o.void.is_none() && o.ended_at.is_none(),
        may_void: o.void.is_none()
            && observes(viewer.role)
            && may_void(viewer.id, viewer.role, o.recorded_by.id, "observation").is_ok(),
    }
}

#[derive(Template)]
#[template(path = "observations.html")]
struct ObservationsPage {
    nav: Nav,
    code: String,
    name: String,
    currency: String,
    day: String,
    limits: String,
    dealer: Option<String>,
    seats: Vec<u8>,
    /// The record form: for a pit manager, on the current gaming day, with a dealer on shift.
    may_record: bool,
    description_most: usize,
    typed: ObservationForm,
    /// The refusal, the field it names (`""`: none) and the observation it is about (0: the
    /// record form).
    error: Option<String>,
    error_field: &'static str,
    error_of: i64,
    observations: Vec<ObservationView>,
    /// Some observation is running that the viewer may end: the "Playing now" list.
    may_end_any: bool,
    /// The viewer is a pit manager (who opens the table screen too; an auditor does not).
    observer: bool,
}

/// What a refused form brings back: why, the field, the observation (none: the record form)
/// and what was typed.
#[derive(Default)]
struct Refusal {
    error: Option<String>,
    field: Option<&'static str>,
    of: Option<ObservationId>,
    typed: ObservationForm,
}

fn page(
    session: &Session,
    viewer: &CurrentUser,
    state: &AppState,
    shown: TableObservations,
    refusal: Refusal,
) -> Result<ObservationsPage, AppError> {
    let zone = state.config.zone();
    let today = state.config.gaming_day(Utc::now());
    let currency = shown.table.currency.clone();
    let observations: Vec<ObservationView> = shown
        .observations
        .iter()
        .map(|o| view(o, viewer, zone, today))
        .collect();
    Ok(ObservationsPage {
        may_end_any: observations.iter().any(|o| o.may_end),
        observer: observes(viewer.role),
        nav: session::nav(session, Some(viewer))?,
        code: shown.table.code.clone(),
        name: shown.table.name.clone(),
        day: shown.day.to_string(),
        limits: format!(
            "{} to {}",
            money(shown.min_bet, &currency),
            money(shown.max_bet, &currency)
        ),
        may_record: observes(viewer.role) && shown.day == today && shown.dealer.is_some(),
        dealer: shown.dealer.clone(),
        seats: shown.table.seats(),
        description_most: DESCRIPTION_MOST,
        typed: refusal.typed,
        error: refusal.error,
        error_field: refusal.field.unwrap_or(""),
        error_of: refusal.of.map_or(0, |id| id.0),
        observations,
        currency,
    })
}

/// `GET /tables/{code}/observations`: the table's unrated observations of the current gaming
/// day.
pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let now = Utc::now();
    let day = state.config.gaming_day(now);
    let shown = observations::table(&state.db, path.into_inner(), day, now).await?;
    let page = page(&session, &user, &state, shown, Refusal::default())?;
    render(StatusCode::OK, &page)
}

/// Done: back to the table screen (`back` is `screen`) or the table's observations, saying
/// what was done; refused: the observations page, 422.
#[allow(clippy::too_many_arguments)]
fn answer(
    back: &str,
    session: &Session,
    user: &CurrentUser,
    state: &AppState,
    code: &str,
    saved: Saved<String, Page>,
    of: Option<ObservationId>,
    typed: ObservationForm,
) -> Result<HttpResponse, AppError> {
    match saved {
        Saved::Done(words) => {
            session::set_flash(session, &words)?;
            Ok(redirect(&if back == "screen" {
                format!("/tables/{code}")
            } else {
                format!("/tables/{code}/observations")
            }))
        }
        Saved::Refused { reason, page: p } => {
            let refusal = Refusal {
                error: Some(reason),
                field: p.field,
                of,
                typed,
            };
            let page = page(session, user, state, p.table, refusal)?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[derive(Deserialize)]
pub struct RecordForm {
    #[serde(default)]
    seat: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    average_bet: String,
    #[serde(default)]
    started: String,
}

/// `POST /tables/{code}/observations`: records an unrated observation.
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
    let typed = ObservationForm {
        seat: form.seat,
        description: form.description,
        average_bet: form.average_bet,
        started: form.started,
    };
    let now = Utc::now();
    let day = state.config.gaming_day(now);
    let clock = Clock {
        now,
        offset: state.config.zone().offset,
        day_began: state.config.gaming_day_end(day.pred_opt().unwrap_or(day)),
    };
    let saved = observations::record(
        &state.db,
        code.clone(),
        day,
        typed.clone(),
        clock,
        user.me(&req),
    )
    .await?;
    answer("", &session, &user, &state, &code, saved, None, typed)
}

#[derive(Deserialize)]
pub struct StepForm {
    /// Ending: the chips walked with, if seen.
    #[serde(default)]
    walked_with: String,
    /// Voiding: why.
    #[serde(default)]
    reason: String,
    /// Carding: the player's card number.
    #[serde(default)]
    card: String,
    /// Where the form was posted from: `screen` (the table screen) or the observations page.
    #[serde(default)]
    back: String,
}

/// `POST /tables/{code}/observations/{id}/{step}`: `end` (the observed player left, now),
/// `void` (with the reason) or `card` (the observed player carded: their rating goes on from
/// the observation's end); done, back to where the form was.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn step(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, i64, String)>,
    form: web::Form<StepForm>,
) -> Result<HttpResponse, AppError> {
    let (code, id, step) = path.into_inner();
    let id = ObservationId(id);
    let form = form.into_inner();
    let (db, at, now, me) = (&state.db, code.clone(), Utc::now(), user.me(&req));
    let saved = match step.as_str() {
        "end" => observations::end(db, at, id, form.walked_with, now, me).await?,
        "void" => observations::void(db, at, id, form.reason, now, me).await?,
        "card" => {
            let day = state.config.gaming_day(now);
            observations::card(db, at, id, form.card, day, now, me).await?
        }
        _ => return Err(AppError::NotFound),
    };
    answer(
        &form.back,
        &session,
        &user,
        &state,
        &code,
        saved,
        Some(id),
        ObservationForm::default(),
    )
}
