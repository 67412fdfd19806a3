//! Authorisation, denied by default. [`RULES`] declares, for every route the app serves, which
//! roles may use it; the [`authorize`] middleware looks each request up there. A route missing
//! from the table is refused for everyone, a signed-out visitor is sent to sign in (401 under
//! `/api/`), and a signed-in user of the wrong role gets 403 and an `authz.denied` audit event.
//!
//! Under `/api/` a request may instead carry `Authorization: Bearer <token>` with an API token
//! an administrator issued: it then acts as the token's account, with no session and no CSRF
//! token (there is no cookie for a forged request to ride on). A bad token is refused with 401:
//! by the middleware, or on the routes that take rounds by their handler, on the same database
//! call as its work and before it reads the body ([`TokenCheck`]). A whole round sent with a
//! token found good before is written by a statement that checks the token again
//! ([`RememberedTokens`](crate::recording::tokens::RememberedTokens)); if it is no longer good, nothing is written and the request is checked
//! as above.

use std::future::{ready, Ready};

use actix_session::SessionExt;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{web, Error, FromRequest, HttpMessage, HttpRequest, HttpResponse};
use governor::clock::{Clock, DefaultClock};
use serde_json::json;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::Actor;
use crate::db::ids::UserId;
use crate::db::users::{Role, User};
use crate::pit::{access, rounds};
use crate::web::error::AppError;
use crate::web::refusals;
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::{client_addr, CurrentUser};

/// Who may use a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    /// Anyone, signed in or not.
    Public,
    /// Signed-in users with one of these roles.
    Roles(&'static [Role]),
}

/// Where a route's API tokens are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenCheck {
    /// By [`authorize`], before the handler runs.
    Middleware,
    /// By the handler, on the same database call as its work, through [`Caller`]: one query and
    /// one trip to the database fewer per request, for the routes that take rounds. The handler
    /// must take a [`Caller`] (a [`CurrentUser`] is not there to take, so a handler that asks for
    /// one refuses every token with 401).
    Handler,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub method: &'static str,
    /// The route pattern exactly as registered, e.g. `/admin/users/{id}/unlock`.
    pub pattern: &'static str,
    pub allow: Allow,
    pub token: TokenCheck,
}

const fn rule(method: &'static str, pattern: &'static str, allow: Allow) -> Rule {
    Rule {
        method,
        pattern,
        allow,
        token: TokenCheck::Middleware,
    }
}

/// `rule`, for a route whose handler checks API tokens ([`TokenCheck::Handler`]).
const fn token_checked_by_handler(rule: Rule) -> Rule {
    Rule {
        token: TokenCheck::Handler,
        ..rule
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
/// Who may open the Exports page: auditors and administrators, and those who read players'
/// ratings (their export). The use-case says which kinds each may download
/// (`pit::exports::kinds_for`).
const EXPORTERS: Allow = Allow::Roles(&[
    Role::Auditor,
    Role::Admin,
    Role::Host,
    Role::Compliance,
    Role::Supervisor,
]);
/// Who reads every settled round and the review queue: pit managers and administrators, who
/// decide on rounds, and auditors.
const REVIEW_READERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Admin, Role::Auditor]);
/// Who approves, voids and enters rounds again.
const REVIEWERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Admin]);
/// Who reads a settled round's page: those who enter rounds (a dealer, of their own shift
/// only), and the review's readers.
const ROUND_PAGE_READERS: Allow =
    Allow::Roles(&[Role::Dealer, Role::Supervisor, Role::Admin, Role::Auditor]);
const UNLOCKERS: Allow = Allow::Roles(&[Role::Admin, Role::Supervisor]);
/// Who verifies and searches the audit trail.
const AUDITORS: Allow = Allow::Roles(&[Role::Auditor, Role::Admin]);
/// Who may see the gaming days and their seals.
const DAY_VIEWERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Admin, Role::Auditor]);
/// Who closes a gaming day.
const DAY_CLOSERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Admin]);
/// Who counts a table's chips and signs its slips (the dealer, a supervisor, an administrator
/// standing in as one).
const SLIP_SIGNERS: Allow = Allow::Roles(&[Role::Dealer, Role::Supervisor, Role::Admin]);
/// Who watches the pit and reads its reports: pit managers, administrators, auditors.
const PIT_WATCHERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Admin, Role::Auditor]);

