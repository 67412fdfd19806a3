//! The dealer's table screen: the round form (kept in the table's draft as typed), preview,
//! confirm, the latest rounds and the house result of the dealer's shift and of the day. Only
//! the dealer signed on at the table (or a pit manager, for that dealer's shift) may use it.
//! Each handler reads the request, calls one use-case of [`crate::recording::screen`] and
//! renders its answer.

use std::collections::{BTreeMap, HashMap};

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use serde::Deserialize;
use serde_json::json;

use crate::accounting::drop::TableDay;
use crate::config::Zone;
use crate::db::audit_log::Actor;
use crate::db::ids::RoundId;
use crate::db::tables::PlayingTable;
use crate::pit::screen::{self, Typed};
use crate::players::observes;
use crate::players::AtTable;
use crate::recording::entry::{place_note, FieldErrors, PlaceNote};
use crate::recording::form::{self, Fields};
use crate::recording::screen::{Screen, Stored};
use crate::recording::write::Settled;
use crate::recording::{RoundsError, Writer};
use crate::rules::drop::BuyInKind;
use crate::rules::game::{Game, GameRules};
use crate::rules::houseway;
use crate::rules::money::Money;
use crate::rules::place::PlayerSeat;
use crate::rules::points::natural::Natural;
use crate::rules::points::settle::PointsOutcome;
use crate::rules::points::wire::PointsSettlementOut;
use crate::rules::settle::{Outcome, Winner};
use crate::rules::wire::SettlementOut;
use crate::web::accounting::{count_form_view, CountFormView};
use crate::web::drop;
use crate::web::error::AppError;
use crate::web::format::{self, when};
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// The deal's label at a points table, where the 13 cards show a natural.
const DEALT_AT_POINTS: &str = "Dealt (13, optional; needed for a natural)";

const SLOTS: [(&str, &str, u8); 4] = [
    ("dealt", "Dealt (13, optional; needed for a royalty)", 13),
    ("back", "Back (5)", 5),
    ("middle", "Middle (5)", 5),
    ("front", "Front (3)", 3),
];

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
    /// The natural shown, at a points table.
    pub natural: Option<NaturalView>,
    pub bet: FieldView,
    pub cards: Vec<FieldView>,
}

/// The natural chooser of a player at a points table.
pub struct NaturalView {
    pub name: String,
    pub options: Vec<ActionOption>,
    pub error: String,
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
    /// The dealer's net at a banking table; empty at a points table.
    pub dealer_net: String,
    /// A points round's matrix: the seats as columns, and per player the points they scored
    /// against each other player (empty at a banking table).
    pub against_head: Vec<String>,
    pub against: Vec<AgainstRow>,
    /// Who made pusoy, in words (empty when nobody did, or at a banking table).
    pub pusoy: String,
}

/// One player's row of the points matrix.
pub struct AgainstRow {
    pub place: String,
    pub cells: Vec<String>,
    pub points: String,
}

#[derive(Clone)]
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
    /// A points-game table: four players, no dealer, no bets.
    is_points: bool,
    /// Empty until the round is first saved (a GET opens nothing).
    draft_key: String,
    revision: String,
    places: Vec<PlaceView>,
    round_error: String,
    preview: Option<PreviewView>,
    /// What the stored round is, in words, for the status line, and its state: `empty`,
    /// `warn` (problems to fix) or `ok`.
    stored_words: String,
    status_state: &'static str,
    /// "Confirm 3 seats, house +800.00?" when the table asks before confirming.
    confirm_question: String,
    /// The last round's seats and bets (`seat1=500.00;seat3=200.00`), for one tap.
    last_seats: String,
    /// The round the dealer just confirmed, shown above the next one.
    settled: Option<RecentRow>,
    /// The round on the form was saved on another shift (and not since on this one): said so,
    /// and not confirmed until it is saved on this shift.
    other_shift: bool,
    /// The page answers a Preview: every field's problem is shown at once.
    previewed: bool,
    recent: Vec<RecentRow>,
    house_today: String,
    shift_dealer: String,
    house_shift: String,
    /// The house way in plain words, with its table's version (beside "Set by house way").
    house_way_words: String,
    /// The Buy-in panel: the seats of the table's game, the kinds, the drop so far today and,
    /// at a points table, its fees so far.
    drop: DropPanel,
    /// The rated players seated at the table (docs/players.md): card number and first name.
    rated: Vec<RatedView>,
    /// The unrated observations running at the table (docs/players.md), for the pit manager.
    observed: Vec<ObservedView>,
    observer: bool,
    /// The opener's count form, while the table has no opener standing (shown to whoever may
    /// sign one: a dealer or a pit manager at the table).
    opener: Option<CountFormView>,
}

