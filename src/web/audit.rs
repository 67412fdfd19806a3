//! The auditor's pages: `/audit`, the verdict of the last verification of every chain and day
//! seal and a fresh one on request (run in the background, its progress shown while it runs);
//! `/audit/events`, the search of the trail.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::Deserialize;

use crate::config::Zone;
use crate::db::audit_log::AuditEvent;
use crate::db::seal_file::SealFiles;
use crate::pit::audit::{self, Search};
use crate::reports::events::EventFilter;
use crate::reports::verify::VerdictRecord;
use crate::web::audit_words::{describe, Link, TableNames};
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// Events per page of the search.
const PAGE_SIZE: i64 = 50;

pub struct ChainRow {
    pub chain: String,
    /// The chain as named on the page (a table's with its code).
    pub label: String,
    pub rows: u64,
    pub last: String,
    pub verdict: String,
    pub broken: bool,
}

pub struct LastCheck {
    pub at: String,
    pub by: String,
    pub intact: bool,
    pub summary: String,
    pub chains: Vec<ChainRow>,
    pub seal_problems: Vec<String>,
}

pub struct RunningView {
    pub started: String,
    pub by: String,
    pub chains_done: usize,
    pub chains_total: usize,
    pub events_checked: u64,
    pub events_total: u64,
    /// 0 to 100, by events checked.
    pub percent: u64,
}

#[derive(Template)]
#[template(path = "audit.html")]
struct AuditPage {
    nav: Nav,
    running: Option<RunningView>,
    last: Option<LastCheck>,
    unreadable: bool,
}

fn last_check(event: &AuditEvent, zone: Zone, names: &TableNames) -> Option<LastCheck> {
    let record: VerdictRecord = serde_json::from_value(event.details.clone()).ok()?;
    Some(LastCheck {
        at: when(event.at, zone),
        by: event.actor_name.clone(),
        intact: record.intact,
        summary: format!(
            "{} events on {} chains, {} day seal copies and {} checkpoints checked in {:.1} s",
            record.events,
            record.chains.len(),
            record.seals_checked,
            record.checkpoints_checked,
            record.seconds
        ),
        chains: record
            .chains
            .into_iter()
            .map(|c| ChainRow {
                last: match (c.last_seq, c.last_hash) {
                    (Some(seq), Some(hash)) => format!("seq {seq} · {hash}"),
                    _ => "no events".to_owned(),
                },
                verdict: match &c.bad {
                    None => "intact".to_owned(),
                    Some(bad) => format!(
                        "BROKEN at seq {} (row id {}): {}",
                        bad.seq,
                        bad.id
                            .map_or_else(|| "none".to_owned(), |id| id.to_string()),
                        bad.what
                    ),
                },
                broken: c.bad.is_some(),
                label: names.chain(&c.chain),
                chain: c.chain,
                rows: c.rows,
            })
            .collect(),
        seal_problems: record
            .seal_problems
            .into_iter()
            .map(|p| format!("Day seal {}: {}", p.day, p.what))
            .chain(record.record_problems.into_iter().map(|p| {
                format!(
                    "The stored {} differs from its audit event: {}",
                    p.what,
                    p.differences.join("; ")
                )
            }))
            .collect(),
    })
}

/// `GET /audit`.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn page(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let zone = state.config.zone();
    let (latest, tables) = audit::last_verification(&state.db).await?;
    let names = TableNames::new(tables);
    let last = latest.as_ref().and_then(|e| last_check(e, zone, &names));
    let running = state.audit_checks.running().map(|r| RunningView {
        started: when(r.started_at, zone),
        by: r.started_by,
        chains_done: r.progress.chains_done,
        chains_total: r.progress.chains_total,
        events_checked: r.progress.events_checked,
        events_total: r.progress.events_total,
        percent: r.progress.percent(),
    });
    let page = AuditPage {
        nav: session::nav(&session, Some(&user))?,
        unreadable: latest.is_some() && last.is_none(),
        running,
        last,
    };
    render(StatusCode::OK, &page)
}

/// `POST /audit/verify`: starts a check of every chain and seal in the background; its verdict
/// is recorded as an `audit.verified` event by the one who asked.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn start_check(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let started = audit::start_verification(
        &state.db,
        &state.audit_checks,
        SealFiles::of(&state.config),
        &user.username,
        user.actor(&req),
    );
    if started {
        session::set_flash(
            &session,
            "Verification started: every chain and day seal is being checked.",
        )?;
    } else {
        session::set_error_flash(
            &session,
            "A verification is already running; its progress is shown below.",
        )?;
    }
    Ok(redirect("/audit"))
}

/// The search form as sent (every field optional, as typed).
#[derive(Debug, Default, Deserialize)]
pub struct EventQuery {
    #[serde(default)]
    chain: String,
    #[serde(default)]
    actor: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    day: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    before: Option<i64>,
}