/// Who reads the cage's desk: the cashiers, and administrators and auditors.
const CAGE_READERS: Allow = Allow::Roles(&[Role::Cashier, Role::Admin, Role::Auditor]);
/// Who issues fills and credits: the cage.
const CASHIERS: Allow = Allow::Roles(&[Role::Cashier]);
/// Who requests a fill or credit at a table: pit managers.
const SLIP_REQUESTERS: Allow = Allow::Roles(&[Role::Supervisor]);
/// Who signs a fill or credit received at the table: the dealer and a pit manager.
const SLIP_RECEIVERS: Allow = Allow::Roles(&[Role::Dealer, Role::Supervisor]);
/// Who signs a void of a fill or credit (one of the two must not be from the pit).
const SLIP_VOIDERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Cashier, Role::Admin]);
/// Who prints a slip: whoever handles it.
const SLIP_PRINTERS: Allow =
    Allow::Roles(&[Role::Dealer, Role::Supervisor, Role::Cashier, Role::Admin]);
/// Who reads a slip and its prints: whoever handles it, and auditors.
const SLIP_READERS: Allow = Allow::Roles(&[
    Role::Dealer,
    Role::Supervisor,
    Role::Cashier,
    Role::Admin,
    Role::Auditor,
]);
/// Who reads a gaming day's slips: the pit, the cage, auditors and the count team.
const SLIP_LISTERS: Allow = Allow::Roles(&[
    Role::Supervisor,
    Role::Cashier,
    Role::Admin,
    Role::Auditor,
    Role::Count,
]);
/// Who reads the count team's pages: the count team, and pit managers, administrators and
/// auditors.
const COUNT_READERS: Allow =
    Allow::Roles(&[Role::Count, Role::Supervisor, Role::Admin, Role::Auditor]);
/// Who signs a count: the count team.
const COUNTERS: Allow = Allow::Roles(&[Role::Count]);
/// Who voids a count: an administrator, or a counter who signed none of it.
const COUNT_VOIDERS: Allow = Allow::Roles(&[Role::Count, Role::Admin]);

/// Who records buy-ins and table fees: the dealer on shift (the use-case checks the table), a
/// pit manager or an administrator at the table's tablet.
const DROP_WRITERS: Allow = Allow::Roles(&[Role::Dealer, Role::Supervisor, Role::Admin]);
/// Who reads a table's buy-ins and fees: those who record them, and auditors.
const DROP_READERS: Allow =
    Allow::Roles(&[Role::Dealer, Role::Supervisor, Role::Admin, Role::Auditor]);
/// Who voids a buy-in or a fee: a pit manager or an administrator (never its recorder).
const DROP_VOIDERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Admin]);

/// Who reads players' records: hosts, compliance officers and auditors (all of it), pit
/// managers (name, status, ratings). The use-case decides what each sees.
const PLAYER_READERS: Allow = Allow::Roles(&[
    Role::Host,
    Role::Compliance,
    Role::Auditor,
    Role::Supervisor,
]);
/// Who registers players and corrects their records.
const PLAYER_KEEPERS: Allow = Allow::Roles(&[Role::Host, Role::Compliance]);
/// Who sets a player's status: the keepers, and pit managers (who bar on the floor).
const STATUS_SETTERS: Allow = Allow::Roles(&[Role::Host, Role::Compliance, Role::Supervisor]);
/// Who reads a day's rated play (players named by card and name): the players' readers.
const RATED_PLAY_READERS: Allow = PLAYER_READERS;
/// Who seats rated players and ends their ratings: as for buy-ins.
const RATERS: Allow = DROP_WRITERS;
/// Who records, ends and voids unrated observations: pit managers (the use-case keeps a void
/// from whoever recorded it).
const OBSERVERS: Allow = Allow::Roles(&[Role::Supervisor]);
/// Who reads a table's unrated observations: pit managers and auditors.
const OBSERVATION_READERS: Allow = Allow::Roles(&[Role::Supervisor, Role::Auditor]);

