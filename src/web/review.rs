//! The pit manager's review of settled rounds: the queue (`/review`, filtered and paged by
//! keyset, its filters in the URL), a round's page (its replay: cards, hands, winners, fouls,
//! results, who entered it, its audit events, the recompute check, its approval, void and
//! re-entry), and the decisions taken there (approve, void, enter again). The decisions are
//! [`crate::recording::review`]'s; the recompute check is [`crate::reports::recheck`]'s.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::ResponseError;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use serde::Deserialize;

use crate::config::Zone;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::AuditEvent;
use crate::db::ids::{RoundId, TableId, UserId};
use crate::db::review::{
    ApprovalFilter, OutcomeFilter, QueueCursor, QueueFilter, QueueOrder, QueueRow, VoidFilter,
    VoidReason,
};
use crate::db::rounds::rows::{PlaceAction, PlaceName, PlaceRow, SettledRound};
use crate::db::users::Role;
use crate::pit::review::{self, Queue, Reentry, ReentryRefused, RoundLink, RoundRead};
use crate::pit::PitError;
use crate::recording::entry::{PlaceBody, RoundBody, SeatBody};
use crate::recording::review::{ReviewError, Reviewer};
use crate::recording::{RoundsError, Writer, NOT_YOUR_ROUND};
use crate::reports::house_way;
use crate::reports::recheck::{self, Recheck};
use crate::rules::card::{parse_cards, Card, Rank, Suit};
use crate::rules::game::Game;
use crate::rules::houseway::{self, hand_text};
use crate::rules::money::Money;
use crate::rules::points::natural::Natural;
use crate::rules::profile::RuleProfile;
use crate::rules::set_hand::SetHand;
use crate::rules::settle::{HandWinners, Winner};
use crate::web::error::AppError;
use crate::web::format::{self, when};
use crate::web::layout::{Flash, Nav};
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::table_screen::{self, PreviewView};
use crate::web::user::CurrentUser;

/// Rounds per page of the queue.
const PAGE: i64 = 50;

/// A card as the pages draw it: rank, suit symbol, colour and its name for screen readers.
pub struct CardFace {
    pub rank: &'static str,
    pub suit: &'static str,
    pub red: bool,
    pub label: String,
}

fn rank_text(rank: Rank) -> &'static str {
    const TEXTS: [&str; 13] = [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ];
    TEXTS[usize::from(rank.index())]
}

fn suit_symbol(suit: Suit) -> &'static str {
    match suit {
        Suit::Clubs => "♣",
        Suit::Diamonds => "♦",
        Suit::Hearts => "♥",
        Suit::Spades => "♠",
    }
}

impl CardFace {
    fn of(card: Card) -> CardFace {
        CardFace {
            rank: rank_text(card.rank()),
            suit: suit_symbol(card.suit()),
            red: matches!(card.suit(), Suit::Diamonds | Suit::Hearts),
            label: format!("{} of {}", card.rank().word(), card.suit().word()),
        }
    }
}

/// The faces of a stored card list (none when there is none or it does not read).
fn faces(text: &Option<String>) -> Vec<CardFace> {
    text.as_deref()
        .and_then(|t| parse_cards(t).ok())
        .map(|cards| cards.into_iter().map(CardFace::of).collect())
        .unwrap_or_default()
}

/// One of a place's three hands.
pub struct HandView {
    pub slot: &'static str,
    pub cards: Vec<CardFace>,
    pub name: String,
    /// Who won it against the dealer (seats that played a dealer who played).
    pub winner: String,
}

/// One place of the replay.
pub struct PlaceView {
    pub title: String,
    /// The summary table's cells: bet and result without the currency, the action, the hands'
    /// names in one line.
    pub bet_amount: String,
    pub action: String,
    pub hands_line: String,
    pub result_amount: String,
    pub declared: String,
    pub bet: String,
    pub dealt: Vec<CardFace>,
    pub hands: Vec<HandView>,
    pub foul: String,
    pub outcome: String,
    pub hands_won: String,
    pub result: String,
    /// A points round's player: their points, what they scored against each other player,
    /// and whether they made pusoy (empty at a banking round).
    pub points: String,
}

/// A points-round player's points in words: "+26 points (vs seat 2: +13, vs seat 3: +13)",
/// with "pusoy" when they made it.
fn points_words(row: &PlaceRow) -> String {
    let Some(points) = row.points else {
        return String::new();
    };
    let against: Vec<String> = row
        .against
        .iter()
        .flat_map(|against| against.0.iter().enumerate())
        .filter_map(|(slot, points)| points.map(|p| format!("vs seat {}: {p:+}", slot + 1)))
        .collect();
    let pusoy = if row.pusoy == Some(true) {
        " · PUSOY"
    } else {
        ""
    };
    format!("{points:+} points ({}){pusoy}", against.join(", "))
}