pub struct EventRow {
    pub id: i64,
    pub at: String,
    pub chain: String,
    pub seq: i64,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub day: String,
    pub lines: Vec<String>,
    pub links: Vec<Link>,
}

#[derive(Template)]
#[template(path = "audit_events.html")]
struct EventsPage {
    nav: Nav,
    /// Each chain to filter by, and its name on the page.
    chains: Vec<(String, String)>,
    actions: Vec<String>,
    chain: String,
    actor: String,
    action: String,
    day: String,
    from: String,
    to: String,
    zone: String,
    errors: Vec<String>,
    rows: Vec<EventRow>,
    next: Option<String>,
}

fn local_time(field: &str, text: &str, zone: Zone) -> Result<Option<DateTime<Utc>>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let parsed = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M"))
        .map_err(|_| {
            format!("{field}: \"{text}\" is not a time; write YYYY-MM-DD HH:MM (local time)")
        })?;
    parsed
        .and_local_timezone(zone.offset)
        .single()
        .map(|at| Some(at.with_timezone(&Utc)))
        .ok_or_else(|| format!("{field}: \"{text}\" is not a time in {zone}"))
}

fn some(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The filter the form asks for, or what is wrong with it (each problem naming its field).
fn filter_of(q: &EventQuery, zone: Zone) -> Result<EventFilter, Vec<String>> {
    let mut errors = Vec::new();
    let gaming_day = match q.day.trim() {
        "" => None,
        day => match day.parse::<NaiveDate>() {
            Ok(day) => Some(day),
            Err(_) => {
                errors.push(format!(
                    "Gaming day: \"{day}\" is not a date; write YYYY-MM-DD"
                ));
                None
            }
        },
    };
    let from = local_time("From", &q.from, zone).unwrap_or_else(|e| {
        errors.push(e);
        None
    });
    let to = local_time("To", &q.to, zone).unwrap_or_else(|e| {
        errors.push(e);
        None
    });
    if let (Some(from), Some(to)) = (from, to) {
        if to <= from {
            errors.push("To: must be after From".to_owned());
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(EventFilter {
        chain: some(&q.chain),
        actor: some(&q.actor),
        action: some(&q.action),
        gaming_day,
        from,
        to,
    })
}

/// The query string of the next page: the same filter, older events.
fn next_link(q: &EventQuery, before: i64) -> String {
    let fields = [
        ("chain", q.chain.as_str()),
        ("actor", q.actor.as_str()),
        ("action", q.action.as_str()),
        ("day", q.day.as_str()),
        ("from", q.from.as_str()),
        ("to", q.to.as_str()),
    ];
    let mut query: Vec<(&str, String)> = fields
        .into_iter()
        .filter(|(_, v)| !v.trim().is_empty())
        .map(|(k, v)| (k, v.trim().to_owned()))
        .collect();
    query.push(("before", before.to_string()));
    format!(
        "/audit/events?{}",
        serde_urlencoded::to_string(query).unwrap_or_default()
    )
}

/// `GET /audit/events`.
#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn search(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<EventQuery>,
) -> Result<HttpResponse, AppError> {
    let q = query.into_inner();
    let zone = state.config.zone();
    let filter = filter_of(&q, zone);
    let before = q.before;
    let wanted = filter.clone().ok();
    let Search {
        chains,
        actions,
        page,
        tables,
    } = audit::search(&state.db, wanted, before, PAGE_SIZE).await?;
    let names = TableNames::new(tables);
    let errors = filter.err().unwrap_or_default();
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let (rows, next) = match page {
        Some(page) => (
            page.events
                .iter()
                .map(|e| {
                    let described = describe(e, names.currency(&e.chain));
                    EventRow {
                        id: e.id,
                        at: when(e.at, zone),
                        chain: names.chain(&e.chain),
                        seq: e.seq,
                        actor: e.actor_name.clone(),
                        action: e.action.clone(),
                        target: e.target.clone(),
                        day: e.gaming_day.map(|d| d.to_string()).unwrap_or_default(),
                        lines: described.lines,
                        links: described.links,
                    }
                })
                .collect(),
            page.next_before.map(|b| next_link(&q, b)),
        ),
        None => (Vec::new(), None),
    };
    let page = EventsPage {
        nav: session::nav(&session, Some(&user))?,
        chains: chains
            .into_iter()
            .map(|c| {
                let label = names.chain(&c);
                (c, label)
            })
            .collect(),
        actions,
        chain: q.chain.trim().to_owned(),
        actor: q.actor.trim().to_owned(),
        action: q.action.trim().to_owned(),
        day: q.day.trim().to_owned(),
        from: q.from.trim().to_owned(),
        to: q.to.trim().to_owned(),
        zone: zone.label(),
        errors,
        rows,
        next,
    };
    render(status, &page)
}
