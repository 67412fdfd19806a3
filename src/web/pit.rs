//! The live pit board (`/pit`) for pit managers, administrators and auditors, and its JSON
//! (`/api/v1/pit`), which `pit.js` reads to refresh the board in place. Both show the same
//! [`PitView`], worked out once from [`crate::reports::pit::board`].

use std::collections::HashMap;

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::accounting::reconcile::TableDay;
use crate::config::Zone;
use crate::db::ids::TableId;
use crate::pit::reports;
use crate::reports::figures::percent;
use crate::reports::pit::{Board, BoardRow, Flag, FlagRules};
use crate::rules::money::Money;
use crate::web::error::AppError;
use crate::web::format::{rounds_word, when};
use crate::web::layout::Nav;
use crate::web::respond::render;
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// How often the board refreshes itself, in seconds, unless the address says otherwise
/// (`/pit?refresh=5`, from [`FASTEST_REFRESH`] to [`SLOWEST_REFRESH`]: a wall screen may want it
/// quicker, a tablet on battery slower).
pub const REFRESH_SECONDS: u32 = 15;
pub const FASTEST_REFRESH: u32 = 2;
pub const SLOWEST_REFRESH: u32 = 600;

#[derive(Debug, serde::Deserialize)]
pub struct BoardQuery {
    refresh: Option<String>,
}

fn refresh_seconds(query: &BoardQuery) -> Result<u32, AppError> {
    let Some(text) = query.refresh.as_deref().filter(|t| !t.trim().is_empty()) else {
        return Ok(REFRESH_SECONDS);
    };
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|s| (FASTEST_REFRESH..=SLOWEST_REFRESH).contains(s))
        .ok_or_else(|| {
            AppError::InvalidInput(format!(
                "refresh `{}` is not a number of seconds from {FASTEST_REFRESH} to {SLOWEST_REFRESH}",
                text.chars().take(20).collect::<String>()
            ))
        })
}

/// The board as pages and the JSON show it: amounts in each table's currency, times in the
/// casino's local time with the zone named.
#[derive(Debug, Serialize)]
pub struct PitView {
    pub gaming_day: String,
    pub updated: String,
    pub quiet_minutes: i64,
    pub pit_rounds: i64,
    /// "round" or "rounds", for the count before it.
    pub pit_rounds_word: &'static str,
    pub pit_dealer_fouls: i64,
    pub pit_dealer_foul_rate: String,
    pub open_tables: usize,
    pub flagged_tables: usize,
    /// The day's house result over all tables, per currency.
    pub totals: Vec<CurrencyTotal>,
    pub tables: Vec<TableView>,
    /// Seatings refused today because the player is excluded, newest first.
    pub refused_seatings: Vec<RefusedSeatingView>,
    /// Players whose cash in or out today nears or passes the reporting threshold.
    pub cash_warnings: Vec<RefusedSeatingView>,
}

/// An excluded player's refused seating, as the board's alert says it.
#[derive(Debug, Serialize)]
pub struct RefusedSeatingView {
    pub text: String,
}

#[derive(Debug, Serialize)]
pub struct CurrencyTotal {
    pub currency: String,
    pub day_rounds: i64,
    pub day_house: Money,
    pub day_house_text: String,
}

#[derive(Debug, Serialize)]
pub struct TableView {
    pub code: String,
    pub name: String,
    pub currency: String,
    pub open: bool,
    pub status: &'static str,
    pub dealer: Option<String>,
    pub since: Option<String>,
    pub shift_id: Option<i64>,
    pub shift_rounds: i64,
    pub shift_rounds_word: &'static str,
    pub shift_house: Money,
    pub shift_house_text: String,
    pub shift_dealer_foul_rate: String,
    pub day_rounds: i64,
    pub day_rounds_word: &'static str,
    pub day_house: Money,
    pub day_house_text: String,
    pub last_round: Option<String>,
    /// Minutes the open draft has been open, if there is one.
    pub draft_minutes: Option<i64>,
    pub draft_text: String,
    pub pending: i64,
    /// The day's table accounting: the opener, the drop so far, fills and credits in transit;
    /// once closed, win by inventory against win by rounds.
    pub accounting_text: String,
    pub win_text: String,
    pub flags: Vec<FlagView>,
}

#[derive(Debug, Serialize)]
pub struct FlagView {
    pub kind: &'static str,
    pub text: String,
    /// Where to see what is flagged (rounds to approve: the review queue, filtered to them).
    pub href: Option<String>,
}

fn amount(currency: &str, money: Money) -> String {
    crate::web::format::result(money, currency)
}

