//! Authorisation, denied by default. [`RULES`] declares, for every route the app serves, which
//! roles may use it; the [`authorize`] middleware looks each request up there. A route missing
//! from the table is refused for everyone, a signed-out visitor is sent to sign in (401 under
//! `/api/`), and a signed-in user of the wrong role gets 403 and an `authz.denied` audit event.
//!
//! Under `/api/` a request may instead carry `Authorization: Bearer <token>` with an API token
//! an administrator issued: it then acts as the token's account, with no session and no CSRF
//! token (there is no cookie for a forged request to ride on). A bad token is refused with 401.

use std::future::{ready, Ready};

use actix_session::SessionExt;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{web, Error, FromRequest, HttpMessage, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use governor::clock::{Clock, DefaultClock};
use serde_json::json;

use crate::db::api_tokens;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::users::{self, Role, User, UserId};
use crate::web::error::AppError;
use crate::web::session;
use crate::web::AppState;

/// Who may use a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    /// Anyone, signed in or not.
    Public,
    /// Signed-in users with one of these roles.
    Roles(&'static [Role]),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub method: &'static str,
    /// The route pattern exactly as registered, e.g. `/admin/users/{id}/unlock`.
    pub pattern: &'static str,
    pub allow: Allow,
}

const fn rule(method: &'static str, pattern: &'static str, allow: Allow) -> Rule {
    Rule {
        method,
        pattern,
        allow,
    }
}

const EVERY_ROLE: Allow = Allow::Roles(&Role::ALL);
const ADMIN: Allow = Allow::Roles(&[Role::Admin]);
/// Who may see the staff list: administrators manage it, pit managers unlock accounts,
/// auditors review who has access.
const STAFF_VIEWERS: Allow = Allow::Roles(&[Role::Admin, Role::Supervisor, Role::Auditor]);
/// Who enters and confirms rounds at a table.
const ROUND_WRITERS: Allow = Allow::Roles(&[Role::Dealer, Role::Supervisor]);
/// Who may read rounds: those who enter them, and auditors.
const ROUND_READERS: Allow = Allow::Roles(&[Role::Dealer, Role::Supervisor, Role::Auditor]);
const DEALER: Allow = Allow::Roles(&[Role::Dealer]);
const UNLOCKERS: Allow = Allow::Roles(&[Role::Admin, Role::Supervisor]);

/// Every route of the application and who may use it.
pub const RULES: &[Rule] = &[
    rule("GET", "/login", Allow::Public),
    rule("POST", "/login", Allow::Public),
    rule("GET", "/static/{file}", Allow::Public),
    rule("GET", "/healthz", Allow::Public),
    rule("GET", "/", EVERY_ROLE),
    rule("POST", "/logout", EVERY_ROLE),
    rule("GET", "/account/password", EVERY_ROLE),
    rule("POST", "/account/password", EVERY_ROLE),
    rule("GET", "/admin/users", STAFF_VIEWERS),
    rule("POST", "/admin/users", ADMIN),
    rule("POST", "/admin/users/{id}/disable", ADMIN),
    rule("POST", "/admin/users/{id}/enable", ADMIN),
    rule("POST", "/admin/users/{id}/reset-password", ADMIN),
    rule("POST", "/admin/users/{id}/unlock", UNLOCKERS),
    rule("POST", "/api/v1/tables/{code}/rounds", ROUND_WRITERS),
    rule("PUT", "/api/v1/tables/{code}/rounds/{key}", ROUND_WRITERS),
    rule("GET", "/api/v1/rounds/{key}", ROUND_READERS),
    rule("PUT", "/api/v1/rounds/{key}", ROUND_WRITERS),
    rule("POST", "/api/v1/rounds/{key}/preview", ROUND_WRITERS),
    rule("POST", "/api/v1/rounds/{key}/confirm", ROUND_WRITERS),
    rule("GET", "/admin/tables", STAFF_VIEWERS),
    rule("POST", "/admin/tables", ADMIN),
    rule("POST", "/admin/tables/{id}", ADMIN),
    rule("GET", "/admin/profiles", STAFF_VIEWERS),
    rule("POST", "/admin/profiles", ADMIN),
    rule("POST", "/admin/profiles/{id}", ADMIN),
    rule("GET", "/admin/tokens", STAFF_VIEWERS),
    rule("POST", "/admin/tokens", ADMIN),
    rule("POST", "/admin/tokens/{id}/revoke", ADMIN),
    rule("GET", "/tables", EVERY_ROLE),
    rule("POST", "/tables/{code}/sign-on", DEALER),
    rule("POST", "/tables/{code}/sign-off", DEALER),
    rule("GET", "/tables/{code}", ROUND_WRITERS),
    rule("POST", "/tables/{code}/round", ROUND_WRITERS),
    rule("POST", "/tables/{code}/round/check", ROUND_WRITERS),
    rule("GET", "/tables/{code}/rounds/{round_id}", ROUND_READERS),
];

/// Routes a user who must change their password may still use.
const WHILE_PASSWORD_MUST_CHANGE: &[&str] = &["/account/password", "/logout"];

enum Lookup {
    Found(&'static Rule),
    /// The route exists, but not for this method.
    OtherMethods(String),
    Undeclared,
}

fn lookup(method: &str, pattern: &str) -> Lookup {
    if let Some(rule) = RULES
        .iter()
        .find(|r| r.method == method && r.pattern == pattern)
    {
        return Lookup::Found(rule);
    }
    let others: Vec<&str> = RULES
        .iter()
        .filter(|r| r.pattern == pattern)
        .map(|r| r.method)
        .collect();
    if others.is_empty() {
        Lookup::Undeclared
    } else {
        Lookup::OtherMethods(others.join(", "))
    }
}

/// Put in a request's extensions when it was authenticated by an API token (the token's id),
/// which exempts it from the CSRF check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiTokenAuth(pub i64);

/// The bearer token of a request, if it sent one.
fn bearer_token(req: &ServiceRequest) -> Option<String> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
}

/// The signed-in user of the current request, put there by [`authorize`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentUser {
    pub id: UserId,
    pub username: String,
    pub display_name: String,
    pub role: Role,
    pub signed_in_at: Option<DateTime<Utc>>,
}

