//! The exports: a form (kind, range of gaming days, table, format) and the download, streamed
//! from the read database as it is written (docs/exports.md). Nothing is changed. Each role is
//! offered the kinds it may export (`pit::exports::kinds_for`): auditors every kind,
//! administrators all but players' ratings, the players' readers the ratings.

use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_session::Session;
use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes};
use actix_web::HttpResponse;
use askama::Template;
use chrono::NaiveDate;
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::pit::exports;
use crate::reports::export::{Clock, ExportError, Format, Kind, Query};
use crate::web::error::AppError;
use crate::web::layout::Nav;
use crate::web::respond::render;
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// The longest range one download takes, in gaming days.
const MOST_DAYS: i64 = 366;

/// How long a download from a replica waits for it to replay the primary's position.
const REPLAY_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The form, as sent (every field text, so that a bad one is named, not refused whole).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ExportForm {
    pub kind: String,
    pub from: String,
    pub to: String,
    pub table: String,
    pub format: String,
}

#[derive(Default)]
pub struct ExportErrors {
    pub kind: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub table: Option<String>,
    pub format: Option<String>,
    pub range: Option<String>,
}

#[derive(Template)]
#[template(path = "audit_exports.html")]
struct ExportsPage {
    nav: Nav,
    /// The kinds offered: the form's value and its label.
    kinds: Vec<(&'static str, &'static str)>,
    form: ExportForm,
    errors: ExportErrors,
    tables: Vec<String>,
    source: &'static str,
}

async fn page(
    session: &Session,
    state: &AppState,
    user: &CurrentUser,
    form: ExportForm,
    errors: ExportErrors,
    status: StatusCode,
) -> Result<HttpResponse, AppError> {
    let tables = exports::table_codes(&state.read_db).await?;
    let page = ExportsPage {
        nav: session::nav(session, Some(user))?,
        kinds: exports::kinds_for(user.role)
            .into_iter()
            .map(|kind| (kind.name(), label(kind)))
            .collect(),
        form,
        errors,
        tables,
        source: if state.config.read_database_url.is_some() {
            "the read replica (PUSOY_READ_DATABASE_URL)"
        } else {
            "the primary database"
        },
    };
    render(status, &page)
}

/// What the form calls each kind.
fn label(kind: Kind) -> &'static str {
    match kind {
        Kind::Rounds => "Rounds",
        Kind::Events => "Audit events",
        Kind::Report => "Gaming-day report",
        Kind::Accounting => "Accounting documents",
        Kind::Compliance => "Compliance records",
        Kind::Ratings => "Players' ratings",
    }
}

/// The kind a form names, if it is one.
fn kind_of(text: &str) -> Option<Kind> {
    match text {
        "rounds" => Some(Kind::Rounds),
        "events" => Some(Kind::Events),
        "report" => Some(Kind::Report),
        "accounting" => Some(Kind::Accounting),
        "compliance" => Some(Kind::Compliance),
        "ratings" => Some(Kind::Ratings),
        _ => None,
    }
}

/// `GET /audit/exports`: the form, for today's gaming day, the first kind the user may export
/// chosen.
pub async fn form(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let today = state.config.gaming_day(chrono::Utc::now()).to_string();
    let kind = exports::kinds_for(user.role)
        .first()
        .map_or("rounds", |kind| kind.name());
    let form = ExportForm {
        kind: kind.to_owned(),
        from: today.clone(),
        to: today,
        table: String::new(),
        format: "csv".to_owned(),
    };
    page(
        &session,
        &state,
        &user,
        form,
        ExportErrors::default(),
        StatusCode::OK,
    )
    .await
}

