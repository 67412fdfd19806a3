//! Security headers on every response, errors included.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, Error};

use crate::web::state::AppState;

/// No inline script or style anywhere; every asset comes from this origin.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; \
     base-uri 'none'; object-src 'none'";

pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let hsts = req
        .app_data::<web::Data<AppState>>()
        .is_some_and(|s| s.config.hsts)
        || req.connection_info().scheme() == "https";
    // Inner layers answer errors with pages (`req.error_response`), so they pass through here.
    // Only a failing session store raises an `Err`, answered by actix with an empty 500.
    // (Keeping a clone of the request to build a page here is not possible: actix's router
    // needs the request uniquely.)
    let mut res = next.call(req).await?.map_into_boxed_body();
    let headers = res.headers_mut();
    let mut fixed = vec![
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ];
    if hsts {
        fixed.push((
            header::STRICT_TRANSPORT_SECURITY,
            "max-age=31536000; includeSubDomains",
        ));
    }
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(res)
}
