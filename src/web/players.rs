//! Players and their ratings (docs/players.md): the players list with its search and the
//! registration form, a player's page (their record as the viewer's role may see it, their
//! statuses and ratings with their figures), and the table screen's forms that seat a carded
//! player, pause, resume and end their rating, and the same steps over the JSON API. Each
//! handler parses the request, calls one use-case of `crate::players`, and renders its answer.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::Utc;
use serde::Deserialize;
use serde_json::json;

use crate::db::ids::PlayerId;
use crate::db::users::Role;
use crate::players::ratings::{self, AtSeat, Seating, Step};
use crate::players::records::{self, FormRefusal, PlayerForm, PlayerLine, Status, Totals};
use crate::players::report;
use crate::players::{comp, keeps_records};
use crate::rules::money::{Money, Total};
use crate::rules::rating::average_bet;
use crate::web::error::AppError;
use crate::web::format::{money, sum, total, when};
use crate::web::layout::Nav;
use crate::web::respond::{api_fields, api_refused, redirect, render, text_of};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

#[derive(Template)]
#[template(path = "players.html")]
struct PlayersPage {
    nav: Nav,
    query: String,
    players: Vec<PlayerLine>,
    may_register: bool,
    typed: PlayerForm,
    error: Option<String>,
    error_field: &'static str,
}

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    q: String,
}

async fn players_page(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    req: &HttpRequest,
    query: String,
    typed: PlayerForm,
    refused: Option<FormRefusal>,
) -> Result<HttpResponse, AppError> {
    let players = records::search(&state.db, query.clone(), user.me(req)).await?;
    let status = if refused.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let page = PlayersPage {
        nav: session::nav(session, Some(user))?,
        query,
        players,
        may_register: keeps_records(user.role),
        typed,
        error_field: refused.as_ref().and_then(|r| r.field).unwrap_or(""),
        error: refused.map(|r| r.reason),
    };
    render(status, &page)
}

/// `GET /players?q=`: players found by card number or name, and the registration form.
pub async fn list(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<SearchQuery>,
) -> Result<HttpResponse, AppError> {
    let q = query.into_inner().q;
    players_page(
        &state,
        &session,
        &user,
        &req,
        q,
        PlayerForm::default(),
        None,
    )
    .await
}

#[derive(Deserialize)]
pub struct RecordForm {
    #[serde(default)]
    card_number: String,
    #[serde(default)]
    first_name: String,
    #[serde(default)]
    last_name: String,
    #[serde(default)]
    date_of_birth: String,
    #[serde(default)]
    id_reference: String,
    #[serde(default)]
    notes: String,
}

impl From<RecordForm> for PlayerForm {
    fn from(f: RecordForm) -> PlayerForm {
        PlayerForm {
            card_number: f.card_number,
            first_name: f.first_name,
            last_name: f.last_name,
            date_of_birth: f.date_of_birth,
            id_reference: f.id_reference,
            notes: f.notes,
        }
    }
}

/// `POST /players`: registers a player, then their page.
pub async fn register(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<RecordForm>,
) -> Result<HttpResponse, AppError> {
    let typed = PlayerForm::from(form.into_inner());
    let day = state.config.gaming_day(Utc::now());
    match records::register(&state.db, typed.clone(), day, user.me(&req)).await? {
        Ok(registered) => {
            let first = typed.first_name.trim();
            let said = match &registered.listed {
                None => format!("Player {first} registered."),
                Some(listed) => format!(
                    "Player {first} registered, and {}: {}",
                    listed.status.title().to_lowercase(),
                    listed_words(listed)
                ),
            };
            session::set_flash(&session, &said)?;
            Ok(redirect(&format!("/players/{}", registered.id)))
        }
        Err(refused) => {
            players_page(
                &state,
                &session,
                &user,
                &req,
                String::new(),
                typed,
                Some(refused),
            )
            .await
        }
    }
}

pub struct RatingView {
    pub id: i64,
    pub day: String,
    pub table: String,
    pub seat: u8,
    pub started: String,
    pub ended: String,
    pub hands: u32,
    pub average_bet: String,
    pub largest_bet: String,
    pub total_bet: String,
    pub actual_win: String,
    pub theoretical_win: String,
    pub time_played: String,
    pub hands_per_hour: String,
    pub walked_with: String,
    pub bought_in: String,
    /// The unrated observation it goes on from, when the player was carded while observed,
    /// and whether it was carded after it ended (the rating spans its time).
    pub carded_from: Option<(i64, bool)>,
}

