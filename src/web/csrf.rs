//! CSRF protection for every state-changing request, whatever its route: the synchronizer
//! token kept in the server-side session must come back in the `csrf_token` form field or the
//! `X-CSRF-Token` header. Anything else is refused with 403 and an audit event (one per client
//! address and minute, with a count of the rest: [`crate::web::refusals`]). Requests
//! authenticated by an API token (no cookie involved) need no CSRF token.

use actix_session::SessionExt;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method};
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::{Error, HttpMessage};
use chrono::{DateTime, Utc};
use serde_json::json;
use subtle::ConstantTimeEq;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::Actor;
use crate::pit::access::{self, SystemEvent};
use crate::web::access::ApiTokenAuth;
use crate::web::error::AppError;
use crate::web::refusals;
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::{actor_of, client_addr, CurrentUser};

pub const FIELD: &str = "csrf_token";
pub const HEADER: &str = "x-csrf-token";

pub async fn verify(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        || req.extensions().get::<ApiTokenAuth>().is_some()
    {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let expected = session::existing_csrf_token(&req.get_session());
    let mut provided = req
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    if provided.is_none() && is_form {
        let body = match req.extract::<Bytes>().await {
            Ok(body) => body,
            Err(_) => return Ok(req.error_response(AppError::BadRequest)),
        };
        provided = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body)
            .ok()
            .and_then(|fields| fields.into_iter().find(|(k, _)| k == FIELD))
            .map(|(_, v)| v);
        // Put the body back for the handler's own form extractor.
        req.set_payload(Payload::from(body));
    }
    let valid = match (&expected, &provided) {
        (Some(expected), Some(provided)) => {
            bool::from(expected.as_bytes().ct_eq(provided.as_bytes()))
        }
        _ => false,
    };
    if valid {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let reason = match (expected, provided) {
        (None, _) => "no token in session",
        (_, None) => "no token sent",
        _ => "token mismatch",
    };
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(req.error_response(AppError::CsrfRejected));
    };
    refusals::log(
        &state.refusal_log,
        req.request(),
        "refused a request without a valid CSRF token",
    );
    // Recorded before anything else is done for the request, and at most once per address and
    // minute: a flood of refused requests must not fill the audit trail.
    let addr = client_addr(req.request());
    let minute = Utc::now().timestamp().div_euclid(60);
    let verdict = state
        .refusals
        .note(addr.as_deref().unwrap_or_default(), minute);
    if !verdict.record && verdict.repeated.is_empty() {
        return Ok(req.error_response(AppError::CsrfRejected));
    }
    let user = req.extensions().get::<CurrentUser>().cloned();
    let actor = actor_of(user.as_ref(), req.request());
    let target = format!("{} {}", req.method(), req.path());
    let mut events = Vec::new();
    if verdict.record {
        events.push(SystemEvent {
            actor,
            action: AuditAction::CsrfRejected,
            target,
            details: json!({ "reason": reason }),
        });
    }
    for repeated in verdict.repeated {
        let minute = DateTime::from_timestamp(repeated.minute * 60, 0).unwrap_or_default();
        events.push(SystemEvent {
            actor: Actor::anonymous(Some(repeated.client_addr.clone())),
            action: AuditAction::CsrfRejectedRepeatedly,
            target: format!("client:{}", repeated.client_addr),
            details: json!({ "count": repeated.count, "minute": minute }),
        });
    }
    let recorded = access::record(&state.db, events)
        .await
        .map_err(AppError::from);
    Ok(req.error_response(recorded.err().unwrap_or(AppError::CsrfRejected)))
}
