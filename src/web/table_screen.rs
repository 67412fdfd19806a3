//! The dealer's table screen: the round form (kept in the table's draft), preview, confirm,
//! the latest rounds and the house result of the dealer's shift and of the day. Only the dealer
//! signed on at the table (or a pit manager, for that dealer's shift) may use it. The round's
//! use-cases are [`crate::recording::drafts`]', as for the JSON API.

use std::collections::{BTreeMap, HashMap};

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{FixedOffset, NaiveDate, Utc};
use serde_json::json;

use crate::db::audit_log::Actor;
use crate::db::ids::RoundId;
use crate::db::review;
use crate::db::rounds::drafts::Draft;
use crate::db::rounds::rows;
use crate::db::shifts::CurrentShift;
use crate::db::tables::PlayingTable;
use crate::recording::drafts;
use crate::recording::entry::{place_note, FieldErrors, PlaceBody, PlaceNote, RoundBody, SeatBody};
use crate::recording::{RoundsError, Writer};
use crate::rules::money::Money;
use crate::rules::settle::{Outcome, Winner};
use crate::rules::wire::{Action, SettlementOut};
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

const SLOTS: [(&str, &str, u8); 4] = [
    ("dealt", "Dealt (13, optional; needed for a royalty)", 13),
    ("back", "Back (5)", 5),
    ("middle", "Middle (5)", 5),
    ("front", "Front (3)", 3),
];

type Fields = HashMap<String, String>;

pub struct FieldView {
    pub name: String,
    pub label: &'static str,
    pub value: String,
    pub error: String,
    pub count: u8,
}

pub struct ActionOption {
    pub value: &'static str,
    pub label: &'static str,
    pub selected: bool,
}

pub struct PlaceView {
    pub place: String,
    pub title: String,
    pub is_seat: bool,
    pub actions: Vec<ActionOption>,
    pub action_error: String,
    pub bet: FieldView,
    pub cards: Vec<FieldView>,
}

pub struct PreviewLine {
    pub place: String,
    pub outcome: String,
    pub hands: String,
    pub winners: String,
    pub foul: String,
    pub result: String,
}

#[derive(Template)]
#[template(path = "table_preview.html")]
pub struct PreviewView {
    pub lines: Vec<PreviewLine>,
    pub dealer_net: String,
}

pub struct RecentRow {
    pub id: RoundId,
    pub round_no: i32,
    pub at: String,
    pub dealer_result: Money,
    /// Voided: shown, marked, and left out of the house results.
    pub voided: bool,
}

#[derive(Template)]
#[template(path = "table.html")]
struct TablePage {
    nav: Nav,
    table: PlayingTable,
    profile_words: String,
    draft_key: String,
    revision: i32,
    places: Vec<PlaceView>,
    round_error: String,
    preview: Option<PreviewView>,
    recent: Vec<RecentRow>,
    house_today: Money,
    shift_dealer: String,
    house_shift: Money,
}

fn action_name(action: Action) -> &'static str {
    match action {
        Action::Play => "play",
        Action::Surrender => "surrender",
        Action::Royalty => "royalty",
    }
}

/// The draft's stored round as form fields.
fn fields_of(draft: &Draft) -> Fields {
    let mut fields = Fields::new();
    let Ok(body) = serde_json::from_value::<RoundBody>(draft.data.clone()) else {
        return fields;
    };
    let mut put = |place: &str, play: &PlaceBody| {
        fields.insert(format!("{place}_action"), action_name(play.action).into());
        for (slot, value) in [
            ("dealt", &play.dealt),
            ("back", &play.back),
            ("middle", &play.middle),
            ("front", &play.front),
        ] {
            if let Some(value) = value {
                fields.insert(format!("{place}_{slot}"), value.clone());
            }
        }
    };
    put("dealer", &body.dealer);
    for seat in &body.seats {
        put(&format!("seat{}", seat.seat), &seat.play);
    }
    for seat in &body.seats {
        // Dealers enter and see bets in major units (pesos); the round keeps minor units.
        fields.insert(
            format!("seat{}_bet", seat.seat),
            Money(seat.bet).typed_text(),
        );
    }
    fields
}

/// Amounts in templates: `{{ x|amount }}` is `1,234.50`, `{{ x|signed }}` is `+1,234.50`.
mod filters {
    use crate::rules::money::Money;

    pub fn amount(money: &Money, _: &dyn askama::Values) -> askama::Result<String> {
        Ok(money.major_text())
    }

    pub fn signed(money: &Money, _: &dyn askama::Values) -> askama::Result<String> {
        Ok(money.signed_text())
    }
}