fn winner_words(winner: Winner) -> &'static str {
    match winner {
        Winner::Player => "player",
        Winner::Dealer => "dealer",
    }
}

fn words(text: &str) -> String {
    let spaced = text.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// "Dealer", "Seat 2".
fn place_title(place: PlaceName) -> String {
    match place {
        PlaceName::Dealer => "Dealer".to_owned(),
        PlaceName::Seat(n) => format!("Seat {n}"),
    }
}

fn place_view(row: &PlaceRow, winners: Option<HandWinners>, currency: &str) -> PlaceView {
    let title = place_title(row.place);
    let declared = match (row.action, row.royalty) {
        (PlaceAction::Natural, _) => format!(
            "Natural shown: {}",
            row.natural.map(Natural::word).unwrap_or_default()
        ),
        (PlaceAction::Royalty, Some(royalty)) => {
            format!("Royalty declared: {}", words(royalty.key()))
        }
        (PlaceAction::Royalty, None) => "Royalty declared".to_owned(),
        (PlaceAction::Surrender, _) => "Surrendered".to_owned(),
        (PlaceAction::Play, _) => "Played".to_owned(),
    };
    let hand = |slot: &'static str,
                cards: &Option<String>,
                name: &Option<String>,
                won: Option<Winner>| HandView {
        slot,
        cards: faces(cards),
        name: name.clone().unwrap_or_default(),
        winner: won
            .map(|w| format!("won by the {}", winner_words(w)))
            .unwrap_or_default(),
    };
    let hands = if row.back.is_some() {
        vec![
            hand("Back", &row.back, &row.back_name, winners.map(|w| w.back)),
            hand(
                "Middle",
                &row.middle,
                &row.middle_name,
                winners.map(|w| w.middle),
            ),
            hand(
                "Front",
                &row.front,
                &row.front_name,
                winners.map(|w| w.front),
            ),
        ]
    } else {
        Vec::new()
    };
    PlaceView {
        title,
        bet_amount: row.bet.map(Money::major_text).unwrap_or_default(),
        action: words(row.action.key()),
        hands_line: match (&row.back_name, &row.middle_name, &row.front_name) {
            (Some(b), Some(m), Some(f)) => format!("{b} / {m} / {f}"),
            _ => String::new(),
        },
        result_amount: row.result.signed_text(),
        declared,
        bet: row
            .bet
            .map(|b| format::money(b, currency))
            .unwrap_or_default(),
        dealt: faces(&row.dealt),
        hands,
        foul: row.foul_reason.clone().unwrap_or_default(),
        outcome: row
            .outcome
            .map(|outcome| words(outcome.key()))
            .unwrap_or_default(),
        hands_won: row
            .hands_won
            .map(|n| format!("{n} of 3"))
            .unwrap_or_default(),
        result: format::result(row.result, currency),
        points: points_words(row),
    }
}

/// One audit event of the round.
pub struct EventView {
    pub at: String,
    pub action: String,
    pub actor: String,
    pub from: String,
    pub details: String,
}

fn event_view(event: &AuditEvent, zone: Zone) -> EventView {
    // The settled event carries the whole round, shown above; the rest carry a few fields.
    let details = if event.action == AuditAction::RoundSettled {
        format!("chain {} #{}", event.chain, event.seq)
    } else {
        format!("{} (chain {} #{})", event.details, event.chain, event.seq)
    };
    EventView {
        at: when(event.at, zone),
        action: event.action.clone(),
        actor: event.actor_name.clone(),
        from: event.client_addr.clone().unwrap_or_default(),
        details,
    }
}

#[derive(Template)]
#[template(path = "round_replay.html")]
struct RoundPage {
    nav: Nav,
    code: String,
    round_id: RoundId,
    round_no: i32,
    gaming_day: NaiveDate,
    currency: String,
    settled_at: String,
    dealer: String,
    entered_by: String,
    entered_from: String,
    profile_words: String,
    /// A points-game round: no bets (the table's unit sets the stakes).
    points_game: bool,
    house_result: String,
    approval: String,
    void: String,
    void_note: String,
    replaced_by: Option<RoundLink>,
    replaces: Option<RoundLink>,
    recheck_agrees: bool,
    differences: Vec<String>,
    places: Vec<PlaceView>,
    events: Vec<EventView>,
    /// How the stored round differs from its `round.settled` event (empty when it agrees).
    event_differences: Vec<String>,
    can_decide: bool,
    can_approve: bool,
    /// A void round that the reader may enter again.
    can_reenter: bool,
    /// Why a pit manager or administrator reading the page may not decide on the round.
    not_yours: String,
    reasons: Vec<(&'static str, &'static str)>,
    /// The void form as last sent (kept when the void was refused): its reason and note.
    void_reason: String,
    void_note_typed: String,
    /// The void form's field to put the cursor in (the one a refusal was about), if any.
    focus: &'static str,
    /// Whether the reader reads the review queue (a dealer does not: no link to it).
    can_review: bool,
    /// "dealer set differs from house way: expected ..., recorded ..." if the round was
    /// flagged at confirmation.
    house_way_flag: String,
    /// Each place's set against the house way (for the pit: empty for dealers).
    house_way: Vec<HouseWayLine>,
    house_way_words: String,
}

/// One place's set measured against the house way of its cards.
pub struct HouseWayLine {
    pub title: String,
    pub recorded: String,
    pub house_way: String,
    pub recorded_ev: String,
    pub best_ev: String,
    pub given_up: String,
    pub same: bool,
}

/// Each place that set hands, against the house way of its cards under `profile`.
fn house_way_lines(places: &[PlaceRow], profile: &RuleProfile) -> Vec<HouseWayLine> {
    places
        .iter()
        .filter_map(|place| {
            let analysis = house_way::analyse_place(place, profile)?;
            let best = &analysis.best;
            let recorded = house_way::recorded_set(place)?;
            let line = |set: &SetHand| {
                format!(
                    "{} / {} / {}",
                    hand_text(set.back()),
                    hand_text(set.middle()),
                    hand_text(set.front())
                )
            };
            Some(HouseWayLine {
                title: place_title(place.place),
                recorded: line(&recorded),
                house_way: line(best),
                recorded_ev: format!(
                    "{:+.4}{}",
                    analysis.recorded_ev,
                    if analysis.recorded_fouled {
                        " (fouled)"
                    } else {
                        ""
                    }
                ),
                best_ev: format!("{:+.4}", analysis.best_ev),
                given_up: format!("{:.4}", analysis.ev_given_up),
                same: analysis.same_as_house_way,
            })
        })
        .collect()
}

fn round_page(nav: Nav, read: RoundRead, user: &CurrentUser, zone: Zone) -> RoundPage {
    let RoundRead {
        table,
        round,
        state,
        dealer,
        profile_name,
        profile,
        events,
        replaced_by,
        replaces,
        day_closed,
        not_yours,
    } = read;
    let checked = match &profile {
        Some(version) => recheck::recheck(&round, &version.options),
        None => Recheck {
            settlement: None,
            differences: vec![format!(
                "the rule profile version {} the round names does not exist",
                round.round.rule_profile_version_id
            )],
        },
    };
    let currency = round.round.currency.clone();
    let winners_of = |place: PlaceName| {
        let seat = place.seat()?;
        checked
            .settlement
            .as_ref()?
            .seats
            .iter()
            .find(|s| s.seat.number() == seat)?
            .winners
    };
    let places = round
        .places
        .iter()
        .map(|p| place_view(p, winners_of(p.place), &currency))
        .collect();
    let settled = events
        .iter()
        .find(|e| e.action == AuditAction::RoundSettled);
    // The round against the event that recorded it (a rewrite into another self-consistent
    // round settles again as stored, but differs from its event).
    let event_differences = match (&profile, settled) {
        (Some(version), Some(settled)) => {
            recheck::against_event(&round, &table.table.code, &version.options, settled)
        }
        (_, None) => vec!["no round.settled event records this round".to_owned()],
        (None, Some(_)) => Vec::new(),
    };
    // One rule decides who may decide (recording::review::may_decide): no button is offered
    // to someone who may not use it; a pit manager is told why. A closed day takes no decision.
    let closed_words = format!(
        "Gaming day {} is closed: no decision can be taken on its rounds any more.",
        round.round.gaming_day
    );
    let not_yours = match not_yours {
        None if day_closed => Some(closed_words),
        other => other,
    };
    let decider = not_yours.is_none();
    // The analysis is for the pit; a dealer reading a round of their own shift sees the flag.
    let house_way = match (&profile, user.role) {
        (_, Role::Dealer) | (None, _) => Vec::new(),
        (Some(version), _) => version
            .options
            .banking()
            .map(|profile| house_way_lines(&round.places, profile))
            .unwrap_or_default(),
    };
    RoundPage {
        nav,
        code: table.table.code.clone(),
        round_id: round.round.id,
        round_no: round.round.round_no,
        gaming_day: round.round.gaming_day,
        currency: currency.clone(),
        settled_at: when(round.round.settled_at, zone),
        dealer,
        entered_by: settled.map(|e| e.actor_name.clone()).unwrap_or_default(),
        entered_from: settled
            .and_then(|e| e.client_addr.clone())
            .unwrap_or_default(),
        profile_words: match &profile {
            Some(v) => format!(
                "{profile_name}, version {}: {}",
                v.version,
                v.options.describe()
            ),
            None => "unknown".to_owned(),
        },
        points_game: profile
            .as_ref()
            .is_some_and(|v| v.options.game() == Game::Points),
        house_result: match profile.as_ref().map(|v| v.options.game()) {
            Some(Game::Points) => "None: a points-game round (the players' points pass between \
                them; the house's income at this table is its fee, kept in table accounting, \
                not built yet)"
                .to_owned(),
            _ => format::result(round.round.dealer_result, &currency),
        },
        approval: match (&state.approval, round.round.needs_approval) {
            (Some(a), _) => format!(
                "Approved by {} at {}",
                a.approver,
                when(a.approved_at, zone)
            ),
            (None, true) if state.void.is_some() => "Needed approval; void".to_owned(),
            (None, true) => "Pending approval".to_owned(),
            (None, false) => "Needs no approval".to_owned(),
        },
        void: state
            .void
            .as_ref()
            .map(|v| {
                format!(
                    "VOID: {} (by {} at {})",
                    v.reason.words(),
                    v.voider,
                    when(v.voided_at, zone)
                )
            })
            .unwrap_or_default(),
        void_note: state
            .void
            .as_ref()
            .map(|v| v.note.clone())
            .unwrap_or_default(),
        replaced_by,
        replaces,
        recheck_agrees: checked.agrees(),
        event_differences,
        differences: checked.differences,
        places,
        events: events.iter().map(|e| event_view(e, zone)).collect(),
        can_decide: decider && state.void.is_none(),
        can_reenter: decider && state.void.is_some() && state.replaced_by.is_none(),
        not_yours: match user.role {
            Role::Supervisor | Role::Admin => not_yours.unwrap_or_default(),
            _ => String::new(),
        },
        can_approve: decider
            && round.round.needs_approval
            && state.approval.is_none()
            && state.void.is_none(),
        reasons: VoidReason::ALL
            .iter()
            .map(|r| (r.as_str(), r.words()))
            .collect(),
        void_reason: String::new(),
        void_note_typed: String::new(),
        focus: "",
        can_review: user.role != Role::Dealer,
        house_way_flag: house_way::flag_words(&round.places).unwrap_or_default(),
        house_way,
        house_way_words: houseway::description(),
    }
}

/// `GET /tables/{code}/rounds/{round_id}`: a round's replay.
pub async fn show_round(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (code, id) = path.into_inner();
    let nav = session::nav(&session, Some(&user))?;
    let zone = state.config.zone();
    let read = review::round(&state.db, code, RoundId(id), reviewer(&user))
        .await
        .map_err(|err| match err {
            // Refused as a page (and recorded as such by the access check).
            PitError::Round(RoundsError::NotYourRound) => {
                AppError::ForbiddenBecause(NOT_YOUR_ROUND)
            }
            other => other.into(),
        })?;
    render(StatusCode::OK, &round_page(nav, read, &user, zone))
}

fn reviewer(user: &CurrentUser) -> Reviewer {
    Reviewer {
        user: user.id,
        role: user.role,
    }
}

/// The round's page after a decision.
fn round_url(round: &crate::db::rounds::rows::RoundRow, code: &str) -> String {
    format!("/tables/{code}/rounds/{}", round.id)
}

/// A decision refused for a reason the person can act on (not theirs to take, the round's state,
/// what was sent), as the page shows it; other failures as they are.
fn decision_refused(err: PitError) -> Result<(AppError, String), AppError> {
    match err {
        PitError::Review(
            err
            @ (ReviewError::NotYours(_) | ReviewError::Refused(_) | ReviewError::Invalid { .. }),
        ) => {
            let words = err.to_string();
            Ok((AppError::from(err), words))
        }
        other => Err(other.into()),
    }
}

/// The round's page again after a refused decision: the refusal at its top, with the status it
/// has as an error, and what was chosen in the void form kept.
async fn refused_page(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    id: RoundId,
    refusal: (AppError, String),
    kept: Option<(&str, &str)>,
) -> Result<HttpResponse, AppError> {
    let (err, words) = refusal;
    let mut nav = session::nav(session, Some(user))?;
    nav.flash = Some(Flash::refused(&words));
    let read = review::round_by_id(&state.db, id, reviewer(user)).await?;
    let mut page = round_page(nav, read, user, state.config.zone());
    if let Some((reason, note)) = kept {
        page.void_reason = reason.to_owned();
        page.void_note_typed = note.to_owned();
        page.focus = match &err {
            AppError::Review(ReviewError::Invalid { field, .. }) => *field,
            _ => "",
        };
    }
    render(err.status_code(), &page)
}

/// `POST /review/rounds/{id}/approve`: on success the round's page with the news; refused, the
/// round's page with the reason.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn approve(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = RoundId(path.into_inner());
    match review::approve(&state.db, id, reviewer(&user), user.actor(&req)).await {
        Ok(decided) => {
            let no = decided.round.round_no;
            session::set_flash(&session, &format!("Approved round {no}."))?;
            Ok(redirect(&round_url(&decided.round, &decided.code)))
        }
        Err(err) => {
            let refusal = decision_refused(err)?;
            refused_page(&state, &session, &user, id, refusal, None).await
        }
    }
}