/// Who reads the cage's cash desk: the cage, administrators, auditors and compliance officers.
const CAGE_CASH_READERS: Allow =
    Allow::Roles(&[Role::Cashier, Role::Admin, Role::Auditor, Role::Compliance]);
/// Who voids the cage's cash: a cashier or an administrator (never its recorder).
const CAGE_CASH_VOIDERS: Allow = Allow::Roles(&[Role::Cashier, Role::Admin]);
/// Who reads the compliance cases (they hold players' identification): compliance officers and
/// auditors.
const CASE_READERS: Allow = Allow::Roles(&[Role::Compliance, Role::Auditor]);
/// Who decides on a case: compliance officers.
const CASE_DECIDERS: Allow = Allow::Roles(&[Role::Compliance]);
/// Who reads the compliance thresholds: the case readers and administrators (who set them).
const THRESHOLD_READERS: Allow = Allow::Roles(&[Role::Compliance, Role::Auditor, Role::Admin]);

/// Every route of the application and who may use it.
pub const RULES: &[Rule] = &[
    rule("GET", "/login", Allow::Public),
    rule("POST", "/login", Allow::Public),
    rule("GET", "/static/{file}", Allow::Public),
    rule("GET", "/health", Allow::Public),
    rule("GET", "/healthz", Allow::Public),
    rule("GET", "/", EVERY_ROLE),
    rule("POST", "/logout", EVERY_ROLE),
    rule("GET", "/account/password", EVERY_ROLE),
    rule("POST", "/account/password", EVERY_ROLE),
    rule("GET", "/account/pin", EVERY_ROLE),
    rule("POST", "/account/pin", EVERY_ROLE),
    rule("POST", "/account/pin/remove", EVERY_ROLE),
    rule("GET", "/admin/users", STAFF_VIEWERS),
    rule("POST", "/admin/users", ADMIN),
    rule("POST", "/admin/users/{id}/disable", ADMIN),
    rule("POST", "/admin/users/{id}/enable", ADMIN),
    rule("POST", "/admin/users/{id}/reset-password", ADMIN),
    rule("POST", "/admin/users/{id}/clear-pin", ADMIN),
    rule("POST", "/admin/users/{id}/unlock", UNLOCKERS),
    token_checked_by_handler(rule("POST", "/api/v1/tables/{code}/rounds", ROUND_WRITERS)),
    token_checked_by_handler(rule(
        "PUT",
        "/api/v1/tables/{code}/rounds/{key}",
        ROUND_WRITERS,
    )),
    rule("GET", "/api/v1/rounds/{key}", ROUND_READERS),
    token_checked_by_handler(rule("PUT", "/api/v1/rounds/{key}", ROUND_WRITERS)),
    token_checked_by_handler(rule("POST", "/api/v1/rounds/{key}/preview", ROUND_WRITERS)),
    token_checked_by_handler(rule("POST", "/api/v1/rounds/{key}/confirm", ROUND_WRITERS)),
    rule("GET", "/admin/tables", STAFF_VIEWERS),
    rule("POST", "/admin/tables", ADMIN),
    rule("POST", "/admin/tables/{id}", ADMIN),
    rule("POST", "/admin/tables/{id}/confirm-prompt", ADMIN),
    rule("GET", "/admin/profiles", STAFF_VIEWERS),
    rule("POST", "/admin/profiles", ADMIN),
    rule("POST", "/admin/profiles/{id}", ADMIN),
    rule("GET", "/admin/chips", STAFF_VIEWERS),
    rule("POST", "/admin/chips", ADMIN),
    rule("GET", "/admin/comp", STAFF_VIEWERS),
    rule("POST", "/admin/comp", ADMIN),
    rule("POST", "/admin/chips/{id}", ADMIN),
    rule("GET", "/admin/tables/{id}/par", STAFF_VIEWERS),
    rule("POST", "/admin/tables/{id}/par", ADMIN),
    rule("GET", "/admin/tokens", STAFF_VIEWERS),
    rule("POST", "/admin/tokens", ADMIN),
    rule("POST", "/admin/tokens/{id}/revoke", ADMIN),
    rule("GET", "/cage", CAGE_READERS),
    rule("GET", "/cage/slips/{id}", SLIP_READERS),
    rule("POST", "/cage/slips/{id}/issue", CASHIERS),
    rule("POST", "/cage/slips/{id}/receive", SLIP_RECEIVERS),
    rule("POST", "/cage/slips/{id}/void", SLIP_VOIDERS),
    rule("POST", "/cage/slips/{id}/print", SLIP_PRINTERS),
    rule("GET", "/cage/prints/{id}", SLIP_READERS),
    rule("GET", "/cage/slips", SLIP_LISTERS),
    rule("GET", "/cage/cash", CAGE_CASH_READERS),
    rule("POST", "/cage/cash", CASHIERS),
    rule("POST", "/cage/cash/{id}/void", CAGE_CASH_VOIDERS),
    rule("GET", "/compliance", CASE_READERS),
    rule("GET", "/compliance/cases/{id}", CASE_READERS),
    rule("POST", "/compliance/cases/{id}/decision", CASE_DECIDERS),
    rule("GET", "/compliance/thresholds", THRESHOLD_READERS),
    rule("POST", "/compliance/thresholds", ADMIN),
    rule("GET", "/count", COUNT_READERS),
    rule("GET", "/count/{day}/{code}", COUNT_READERS),
    rule("POST", "/count/{day}/{code}", COUNTERS),
    rule("POST", "/count/{day}/{code}/{id}/void", COUNT_VOIDERS),
    rule("GET", "/tables/{code}/cage", SLIP_RECEIVERS),
    rule("POST", "/tables/{code}/cage", SLIP_REQUESTERS),
    rule("GET", "/tables/{code}/buy-ins", DROP_READERS),
    rule("POST", "/tables/{code}/buy-ins", DROP_WRITERS),
    rule("POST", "/tables/{code}/buy-ins/{id}/void", DROP_VOIDERS),
    rule("POST", "/tables/{code}/fees", DROP_WRITERS),
    rule("POST", "/tables/{code}/fees/{id}/void", DROP_VOIDERS),
    rule("GET", "/api/v1/tables/{code}/buy-ins", DROP_READERS),
    rule("POST", "/api/v1/tables/{code}/buy-ins", DROP_WRITERS),
    rule("GET", "/players", PLAYER_READERS),
    rule("POST", "/players", PLAYER_KEEPERS),
    rule("POST", "/players/exclusions", PLAYER_KEEPERS),
    rule("GET", "/reports/players", RATED_PLAY_READERS),
    rule("GET", "/players/{id}", PLAYER_READERS),
    rule("POST", "/players/{id}", PLAYER_KEEPERS),
    rule("POST", "/players/{id}/status", STATUS_SETTERS),
    rule("POST", "/tables/{code}/ratings", RATERS),
    rule("POST", "/tables/{code}/ratings/{seat}/{step}", RATERS),
    rule("POST", "/api/v1/tables/{code}/ratings", RATERS),
    rule(
        "POST",
        "/api/v1/tables/{code}/ratings/{seat}/{step}",
        RATERS,
    ),
    rule("GET", "/tables/{code}/observations", OBSERVATION_READERS),
    rule("POST", "/tables/{code}/observations", OBSERVERS),
    rule("POST", "/tables/{code}/observations/{id}/{step}", OBSERVERS),
    rule("GET", "/tables", EVERY_ROLE),
    rule("POST", "/tables/{code}/sign-on", DEALER),
    rule("POST", "/tables/{code}/sign-off", ROUND_WRITERS),
    rule("GET", "/tables/{code}/sign-off", ROUND_WRITERS),
    rule("GET", "/tables/{code}", ROUND_WRITERS),
    rule("GET", "/tables/{code}/round", ROUND_WRITERS),
    rule("GET", "/tables/{code}/slips", ROUND_PAGE_READERS),
    rule("POST", "/tables/{code}/slips", SLIP_SIGNERS),
    rule("POST", "/tables/{code}/slips/{id}/void", DAY_CLOSERS),
    rule("POST", "/tables/{code}/slips/{id}/explanation", DAY_CLOSERS),
    rule("POST", "/tables/{code}/round", ROUND_WRITERS),
    rule("POST", "/tables/{code}/round/check", ROUND_WRITERS),
    rule("GET", "/api/v1/tables/{code}/house-way", ROUND_WRITERS),
    rule(
        "GET",
        "/tables/{code}/rounds/{round_id}",
        ROUND_PAGE_READERS,
    ),
    rule("GET", "/review", REVIEW_READERS),
    rule("POST", "/review/rounds/{id}/approve", REVIEWERS),
    rule("POST", "/review/rounds/{id}/void", REVIEWERS),
    rule("GET", "/review/rounds/{id}/reenter", REVIEWERS),
    rule("POST", "/review/rounds/{id}/reenter", REVIEWERS),
    rule("GET", "/audit", AUDITORS),
    rule("POST", "/audit/verify", AUDITORS),
    rule("GET", "/audit/events", AUDITORS),
    rule("GET", "/days", DAY_VIEWERS),
    rule("GET", "/days/{day}", DAY_VIEWERS),
    rule("POST", "/days/{day}/close", DAY_CLOSERS),
    rule("GET", "/pit", PIT_WATCHERS),
    rule("GET", "/api/v1/pit", PIT_WATCHERS),
    rule("GET", "/reports", PIT_WATCHERS),
    rule("GET", "/reports/csv", PIT_WATCHERS),
    rule("GET", "/reports/accounting", PIT_WATCHERS),
    rule("GET", "/reports/accounting/csv", PIT_WATCHERS),
    rule("GET", "/reports/accounting/hold.svg", PIT_WATCHERS),
    rule(
        "POST",
        "/reports/accounting/investigations/{id}/close",
        DAY_CLOSERS,
    ),
    rule("GET", "/reports/house-way", PIT_WATCHERS),
    rule("GET", "/reports/house-way/csv", PIT_WATCHERS),
    rule("POST", "/reports/recheck", REVIEWERS),
    rule("GET", "/reports/charts/hours.svg", PIT_WATCHERS),
    rule("GET", "/reports/charts/tables.svg", PIT_WATCHERS),
    rule("GET", "/reports/shifts/{id}/chart.svg", PIT_WATCHERS),
    rule("GET", "/audit/exports", EXPORTERS),
    rule("GET", "/audit/exports/download", EXPORTERS),
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

/// Put in the extensions of an API request that carries an API token, which exempts it from
/// the CSRF check (no cookie is involved). The token is checked before the handler runs, or by
/// the handler before it uses the database ([`TokenCheck`]); a bad one is refused with 401.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiTokenAuth;

/// An API token not checked yet, on a route whose handler checks it ([`TokenCheck::Handler`]),
/// with the roles the route allows.
#[derive(Debug, Clone)]
pub struct PendingToken {
    token: String,
    roles: &'static [Role],
}

/// Who a request acts for, on a route whose handler checks API tokens: a signed-in user (as
/// checked by [`authorize`]), or a token checked with the work ([`PendingToken::unchecked`]).
#[derive(Debug, Clone)]
pub enum Caller {
    SignedIn(CurrentUser),
    Token(PendingToken),
}

impl FromRequest for Caller {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let extensions = req.extensions();
        let caller = match (
            extensions.get::<CurrentUser>(),
            extensions.get::<PendingToken>(),
        ) {
            (Some(user), _) => Ok(Caller::SignedIn(user.clone())),
            (None, Some(token)) => Ok(Caller::Token(token.clone())),
            (None, None) => Err(AppError::SignInRequired { api: true }),
        };
        ready(caller)
    }
}