/// An unrated observation running at a seat.
struct ObservedView {
    id: i64,
    seat: u8,
    description: String,
    since: String,
}

/// A rated player at a seat, as the dealer sees them.
struct RatedView {
    seat: u8,
    card_number: String,
    first_name: String,
    since: String,
    paused: bool,
}

/// The table screen's Buy-in panel.
struct DropPanel {
    seats: Vec<u8>,
    kinds: Vec<(&'static str, &'static str)>,
    so_far: String,
    fees: String,
}

fn drop_panel(day: &TableDay) -> DropPanel {
    let currency = &day.table.currency;
    DropPanel {
        seats: day.table.seats(),
        kinds: BuyInKind::ALL
            .iter()
            .map(|k| (k.as_str(), k.title()))
            .collect(),
        so_far: drop::drop_line(&day.totals, currency),
        fees: drop::sum(day.totals.fees, currency),
    }
}

/// "Confirm 3 seats, house PHP +800.00?": what the dealer is asked before a round is confirmed;
/// at a points table, each player's result ("Confirm 4 players (seat 1 PHP +26.00, ...)?").
fn confirm_question(settled: &Settled, currency: &str) -> String {
    match settled {
        Settled::Banking { out, .. } => {
            let seats = out.seats.len();
            format!(
                "Confirm {seats} seat{}, house {}?",
                if seats == 1 { "" } else { "s" },
                format::result(out.dealer.result, currency)
            )
        }
        Settled::Points { out, .. } => {
            let results: Vec<String> = out
                .seats
                .iter()
                .map(|s| {
                    format!(
                        "seat {} {}",
                        s.seat.number(),
                        format::result(s.result, currency)
                    )
                })
                .collect();
            format!(
                "Confirm {} players ({})?",
                out.seats.len(),
                results.join(", ")
            )
        }
    }
}

/// What is stored of the round, in words (the status line says exactly this).
fn stored_words(stored: &Stored) -> String {
    match &stored.draft {
        None => "Nothing saved yet".to_owned(),
        Some(draft) if stored.checked.settlement.is_some() => {
            format!("Saved (revision {}), ready to confirm", draft.revision)
        }
        Some(draft) if !stored.checked.errors.is_empty() => format!(
            "Saved as typed (revision {}), with {} to fix before it can be confirmed",
            draft.revision,
            problems(stored.checked.errors.0.len())
        ),
        Some(draft) => format!("Saved (revision {})", draft.revision),
    }
}

fn problems(count: usize) -> String {
    if count == 1 {
        "1 problem".to_owned()
    } else {
        format!("{count} problems")
    }
}

/// What the table page shows besides the stored round: the round just confirmed (by id), and
/// whether the page answers a Preview.
#[derive(Debug, Clone, Copy, Default)]
struct Shown {
    settled: Option<RoundId>,
    previewed: bool,
    /// The viewer records unrated observations (a pit manager): the panel that lists them.
    observer: bool,
}