#[derive(Deserialize)]
pub struct VoidForm {
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    note: String,
}

/// `POST /review/rounds/{id}/void`: on success the round's page with the news; refused, the
/// round's page with the reason and the form as it was sent.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn void(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<i64>,
    form: web::Form<VoidForm>,
) -> Result<HttpResponse, AppError> {
    let id = RoundId(path.into_inner());
    let VoidForm { reason, note } = form.into_inner();
    let by = reviewer(&user);
    let sent = reason.clone().unwrap_or_default();
    match review::void(&state.db, id, reason, note.clone(), by, user.actor(&req)).await {
        Ok(decided) => {
            let no = decided.round.round_no;
            session::set_flash(&session, &format!("Round {no} is now void."))?;
            Ok(redirect(&round_url(&decided.round, &decided.code)))
        }
        Err(err) => {
            let refusal = decision_refused(err)?;
            let kept = Some((sent.as_str(), note.as_str()));
            refused_page(&state, &session, &user, id, refusal, kept).await
        }
    }
}

/// One field of the re-entry form.
pub struct EntryField {
    pub name: String,
    pub label: &'static str,
    pub value: String,
    /// How many cards the field holds (the picker's count); 0 for the bet.
    pub count: u8,
}

/// One place of the re-entry form.
pub struct EntryPlace {
    pub key: String,
    pub title: String,
    pub action: String,
    pub is_seat: bool,
    pub fields: Vec<EntryField>,
}

