//! Answers requests while the database is away: `503` with `Retry-After`, as JSON under `/api/`
//! and as a page elsewhere ([`error::unavailable`]), whether the handler found the database gone
//! or the session store did before it (actix-session answers a failed load or save with an
//! opaque 500 of its own, which is replaced here).

use actix_session::storage::{SaveError, UpdateError};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::{header, StatusCode};
use actix_web::middleware::Next;
use actix_web::Error;

use crate::web::error;

pub async fn answer(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let api = req.path().starts_with("/api/");
    let res = match next.call(req).await {
        Ok(res) => res.map_into_boxed_body(),
        Err(err) if is_session_store_failure(&err) => {
            tracing::warn!(error = %err, "session store unavailable");
            // The request is gone with the error; an error that answers with our response.
            return Err(InternalError::from_response(err, error::unavailable(api)).into());
        }
        Err(err) => return Err(err),
    };
    let html = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|ct| ct.as_bytes().starts_with(b"text/html"));
    if res.status() == StatusCode::SERVICE_UNAVAILABLE && api && html {
        let (request, _) = res.into_parts();
        return Ok(ServiceResponse::new(request, error::unavailable(true)));
    }
    Ok(res)
}

/// The session store's errors are the database's: it is its only backend. (actix-session
/// passes a failed load or delete on as the store's own `anyhow` error.)
fn is_session_store_failure(err: &Error) -> bool {
    err.as_error::<InternalError<anyhow::Error>>().is_some()
        || err.as_error::<InternalError<SaveError>>().is_some()
        || err.as_error::<InternalError<UpdateError>>().is_some()
}