/// An observation of the player before they were carded: estimates, and the rating it goes on
/// as.
pub struct ObservedView {
    pub id: i64,
    pub day: String,
    pub table: String,
    pub seat: u8,
    pub description: String,
    pub started: String,
    pub carded: String,
    pub time: String,
    pub hands: u32,
    pub average_bet: String,
    pub total_bet: String,
    pub theoretical_win: String,
    pub rating: i64,
    pub void: bool,
}

pub struct TotalsView {
    pub currency: String,
    pub ratings: u32,
    pub hands: u32,
    pub average_bet: String,
    pub total_bet: String,
    pub actual_win: String,
    pub theoretical_win: String,
    pub time_played: String,
    pub comp: String,
}

/// `2 h 05 min`.
pub(crate) fn duration(seconds: i64) -> String {
    format!("{} h {:02} min", seconds / 3600, (seconds % 3600) / 60)
}

/// A theoretical win, said to be short while an edge is not known.
pub(crate) fn theoretical(amount: Total, complete: bool, currency: &str) -> String {
    if complete {
        total(amount, currency)
    } else {
        format!(
            "{} (edge not yet known for some hands)",
            total(amount, currency)
        )
    }
}

fn totals_view(currency: &str, t: &Totals) -> TotalsView {
    TotalsView {
        currency: currency.to_owned(),
        ratings: t.ratings,
        hands: t.hands,
        average_bet: sum(t.average_bet(), currency),
        total_bet: sum(t.total_bet, currency),
        actual_win: total(t.actual_win, currency),
        theoretical_win: theoretical(t.theoretical_win, t.theoretical_complete, currency),
        time_played: duration(t.seconds_played),
        comp: sum(t.comp, currency),
    }
}