#[derive(Template)]
#[template(path = "round_reenter.html")]
struct ReenterPage {
    nav: Nav,
    code: String,
    round_id: RoundId,
    round_no: i32,
    gaming_day: NaiveDate,
    shift_dealer: String,
    places: Vec<EntryPlace>,
    error: String,
    /// What the round as entered would settle as: shown before it is entered again.
    preview: Option<PreviewView>,
}

/// The form's places, filled from `body` (the voided round's, or what was sent).
fn entry_places(body: &RoundBody) -> Vec<EntryPlace> {
    let place = |key: String, title: String, play: Option<&PlaceBody>, bet: Option<i64>| {
        let is_seat = key != "dealer";
        let text = |t: Option<&Option<String>>| t.and_then(Clone::clone).unwrap_or_default();
        let mut fields = Vec::new();
        if is_seat {
            fields.push(EntryField {
                name: format!("{key}_bet"),
                label: "Bet",
                value: bet
                    .map(|b| Money::from_minor_units(b).typed_text())
                    .unwrap_or_default(),
                count: 0,
            });
        }
        for (slot, label, value, count) in [
            ("back", "Back (5)", text(play.map(|p| &p.back)), 5),
            ("middle", "Middle (5)", text(play.map(|p| &p.middle)), 5),
            ("front", "Front (3)", text(play.map(|p| &p.front)), 3),
            (
                "dealt",
                "Dealt (13, optional)",
                text(play.map(|p| &p.dealt)),
                13,
            ),
        ] {
            fields.push(EntryField {
                name: format!("{key}_{slot}"),
                label,
                value,
                count,
            });
        }
        let action = match play.map(|p| p.action) {
            None => "",
            Some(crate::rules::wire::Action::Play) => "play",
            Some(crate::rules::wire::Action::Surrender) => "surrender",
            Some(crate::rules::wire::Action::Royalty) => "royalty",
        };
        EntryPlace {
            key,
            title,
            action: action.to_owned(),
            is_seat,
            fields,
        }
    };
    let mut places: Vec<EntryPlace> = (1..=3)
        .map(|n| {
            let seat = body.seats.iter().find(|s| s.seat == n);
            place(
                format!("seat{n}"),
                format!("Seat {n}"),
                seat.map(|s| &s.play),
                seat.map(|s| s.bet),
            )
        })
        .collect();
    places.push(place(
        "dealer".to_owned(),
        "Dealer".to_owned(),
        Some(&body.dealer),
        None,
    ));
    places
}