impl CurrentUser {
    pub fn actor(&self, req: &HttpRequest) -> Actor {
        Actor::user(self.id, &self.username, client_addr(req))
    }
}

impl FromRequest for CurrentUser {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.extensions()
                .get::<CurrentUser>()
                .cloned()
                .ok_or(AppError::SignInRequired { api: false }),
        )
    }
}

/// The client's address as the server saw it (no proxy headers are trusted).
pub fn client_addr(req: &HttpRequest) -> Option<String> {
    req.peer_addr().map(|addr| addr.ip().to_string())
}

/// The actor for an audit event about this request.
pub fn actor_of(user: Option<&CurrentUser>, req: &HttpRequest) -> Actor {
    match user {
        Some(user) => user.actor(req),
        None => Actor::anonymous(client_addr(req)),
    }
}

pub async fn authorize(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    // No pattern: no route matches, and the default service answers 404.
    let Some(pattern) = req.match_pattern() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let rule = match lookup(req.method().as_str(), &pattern) {
        Lookup::Found(rule) => rule,
        Lookup::OtherMethods(allowed) => {
            let res = HttpResponse::MethodNotAllowed()
                .insert_header((header::ALLOW, allowed))
                .finish();
            return Ok(req.into_response(res));
        }
        Lookup::Undeclared => {
            tracing::error!(%pattern, method = %req.method(), "route has no access rule; refused");
            return Ok(req.error_response(AppError::Forbidden));
        }
    };
    let roles = match rule.allow {
        Allow::Public => return Ok(next.call(req).await?.map_into_boxed_body()),
        Allow::Roles(roles) => roles,
    };
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Err(AppError::Session("application state missing".to_owned()).into());
    };
    let is_api = req.path().starts_with("/api/");
    let sign_in_first = AppError::SignInRequired { api: is_api };
    let mut token_id = None;
    let user: User = match bearer_token(&req).filter(|_| is_api) {
        Some(token) => {
            let found = state
                .db(move |conn| Ok(api_tokens::authenticate(conn, &token)?))
                .await;
            match found {
                Ok(Some((id, user))) => {
                    token_id = Some(id);
                    user
                }
                Ok(None) => return Ok(refuse_token(&state, req).await),
                Err(err) => return Ok(req.error_response(err)),
            }
        }
        None => {
            let session = req.get_session();
            let Some(user_id) = session::user_id(&session) else {
                return Ok(req.error_response(sign_in_first));
            };
            match state.db(move |conn| Ok(users::find(conn, user_id)?)).await {
                Ok(Some(user)) if !user.is_disabled() => user,
                Ok(_) => {
                    session.purge();
                    return Ok(req.error_response(sign_in_first));
                }
                Err(err) => return Ok(req.error_response(err)),
            }
        }
    };
    let current = CurrentUser {
        id: user.id,
        username: user.username.clone(),
        display_name: user.display_name.clone(),
        role: user.role,
        signed_in_at: session::signed_in_at(&req.get_session()),
    };
    if !roles.contains(&user.role) {
        let actor = current.actor(req.request());
        let target = format!("{} {}", req.method(), req.path());
        tracing::warn!(user = %user.username, %target, "authorisation refused");
        let recorded = state
            .db(move |conn| {
                audit_log::append(
                    conn,
                    &NewAuditEvent::system(&actor, "authz.denied", target)
                        .details(json!({ "role": user.role.as_str() })),
                )?;
                Ok(())
            })
            .await;
        return Ok(req.error_response(recorded.err().unwrap_or(AppError::Forbidden)));
    }
    // An integration has no password page to go to; its account's password is never used.
    if token_id.is_none()
        && user.must_change_password
        && !WHILE_PASSWORD_MUST_CHANGE.contains(&pattern.as_str())
    {
        let res = HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/account/password"))
            .finish();
        return Ok(req.into_response(res));
    }
    req.extensions_mut().insert(current);
    if let Some(id) = token_id {
        req.extensions_mut().insert(ApiTokenAuth(id));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

/// Answers 401 to a request with an unknown or revoked token, and records the attempt (never
/// the token itself).
///
/// An address that keeps sending bad tokens is limited like sign-in attempts (the same burst and
/// rate, counted separately): beyond it the answer is 429 and nothing is written, so a flood of
/// bad tokens cannot fill the audit trail or hold up its `system` chain.
async fn refuse_token(state: &AppState, req: ServiceRequest) -> ServiceResponse<BoxBody> {
    let addr = client_addr(req.request());
    let target = format!("{} {}", req.method(), req.path());
    if let Err(not_until) = state
        .refused_tokens
        .check_key(&addr.clone().unwrap_or_default())
    {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        tracing::warn!(%target, "too many invalid API tokens from one address; not recorded");
        let res = HttpResponse::TooManyRequests()
            .insert_header((header::RETRY_AFTER, wait.as_secs().max(1).to_string()))
            .json(
                json!({ "error": "Too many requests with an invalid API token; try again later." }),
            );
        return req.into_response(res);
    }
    let actor = Actor::anonymous(addr);
    tracing::warn!(%target, "refused an API request with an invalid token");
    let recorded = state
        .db(move |conn| {
            audit_log::append(
                conn,
                &NewAuditEvent::system(&actor, "api_token.refused", target),
            )?;
            Ok(())
        })
        .await;
    req.error_response(recorded.err().unwrap_or(AppError::InvalidApiToken))
}