/// Form fields as a round, or the errors of fields that cannot be read at all.
pub(super) fn body_of(fields: &Fields) -> Result<RoundBody, FieldErrors> {
    let mut errors = FieldErrors::default();
    let get = |name: String| {
        fields
            .get(&name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let place = |place: &str, errors: &mut FieldErrors| -> PlaceBody {
        let action = match get(format!("{place}_action")).as_deref() {
            None | Some("play") => Action::Play,
            Some("surrender") => Action::Surrender,
            Some("royalty") => Action::Royalty,
            Some(other) => {
                errors.add(format!("{place}_action"), format!("unknown action {other}"));
                Action::Play
            }
        };
        PlaceBody {
            action,
            royalty: None,
            dealt: get(format!("{place}_dealt")),
            back: get(format!("{place}_back")),
            middle: get(format!("{place}_middle")),
            front: get(format!("{place}_front")),
        }
    };
    let mut seats = Vec::new();
    for n in 1..=3 {
        if get(format!("seat{n}_action")).is_none() {
            continue;
        }
        let play = place(&format!("seat{n}"), &mut errors);
        let bet = match get(format!("seat{n}_bet")).map(|b| Money::parse_major(&b)) {
            Some(Some(bet)) => bet.minor_units(),
            Some(None) => {
                errors.add(
                    format!("seat{n}_bet"),
                    "enter the bet as an amount, like 500 or 500.50",
                );
                0
            }
            None => {
                errors.add(format!("seat{n}_bet"), format!("seat {n} needs a bet"));
                0
            }
        };
        seats.push(SeatBody { seat: n, bet, play });
    }
    let dealer = place("dealer", &mut errors);
    if errors.is_empty() {
        Ok(RoundBody { seats, dealer })
    } else {
        Err(errors)
    }
}

fn places_view(table: &PlayingTable, fields: &Fields, errors: &FieldErrors) -> Vec<PlaceView> {
    let value = |name: &str| fields.get(name).cloned().unwrap_or_default();
    let error = |name: &str| errors.0.get(name).cloned().unwrap_or_default();
    let field = |name: String, label: &'static str, count: u8| FieldView {
        value: value(&name),
        error: error(&name),
        name,
        label,
        count,
    };
    let profile = &table.profile;
    ["seat1", "seat2", "seat3", "dealer"]
        .iter()
        .map(|&place| {
            let is_seat = place != "dealer";
            let current = value(&format!("{place}_action"));
            let current = if !is_seat && current.is_empty() {
                "play".to_owned()
            } else {
                current
            };
            let mut choices: Vec<(&'static str, &'static str)> = Vec::new();
            if is_seat {
                choices.push(("", "Empty seat"));
            }
            choices.push(("play", "Play"));
            // Seats and the dealer alike may surrender when the profile allows it (RULES.md 4.4).
            if profile.surrender {
                choices.push(("surrender", "Surrender"));
            }
            if profile.royalties && (is_seat || profile.dealer_royalties) {
                choices.push(("royalty", "Royalty"));
            }
            PlaceView {
                place: place.to_owned(),
                title: match place {
                    "dealer" => "Dealer".to_owned(),
                    seat => format!("Seat {}", &seat[4..]),
                },
                is_seat,
                actions: choices
                    .into_iter()
                    .map(|(value, label)| ActionOption {
                        value,
                        label,
                        selected: value == current,
                    })
                    .collect(),
                action_error: error(&format!("{place}_action")),
                bet: field(format!("{place}_bet"), "Bet", 0),
                cards: SLOTS
                    .iter()
                    .map(|&(slot, label, count)| field(format!("{place}_{slot}"), label, count))
                    .collect(),
            }
        })
        .collect()
}

fn outcome_words(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Played => "Played",
        Outcome::Surrendered => "Surrendered",
        Outcome::Royalty => "Royalty",
        Outcome::DealerRoyalty => "Dealer royalty",
        Outcome::DealerSurrendered => "Dealer surrendered",
    }
}

fn winner_words(winner: Winner) -> &'static str {
    match winner {
        Winner::Player => "player",
        Winner::Dealer => "dealer",
    }
}

fn preview_view(settlement: &SettlementOut) -> PreviewView {
    let hands = |h: &Option<crate::rules::wire::HandsOut>| {
        h.as_ref()
            .map(|h| format!("{} / {} / {}", h.back, h.middle, h.front))
            .unwrap_or_default()
    };
    let mut lines: Vec<PreviewLine> = settlement
        .seats
        .iter()
        .map(|s| PreviewLine {
            place: format!("Seat {}", s.seat),
            outcome: outcome_words(s.outcome).to_owned(),
            hands: hands(&s.hands),
            winners: s
                .winners
                .map(|w| {
                    format!(
                        "back: {}, middle: {}, front: {}",
                        winner_words(w.back),
                        winner_words(w.middle),
                        winner_words(w.front)
                    )
                })
                .unwrap_or_default(),
            foul: s
                .foul
                .clone()
                .map(|f| format!("Foul: {f}"))
                .unwrap_or_default(),
            result: s.result.signed_text(),
        })
        .collect();
    let d = &settlement.dealer;
    lines.push(PreviewLine {
        place: "Dealer".to_owned(),
        outcome: String::new(),
        hands: hands(&d.hands),
        winners: String::new(),
        foul: d
            .foul
            .clone()
            .map(|f| format!("Foul: {f}"))
            .unwrap_or_default(),
        result: d.result.signed_text(),
    });
    PreviewView {
        lines,
        dealer_net: d.result.signed_text(),
    }
}