/// The voided round's places as a round body, to start the form from.
fn body_of_round(round: &SettledRound) -> RoundBody {
    let play = |p: &PlaceRow| PlaceBody {
        action: p.action.banking().unwrap_or_default(),
        royalty: p.royalty,
        dealt: p.dealt.clone(),
        back: p.back.clone(),
        middle: p.middle.clone(),
        front: p.front.clone(),
    };
    let mut body = RoundBody::default();
    for p in &round.places {
        match p.place.seat().map(i64::from) {
            Some(seat) => body.seats.push(SeatBody {
                seat,
                bet: p.bet.map(Money::minor_units).unwrap_or_default(),
                play: play(p),
            }),
            None => body.dealer = play(p),
        }
    }
    body
}

fn reenter_page(
    nav: Nav,
    form: Reentry,
    body: &RoundBody,
    error: String,
    preview: Option<PreviewView>,
) -> ReenterPage {
    let Reentry {
        voided,
        code,
        shift_dealer,
    } = form;
    ReenterPage {
        nav,
        code,
        round_id: voided.round.id,
        round_no: voided.round.round_no,
        gaming_day: voided.round.gaming_day,
        shift_dealer,
        places: entry_places(body),
        error,
        preview,
    }
}

/// `GET /review/rounds/{id}/reenter`: the voided round's cards and bets in a form, to correct
/// and enter again at its table for the dealer on shift.
pub async fn reenter_form(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    path: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = RoundId(path.into_inner());
    let nav = session::nav(&session, Some(&user))?;
    let form = review::reentry_form(&state.db, id, reviewer(&user)).await?;
    let body = body_of_round(&form.voided);
    render(
        StatusCode::OK,
        &reenter_page(nav, form, &body, String::new(), None),
    )
}

