//! How a failed request is answered, whatever failed: as JSON under `/api/` and to the screen's
//! fetches, and as a page with the user's navigation bar and a link back elsewhere. Beside
//! [`error`](super::error), which says what each [`AppError`] is, so that the error type needs
//! neither the session nor the signed-in user.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpResponse};
use serde_json::json;

use crate::web::error::AppError;
use crate::web::user::CurrentUser;

/// Middleware: a request under `/api/`, or one that accepts only JSON (`table.js`'s checks),
/// that fails with an [`AppError`] is answered with [`AppError::json_response`]; a page refused
/// to a signed-in user is drawn with their navigation bar and a link back to where they were.
pub async fn error_answers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let wants_json = req.path().starts_with("/api/")
        || req
            .headers()
            .get(header::ACCEPT)
            .and_then(|accept| accept.to_str().ok())
            .is_some_and(|accept| accept.trim() == "application/json");
    let res = next.call(req).await?.map_into_boxed_body();
    if !wants_json {
        let page = match res
            .response()
            .error()
            .and_then(|e| e.as_error::<AppError>())
        {
            Some(err) if res.status().is_client_error() => signed_in_page(&res, err),
            _ => None,
        };
        return Ok(match page {
            Some(page) => res.into_response(page),
            None => res,
        });
    }
    let json = match res.response().error() {
        Some(err) => match err.as_error::<AppError>() {
            Some(err) => Some(err.json_response()),
            None => Some(other_error_json(res.status(), &err.to_string())),
        },
        // An error answered without an error value (a method the route does not take).
        None if is_error(&res) && !is_json(&res) => Some(other_error_json(res.status(), "")),
        None => None,
    };
    Ok(match json {
        Some(json) => res.into_response(json),
        None => res,
    })
}

/// `err` drawn for the signed-in user of `res`'s request (none when nobody is signed in): the
/// navigation bar, and a link back to the page the request came from.
fn signed_in_page(res: &ServiceResponse<BoxBody>, err: &AppError) -> Option<HttpResponse> {
    use actix_session::SessionExt;
    let req = res.request();
    let user = req.extensions().get::<CurrentUser>().cloned()?;
    let session = req.get_session();
    let nav = crate::web::session::nav(&session, Some(&user)).ok()?;
    Some(err.page_with(nav, came_from(req)))
}

/// The path and query of the page of this site that `req` came from (its `Referer`), if it is
/// not the address refused itself.
fn came_from(req: &actix_web::HttpRequest) -> Option<String> {
    let referer = req.headers().get(header::REFERER)?.to_str().ok()?;
    let info = req.connection_info();
    let after_scheme = referer.split_once("://")?.1;
    let path = after_scheme.strip_prefix(info.host())?;
    let here = match req.query_string() {
        "" => req.path().to_owned(),
        query => format!("{}?{query}", req.path()),
    };
    (path.starts_with('/') && path != here).then(|| path.to_owned())
}

fn is_error<B>(res: &ServiceResponse<B>) -> bool {
    res.status().is_client_error() || res.status().is_server_error()
}

fn is_json<B>(res: &ServiceResponse<B>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"))
}

/// JSON for an error that is not an [`AppError`] (actix's own: a body too large, a method not
/// allowed...): its status, and its message for a client error (the status's name when it has
/// none); a server error's cause is logged, never shown.
fn other_error_json(status: StatusCode, message: &str) -> HttpResponse {
    let message = if status.is_server_error() {
        tracing::error!(error = %message, %status, "request failed");
        "The application hit an error; it has been logged."
    } else if message.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("The request was refused.")
    } else {
        message
    };
    HttpResponse::build(status).json(json!({ "error": message }))
}