fn flag_view(flag: &Flag, row: &BoardRow, pit_rate: &str) -> FlagView {
    match flag {
        Flag::Quiet { minutes } => FlagView {
            kind: "quiet",
            text: format!("No round for {minutes} min"),
            href: None,
        },
        Flag::LongDraft { minutes } => FlagView {
            kind: "draft",
            text: format!("Round open {minutes} min"),
            href: None,
        },
        Flag::Fouls {
            shift_fouls,
            shift_rounds,
        } => FlagView {
            kind: "fouls",
            text: format!(
                "Dealer fouled {shift_fouls} of {shift_rounds} ({}; pit {pit_rate})",
                percent(*shift_fouls, *shift_rounds)
            ),
            href: None,
        },
        Flag::Pending { rounds } => FlagView {
            kind: "pending",
            text: format!("{rounds} {} to approve", rounds_word(*rounds)),
            href: Some(format!(
                "/review?table={}&approval=pending&void=not_void&sort=oldest",
                row.table_id
            )),
        },
    }
}

/// The accounting lines of a table's tile, and its accounting flags (a held opener, a variance
/// beyond the tolerance).
fn accounting_view(row: &BoardRow, day: Option<&TableDay>) -> (String, String, Vec<FlagView>) {
    let Some(day) = day else {
        return ("No opener".to_owned(), String::new(), Vec::new());
    };
    let c = row.currency.as_str();
    let mut parts = vec![match day.documents.opener {
        Some(opener) => format!("Opener {}", crate::web::format::money(opener, c)),
        None => "No opener".to_owned(),
    }];
    parts.push(format!(
        "drop {}{}",
        crate::web::format::money(day.drop(), c),
        if day.documents.drop.is_counted() {
            " counted"
        } else {
            " so far"
        }
    ));
    if day.cage_open > 0 {
        parts.push(format!("{} fill/credit in transit", day.cage_open));
    }
    let r = &day.reconciliation;
    let win_text = match (r.inventory_win, r.variance) {
        (Some(win), Some(variance)) => format!(
            "Win: inventory {} · rounds {} · variance {}",
            amount(c, win),
            amount(c, r.rounds_win),
            amount(c, variance)
        ),
        _ => String::new(),
    };
    let mut flags = Vec::new();
    if day.held {
        flags.push(FlagView {
            kind: "held",
            text: "Opener held: explain the difference".to_owned(),
            href: Some(format!("/tables/{}/slips", row.code)),
        });
    }
    if r.flagged {
        flags.push(FlagView {
            kind: "variance",
            text: format!(
                "Variance {} beyond {}",
                amount(c, r.variance.unwrap_or_default()),
                crate::web::format::money(r.tolerance, c)
            ),
            href: Some(format!(
                "/reports/accounting?day={}&table={}",
                day.day, row.code
            )),
        });
    }
    (parts.join(" · "), win_text, flags)
}

fn table_view(
    row: &BoardRow,
    flags: &[Flag],
    accounting: Option<&TableDay>,
    now: DateTime<Utc>,
    zone: Zone,
    pit_rate: &str,
) -> TableView {
    let (accounting_text, win_text, accounting_flags) = accounting_view(row, accounting);
    let draft_minutes = row
        .draft_opened_at
        .map(|at| (now - at).num_minutes().max(0));
    TableView {
        code: row.code.clone(),
        name: row.name.clone(),
        currency: row.currency.clone(),
        open: row.shift_id.is_some(),
        status: if row.shift_id.is_some() {
            "Open"
        } else {
            "Closed"
        },
        dealer: row.dealer_name.clone(),
        since: row.signed_on_at.map(|at| when(at, zone)),
        shift_id: row.shift_id.map(|s| s.0),
        shift_rounds: row.shift_rounds,
        shift_rounds_word: rounds_word(row.shift_rounds),
        shift_house: row.shift_house,
        shift_house_text: amount(&row.currency, row.shift_house),
        shift_dealer_foul_rate: percent(row.shift_dealer_fouls, row.shift_rounds),
        day_rounds: row.day_rounds,
        day_rounds_word: rounds_word(row.day_rounds),
        day_house: row.day_house,
        day_house_text: amount(&row.currency, row.day_house),
        last_round: row.last_round_at.map(|at| when(at, zone)),
        draft_minutes,
        draft_text: draft_minutes.map_or_else(|| "none".to_owned(), |m| format!("open {m} min")),
        pending: row.pending,
        accounting_text,
        win_text,
        flags: flags
            .iter()
            .map(|f| flag_view(f, row, pit_rate))
            .chain(accounting_flags)
            .collect(),
    }
}