fn page(
    nav: Nav,
    (screen, day, at_table): (Screen, TableDay, AtTable),
    zone: Zone,
    shown: Shown,
    opener: Option<CountFormView>,
) -> TablePage {
    let Screen { stored, side } = screen;
    // A new round starts with every seat empty: last round's players and bets are one tap
    // away ("Same players and bets"), and a seat nobody sits at blocks nothing.
    let fields = stored.fields.clone();
    let other_shift = stored
        .draft
        .as_ref()
        .is_some_and(|d| d.revision > 0 && d.shift_id != Some(side.shift.shift.id));
    let currency = &stored.table.table.currency;
    let preview = stored
        .checked
        .settlement
        .as_ref()
        .map(|s| preview_view(s, currency));
    let confirm_question = match (&stored.checked.settlement, stored.confirm_prompt) {
        (Some(settlement), true) => confirm_question(settlement, &stored.table.table.currency),
        _ => String::new(),
    };
    let recent: Vec<RecentRow> = side
        .recent
        .into_iter()
        .map(|r| RecentRow {
            id: r.id,
            round_no: r.round_no,
            at: when(r.settled_at, zone),
            dealer_result: r.dealer_result,
            voided: side.voided.contains(&r.id),
        })
        .collect();
    TablePage {
        nav,
        profile_words: stored.table.rules.describe(),
        is_points: stored.table.game() == Game::Points,
        draft_key: stored
            .draft
            .as_ref()
            .map(|d| d.draft_key.0.clone())
            .unwrap_or_default(),
        revision: stored
            .draft
            .as_ref()
            .map(|d| d.revision.to_string())
            .unwrap_or_default(),
        places: places_view(&stored.table, &fields, &stored.checked.errors),
        round_error: round_error(&stored.checked.errors),
        preview,
        stored_words: stored_words(&stored),
        status_state: match (&stored.draft, stored.checked.errors.is_empty()) {
            (None, _) => "empty",
            (Some(_), false) => "warn",
            (Some(_), true) => "ok",
        },
        confirm_question,
        last_seats: side
            .last_seats
            .iter()
            .map(|s| format!("seat{}={}", s.seat, s.bet.typed_text()))
            .collect::<Vec<_>>()
            .join(";"),
        recent: recent.clone(),
        settled: shown
            .settled
            .and_then(|id| recent.iter().find(|r| r.id == id).cloned()),
        other_shift,
        previewed: shown.previewed,
        observer: shown.observer,
        house_today: format::total(side.house.day, &stored.table.table.currency),
        shift_dealer: format!(
            "{} since {}",
            side.shift.dealer_name,
            when(side.shift.shift.signed_on_at, zone)
        ),
        house_shift: format::total(side.house.shift, &stored.table.table.currency),
        house_way_words: houseway::description(),
        drop: drop_panel(&day),
        observed: at_table
            .observed
            .into_iter()
            .map(|o| ObservedView {
                id: o.id.0,
                seat: o.seat,
                description: o.description,
                since: when(o.since, zone),
            })
            .collect(),
        rated: at_table
            .seated
            .into_iter()
            .map(|s| RatedView {
                seat: s.seat,
                card_number: s.card_number,
                first_name: s.first_name,
                since: when(s.since, zone),
                paused: s.paused,
            })
            .collect(),
        opener,
        table: stored.table,
    }
}

