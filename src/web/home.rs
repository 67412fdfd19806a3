//! The home page: the signed-in user's session, and what their role looks after (pit managers:
//! locked accounts; auditors: the latest audit events and the last verification's verdict (the
//! verification itself runs on the audit page, in the background, never on this page's load);
//! administrators: staff counts).

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;

use crate::config::Zone;
use crate::db::audit_log::AuditEvent;
use crate::db::users::Role;
use crate::pit::home;
use crate::reports::verify::VerdictRecord;
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::render;
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct EventRow {
    pub at: String,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub client: String,
}

impl EventRow {
    fn new(e: &AuditEvent, zone: Zone) -> Self {
        EventRow {
            at: when(e.at, zone),
            actor: e.actor_name.clone(),
            action: e.action.clone(),
            target: e.target.clone(),
            client: e.client_addr.clone().unwrap_or_default(),
        }
    }
}

pub struct LockedRow {
    pub id: i64,
    pub username: String,
    pub display_name: String,
    pub locked_at: String,
}

pub struct RoleCount {
    pub title: &'static str,
    pub active: usize,
    pub disabled: usize,
}

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage {
    nav: Nav,
    display_name: String,
    username: String,
    role_title: &'static str,
    signed_in_at: String,
    session_ends_at: String,
    idle_minutes: i64,
    my_activity: Vec<EventRow>,
    show_locked: bool,
    locked: Vec<LockedRow>,
    show_audit: bool,
    chain_status: String,
    audit_events: Vec<EventRow>,
    role_counts: Vec<RoleCount>,
    is_dealer: bool,
    is_cashier: bool,
    is_count: bool,
    my_table: Option<MyTable>,
}

/// The table a dealer is signed on at.
pub struct MyTable {
    pub code: String,
    /// E.g. "PUSOY-03 (Pusoy 3) since 2026-03-01 14:02 UTC".
    pub text: String,
}

/// The last verification's verdict in a sentence.
fn verdict_line(last: Option<&AuditEvent>, zone: Zone) -> String {
    let Some(event) = last else {
        return "The trail has not been verified yet: run a verification on the Audit page."
            .to_owned();
    };
    match serde_json::from_value::<VerdictRecord>(event.details.clone()) {
        Ok(record) if record.intact => format!(
            "Intact: all {} events on {} chains verified {} by {}.",
            record.events,
            record.chains.len(),
            when(event.at, zone),
            event.actor_name
        ),
        Ok(_) => format!(
            "BROKEN when verified {} by {}: see the Audit page and report this to the compliance officer.",
            when(event.at, zone),
            event.actor_name
        ),
        Err(_) => "The last verification's record cannot be read: run a new one on the Audit page."
            .to_owned(),
    }
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn show(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let role = user.role;
    let id = user.id;
    let zone = state.config.zone();
    let loaded = home::home(&state.db, id, role).await?;
    let my_table = loaded.my_table.as_ref().map(|(shift, table)| MyTable {
        text: format!(
            "{} ({}) since {}",
            table.code,
            table.name,
            when(shift.signed_on_at, zone)
        ),
        code: table.code.clone(),
    });
    let timeouts = state.config.timeouts;
    let signed_in_at = user.signed_in_at;
    let (chain_status, audit_events) = match &loaded.audit {
        Some((last, recent)) => (
            verdict_line(last.as_ref(), zone),
            recent.iter().map(|e| EventRow::new(e, zone)).collect(),
        ),
        None => (String::new(), Vec::new()),
    };
    let role_counts = if role == Role::Admin {
        Role::ALL
            .into_iter()
            .map(|r| RoleCount {
                title: r.title(),
                active: loaded
                    .all_users
                    .iter()
                    .filter(|u| u.role == r && !u.is_disabled())
                    .count(),
                disabled: loaded
                    .all_users
                    .iter()
                    .filter(|u| u.role == r && u.is_disabled())
                    .count(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let page = HomePage {
        nav: session::nav(&session, Some(&user))?,
        display_name: user.display_name.clone(),
        username: user.username.clone(),
        role_title: role.title(),
        signed_in_at: signed_in_at.map(|at| when(at, zone)).unwrap_or_default(),
        session_ends_at: signed_in_at
            .map(|at| when(at + timeouts.absolute, zone))
            .unwrap_or_default(),
        idle_minutes: crate::db::sessions::idle_limit(&timeouts, role).num_minutes(),
        my_activity: loaded
            .my_activity
            .iter()
            .map(|e| EventRow::new(e, zone))
            .collect(),
        show_locked: matches!(role, Role::Supervisor | Role::Admin),
        locked: loaded
            .locked
            .iter()
            .map(|u| LockedRow {
                id: u.id.0,
                username: u.username.clone(),
                display_name: u.display_name.clone(),
                locked_at: u.locked_at.map(|at| when(at, zone)).unwrap_or_default(),
            })
            .collect(),
        show_audit: loaded.audit.is_some(),
        chain_status,
        audit_events,
        role_counts,
        is_dealer: role == Role::Dealer,
        is_cashier: role == Role::Cashier,
        is_count: role == Role::Count,
        my_table,
    };
    render(StatusCode::OK, &page)
}