/// Everything the page shows besides the form itself.
struct Side {
    recent: Vec<RecentRow>,
    house_today: Money,
    shift_dealer: String,
    house_shift: Money,
}

fn side(
    conn: &mut diesel::PgConnection,
    table: &PlayingTable,
    day: NaiveDate,
    shift: &CurrentShift,
    zone: FixedOffset,
) -> Result<Side, AppError> {
    let recent = rows::recent_for_table(conn, table.table.id, 10)?;
    let ids: Vec<RoundId> = recent.iter().map(|r| r.id).collect();
    let voided = review::voided_among(conn, &ids)?;
    let recent = recent
        .into_iter()
        .map(|r| RecentRow {
            id: r.id,
            round_no: r.round_no,
            at: when(r.settled_at, zone),
            dealer_result: r.dealer_result,
            voided: voided.contains(&r.id),
        })
        .collect();
    let house = rows::house_results(conn, table.table.id, day, &shift.shift)?;
    Ok(Side {
        recent,
        house_today: house.day,
        shift_dealer: format!(
            "{} since {}",
            shift.dealer_name,
            when(shift.shift.signed_on_at, zone)
        ),
        house_shift: house.shift,
    })
}

struct Entered {
    table: PlayingTable,
    draft: Draft,
    fields: Fields,
    errors: FieldErrors,
    preview: Option<PreviewView>,
    side: Side,
}

fn page(nav: Nav, o: Entered) -> TablePage {
    TablePage {
        nav,
        profile_words: o.table.profile.describe(),
        draft_key: o.draft.draft_key.0.clone(),
        revision: o.draft.revision,
        places: places_view(&o.table, &o.fields, &o.errors),
        round_error: o
            .errors
            .0
            .iter()
            .filter(|(k, _)| !k.contains('_'))
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        preview: o.preview,
        recent: o.side.recent,
        house_today: o.side.house_today,
        shift_dealer: o.side.shift_dealer,
        house_shift: o.side.house_shift,
        table: o.table,
    }
}

/// Who is entering rounds on this request.
fn writer(user: &CurrentUser) -> Writer {
    Writer {
        user: user.id,
        role: user.role,
    }
}

fn open(
    conn: &mut diesel::PgConnection,
    code: &str,
    user: &CurrentUser,
    actor: &Actor,
    day: NaiveDate,
) -> Result<(PlayingTable, Draft, CurrentShift), RoundsError> {
    let table = drafts::table(conn, code)?;
    let (draft, shift) = drafts::open(conn, &table, writer(user), actor, day)?;
    Ok((table, draft, shift))
}

/// Errors as a page: 404 and server errors as they are; a refused round (changed elsewhere,
/// already settled, unreadable) as a flash message on `back`; not signed on at the table as a
/// flash message on the tables page, where dealers sign on.
fn as_page(
    session: &Session,
    back: &str,
    result: Result<HttpResponse, AppError>,
) -> Result<HttpResponse, AppError> {
    let err = match result {
        Ok(res) => return Ok(res),
        Err(AppError::Round(RoundsError::NoDraft(_) | RoundsError::NoTable(_))) => {
            return Err(AppError::NotFound)
        }
        Err(err) => err,
    };
    let to = match (&err, err.round_code()) {
        (_, Some("not_on_shift")) => "/tables",
        (AppError::Round(RoundsError::Invalid(_)), _) | (_, Some(_)) => back,
        _ => return Err(err),
    };
    let message = match &err {
        AppError::Round(RoundsError::Invalid(errors)) => errors.summary(),
        other => other.to_string(),
    };
    session::set_error_flash(session, &message)?;
    Ok(redirect(to))
}

/// `GET /tables/{code}`.
pub async fn show(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let result = show_page(state, session.clone(), user, req, path).await;
    as_page(&session, "/", result)
}