/// The query and format of a form, or what is wrong with each field.
fn parse(form: &ExportForm) -> Result<(Query, Format), Box<ExportErrors>> {
    let mut errors = ExportErrors::default();
    let kind = kind_of(&form.kind);
    if kind.is_none() {
        errors.kind = Some(
            "Choose rounds, audit events, the gaming-day report, the accounting documents, the \
             compliance records or the players' ratings."
                .to_owned(),
        );
    }
    let day = |text: &str, error: &mut Option<String>| match text.parse::<NaiveDate>() {
        Ok(day) => Some(day),
        Err(_) => {
            *error = Some(format!("{text:?} is not a date: write YYYY-MM-DD."));
            None
        }
    };
    let from = day(&form.from, &mut errors.from);
    let to = day(&form.to, &mut errors.to);
    let format = match form.format.parse::<Format>() {
        Ok(format) => Some(format),
        Err(_) => {
            errors.format = Some("Choose CSV or JSON Lines.".to_owned());
            None
        }
    };
    let table = form.table.trim();
    if !table.is_empty() && !crate::db::tables::is_valid_code(table) {
        errors.table = Some(format!("{table:?} is not a table code."));
    }
    let (Some(kind), Some(from), Some(to), Some(format), None) =
        (kind, from, to, format, &errors.table)
    else {
        return Err(Box::new(errors));
    };
    let query = Query {
        kind,
        from,
        to,
        table: (!table.is_empty()).then(|| table.to_owned()),
    };
    match query.checked(MOST_DAYS) {
        Ok(query) => Ok((query, format)),
        Err(error) => {
            errors.range = Some(format!("{error}."));
            Err(Box::new(errors))
        }
    }
}

/// `GET /audit/exports/download`: the export, streamed as it is read. A kind the user may not
/// export is refused (403); a bad field, an unknown table or a range the replica has not
/// replayed yet is answered with the form and the reason.
#[tracing::instrument(skip_all, fields(auditor = %user.username))]
pub async fn download(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Query<ExportForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    if let Some(kind) = kind_of(&form.kind) {
        if !exports::may_export(user.role, kind) {
            return Err(AppError::ForbiddenBecause(exports::refusal(kind)));
        }
    }
    let (query, format) = match parse(&form) {
        Ok(parsed) => parsed,
        Err(errors) => {
            return page(
                &session,
                &state,
                &user,
                form,
                *errors,
                StatusCode::BAD_REQUEST,
            )
            .await
        }
    };
    let replica = state.config.read_database_url.is_some();
    let checked = query.clone();
    let ready = exports::source(&state.read_db, &state.db, replica, checked, REPLAY_WAIT).await?;
    let source = match ready {
        Ok(source) => source,
        Err(error) => {
            let status = match error {
                ExportError::NotReplayed(_) => StatusCode::CONFLICT,
                _ => StatusCode::BAD_REQUEST,
            };
            let errors = ExportErrors {
                range: Some(error.to_string()),
                ..ExportErrors::default()
            };
            return page(&session, &state, &user, form, errors, status).await;
        }
    };
    let name = format!(
        "pusoy-{}-{}_{}{}.{}",
        query.kind.name(),
        query.from,
        query.to,
        query
            .table
            .as_deref()
            .map(|code| format!("-{code}"))
            .unwrap_or_default(),
        format.extension()
    );
    let (tx, rx) = mpsc::channel(4);
    let clock = Clock {
        utc_offset: state.config.utc_offset,
        gaming_day_start: state.config.gaming_day_start,
    };
    // The export hands the response its bytes as they come; a download that is cancelled ends
    // it at its next write.
    let out = Chunks {
        tx,
        buf: Vec::with_capacity(CHUNK),
    };
    exports::start(
        &state.read_db,
        query,
        clock,
        source,
        format,
        out,
        |out, error| {
            tracing::warn!(%error, "export download ended early");
            let _ = out
                .tx
                .blocking_send(Err(std::io::Error::other("the export ended early")));
        },
    );
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .insert_header(CacheControl(vec![CacheDirective::NoStore]))
        .streaming(Download(rx)))
}

const CHUNK: usize = 64 * 1024;

/// Hands what is written to the response in chunks.
struct Chunks {
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
    buf: Vec<u8>,
}

impl Chunks {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "download cancelled"))
    }
}

impl Write for Chunks {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// The response body: the chunks as they arrive.
struct Download(mpsc::Receiver<Result<Bytes, std::io::Error>>);

impl futures_core::Stream for Download {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().0.poll_recv(cx)
    }
}