#[derive(Template)]
#[template(path = "player.html")]
struct PlayerPageView {
    nav: Nav,
    id: i64,
    card_number: String,
    name: String,
    status: &'static str,
    excluded: bool,
    registered: String,
    personal: Option<PlayerForm>,
    statuses: Vec<(String, &'static str, String, String, String)>,
    ratings: Vec<RatingView>,
    observed: Vec<ObservedView>,
    totals: Vec<TotalsView>,
    may_correct: bool,
    may_set_status: bool,
    statuses_to_set: Vec<(&'static str, &'static str)>,
}

/// `GET /players/{id}`: a player's page.
pub async fn show(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let now = Utc::now();
    let day = state.config.gaming_day(now);
    let zone = state.config.zone();
    let page = records::page(
        &state.db,
        PlayerId(path.into_inner()),
        day,
        now,
        user.me(&req),
    )
    .await?;
    let ratings = page
        .ratings
        .iter()
        .map(|r| {
            let c = r.currency.as_str();
            let f = &r.figures;
            RatingView {
                id: r.id.0,
                day: r.gaming_day.to_string(),
                table: r.table_code.clone(),
                seat: r.seat,
                started: when(r.started_at, zone),
                ended: match (r.ended_at, r.paused) {
                    (Some(at), _) => when(at, zone),
                    (None, true) => "away".to_owned(),
                    (None, false) => "playing".to_owned(),
                },
                hands: f.hands,
                average_bet: sum(f.average_bet, c),
                largest_bet: money(f.largest_bet, c),
                total_bet: sum(f.total_bet, c),
                actual_win: total(f.actual_win, c),
                theoretical_win: theoretical(f.theoretical_win, f.theoretical_complete, c),
                time_played: duration(f.seconds_played),
                hands_per_hour: format!(
                    "{}.{}",
                    f.hands_per_hour_tenths / 10,
                    f.hands_per_hour_tenths % 10
                ),
                walked_with: r.walked_with.map(|w| money(w, c)).unwrap_or_default(),
                bought_in: money(r.bought_in, c),
                carded_from: page.observed.iter().find_map(|o| {
                    let k = o.carded.as_ref().filter(|k| k.rating == r.id)?;
                    Some((o.id.0, k.after_end))
                }),
            }
        })
        .collect();
    let observed = page
        .observed
        .iter()
        .filter_map(|o| {
            let carded = o.carded.as_ref()?;
            let c = o.currency.as_str();
            Some(ObservedView {
                id: o.id.0,
                day: o.gaming_day.to_string(),
                table: o.table_code.clone(),
                seat: o.seat,
                description: o.description.clone(),
                started: when(o.started_at, zone),
                carded: if carded.after_end {
                    format!("{} (after it ended)", when(carded.at, zone))
                } else {
                    when(carded.at, zone)
                },
                time: duration(o.estimate.seconds_played),
                hands: o.estimate.hands,
                average_bet: money(o.average_bet, c),
                total_bet: sum(o.estimate.total_bet, c),
                theoretical_win: theoretical(
                    o.estimate.theoretical_win,
                    o.estimate.theoretical_complete,
                    c,
                ),
                rating: carded.rating.0,
                void: o.void.is_some(),
            })
        })
        .collect();
    let view = PlayerPageView {
        nav: session::nav(&session, Some(&user))?,
        id: page.id.0,
        card_number: page.card_number,
        name: format!("{} {}", page.first_name, page.last_name),
        status: page.status.title(),
        excluded: page.status.excluded(),
        registered: when(page.registered_at, zone),
        personal: page.personal,
        statuses: page
            .statuses
            .iter()
            .map(|s| {
                (
                    when(s.at, zone),
                    s.status.title(),
                    s.reason.clone(),
                    s.source.clone(),
                    s.by.name.clone(),
                )
            })
            .collect(),
        ratings,
        observed,
        totals: page
            .totals
            .iter()
            .map(|(currency, t)| totals_view(currency, t))
            .collect(),
        may_correct: page.may_correct,
        may_set_status: page.may_set_status,
        statuses_to_set: Status::ALL
            .iter()
            .map(|s| (s.as_str(), s.title()))
            .collect(),
    };
    render(StatusCode::OK, &view)
}

/// Which stored list named a player, and that they cannot be seated.
fn listed_words(listed: &records::Listed) -> String {
    format!(
        "the exclusion list \"{}\" (line {}) names them. They cannot be seated.",
        listed.source, listed.line
    )
}

/// `POST /players/{id}`: corrects a player's identity, then back to their page.
pub async fn correct(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<RecordForm>,
) -> Result<HttpResponse, AppError> {
    let id = PlayerId(path.into_inner());
    let day = state.config.gaming_day(Utc::now());
    let done =
        records::correct(&state.db, id, form.into_inner().into(), day, user.me(&req)).await?;
    session::set_flash_of(
        &session,
        &done
            .map(|listed| match listed {
                None => "The player's record is corrected.".to_owned(),
                Some(listed) => format!(
                    "The player's record is corrected, and they are now {}: {}",
                    listed.status.title().to_lowercase(),
                    listed_words(&listed)
                ),
            })
            .map_err(|r| r.reason),
    )?;
    Ok(redirect(&format!("/players/{id}")))
}

#[derive(Deserialize)]
pub struct StatusForm {
    #[serde(default)]
    status: String,
    #[serde(default)]
    reason: String,
}

/// `POST /players/{id}/status`: sets a player's status, then back to their page.
pub async fn set_status(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<i64>,
    form: web::Form<StatusForm>,
) -> Result<HttpResponse, AppError> {
    let id = PlayerId(path.into_inner());
    let form = form.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let done =
        records::set_status(&state.db, id, form.status, form.reason, day, user.me(&req)).await?;
    session::set_flash_of(&session, &done.map_err(|r| r.reason))?;
    Ok(redirect(&format!("/players/{id}")))
}

#[derive(Template)]
#[template(path = "report_players.html")]
struct DayPage {
    nav: Nav,
    day: String,
    previous: String,
    next: String,
    by_theoretical: Vec<PlayerDayView>,
    by_actual: Vec<PlayerDayView>,
    tables: Vec<TableDayView>,
    dealers: Vec<DealerDayView>,
    drop: Vec<(String, String, String, String)>,
    unrated: Vec<UnratedView>,
    observations: Vec<ObservedDayView>,
}

/// A currency's unrated play of the day (estimates).
pub struct UnratedView {
    pub currency: String,
    pub observations: u32,
    pub time: String,
    pub hands: u32,
    pub average_bet: String,
    pub theoretical_win: String,
}

/// An observation on the day's report.
pub struct ObservedDayView {
    pub id: i64,
    pub table: String,
    pub seat: u8,
    pub description: String,
    pub time: String,
    pub hands: u32,
    pub average_bet: String,
    pub theoretical_win: String,
    pub void: bool,
    /// The player it was carded as (their id and name).
    pub carded: Option<(i64, String)>,
}

pub struct PlayerDayView {
    pub id: i64,
    pub card_number: String,
    pub name: String,
    pub hands: u32,
    pub time_played: String,
    pub average_bet: String,
    pub actual_win: String,
    pub theoretical_win: String,
}

pub struct TableDayView {
    pub code: String,
    pub ratings: u32,
    pub hands: u32,
    pub total_bet: String,
    pub actual_win: String,
    pub theoretical_win: String,
    pub bought_in: String,
}

pub struct DealerDayView {
    pub name: String,
    pub players: u32,
    pub hands: u32,
    pub total_bet: String,
    pub average_bet: String,
    pub actual_win: String,
    pub theoretical_win: String,
}

#[derive(Deserialize)]
pub struct DayQuery {
    day: Option<String>,
}

fn player_day_view(p: &report::PlayerDay) -> PlayerDayView {
    let c = p.currency.as_str();
    PlayerDayView {
        id: p.player.0,
        card_number: p.card_number.clone(),
        name: p.name.clone(),
        hands: p.hands,
        time_played: duration(p.seconds_played),
        average_bet: sum(average_bet(p.total_bet, p.hands), c),
        actual_win: total(p.actual_win, c),
        theoretical_win: total(p.theoretical_win, c),
    }
}

/// `GET /reports/players?day=`: the rated play of a gaming day (the current one by default).
pub async fn day_report(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<DayQuery>,
) -> Result<HttpResponse, AppError> {
    let now = Utc::now();
    let day = match query
        .day
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        None => state.config.gaming_day(now),
        Some(text) => crate::web::forms::parse_day("day", text)?,
    };
    let shown = report::day(&state.db, day, now, user.me(&req)).await?;
    let page = DayPage {
        nav: session::nav(&session, Some(&user))?,
        day: day.to_string(),
        previous: day.pred_opt().unwrap_or(day).to_string(),
        next: day.succ_opt().unwrap_or(day).to_string(),
        by_theoretical: shown.by_theoretical.iter().map(player_day_view).collect(),
        by_actual: shown.by_actual.iter().map(player_day_view).collect(),
        tables: shown
            .tables
            .iter()
            .map(|t| TableDayView {
                code: t.code.clone(),
                ratings: t.ratings,
                hands: t.hands,
                total_bet: sum(t.total_bet, &t.currency),
                actual_win: total(t.actual_win, &t.currency),
                theoretical_win: total(t.theoretical_win, &t.currency),
                bought_in: sum(t.bought_in, &t.currency),
            })
            .collect(),
        dealers: shown
            .dealers
            .iter()
            .map(|d| DealerDayView {
                name: d.name.clone(),
                players: d.players,
                hands: d.hands,
                total_bet: sum(d.total_bet, &d.currency),
                average_bet: sum(average_bet(d.total_bet, d.hands), &d.currency),
                actual_win: total(d.actual_win, &d.currency),
                theoretical_win: total(d.theoretical_win, &d.currency),
            })
            .collect(),
        drop: shown
            .drop
            .iter()
            .map(|d| {
                let share = if d.drop.0 > 0 {
                    format!("{:.1} %", d.rated.0 as f64 * 100.0 / d.drop.0 as f64)
                } else {
                    "–".to_owned()
                };
                (
                    d.currency.clone(),
                    sum(d.drop, &d.currency),
                    sum(d.rated, &d.currency),
                    share,
                )
            })
            .collect(),
        unrated: shown
            .unrated
            .iter()
            .map(|u| UnratedView {
                currency: u.currency.clone(),
                observations: u.observations,
                time: duration(u.seconds_played),
                hands: u.hands,
                average_bet: sum(average_bet(u.total_bet, u.hands), &u.currency),
                theoretical_win: theoretical(
                    u.theoretical_win,
                    u.theoretical_complete,
                    &u.currency,
                ),
            })
            .collect(),
        observations: shown
            .observations
            .iter()
            .map(|o| ObservedDayView {
                id: o.id.0,
                table: o.table_code.clone(),
                seat: o.seat,
                description: o.description.clone(),
                time: duration(o.estimate.seconds_played),
                hands: o.estimate.hands,
                average_bet: money(o.average_bet, &o.currency),
                theoretical_win: theoretical(
                    o.estimate.theoretical_win,
                    o.estimate.theoretical_complete,
                    &o.currency,
                ),
                void: o.void.is_some(),
                carded: o.carded.as_ref().map(|c| (c.player.0, c.name.clone())),
            })
            .collect(),
    };
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct ListForm {
    #[serde(default)]
    source: String,
    #[serde(default)]
    list: String,
}

/// `POST /players/exclusions`: imports a regulator's exclusion list (CSV pasted), then the
/// players list with what it did, or the form again with the line that did not read.
pub async fn import(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<ListForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let day = state.config.gaming_day(Utc::now());
    match records::import_exclusions(&state.db, form.source, form.list, day, user.me(&req)).await? {
        Ok(done) => {
            let names: Vec<String> = done
                .excluded
                .iter()
                .map(|p| format!("{} ({})", p.name, p.card_number))
                .collect();
            session::set_flash(
                &session,
                &format!(
                    "Exclusion list read: {} lines; {} players excluded now{}; {} excluded                      already; {} lines match no player.",
                    done.lines,
                    done.excluded.len(),
                    if names.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", names.join(", "))
                    },
                    done.already,
                    done.unmatched
                ),
            )?;
            Ok(redirect("/players"))
        }
        Err(refused) => {
            players_page(
                &state,
                &session,
                &user,
                &req,
                String::new(),
                PlayerForm::default(),
                Some(refused),
            )
            .await
        }
    }
}

