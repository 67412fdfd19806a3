//! `AppError`: every way a request can fail, and the friendly page each one renders. Causes of
//! internal errors are logged, never shown.

use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

use crate::db::DbError;
use crate::password::HashError;
use crate::web::pages::Nav;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("The page you asked for does not exist.")]
    NotFound,
    #[error("Your account does not have access to this page.")]
    Forbidden,
    #[error("This form has expired or did not come from this site. Go back, reload the page and try again.")]
    CsrfRejected,
    #[error("The request could not be read.")]
    BadRequest,
    #[error("Sign in first.")]
    SignInRequired { api: bool },
    #[error("The API token is not valid: it is unknown, revoked, or its account is disabled.")]
    InvalidApiToken,
    #[error("Too many requests with an invalid API token; try again later.")]
    TooManyInvalidTokens { retry_after_secs: u64 },
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("a blocking task failed")]
    Blocking(#[from] actix_web::error::BlockingError),
    #[error("rendering a page failed")]
    Template(#[from] askama::Error),
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error("session storage failed: {0}")]
    Session(String),
    #[error(transparent)]
    Table(#[from] crate::db::tables::TableError),
    #[error(transparent)]
    Shift(#[from] crate::db::shifts::ShiftError),
}

impl From<diesel::result::Error> for AppError {
    fn from(err: diesel::result::Error) -> Self {
        AppError::Db(DbError::Query(err))
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
    status: u16,
    title: &'a str,
    message: String,
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::NotFound => StatusCode::NOT_FOUND,
            AppError::Forbidden | AppError::CsrfRejected => StatusCode::FORBIDDEN,
            AppError::BadRequest => StatusCode::BAD_REQUEST,
            AppError::SignInRequired { api: true } | AppError::InvalidApiToken => {
                StatusCode::UNAUTHORIZED
            }
            AppError::SignInRequired { api: false } => StatusCode::SEE_OTHER,
            AppError::TooManyInvalidTokens { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Db(err) if err.is_outage() => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Db(_)
            | AppError::Blocking(_)
            | AppError::Template(_)
            | AppError::Hash(_)
            | AppError::Session(_)
            | AppError::Table(_)
            | AppError::Shift(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if let AppError::SignInRequired { api: false } = self {
            return HttpResponse::SeeOther()
                .insert_header((header::LOCATION, "/login"))
                .finish();
        }
        if let AppError::TooManyInvalidTokens { retry_after_secs } = self {
            return HttpResponse::build(status)
                .insert_header((header::RETRY_AFTER, retry_after_secs.to_string()))
                .json(serde_json::json!({ "error": self.to_string() }));
        }
        if let AppError::InvalidApiToken = self {
            return HttpResponse::build(status)
                .insert_header((header::WWW_AUTHENTICATE, "Bearer"))
                .json(serde_json::json!({ "error": self.to_string() }));
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
            StatusCode::NOT_FOUND => ("Page not found", self.to_string()),
            StatusCode::FORBIDDEN => ("Access refused", self.to_string()),
            StatusCode::UNAUTHORIZED => ("Sign in first", self.to_string()),
            _ => ("Request refused", self.to_string()),
        };
        let page = ErrorPage {
            nav: Nav::anonymous(),
            status: status.as_u16(),
            title,
            message,
        };
        match page.render() {
            Ok(html) => HttpResponse::build(status)
                .content_type(ContentType::html())
                .body(html),
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
        status: StatusCode::SERVICE_UNAVAILABLE.as_u16(),
        title: "Try again in a moment",
        message: UNAVAILABLE.to_owned(),
    };
    match page.render() {
        Ok(html) => res.content_type(ContentType::html()).body(html),
        Err(_) => res.content_type(ContentType::plaintext()).body(UNAVAILABLE),
    }
}