async fn show_page(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let actor = user.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let zone = state.config.utc_offset;
    let nav = session::nav(&session, Some(&user))?;
    let outcome = state
        .db(move |conn| {
            let (table, draft, shift) = open(conn, &code, &user, &actor, day)?;
            let side = side(conn, &table, day, &shift, zone)?;
            Ok(Entered {
                fields: fields_of(&draft),
                table,
                draft,
                errors: FieldErrors::default(),
                preview: None,
                side,
            })
        })
        .await?;
    render(StatusCode::OK, &page(nav, outcome))
}

/// Saves the form into the table's draft and previews it: errors by field, or the settlement.
fn save_and_preview(
    conn: &mut diesel::PgConnection,
    code: &str,
    user: &CurrentUser,
    actor: &Actor,
    fields: Fields,
    day: NaiveDate,
    zone: FixedOffset,
) -> Result<Entered, AppError> {
    let (table, mut draft, shift) = open(conn, code, user, actor, day)?;
    let revision = fields.get("revision").and_then(|r| r.parse::<i32>().ok());
    let mut errors = FieldErrors::default();
    let mut preview = None;
    match body_of(&fields) {
        Err(e) => errors = e,
        Ok(body) => {
            let data =
                serde_json::to_value(&body).map_err(|e| RoundsError::round(e.to_string()))?;
            let key = draft.draft_key.0.clone();
            draft = drafts::save_data(conn, &table, writer(user), &key, revision, &data)?;
            match drafts::settle_draft(&draft, &table) {
                Ok((_, settlement)) => preview = Some(preview_view(&settlement)),
                Err(RoundsError::Invalid(e)) => errors = e,
                Err(other) => return Err(other.into()),
            }
        }
    }
    let side = side(conn, &table, day, &shift, zone)?;
    Ok(Entered {
        table,
        draft,
        fields,
        errors,
        preview,
        side,
    })
}

/// `POST /tables/{code}/round`: `step=preview` or `step=confirm`.
pub async fn submit(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Fields>,
) -> Result<HttpResponse, AppError> {
    let back = format!("/tables/{}", path.as_str());
    let result = submit_form(state, session.clone(), user, req, path, form).await;
    as_page(&session, &back, result)
}

async fn submit_form(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Fields>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let actor = user.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let zone = state.config.utc_offset;
    let fields = form.into_inner();
    let nav = session::nav(&session, Some(&user))?;
    if fields.get("step").map(String::as_str) == Some("confirm") {
        let key = fields.get("draft_key").cloned().unwrap_or_default();
        let revision = fields.get("revision").and_then(|r| r.parse::<i32>().ok());
        let at = code.clone();
        let round_id = state
            .db(move |conn| {
                let writer = writer(&user);
                let (settled, _, _) =
                    drafts::confirm(conn, &key, Some(&at), revision, day, writer, &actor)?;
                Ok(settled.round.id)
            })
            .await?;
        return Ok(redirect(&format!("/tables/{code}/rounds/{round_id}")));
    }
    let outcome = state
        .db(move |conn| save_and_preview(conn, &code, &user, &actor, fields, day, zone))
        .await?;
    let status = if outcome.errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    render(status, &page(nav, outcome))
}

/// The note of every occupied place (and the dealer) whose three hands are readable, from
/// the form as entered, whether or not the round as a whole is complete.
fn place_hands(fields: &Fields, table: &PlayingTable) -> BTreeMap<&'static str, PlaceNote> {
    let get = |name: String| fields.get(&name).map(|v| v.trim()).unwrap_or_default();
    ["seat1", "seat2", "seat3", "dealer"]
        .into_iter()
        .filter(|&place| place == "dealer" || !get(format!("{place}_action")).is_empty())
        .filter_map(|place| {
            let note = place_note(
                get(format!("{place}_back")),
                get(format!("{place}_middle")),
                get(format!("{place}_front")),
                &table.profile,
            )?;
            Some((place, note))
        })
        .collect()
}

/// `POST /tables/{code}/round/check`: saves the draft and answers JSON for table.js.
pub async fn check(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Fields>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let actor = user.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let zone = state.config.utc_offset;
    let fields = form.into_inner();
    let outcome = state
        .db(move |conn| save_and_preview(conn, &code, &user, &actor, fields, day, zone))
        .await?;
    let preview_html = match &outcome.preview {
        Some(p) => p.render()?,
        None => String::new(),
    };
    let hands = place_hands(&outcome.fields, &outcome.table);
    // `place_notes` is one line per place, as table.js shows it; `place_hands` the same note
    // field by field.
    let place_notes: BTreeMap<&str, String> = hands
        .iter()
        .map(|(place, note)| (*place, note.text()))
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "revision": outcome.draft.revision,
        "field_errors": outcome.errors,
        "place_notes": place_notes,
        "place_hands": hands,
        "preview_html": preview_html,
        "can_confirm": outcome.preview.is_some(),
    })))
}