#[derive(Deserialize)]
pub struct SeatForm {
    #[serde(default)]
    seat: String,
    #[serde(default)]
    card: String,
}

/// `POST /tables/{code}/ratings`: seats a carded player and starts their rating, then back to
/// the table screen (a refusal, an excluded player's included, is said there).
pub async fn seat(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    form: web::Form<SeatForm>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let form = form.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let done = ratings::seat(
        &state.db,
        code.clone(),
        day,
        form.seat,
        form.card,
        user.me(&req),
    )
    .await?;
    let said = match done {
        Seating::Seated(at) => Ok(at.words),
        Seating::Excluded(reason) => Err(reason),
        Seating::Refused(refused) => Err(refused.reason),
    };
    session::set_flash_of(&session, &said)?;
    Ok(redirect(&format!("/tables/{code}")))
}

#[derive(Deserialize)]
pub struct StepForm {
    #[serde(default)]
    walked_with: String,
}

/// `POST /tables/{code}/ratings/{seat}/{step}` (`pause`, `resume`, `leave`): a step of the
/// rating at that seat, then back to the table screen.
pub async fn step(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, String, String)>,
    form: web::Form<StepForm>,
) -> Result<HttpResponse, AppError> {
    let (code, seat, step) = path.into_inner();
    let step = step_of(&step, form.into_inner().walked_with)?;
    let now = Utc::now();
    let day = state.config.gaming_day(now);
    let done = ratings::step(&state.db, code.clone(), day, seat, step, now, user.me(&req)).await?;
    session::set_flash_of(&session, &done.map(|at| at.words).map_err(|r| r.reason))?;
    Ok(redirect(&format!("/tables/{code}")))
}