/// The errors that belong to no field of the form, in one line.
fn round_error(errors: &FieldErrors) -> String {
    let fields: Vec<String> = form::PLACES
        .iter()
        .flat_map(|place| {
            form::PARTS
                .iter()
                .map(move |part| format!("{place}_{part}"))
        })
        .collect();
    errors
        .0
        .iter()
        .filter(|(k, _)| !fields.contains(k))
        .map(|(_, v)| v.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Who is entering rounds on this request.
fn writer(user: &CurrentUser) -> Writer {
    Writer {
        user: user.id,
        role: user.role,
    }
}

/// The form as typed on this request, as the save use-case takes it.
fn typed(
    code: String,
    user: &CurrentUser,
    actor: Actor,
    day: NaiveDate,
    submitted: &HashMap<String, String>,
    expected: Option<i32>,
) -> Typed {
    Typed {
        code,
        writer: writer(user),
        actor,
        day,
        fields: form::typed(submitted),
        expected,
    }
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
    let (places, surrender, royalties, dealer_royalties, naturals): (&[&str], _, _, _, _) =
        match &table.rules {
            GameRules::Banking(p) => (
                &["seat1", "seat2", "seat3", "dealer"],
                p.surrender,
                p.royalties,
                p.dealer_royalties,
                false,
            ),
            GameRules::Points(p) => (
                &["seat1", "seat2", "seat3", "seat4"],
                p.surrender,
                false,
                false,
                p.naturals,
            ),
        };
    places
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
            // Seats and the dealer alike may surrender when the profile allows it
            // (docs/rules.md §5.3).
            if surrender {
                choices.push(("surrender", "Surrender"));
            }
            if royalties && (is_seat || dealer_royalties) {
                choices.push(("royalty", "Royalty"));
            }
            if naturals {
                choices.push(("natural", "Natural"));
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
                natural: naturals.then(|| NaturalView {
                    name: format!("{place}_natural"),
                    options: Natural::ALL
                        .into_iter()
                        .map(|natural| ActionOption {
                            value: natural.key(),
                            label: natural.word(),
                            selected: value(&format!("{place}_natural")) == natural.key(),
                        })
                        .collect(),
                    error: error(&format!("{place}_natural")),
                }),
                bet: field(format!("{place}_bet"), "Bet", 0),
                cards: SLOTS
                    .iter()
                    .map(|&(slot, label, count)| {
                        let label = match (slot, &table.rules) {
                            ("dealt", GameRules::Points(_)) => DEALT_AT_POINTS,
                            _ => label,
                        };
                        field(format!("{place}_{slot}"), label, count)
                    })
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

pub(crate) fn preview_view(settled: &Settled, currency: &str) -> PreviewView {
    match settled {
        Settled::Banking { out, .. } => banking_preview(out, currency),
        Settled::Points { out, .. } => points_preview(out, currency),
    }
}

fn hands_text(h: &Option<crate::rules::wire::HandsOut>) -> String {
    h.as_ref()
        .map(|h| format!("{} / {} / {}", h.back, h.middle, h.front))
        .unwrap_or_default()
}

/// A points round's preview: each player's outcome, hands, mis-set, points and result, and
/// the matrix of who scored what against whom.
fn points_preview(out: &PointsSettlementOut, currency: &str) -> PreviewView {
    let lines = out
        .seats
        .iter()
        .map(|s| PreviewLine {
            place: format!("Seat {}", s.seat.number()),
            outcome: match (s.outcome, s.natural) {
                (PointsOutcome::Natural, Some(natural)) => format!("Natural: {natural}"),
                (PointsOutcome::Natural, None) => "Natural".to_owned(),
                (PointsOutcome::Played, _) => "Played".to_owned(),
                (PointsOutcome::Surrendered, _) => "Surrendered".to_owned(),
            },
            hands: hands_text(&s.hands),
            winners: format!("{:+} points", s.points),
            foul: s
                .foul
                .clone()
                .map(|f| format!("Mis-set: {f}"))
                .unwrap_or_default(),
            result: format::result(s.result, currency),
        })
        .collect();
    let seats: Vec<PlayerSeat> = out.seats.iter().map(|s| s.seat).collect();
    PreviewView {
        lines,
        dealer_net: String::new(),
        against_head: seats
            .iter()
            .map(|seat| format!("vs seat {}", seat.number()))
            .collect(),
        against: out
            .seats
            .iter()
            .map(|s| AgainstRow {
                place: format!("Seat {}", s.seat.number()),
                cells: seats
                    .iter()
                    .map(|other| match s.against.0[other.slot()] {
                        Some(points) => format!("{points:+}"),
                        None => "—".to_owned(),
                    })
                    .collect(),
                points: format!("{:+}", s.points),
            })
            .collect(),
        pusoy: out
            .pusoy
            .map(|seat| {
                format!(
                    "Pusoy: seat {} scooped every other player who set hands",
                    seat.number()
                )
            })
            .unwrap_or_default(),
    }
}

fn banking_preview(settlement: &SettlementOut, currency: &str) -> PreviewView {
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
            result: format::result(s.result, currency),
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
        result: format::result(d.result, currency),
    });
    PreviewView {
        lines,
        dealer_net: format::result(d.result, currency),
        against_head: Vec::new(),
        against: Vec::new(),
        pusoy: String::new(),
    }
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
        // Nothing more can be done at the table for that day: said as the answer (409), since
        // the table's page would only say it again.
        (_, Some("day_closed")) => return Err(err),
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

#[derive(Debug, Default, Deserialize)]
pub struct ShowQuery {
    /// The round just confirmed here (`?settled=<round id>`), shown above the next one.
    settled: Option<i64>,
}

/// `GET /tables/{code}`: the table's screen as stored (`?settled=` names the round just
/// confirmed, shown above the form of the next). Changes nothing: the table's round is opened
/// by the first save (a POST).
pub async fn show(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    path: web::Path<String>,
    query: web::Query<ShowQuery>,
) -> Result<HttpResponse, AppError> {
    let shown = Shown {
        settled: query.settled.map(RoundId),
        previewed: false,
        observer: observes(user.role),
    };
    let result = show_page(state, session.clone(), user, path, shown).await;
    as_page(&session, "/", result)
}

async fn show_page(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    path: web::Path<String>,
    shown: Shown,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let nav = session::nav(&session, Some(&user))?;
    let limit = state.config.opener_difference_limit;
    let (screen, drop, opener, seated) =
        screen::show(&state.db, code, writer(&user), day, limit).await?;
    let opener = opener.map(|page| count_form_view(&user, &page, None, "screen"));
    render(
        StatusCode::OK,
        &page(
            nav,
            (screen, drop, seated),
            state.config.zone(),
            shown,
            opener,
        ),
    )
}

/// `GET /tables/{code}/round`: the address the round form posts to, opened again (a tablet
/// restoring its tab): back to the table's screen, which shows the draft as stored.
pub async fn back_to_screen(path: web::Path<String>) -> HttpResponse {
    redirect(&format!("/tables/{}", path.as_str()))
}

/// `POST /tables/{code}/round`: `step=preview` (saves the form as typed and shows its problems
/// or its settlement) or `step=confirm`.
pub async fn submit(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<HashMap<String, String>>,
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
    form: web::Form<HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let actor = user.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let submitted = form.into_inner();
    let expected = revision(submitted.get("revision").map(String::as_str))?;
    let nav = session::nav(&session, Some(&user))?;
    if submitted.get("step").map(String::as_str) == Some("confirm") {
        let key = submitted.get("draft_key").cloned().unwrap_or_default();
        let at = code.clone();
        let round_id =
            screen::confirm(&state.db, at, key, expected, day, writer(&user), actor).await?;
        // The result shows above the next round's form: the dealer goes on from there.
        return Ok(redirect(&format!("/tables/{code}?settled={round_id}")));
    }
    let typed = typed(code, &user, actor, day, &submitted, expected);
    let by_house_way = submitted.get("step").map(String::as_str) == Some("house_way");
    let screen = screen::preview(&state.db, typed, by_house_way).await?;
    let status = if screen.0.stored.checked.errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    let shown = Shown {
        settled: None,
        previewed: true,
        observer: observes(user.role),
    };
    render(status, &page(nav, screen, state.config.zone(), shown, None))
}

/// `POST /tables/{code}/round/check`: saves the form as typed (opening the table's round on
/// the first save) and answers JSON for table.js: what is stored, every problem, the notes and
/// the preview.
pub async fn check(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let actor = user.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let submitted = form.into_inner();
    let expected = revision(submitted.get("revision").map(String::as_str))?;
    let typed = typed(code, &user, actor, day, &submitted, expected);
    let stored = screen::save(&state.db, typed).await?;
    let currency = &stored.table.table.currency;
    let preview = stored
        .checked
        .settlement
        .as_ref()
        .map(|s| preview_view(s, currency));
    let preview_html = match &preview {
        Some(p) => p.render()?,
        None => String::new(),
    };
    let hands = place_hands(&stored.fields, &stored.table);
    // `place_notes` is one line per place, as table.js shows it; `place_hands` the same note
    // field by field.
    let place_notes: BTreeMap<&str, String> = hands
        .iter()
        .map(|(place, note)| (*place, note.text()))
        .collect();
    let question = match (&stored.checked.settlement, stored.confirm_prompt) {
        (Some(settlement), true) => confirm_question(settlement, &stored.table.table.currency),
        _ => String::new(),
    };
    let draft = stored.draft.as_ref();
    Ok(HttpResponse::Ok().json(json!({
        "draft_key": draft.map(|d| d.draft_key.as_str()),
        "revision": draft.map(|d| d.revision),
        "stored": stored_words(&stored),
        "field_errors": stored.checked.errors,
        "place_notes": place_notes,
        "place_hands": hands,
        "preview_html": preview_html,
        "can_confirm": stored.checked.settlement.is_some(),
        "confirm_question": question,
    })))
}

#[derive(Deserialize)]
pub struct HouseWayQuery {
    #[serde(default)]
    cards: String,
}

/// `GET /api/v1/tables/{code}/house-way?cards=...`: the house way's set of the dealer's 13
/// cards under the table's rules in force, for "Set by house way" with script: `{"back",
/// "middle", "front", "ev"}` (cards high to low), or a 422 naming `cards`. Changes nothing.
pub async fn house_way(
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
    query: web::Query<HouseWayQuery>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let cards = query.into_inner().cards;
    let set = screen::house_way(&state.db, code, writer(&user), cards).await?;
    match set {
        Ok(set) => Ok(HttpResponse::Ok().json(set)),
        Err(problem) => {
            let mut errors = FieldErrors::default();
            errors.add("cards", problem);
            Err(RoundsError::Invalid(errors).into())
        }
    }
}

/// The note of every occupied place (and the dealer) whose three hands are readable, from
/// the form as entered, whether or not the round as a whole is complete.
fn place_hands(fields: &Fields, table: &PlayingTable) -> BTreeMap<&'static str, PlaceNote> {
    let get = |name: String| fields.get(&name).map(|v| v.trim()).unwrap_or_default();
    let (places, wheel, suit_ties) = match &table.rules {
        GameRules::Banking(p) => (
            ["seat1", "seat2", "seat3", "dealer"],
            p.wheel,
            p.suit_ties(),
        ),
        GameRules::Points(p) => (["seat1", "seat2", "seat3", "seat4"], p.wheel, p.suit_ties()),
    };
    places
        .into_iter()
        .filter(|&place| place == "dealer" || !get(format!("{place}_action")).is_empty())
        .filter_map(|place| {
            let note = place_note(
                get(format!("{place}_back")),
                get(format!("{place}_middle")),
                get(format!("{place}_front")),
                wheel,
                suit_ties,
            )?;
            Some((place, note))
        })
        .collect()
}

/// The form's `revision`: none, or the whole number the page was given. Anything else is
/// refused with a 400, not taken for none (which would skip the check for a round changed
/// elsewhere).
fn revision(text: Option<&str>) -> Result<Option<i32>, AppError> {
    crate::recording::screen::revision(text).map_err(|_| AppError::BadField {
        field: "revision",
        problem: "must be the revision the page was given (a whole number); reload the page",
    })
}
