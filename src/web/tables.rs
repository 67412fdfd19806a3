//! The tables page for every staff role: each table's limits, its rules in plain words and who
//! is dealing. Dealers sign on and off here.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::Utc;

use crate::config::Zone;
use crate::db::seal_file::SealFiles;
use crate::db::shifts::CurrentShift;
use crate::db::tables::{TableListing, WaitingVersion};
use crate::db::users::Role;
use crate::pit::shifts::{self, OpenShift, SignedOn};
use crate::web::error::AppError;
use crate::web::format::{money, result, when};
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct TableRow {
    pub code: String,
    pub name: String,
    pub limits: String,
    /// The profile and version in force: `House v2 in force`.
    pub profile_name: String,
    pub rules: String,
    /// The version waiting and from when: `v3 waiting, from the next dealer shift`.
    pub waiting: Option<String>,
    pub dealer: Option<String>,
    pub mine: bool,
    /// Whether the viewer may open the table screen: their own table, or a pit manager at a
    /// table with a dealer on shift.
    pub can_open: bool,
    /// Someone is signed on (whom a pit manager may sign off).
    pub can_sign_off: bool,
}

#[derive(Template)]
#[template(path = "tables.html")]
struct TablesPage {
    nav: Nav,
    is_dealer: bool,
    is_supervisor: bool,
    on_a_table: bool,
    rows: Vec<TableRow>,
}

fn row(
    listing: &TableListing,
    shift: Option<&CurrentShift>,
    viewer: &CurrentUser,
    zone: Zone,
) -> TableRow {
    let t = &listing.table;
    TableRow {
        code: t.code.clone(),
        name: t.name.clone(),
        // A points table's stake is its unit; a banking table's bets lie between its limits.
        limits: match t.unit() {
            Some(unit) => format!("{} a point (points game)", money(unit, &t.currency)),
            None => format!(
                "{} – {}",
                money(t.min_bet, &t.currency),
                money(t.max_bet, &t.currency)
            ),
        },
        profile_name: format!(
            "{} v{} in force",
            listing.profile_name, listing.profile.version
        ),
        rules: listing.profile.options.describe(),
        waiting: listing
            .waiting
            .as_ref()
            .map(|w| waiting_text(w, listing, zone)),
        dealer: shift.map(|s| {
            format!(
                "{} since {}",
                s.dealer_name,
                when(s.shift.signed_on_at, zone)
            )
        }),
        mine: shift.is_some_and(|s| s.shift.dealer_id == viewer.id),
        can_open: match viewer.role {
            Role::Dealer => shift.is_some_and(|s| s.shift.dealer_id == viewer.id),
            Role::Supervisor => shift.is_some(),
            Role::Admin
            | Role::Auditor
            | Role::Cashier
            | Role::Count
            | Role::Host
            | Role::Compliance => false,
        },
        can_sign_off: shift.is_some(),
    }
}

/// A waiting version as the lists show it: `v3 waiting, from the next dealer shift`, with the
/// profile's name when it is not the one in force (the table was moved to another profile).
pub fn waiting_text(waiting: &WaitingVersion, listing: &TableListing, zone: Zone) -> String {
    let name = if waiting.profile_name == listing.profile_name {
        String::new()
    } else {
        format!("{} ", waiting.profile_name)
    };
    let from = match waiting.from {
        None => "the next dealer shift".to_owned(),
        Some(at) => when(at, zone),
    };
    format!("{name}v{} waiting, from {from}", waiting.version.version)
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let listings = shifts::tables_with_dealers(&state.db).await?;
    let rows: Vec<TableRow> = listings
        .iter()
        .map(|(listing, shift)| row(listing, shift.as_ref(), &user, state.config.zone()))
        .collect();
    let page = TablesPage {
        nav: session::nav(&session, Some(&user))?,
        is_dealer: user.role == Role::Dealer,
        is_supervisor: user.role == Role::Supervisor,
        on_a_table: rows.iter().any(|r| r.mine),
        rows,
    };
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(dealer = %dealer.username))]
pub async fn sign_on(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    dealer: CurrentUser,
    code: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let actor = dealer.actor(&req);
    let day = state.config.gaming_day(Utc::now());
    let code = code.into_inner();
    let outcome = shifts::sign_on(&state.db, code, actor, day, state.config.zone()).await?;
    // Signed on: straight to the table screen; refused: back to the tables, to choose another.
    match outcome {
        Ok(SignedOn { message, code }) => {
            session::set_flash(&session, &message)?;
            Ok(redirect(&format!("/tables/{code}")))
        }
        Err(message) => {
            session::set_error_flash(&session, &message)?;
            Ok(redirect("/tables"))
        }
    }
}

/// What the sign-off page shows: the shift so far and whether a round is unfinished.
pub struct SignOffView {
    pub code: String,
    pub dealer: String,
    pub since: String,
    pub rounds: i64,
    pub voided: i64,
    pub house_result: String,
    pub house_lost: bool,
    pub unfinished_round: bool,
    /// A pit manager signing another dealer off.
    pub by_pit: bool,
}

#[derive(Template)]
#[template(path = "sign_off.html")]
struct SignOffPage {
    nav: Nav,
    shift: SignOffView,
}

/// `GET /tables/{code}/sign-off`: before signing off, the shift's summary (rounds, the house's
/// result) and a warning if a round is entered but not confirmed; the form that signs off.
#[tracing::instrument(skip_all, fields(by = %by.username))]
pub async fn sign_off_page(
    session: Session,
    state: web::Data<AppState>,
    by: CurrentUser,
    code: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let code = code.into_inner();
    let by_pit = by.role != Role::Dealer;
    let viewer = by.id;
    let found = shifts::open_shift(&state.db, code, viewer, by_pit).await?;
    let OpenShift {
        table,
        open,
        summary,
    } = match found {
        Ok(found) => found,
        Err(message) => {
            session::set_error_flash(&session, &message)?;
            return Ok(redirect("/tables"));
        }
    };
    let shift = SignOffView {
        code: table.code.clone(),
        dealer: open.dealer_name,
        since: when(open.shift.signed_on_at, state.config.zone()),
        rounds: summary.rounds,
        voided: summary.voided,
        house_result: result(summary.house_result, &table.currency),
        house_lost: summary.house_result.minor_units() < 0,
        unfinished_round: summary.unfinished_round,
        by_pit,
    };
    let page = SignOffPage {
        nav: session::nav(&session, Some(&by))?,
        shift,
    };
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(by = %by.username))]
pub async fn sign_off(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    by: CurrentUser,
    code: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let actor = by.actor(&req);
    let code = code.into_inner();
    // A dealer signs themself off; a pit manager signs off whoever deals there.
    let outcome = shifts::sign_off(
        &state.db,
        code,
        by.role,
        actor,
        SealFiles::of(&state.config),
    )
    .await?;
    session::set_flash_of(&session, &outcome)?;
    Ok(redirect("/tables"))
}