/// A step of a rating by its route's name (`pause`, `resume`, `leave` with the chips walked
/// with); another name is no route.
fn step_of(name: &str, walked_with: String) -> Result<Step, AppError> {
    match name {
        "pause" => Ok(Step::Pause),
        "resume" => Ok(Step::Resume),
        "leave" => Ok(Step::Leave { walked_with }),
        _ => Err(AppError::NotFound),
    }
}

/// A rating at a seat as the API answers it: what a dealer sees of the player.
fn at_seat_json(code: &str, at: &AtSeat) -> serde_json::Value {
    json!({
        "rating": at.rating,
        "table": code,
        "seat": at.seat,
        "card_number": at.card_number,
        "first_name": at.first_name,
        "step": at.step,
        "walked_with": at.walked_with.map(Money::plain_text),
        "message": at.words,
    })
}

/// `POST /api/v1/tables/{code}/ratings`: `{"seat": 2, "card": "RC1001"}` seats a carded player
/// and starts their rating, as the table screen's form does: 201 with the rating; a refusal is
/// 422 `{"error": ..., "field": ...}`, and a self-excluded or barred player's (kept, audited and
/// on the pit board, as at the table screen) also says `"excluded": true`.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn api_seat(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    body: web::Bytes,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let fields = match api_fields(&body, "seating", &["seat", "card"])? {
        Ok(fields) => fields,
        Err(refused) => return Ok(refused),
    };
    let (seat, card) = match (
        text_of(&fields, "seat", true),
        text_of(&fields, "card", false),
    ) {
        (Ok(seat), Ok(card)) => (seat, card),
        (Err((reason, field)), _) | (_, Err((reason, field))) => {
            return Ok(api_refused(&reason, Some(field)))
        }
    };
    let (code, day) = (path.into_inner(), state.config.gaming_day(Utc::now()));
    Ok(
        match ratings::seat(&state.db, code.clone(), day, seat, card, user.me(&req)).await? {
            Seating::Seated(at) => HttpResponse::Created().json(at_seat_json(&code, &at)),
            Seating::Excluded(reason) => HttpResponse::UnprocessableEntity().json(json!({
                "error": reason,
                "field": "card",
                "excluded": true,
            })),
            Seating::Refused(refused) => api_refused(&refused.reason, refused.field),
        },
    )
}