/// `POST /review/rounds/{id}/reenter`: `step=confirm` enters the corrected round (on success,
/// its page); any other step (Preview, or Enter in a field) shows what the round as entered
/// would settle as, changing nothing.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn reenter(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    req: HttpRequest,
    path: web::Path<i64>,
    form: web::Form<std::collections::HashMap<String, String>>,
) -> Result<HttpResponse, AppError> {
    let id = RoundId(path.into_inner());
    let actor = user.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let writer = Writer {
        user: user.id,
        role: user.role,
    };
    let fields = form.into_inner();
    let nav = session::nav(&session, Some(&user))?;
    // The same form fields as the table screen's, read the same way.
    let typed = crate::recording::form::typed(&fields);
    let (body, errors) = crate::recording::form::read_banking(&typed);
    if fields.get("step").map(String::as_str) != Some("confirm") {
        let reviewer = reviewer(&user);
        let preview = review::reentry_preview(&state.db, id, reviewer, typed).await?;
        let (status, shown, error) = match &preview.settled {
            Ok(settled) => (
                StatusCode::OK,
                Some(table_screen::preview_view(settled, &preview.currency)),
                String::new(),
            ),
            Err(error) => (StatusCode::UNPROCESSABLE_ENTITY, None, error.clone()),
        };
        return render(
            status,
            &reenter_page(nav, preview.form, &body, error, shown),
        );
    }
    let body = if errors.is_empty() {
        Ok(body)
    } else {
        Err(errors.summary())
    };
    match review::reenter(&state.db, id, body, writer, day, actor).await? {
        Ok(url) => {
            session::set_flash(
                &session,
                "Entered the round again in place of the void one.",
            )?;
            Ok(redirect(&url))
        }
        Err(ReentryRefused { form, body, error }) => {
            let body = body.unwrap_or_else(|| body_of_round(&form.voided));
            render(
                StatusCode::UNPROCESSABLE_ENTITY,
                &reenter_page(nav, form, &body, error, None),
            )
        }
    }
}