/// The view of `board` for a casino at `zone`.
pub fn view(
    board: &Board,
    accounting: &HashMap<TableId, TableDay>,
    zone: Zone,
    quiet_minutes: i64,
) -> PitView {
    let pit_rate = percent(board.pit_dealer_fouls, board.pit_rounds);
    let mut tables: Vec<TableView> = board
        .tables
        .iter()
        .map(|(row, flags)| {
            let day = accounting.get(&row.table_id);
            table_view(row, flags, day, board.at, zone, &pit_rate)
        })
        .collect();
    // What needs a look first: flagged tables, each group in code order (a stable sort).
    tables.sort_by_key(|t| t.flags.is_empty());
    let mut totals: Vec<CurrencyTotal> = Vec::new();
    for t in &tables {
        match totals.iter_mut().find(|c| c.currency == t.currency) {
            Some(total) => {
                total.day_rounds += t.day_rounds;
                total.day_house = Money::from_minor_units(
                    total
                        .day_house
                        .minor_units()
                        .saturating_add(t.day_house.minor_units()),
                );
            }
            None => totals.push(CurrencyTotal {
                currency: t.currency.clone(),
                day_rounds: t.day_rounds,
                day_house: t.day_house,
                day_house_text: String::new(),
            }),
        }
    }
    for total in &mut totals {
        total.day_house_text = amount(&total.currency, total.day_house);
    }
    PitView {
        gaming_day: board.gaming_day.to_string(),
        updated: format!(
            "{} ({zone})",
            board.at.with_timezone(&zone.offset).format("%H:%M:%S")
        ),
        quiet_minutes,
        pit_rounds: board.pit_rounds,
        pit_rounds_word: rounds_word(board.pit_rounds),
        pit_dealer_fouls: board.pit_dealer_fouls,
        pit_dealer_foul_rate: pit_rate,
        open_tables: tables.iter().filter(|t| t.open).count(),
        flagged_tables: tables.iter().filter(|t| !t.flags.is_empty()).count(),
        totals,
        tables,
        refused_seatings: Vec::new(),
        cash_warnings: Vec::new(),
    }
}

async fn current_view(state: &AppState) -> Result<PitView, AppError> {
    let now = Utc::now();
    let day = state.config.gaming_day(now);
    let rules = FlagRules {
        quiet_after: state.config.pit_quiet_after,
    };
    let settings = crate::web::reconciliation::settings(&state.config);
    let (board, accounting, refused, warnings) =
        reports::board(&state.db, day, now, rules, settings).await?;
    let zone = state.config.zone();
    let mut pit = view(
        &board,
        &accounting,
        zone,
        state.config.pit_quiet_after.num_minutes(),
    );
    pit.refused_seatings = refused
        .into_iter()
        .map(|r| RefusedSeatingView {
            text: format!(
                "{} at {} seat {}: card {}, {} ({}).",
                when(r.at, zone),
                r.table,
                r.seat,
                r.card_number,
                r.name,
                if r.status == "barred" {
                    "barred"
                } else {
                    "self-excluded"
                }
            ),
        })
        .collect();
    pit.cash_warnings = warnings
        .into_iter()
        .map(|w| RefusedSeatingView {
            text: format!(
                "Card {}, {}: {} today {} ({} % of the reporting threshold){}",
                w.card_number,
                w.name,
                w.direction.title().to_lowercase(),
                crate::web::format::money(w.total, &w.currency),
                w.percent,
                if w.covered {
                    ": above it, identification required."
                } else {
                    "."
                }
            ),
        })
        .collect();
    Ok(pit)
}

#[derive(Template)]
#[template(path = "pit.html")]
struct PitPage {
    nav: Nav,
    pit: PitView,
    refresh_seconds: u32,
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn show(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let query: BoardQuery = serde_urlencoded::from_str(req.query_string())
        .map_err(|err| AppError::InvalidInput(format!("the query cannot be read: {err}")))?;
    let refresh_seconds = refresh_seconds(&query)?;
    let pit = current_view(&state).await?;
    let page = PitPage {
        nav: session::nav(&session, Some(&user))?,
        pit,
        refresh_seconds,
    };
    render(StatusCode::OK, &page)
}

/// The board as JSON, for `pit.js` and for wall screens fed by other software.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn json(state: web::Data<AppState>, user: CurrentUser) -> Result<HttpResponse, AppError> {
    let pit = current_view(&state).await?;
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(pit))
}