/// `POST /api/v1/tables/{code}/ratings/{seat}/{step}` (`pause`, `resume`, `leave` with
/// `{"walked_with": "1250.00"}`): a step of the rating at that seat, as the table screen's
/// buttons: 200 with the rating; a refusal is 422 `{"error": ..., "field": ...}`.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn api_step(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(String, String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (code, seat, step) = path.into_inner();
    let known: &[&str] = if step == "leave" {
        &["walked_with"]
    } else {
        &[]
    };
    let fields = match api_fields(&body, &format!("{step} step"), known)? {
        Ok(fields) => fields,
        Err(refused) => return Ok(refused),
    };
    let walked_with = match text_of(&fields, "walked_with", false) {
        Ok(walked_with) => walked_with,
        Err((reason, field)) => return Ok(api_refused(&reason, Some(field))),
    };
    let step = step_of(&step, walked_with)?;
    let now = Utc::now();
    let day = state.config.gaming_day(now);
    Ok(
        match ratings::step(&state.db, code.clone(), day, seat, step, now, user.me(&req)).await? {
            Ok(at) => HttpResponse::Ok().json(at_seat_json(&code, &at)),
            Err(refused) => api_refused(&refused.reason, refused.field),
        },
    )
}

pub struct CompRuleView {
    pub percent: String,
    pub from_day: String,
    pub set: String,
}

#[derive(Template)]
#[template(path = "admin_comp.html")]
struct CompPage {
    nav: Nav,
    rules: Vec<CompRuleView>,
    may_set: bool,
    today: String,
    typed: comp::RuleForm,
    error: Option<String>,
    error_field: &'static str,
}

fn comp_page(
    session: &Session,
    user: &CurrentUser,
    state: &AppState,
    lines: &[comp::RuleLine],
    typed: comp::RuleForm,
    refused: Option<FormRefusal>,
) -> Result<HttpResponse, AppError> {
    let status = if refused.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let zone = state.config.zone();
    let page = CompPage {
        nav: session::nav(session, Some(user))?,
        rules: lines
            .iter()
            .rev()
            .map(|l| CompRuleView {
                percent: l.rule.percent_text(),
                from_day: l.rule.from_day.to_string(),
                set: match &l.set_by {
                    Some(by) => format!("{}, {}", by.name, when(l.set_at, zone)),
                    None => "as installed".to_owned(),
                },
            })
            .collect(),
        may_set: user.role == Role::Admin,
        today: state.config.gaming_day(Utc::now()).to_string(),
        typed,
        error_field: refused.as_ref().and_then(|r| r.field).unwrap_or(""),
        error: refused.map(|r| r.reason),
    };
    render(status, &page)
}

/// `GET /admin/comp`: the comp rules, newest first, and (for an administrator) the form that
/// sets the next.
pub async fn comp_rules(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let lines = comp::list(&state.db).await?;
    comp_page(
        &session,
        &user,
        &state,
        &lines,
        comp::RuleForm::default(),
        None,
    )
}

#[derive(Deserialize)]
pub struct CompFields {
    #[serde(default)]
    percent: String,
    #[serde(default)]
    from_day: String,
}

/// `POST /admin/comp`: puts a comp rule in force from a gaming day (an administrator).
pub async fn set_comp_rule(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<CompFields>,
) -> Result<HttpResponse, AppError> {
    let f = form.into_inner();
    let typed = comp::RuleForm {
        percent: f.percent,
        from_day: f.from_day,
    };
    let today = state.config.gaming_day(Utc::now());
    match comp::set(&state.db, typed.clone(), today, user.me(&req)).await? {
        Ok(said) => {
            session::set_flash(&session, &said)?;
            Ok(redirect("/admin/comp"))
        }
        Err((refused, lines)) => comp_page(&session, &user, &state, &lines, typed, Some(refused)),
    }
}