/// The queue's filters as sent in the URL (every field optional; empty means any).
#[derive(Debug, Default, Deserialize)]
pub struct QueueParams {
    #[serde(default)]
    day: String,
    #[serde(default)]
    table: String,
    #[serde(default)]
    dealer: String,
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    min_amount: String,
    #[serde(default)]
    approval: String,
    #[serde(default)]
    void: String,
    /// `departed`: only rounds flagged because the dealer's set differed from the house way.
    #[serde(default)]
    house_way: String,
    #[serde(default)]
    sort: String,
    #[serde(default)]
    after: String,
}

fn invalid(field: &'static str, message: String) -> AppError {
    AppError::from(ReviewError::Invalid { field, message })
}

impl QueueParams {
    /// The filter these parameters ask for, or which one cannot be read and why.
    fn filter(&self) -> Result<QueueFilter, AppError> {
        fn id<T: From<i64>>(text: &str, field: &'static str) -> Result<Option<T>, AppError> {
            match text.trim() {
                "" => Ok(None),
                t => t
                    .parse::<i64>()
                    .map(|n| Some(T::from(n)))
                    .map_err(|_| invalid(field, format!("{field}: {t:?} is not a choice"))),
            }
        }
        let day = match self.day.trim() {
            "" => None,
            t => Some(NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|_| {
                invalid("day", format!("day: {t:?} is not a date like 2026-03-01"))
            })?),
        };
        let outcome = match self.outcome.trim() {
            "" => None,
            t => Some(
                OutcomeFilter::parse(t)
                    .ok_or_else(|| invalid("outcome", format!("outcome: {t:?} is not a choice")))?,
            ),
        };
        let min_amount = match self.min_amount.trim() {
            "" => None,
            t => Some(
                Money::parse_major(t)
                    .ok_or_else(|| {
                        invalid(
                            "min_amount",
                            format!("amount: {t:?} is not an amount like 5000 or 5000.00"),
                        )
                    })?
                    .minor_units(),
            ),
        };
        let approval = match self.approval.trim() {
            "" => None,
            "pending" => Some(ApprovalFilter::Pending),
            "approved" => Some(ApprovalFilter::Approved),
            "none" => Some(ApprovalFilter::NotNeeded),
            t => {
                return Err(invalid(
                    "approval",
                    format!("approval: {t:?} is not a choice"),
                ))
            }
        };
        let void = match self.void.trim() {
            "" => None,
            "void" => Some(VoidFilter::Voided),
            "not_void" => Some(VoidFilter::NotVoided),
            t => return Err(invalid("void", format!("void: {t:?} is not a choice"))),
        };
        let house_way_departed = match self.house_way.trim() {
            "" => false,
            "departed" => true,
            t => {
                return Err(invalid(
                    "house_way",
                    format!("house way: {t:?} is not a choice"),
                ))
            }
        };
        let order = match self.sort.trim() {
            "" | "newest" => QueueOrder::Newest,
            "oldest" => QueueOrder::Oldest,
            "largest" => QueueOrder::Largest,
            "smallest" => QueueOrder::Smallest,
            t => return Err(invalid("sort", format!("sort: {t:?} is not a choice"))),
        };
        let after = match self.after.trim() {
            "" => None,
            t => {
                let mut parts = t.split('.');
                let mut next = || parts.next().and_then(|p| p.parse::<i64>().ok());
                let cursor = (|| {
                    Some(QueueCursor {
                        amount: next()?,
                        at: chrono::DateTime::from_timestamp_micros(next()?)?,
                        id: RoundId(next()?),
                    })
                })();
                Some(cursor.ok_or_else(|| {
                    invalid("after", format!("after: {t:?} is not a place in the queue"))
                })?)
            }
        };
        Ok(QueueFilter {
            day,
            table: id::<TableId>(&self.table, "table")?,
            dealer: id::<UserId>(&self.dealer, "dealer")?,
            outcome,
            min_amount,
            approval,
            void,
            house_way_departed,
            order,
            after,
        })
    }

    /// The URL of the queue with the same filters and order: its first page (`None`) or the
    /// page after `cursor`.
    fn url(&self, after: Option<QueueCursor>) -> String {
        let pairs = [
            ("day", self.day.trim()),
            ("table", self.table.trim()),
            ("dealer", self.dealer.trim()),
            ("outcome", self.outcome.trim()),
            ("min_amount", self.min_amount.trim()),
            ("approval", self.approval.trim()),
            ("void", self.void.trim()),
            ("house_way", self.house_way.trim()),
            ("sort", self.sort.trim()),
        ];
        let mut query: Vec<(&str, String)> = pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (*k, (*v).to_owned()))
            .collect();
        if let Some(cursor) = after {
            query.push((
                "after",
                format!(
                    "{}.{}.{}",
                    cursor.amount,
                    cursor.at.timestamp_micros(),
                    cursor.id
                ),
            ));
        }
        let encoded = serde_urlencoded::to_string(&query).unwrap_or_default();
        format!("/review?{encoded}")
    }
}

