//! `AppError`: every way a request can fail, the friendly page each one renders, and the JSON
//! it answers instead under `/api/` and to requests that accept only JSON ([`error_answers`]).
//! A refusal shown to a signed-in user keeps the navigation bar and a way back to the page it
//! came from. Causes of internal errors are logged, never shown.

use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use serde_json::json;

use crate::accounting::AccountingError;
use crate::db::tables::TableRulesError;
use crate::db::{is_outage, DbError};
use crate::password::HashError;
use crate::pit::PitError;
use crate::recording::review::ReviewError;
use crate::recording::RoundsError;
use crate::reports::gaming_day::ReportError;
use crate::web::layout::Nav;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("The page you asked for does not exist.")]
    NotFound,
    #[error("Your account does not have access to this page.")]
    Forbidden,
    /// Forbidden to an account of this role: the roles the page or action is for.
    #[error("{}", role_refusal(*role, allowed))]
    ForbiddenRole {
        role: crate::db::users::Role,
        allowed: &'static [crate::db::users::Role],
    },
    /// Forbidden, with the reason in words.
    #[error("{0}")]
    ForbiddenBecause(&'static str),
    #[error("This form has expired or did not come from this site. Go back, reload the page and try again.")]
    CsrfRejected,
    #[error("The request could not be read.")]
    BadRequest,
    /// A request whose parameters are wrong, with what is wrong and where.
    #[error("{0}.")]
    InvalidInput(String),
    #[error("The field {field} contains a control character (U+{code:04X}); remove it and send the form again.")]
    ControlCharacter { field: String, code: u32 },
    /// A control character in the address: its path or a query parameter (`place`).
    #[error("The {place} contains a control character (U+{code:04X}); remove it and try again.")]
    ControlCharacterInAddress { place: String, code: u32 },
    /// A form field that no page of ours sends as it came.
    #[error("The field {field} {problem}.")]
    BadField {
        field: &'static str,
        problem: &'static str,
    },
    #[error("Sign in first.")]
    SignInRequired { api: bool },
    #[error("The API token is not valid: it is unknown, revoked, or its account is disabled.")]
    InvalidApiToken,
    #[error("Too many requests with an invalid API token; try again later.")]
    TooManyInvalidTokens { retry_after_secs: u64 },
    /// An account that keeps asking for what its role may not use.
    #[error("Too many refused requests from your account; wait a minute and use the menu.")]
    TooManyRefusals { retry_after_secs: u64 },
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("a blocking task failed")]
    Blocking(#[from] actix_web::error::BlockingError),
    #[error("rendering a page failed")]
    Template(#[from] askama::Error),
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error("writing CSV failed")]
    Csv(#[from] csv::Error),
    #[error("writing JSON failed")]
    Json(#[from] serde_json::Error),
    #[error("session storage failed: {0}")]
    Session(String),
    #[error(transparent)]
    Table(#[from] crate::db::tables::TableError),
    #[error(transparent)]
    Shift(#[from] crate::db::shifts::ShiftError),
    /// A round that cannot be entered: see [`AppError::round_code`].
    #[error(transparent)]
    Round(#[from] RoundsError),
    /// A pit manager's decision on a round refused (see [`From<ReviewError>`]).
    #[error(transparent)]
    Review(ReviewError),
    /// Table accounting's refusal or failure.
    #[error(transparent)]
    Accounting(#[from] AccountingError),
}

impl From<ReviewError> for AppError {
    fn from(err: ReviewError) -> Self {
        match err {
            ReviewError::Round(err) => AppError::Round(err),
            ReviewError::Query(err) => AppError::Db(DbError::Query(err)),
            ReviewError::NoRound(_) => AppError::NotFound,
            other => AppError::Review(other),
        }
    }
}

impl From<PitError> for AppError {
    fn from(err: PitError) -> Self {
        match err {
            PitError::NotFound => AppError::NotFound,
            PitError::Db(err) => AppError::Db(err),
            PitError::Shift(err) => AppError::Shift(err),
            PitError::Table(err) => AppError::Table(err),
            PitError::Round(err) => AppError::Round(err),
            PitError::Review(err) => AppError::from(err),
            PitError::Hash(err) => AppError::Hash(err),
            PitError::Report(ReportError::Query(err)) => AppError::Db(DbError::Query(err)),
            PitError::Report(refused) => AppError::InvalidInput(refused.to_string()),
            // A blocking task that ended without an answer, like a database task: a 500.
            PitError::Task => AppError::Db(DbError::Task),
            PitError::Accounting(err) => AppError::Accounting(err),
        }
    }
}

impl From<TableRulesError> for AppError {
    fn from(err: TableRulesError) -> Self {
        AppError::Round(err.into())
    }
}

impl From<actix_session::SessionInsertError> for AppError {
    fn from(err: actix_session::SessionInsertError) -> Self {
        AppError::Session(err.to_string())
    }
}

impl From<actix_session::SessionGetError> for AppError {
    fn from(err: actix_session::SessionGetError) -> Self {
        AppError::Session(err.to_string())
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    nav: Nav,
    /// The page the refused request came from (same site), to go back to.
    back: Option<String>,
    status: u16,
    title: &'a str,
    message: String,
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        if self.closed_day().is_some() {
            return StatusCode::CONFLICT;
        }
        match self {
            AppError::NotFound => StatusCode::NOT_FOUND,
            AppError::Forbidden
            | AppError::ForbiddenRole { .. }
            | AppError::ForbiddenBecause(_)
            | AppError::CsrfRejected => StatusCode::FORBIDDEN,
            AppError::BadRequest
            | AppError::ControlCharacter { .. }
            | AppError::ControlCharacterInAddress { .. }
            | AppError::BadField { .. }
            | AppError::InvalidInput(_) => StatusCode::BAD_REQUEST,
            AppError::SignInRequired { api: true } | AppError::InvalidApiToken => {
                StatusCode::UNAUTHORIZED
            }
            AppError::SignInRequired { api: false } => StatusCode::SEE_OTHER,
            AppError::TooManyInvalidTokens { .. } | AppError::TooManyRefusals { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            AppError::Db(DbError::Pool(_)) => StatusCode::SERVICE_UNAVAILABLE,
            _ if self.is_outage() => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Db(_)
            | AppError::Blocking(_)
            | AppError::Template(_)
            | AppError::Hash(_)
            | AppError::Csv(_)
            | AppError::Json(_)
            | AppError::Session(_)
            | AppError::Table(_)
            | AppError::Shift(_) => StatusCode::INTERNAL_SERVER_ERROR,
            AppError::Accounting(err) => match err {
                AccountingError::Refused(_) => StatusCode::UNPROCESSABLE_ENTITY,
                AccountingError::NotFound(_) => StatusCode::NOT_FOUND,
                AccountingError::Db(DbError::Pool(_)) => StatusCode::SERVICE_UNAVAILABLE,
                AccountingError::Db(DbError::Query(_))
                | AccountingError::BadStored(_)
                | AccountingError::Password(_)
                | AccountingError::Db(DbError::Task) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            AppError::Review(err) => match err {
                ReviewError::NotYours(_) => StatusCode::FORBIDDEN,
                ReviewError::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                ReviewError::NoRound(_) => StatusCode::NOT_FOUND,
                ReviewError::Refused(_) | ReviewError::Round(_) => StatusCode::CONFLICT,
                ReviewError::Query(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            AppError::Round(err) => match err {
                RoundsError::NoDraft(_) | RoundsError::NoTable(_) => StatusCode::NOT_FOUND,
                RoundsError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
                RoundsError::NotYourRound => StatusCode::FORBIDDEN,
                RoundsError::Query(_) | RoundsError::TableRules(TableRulesError::Query(_)) => {
                    StatusCode::INTERNAL_SERVER_ERROR
                }
                _ => StatusCode::CONFLICT,
            },
        }
    }

    fn error_response(&self) -> HttpResponse {
        self.page_response()
    }
}

impl AppError {
    /// Whether the database went away under the request, wherever its error was wrapped: the
    /// request may be tried again unchanged in a moment.
    fn is_outage(&self) -> bool {
        match self {
            AppError::Db(err) => err.is_outage(),
            AppError::Round(
                RoundsError::Query(err) | RoundsError::TableRules(TableRulesError::Query(err)),
            )
            | AppError::Shift(crate::db::shifts::ShiftError::Query(err))
            | AppError::Table(crate::db::tables::TableError::Query(err))
            | AppError::Review(ReviewError::Query(err))
            | AppError::Accounting(AccountingError::Db(DbError::Query(err))) => is_outage(err),
            _ => false,
        }
    }

    /// The closed gaming day this error is a refusal on, wherever it was found: checked first
    /// by the code that records, or refused by the database's trigger underneath.
    pub fn closed_day(&self) -> Option<chrono::NaiveDate> {
        match self {
            AppError::Round(RoundsError::DayClosed { day })
            | AppError::Shift(crate::db::shifts::ShiftError::DayClosed { day }) => Some(*day),
            AppError::Round(RoundsError::Query(err))
            | AppError::Shift(crate::db::shifts::ShiftError::Query(err))
            | AppError::Db(DbError::Query(err)) => crate::db::days::closed_day_refused(err),
            _ => None,
        }
    }

    /// What a 409 means, for programs (`table.js` and integrations): the writer is not on
    /// shift at the table, or the round moved on (changed elsewhere, settled, its key used) and
    /// must be read again, or the table is busy or cannot take rounds.
    pub fn round_code(&self) -> Option<&'static str> {
        let AppError::Round(err) = self else {
            return None;
        };
        Some(match err {
            RoundsError::NotSignedOn { .. } | RoundsError::NobodyOnShift { .. } => "not_on_shift",
            RoundsError::RevisionMismatch { .. } => "changed",
            RoundsError::AlreadySettled => "settled",
            RoundsError::KeyTaken(_) => "key_taken",
            RoundsError::Busy(_) => "busy",
            RoundsError::TableRules(_) => "table_not_ready",
            RoundsError::DayClosed { .. } => "day_closed",
            RoundsError::OpenerHeld { .. } => "opener_held",
            RoundsError::NoDraft(_)
            | RoundsError::NoTable(_)
            | RoundsError::Invalid(_)
            | RoundsError::NotYourRound
            | RoundsError::Query(_) => return None,
        })
    }

    /// The error as JSON: `{"error": message}`, with `field_errors` for an invalid round and
    /// `code` for a conflict ([`AppError::round_code`]).
    pub fn json_response(&self) -> HttpResponse {
        // A script's request is never sent to the sign-in page: it is told, and keeps its work.
        if let AppError::SignInRequired { .. } = self {
            return HttpResponse::Unauthorized().json(json!({
                "error": "Signed out: sign in to go on.",
                "code": "signed_out",
            }));
        }
        let status = self.status_code();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(error = %self, cause = ?self, "database unavailable");
            return unavailable(true);
        }
        let mut res = HttpResponse::build(status);
        match self {
            AppError::TooManyInvalidTokens { retry_after_secs }
            | AppError::TooManyRefusals { retry_after_secs } => {
                res.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
            }
            AppError::InvalidApiToken => {
                res.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            _ => {}
        }
        let body = match self {
            _ if self.closed_day().is_some() => {
                let day = self.closed_day().unwrap_or_default();
                json!({ "error": crate::rules::gaming_day::closed_day_message(day), "code": "day_closed" })
            }
            AppError::Round(RoundsError::Invalid(errors)) => {
                json!({ "error": errors.summary(), "field_errors": errors })
            }
            AppError::Round(RoundsError::NoDraft(_) | RoundsError::NoTable(_)) => {
                json!({ "error": "There is no such table or round." })
            }
            _ if status == StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %self, cause = ?self, "request failed");
                json!({ "error": "The application hit an error; it has been logged." })
            }
            _ => match self.round_code() {
                Some(code) => json!({ "error": self.to_string(), "code": code }),
                None => json!({ "error": self.to_string() }),
            },
        };
        if let AppError::Round(RoundsError::TableRules(err)) = self {
            tracing::error!(error = %err, "table cannot take rounds");
        }
        res.json(body)
    }

    /// The error as a page, for a request whose user is not known.
    fn page_response(&self) -> HttpResponse {
        self.page_with(Nav::anonymous(), None)
    }

    /// The error as a page with `nav` (the signed-in user's navigation bar) and a link `back`
    /// to the page the request came from.
    pub(crate) fn page_with(&self, nav: Nav, back: Option<String>) -> HttpResponse {
        let status = self.status_code();
        if let AppError::SignInRequired { api: false } = self {
            return HttpResponse::SeeOther()
                .insert_header((header::LOCATION, "/login"))
                .finish();
        }
        // Only API requests meet these.
        if matches!(
            self,
            AppError::TooManyInvalidTokens { .. } | AppError::InvalidApiToken
        ) {
            return self.json_response();
        }
        if status == StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(error = %self, cause = ?self, "database unavailable");
            return unavailable(false);
        }
        let (title, message) = match status {
            StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %self, cause = ?self, "request failed");
                (
                    "Something went wrong",
                    "The application hit an error. It has been logged; please try again, and tell \
                     the system administrator if it keeps happening."
                        .to_owned(),
                )
            }
            _ if self.closed_day().is_some() => (
                "Gaming day closed",
                crate::rules::gaming_day::closed_day_message(self.closed_day().unwrap_or_default()),
            ),
            StatusCode::NOT_FOUND => ("Page not found", self.to_string()),
            StatusCode::FORBIDDEN => ("Access refused", self.to_string()),
            StatusCode::UNAUTHORIZED => ("Sign in first", self.to_string()),
            _ => ("Request refused", self.to_string()),
        };
        let page = ErrorPage {
            nav,
            back,
            status: status.as_u16(),
            title,
            message,
        };
        let mut res = HttpResponse::build(status);
        if let AppError::TooManyRefusals { retry_after_secs } = self {
            res.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
        }
        match page.render() {
            Ok(html) => res.content_type(ContentType::html()).body(html),
            Err(err) => {
                tracing::error!(error = %err, "rendering the error page failed");
                HttpResponse::build(status)
                    .content_type(ContentType::plaintext())
                    .body(title)
            }
        }
    }
}

/// Seconds a client is asked to wait before trying again while the database is away.
const RETRY_AFTER_SECS: u64 = 5;
const UNAVAILABLE: &str = "The database is not answering; try again in a few seconds.";

/// The answer while the database is away: 503 with `Retry-After`, as JSON under `/api/` and as
/// a page elsewhere.
pub fn unavailable(api: bool) -> HttpResponse {
    let mut res = HttpResponse::ServiceUnavailable();
    res.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECS.to_string()));
    if api {
        return res.json(serde_json::json!({ "error": UNAVAILABLE }));
    }
    let page = ErrorPage {
        nav: Nav::anonymous(),
        back: None,
        status: StatusCode::SERVICE_UNAVAILABLE.as_u16(),
        title: "Try again in a moment",
        message: UNAVAILABLE.to_owned(),
    };
    match page.render() {
        Ok(html) => res.content_type(ContentType::html()).body(html),
        Err(_) => res.content_type(ContentType::plaintext()).body(UNAVAILABLE),
    }
}

/// A role refused, in words: `This is for pit manager and administrator accounts; yours is a
/// dealer account.`
fn role_refusal(role: crate::db::users::Role, allowed: &[crate::db::users::Role]) -> String {
    let names: Vec<String> = allowed.iter().map(|r| r.title().to_lowercase()).collect();
    let list = match names.as_slice() {
        [] => "no".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let yours = role.title().to_lowercase();
    let article = if yours.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("This is for {list} accounts; yours is {article} {yours} account.")
}