/// Why a request is refused after [`authorize`] let it through to its handler.
#[derive(Debug, Clone)]
pub enum Refusal {
    /// The API token is unknown or revoked, or its account is disabled.
    BadToken,
    /// The account has a role the route does not allow (it allows these).
    Role(User, &'static [Role]),
    /// The handler refused this user the page, for the reason given.
    Page(User, &'static str),
}

impl PendingToken {
    /// Whether the route allows an account of `role`.
    pub fn allows(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }

    /// The token as sent (never logged).
    pub fn secret(&self) -> &str {
        &self.token
    }

    /// The token, to be checked with the work it asks for ([`crate::pit::rounds`]).
    pub fn unchecked(&self) -> rounds::Caller {
        rounds::Caller::Token {
            token: self.token.clone(),
            roles: self.roles,
        }
    }
}

impl From<access::Refused> for Refusal {
    fn from(refused: access::Refused) -> Self {
        match refused {
            access::Refused::BadToken => Refusal::BadToken,
            access::Refused::Role(user, roles) => Refusal::Role(user, roles),
        }
    }
}

/// The bearer token of a request, if it sent one.
fn bearer_token(req: &ServiceRequest) -> Option<String> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
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
    let token = bearer_token(&req).filter(|_| is_api);
    let by_token = token.is_some();
    let user: User = match token {
        Some(token) => {
            req.extensions_mut().insert(ApiTokenAuth);
            let pending = PendingToken { token, roles };
            if rule.token == TokenCheck::Handler {
                req.extensions_mut().insert(pending);
                return Ok(next.call(req).await?.map_into_boxed_body());
            }
            match access::token_user(&state.db, pending.token, pending.roles).await {
                Ok(Ok(user)) => user,
                Ok(Err(refusal)) => {
                    let refused = refuse(&state, req.request(), refusal.into()).await;
                    return Ok(req.error_response(refused));
                }
                Err(err) => return Ok(req.error_response(AppError::from(err))),
            }
        }
        None => {
            let session = req.get_session();
            let Some(user_id) = session::user_id(&session) else {
                return Ok(req.error_response(sign_in_first));
            };
            match access::session_user(&state.db, user_id).await {
                Ok(Some(user)) if !user.is_disabled() => user,
                Ok(_) => {
                    session.purge();
                    return Ok(req.error_response(sign_in_first));
                }
                Err(err) => return Ok(req.error_response(AppError::from(err))),
            }
        }
    };
    let current = CurrentUser::of(&user, session::signed_in_at(&req.get_session()));
    // A signed-in user's role (a token's was checked with the token).
    if !roles.contains(&user.role) {
        let refused = refuse(&state, req.request(), Refusal::Role(user, roles)).await;
        // The refusal's page is drawn with this user's navigation bar (`error_answers::error_answers`).
        req.extensions_mut().insert(current);
        return Ok(req.error_response(refused));
    }
    // An integration has no password page to go to; its account's password is never used.
    if !by_token
        && user.must_change_password
        && !WHILE_PASSWORD_MUST_CHANGE.contains(&pattern.as_str())
    {
        let res = HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/account/password"))
            .finish();
        return Ok(req.into_response(res));
    }
    req.extensions_mut().insert(current);
    let res = next.call(req).await?.map_into_boxed_body();
    // A handler's own refusal (a page this user may not read, e.g. another table's round) is
    // recorded as the middleware's are. Only signed-in users of an allowed role get this far,
    // so these events are bounded by what staff do, not by what the internet sends.
    let reason = res
        .response()
        .error()
        .and_then(|err| err.as_error::<AppError>())
        .and_then(|err| match err {
            AppError::ForbiddenBecause(reason) => Some(*reason),
            _ => None,
        });
    match reason {
        Some(reason) => {
            let refused = refuse(&state, res.request(), Refusal::Page(user, reason)).await;
            match refused {
                AppError::ForbiddenBecause(_) => Ok(res),
                // The refusal could not be recorded: answer that instead.
                other => Ok(res.into_response(HttpResponse::from_error(other))),
            }
        }
        None => Ok(res),
    }
}

/// Records a refused request and gives the error to answer it with: 403 and an `authz.denied`
/// event for a user of the wrong role; 401 and an `api_token.refused` event (never with the
/// token itself) for a bad token.
///
/// An address that keeps sending bad tokens is limited like sign-in attempts (the same burst and
/// rate, counted separately): beyond it the answer is 429 and nothing is written, so a flood of
/// bad tokens cannot fill the audit trail or hold up its `system` chain.
pub async fn refuse(state: &AppState, req: &HttpRequest, refusal: Refusal) -> AppError {
    let addr = client_addr(req);
    let target = format!("{} {}", req.method(), req.path());
    let (actor, mut action, details, answer) = match refusal {
        Refusal::Role(user, allowed) => {
            tracing::warn!(user = %user.username, %target, "authorisation refused");
            let actor = Actor::user(user.id, &user.username, addr);
            let details = json!({ "role": user.role.as_str() });
            let answer = AppError::ForbiddenRole {
                role: user.role,
                allowed,
            };
            (actor, Some(AuditAction::AuthzDenied), details, answer)
        }
        Refusal::Page(user, reason) => {
            tracing::warn!(user = %user.username, %target, "page refused");
            let actor = Actor::user(user.id, &user.username, addr);
            let details = json!({ "role": user.role.as_str(), "reason": reason });
            (
                actor,
                Some(AuditAction::AuthzDenied),
                details,
                AppError::ForbiddenBecause(reason),
            )
        }
        Refusal::BadToken => {
            if let Err(not_until) = state
                .refused_tokens
                .check_key(&addr.clone().unwrap_or_default())
            {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                refusals::log(
                    &state.refusal_log,
                    req,
                    "too many invalid API tokens from one address; not recorded",
                );
                return AppError::TooManyInvalidTokens {
                    retry_after_secs: wait.as_secs().max(1),
                };
            }
            refusals::log(
                &state.refusal_log,
                req,
                "refused an API request with an invalid token",
            );
            let details = json!({});
            let actor = Actor::anonymous(addr);
            (
                actor,
                Some(AuditAction::ApiTokenRefused),
                details,
                AppError::InvalidApiToken,
            )
        }
    };
    // A signed-in account's refusals: one row per account, route and minute, the rest counted
    // (and recorded as one `authz.denied_repeatedly` when the minute is over); beyond
    // DENIALS_PER_MINUTE a minute the account is answered 429.
    let mut repeated = Vec::new();
    let mut answer = answer;
    if let Some(user_id) = actor
        .user_id
        .filter(|_| action == Some(AuditAction::AuthzDenied))
    {
        let pattern = req.match_pattern().unwrap_or_else(|| req.path().to_owned());
        let key = format!("{}|{}|{} {pattern}", user_id.0, actor.name, req.method());
        let verdict = state
            .denials
            .note(&key, chrono::Utc::now().timestamp().div_euclid(60));
        repeated = verdict.repeated;
        if let Err(not_until) = state.denied_accounts.check_key(&user_id.0) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            answer = AppError::TooManyRefusals {
                retry_after_secs: wait.as_secs().max(1),
            };
        }
        if !verdict.record && repeated.is_empty() {
            return answer;
        }
        if !verdict.record {
            action = None;
        }
    }
    let mut events = Vec::new();
    if let Some(action) = action {
        events.push(access::SystemEvent {
            actor,
            action,
            target,
            details,
        });
    }
    for repeated in repeated {
        let mut parts = repeated.client_addr.splitn(3, '|');
        let (Some(id), Some(name), Some(route)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let minute = chrono::DateTime::from_timestamp(repeated.minute * 60, 0).unwrap_or_default();
        events.push(access::SystemEvent {
            actor: Actor::user(UserId(id.parse().unwrap_or_default()), name, None),
            action: AuditAction::AuthzDeniedRepeatedly,
            target: route.to_owned(),
            details: json!({ "count": repeated.count, "minute": minute }),
        });
    }
    let recorded = access::record(&state.db, events).await;
    recorded.err().map(AppError::from).unwrap_or(answer)
}