/// One round in the queue, as shown.
pub struct QueueLine {
    pub url: String,
    pub label: String,
    pub gaming_day: NaiveDate,
    /// When it was settled, in local time: the date and the time of day (the column's heading
    /// names the zone once).
    pub settled_date: String,
    pub settled_time: String,
    pub dealer: String,
    pub house_result: String,
    pub largest: String,
    pub outcomes: Vec<&'static str>,
    pub approval: &'static str,
    pub voided: bool,
    /// Flagged: the dealer's set differed from the house way the table requires.
    pub house_way: bool,
}

fn queue_line(row: &QueueRow, zone: Zone) -> QueueLine {
    let settled = row.settled_at.with_timezone(&zone.offset);
    QueueLine {
        url: format!("/tables/{}/rounds/{}", row.table_code, row.id),
        label: format!("{} #{}", row.table_code, row.round_no),
        gaming_day: row.gaming_day,
        settled_date: settled.format("%Y-%m-%d").to_string(),
        settled_time: settled.format("%H:%M").to_string(),
        dealer: row.dealer.clone(),
        house_result: format::result(row.dealer_result, &row.currency),
        largest: format::money(row.largest_result, &row.currency),
        outcomes: OutcomeFilter::ALL
            .iter()
            .filter(|o| row.has(**o))
            .map(|o| o.words())
            .collect(),
        approval: match (row.needs_approval, row.approved, row.voided) {
            (_, true, _) => "Approved",
            (true, false, false) => "Pending",
            (true, false, true) => "Not needed (void)",
            (false, _, _) => "Not needed",
        },
        voided: row.voided,
        house_way: row.house_way_departure,
    }
}

#[derive(Template)]
#[template(path = "review.html")]
struct QueuePage {
    nav: Nav,
    params: QueueParams,
    tables: Vec<(TableId, String)>,
    dealers: Vec<(UserId, String)>,
    outcomes: Vec<(&'static str, &'static str)>,
    lines: Vec<QueueLine>,
    next_url: Option<String>,
    /// The first page's URL, when this is a later page.
    first_url: Option<String>,
    /// The zone of the times shown, named once in their column's heading.
    zone: String,
    /// The filters did not read: no rounds are shown.
    refused: bool,
    /// The filter a refusal was about, to put the cursor in.
    focus: &'static str,
}

/// `GET /review`: the review queue.
pub async fn queue(
    state: web::Data<AppState>,
    session: Session,
    user: CurrentUser,
    params: web::Query<QueueParams>,
) -> Result<HttpResponse, AppError> {
    let params = params.into_inner();
    let mut nav = session::nav(&session, Some(&user))?;
    let zone = state.config.zone();
    // A filter that does not read: the queue's form again as sent, with what is wrong at its
    // top and no rounds (none was asked for that can be shown).
    let (filter, limit, refused) = match params.filter() {
        Ok(filter) => (filter, PAGE + 1, None),
        Err(err) => (QueueFilter::default(), 0, Some(err)),
    };
    let Queue {
        rows,
        tables,
        dealers,
    } = review::queue(&state.db, filter, limit).await?;
    let status = match &refused {
        Some(err) => {
            nav.flash = Some(Flash::refused(&err.to_string()));
            err.status_code()
        }
        None => StatusCode::OK,
    };
    let focus = match &refused {
        Some(AppError::Review(ReviewError::Invalid { field, .. })) => *field,
        _ => "",
    };
    let more = rows.len() > PAGE as usize;
    let shown = &rows[..rows.len().min(PAGE as usize)];
    let next_url = if more {
        shown.last().map(|r| params.url(Some(r.cursor())))
    } else {
        None
    };
    let page = QueuePage {
        nav,
        lines: shown.iter().map(|r| queue_line(r, zone)).collect(),
        first_url: (!params.after.trim().is_empty()).then(|| params.url(None)),
        zone: zone.label(),
        params,
        tables,
        dealers,
        outcomes: OutcomeFilter::ALL
            .iter()
            .map(|o| (o.as_str(), o.words()))
            .collect(),
        next_url,
        refused: refused.is_some(),
        focus,
    };
    render(status, &page)
}
