//! The JSON API for round entry, for signed-in staff (the session cookie and an
//! `X-CSRF-Token` header): open the table's draft, save it, preview its settlement, confirm it.
//! Rounds are entered only by the dealer signed on at the table, or by a pit manager for the
//! dealer on shift there. Errors come back as JSON: 422 with `field_errors`, 409 on a stale
//! revision or when the writer may not enter rounds at the table, 404.

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use chrono::{NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::db::audit_log::Actor;
use crate::db::rounds::{
    self, Draft, Entry, RoundToSettle, RoundsError, SettledRound, TableInfo, Writer,
};
use crate::round_entry::{self, FieldErrors, Limits, RoundBody};
use crate::rules::settle::{settle, Round};
use crate::rules::wire::SettlementOut;
use crate::web::access::{self, client_addr, Caller, CurrentUser};
use crate::web::error::AppError;
use crate::web::AppState;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("not found")]
    NotFound,
    #[error("{}", .0.summary())]
    Invalid(FieldErrors),
    #[error("{0}")]
    Conflict(String),
    /// The writer is not signed on at the table (or nobody is, for a pit manager).
    #[error("{0}")]
    NotOnShift(String),
    #[error(transparent)]
    App(#[from] AppError),
}

impl From<RoundsError> for ApiError {
    fn from(err: RoundsError) -> Self {
        match err {
            RoundsError::NoDraft(_) | RoundsError::NoTable(_) => ApiError::NotFound,
            RoundsError::RevisionMismatch { .. }
            | RoundsError::AlreadySettled
            | RoundsError::KeyTaken(_)
            | RoundsError::Busy(_) => ApiError::Conflict(err.to_string()),
            RoundsError::NotSignedOn { .. } | RoundsError::NobodyOnShift { .. } => {
                ApiError::NotOnShift(err.to_string())
            }
            RoundsError::Query(err) => ApiError::App(err.into()),
            RoundsError::NoProfileVersion(_) | RoundsError::BadProfile { .. } => {
                tracing::error!(error = %err, "table cannot take rounds");
                ApiError::Conflict(err.to_string())
            }
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Conflict(_) | ApiError::NotOnShift(_) => StatusCode::CONFLICT,
            ApiError::App(err) => err.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        match self {
            ApiError::NotFound => HttpResponse::build(status)
                .json(json!({ "error": "There is no such table or round." })),
            ApiError::Invalid(errors) => HttpResponse::build(status)
                .json(json!({ "error": errors.summary(), "field_errors": errors })),
            ApiError::Conflict(message) | ApiError::NotOnShift(message) => {
                HttpResponse::build(status).json(json!({ "error": message }))
            }
            ApiError::App(err) => err.error_response(),
        }
    }
}

/// Who is entering rounds on this request.
pub(crate) fn writer(user: &CurrentUser) -> Writer {
    Writer {
        user: user.id,
        role: user.role,
    }
}

pub(crate) async fn run<T, F>(state: &AppState, f: F) -> Result<T, ApiError>
where
    F: FnOnce(&mut diesel::PgConnection) -> Result<T, ApiError> + Send + 'static,
    T: Send + 'static,
{
    state.db(|conn| Ok(f(conn))).await?
}

/// [`run`] for a handler that takes rounds, whose route checks API tokens itself
/// ([`access::TokenCheck::Handler`]): the caller is checked on the same database call as the work
/// (with the actor for its audit events), and the work runs only for a caller the route allows.
pub(crate) async fn run_as<T, F>(
    state: &AppState,
    req: &HttpRequest,
    caller: Caller,
    f: F,
) -> Result<T, ApiError>
where
    F: FnOnce(&mut diesel::PgConnection, &CurrentUser, Actor) -> Result<T, ApiError>
        + Send
        + 'static,
    T: Send + 'static,
{
    let addr = client_addr(req);
    let outcome = state
        .db(move |conn| {
            Ok(caller.user(conn)?.map(|user| {
                let actor = user.actor_at(addr);
                f(conn, &user, actor)
            }))
        })
        .await?;
    match outcome {
        Ok(done) => done,
        Err(refusal) => Err(access::refuse(state, req, refusal).await.into()),
    }
}

fn draft_body(draft: &Draft, table: &TableInfo) -> Value {
    json!({
        "key": draft.draft_key,
        "revision": draft.revision,
        "table": table.code,
        "status": "draft",
        "data": draft.data,
    })
}

/// A settled round as the API shows it: the round's fields with its status, table and key.
#[derive(Serialize)]
struct SettledBody<'a> {
    status: &'static str,
    table: &'a str,
    key: &'a str,
    #[serde(flatten)]
    round: &'a SettledRound,
}

/// The JSON of a settled round, written in one pass.
fn settled_body(round: &SettledRound, table: &TableInfo) -> Result<String, ApiError> {
    serde_json::to_string(&SettledBody {
        status: "settled",
        table: &table.code,
        key: &round.round.draft_key,
        round,
    })
    .map_err(|err| {
        RoundsError::Query(diesel::result::Error::SerializationError(Box::new(err))).into()
    })
}

pub(crate) fn load(
    conn: &mut diesel::PgConnection,
    key: &str,
) -> Result<(Draft, TableInfo), ApiError> {
    let draft = rounds::draft_by_key(conn, key)
        .map_err(RoundsError::from)?
        .ok_or(ApiError::NotFound)?;
    let table = rounds::table_by_id(conn, draft.table_id)?.ok_or(ApiError::NotFound)?;
    Ok((draft, table))
}

pub(crate) fn validate(body: &RoundBody, table: &TableInfo) -> Result<Round, ApiError> {
    let limits = Limits {
        currency: &table.currency,
        min_bet: table.min_bet,
        max_bet: table.max_bet,
    };
    round_entry::validate(body, &table.profile, limits).map_err(ApiError::Invalid)
}

/// The saved round of a draft, validated and settled.
pub(crate) fn settle_draft(
    draft: &Draft,
    table: &TableInfo,
) -> Result<(Round, SettlementOut), ApiError> {
    let body: RoundBody = serde_json::from_value(draft.data.clone())
        .map_err(|_| ApiError::Invalid(FieldErrors::round("the round has not been entered yet")))?;
    let round = validate(&body, table)?;
    let settlement =
        settle(&round).map_err(|err| ApiError::Invalid(FieldErrors::round(err.to_string())))?;
    let out = SettlementOut::new(&round, &settlement);
    Ok((round, out))
}

/// [`settle_draft`] for a confirm; when the round cannot be settled and the writer is not on
/// shift either, the shift is what they are told about first. (Checked only on that error path:
/// on the normal path `rounds::confirm` checks the shift under lock.)
pub(crate) fn settle_draft_for(
    conn: &mut diesel::PgConnection,
    draft: &Draft,
    table: &TableInfo,
    writer: Writer,
) -> Result<(Round, SettlementOut), ApiError> {
    settle_draft(draft, table).map_err(|err| match rounds::entry_shift(conn, table, writer) {
        Err(refused) => refused.into(),
        Ok(_) => err,
    })
}

/// Confirms a loaded, unsettled draft for `user`: refuses it if the caller saw another revision
/// (`expected`), validates and settles the revision loaded, and stores it ([`rounds::confirm`]
/// refuses any other revision and checks the writer's shift under lock).
pub(crate) fn confirm_draft(
    conn: &mut diesel::PgConnection,
    draft: &Draft,
    table: &TableInfo,
    expected: Option<i32>,
    gaming_day: NaiveDate,
    user: &CurrentUser,
    actor: &Actor,
) -> Result<(SettledRound, bool), ApiError> {
    if let Some(expected) = expected {
        if expected != draft.revision {
            return Err(RoundsError::RevisionMismatch {
                expected,
                current: draft.revision,
            }
            .into());
        }
    }
    let writer = writer(user);
    let (round, settlement) = settle_draft_for(conn, draft, table, writer)?;
    Ok(rounds::confirm(
        conn,
        &RoundToSettle {
            key: &draft.draft_key,
            table,
            gaming_day,
            writer,
            actor,
            round: &round,
            settlement: &settlement,
        },
        draft.revision,
    )?)
}

/// `POST /api/v1/tables/{code}/rounds`: the table's open draft (created if needed).
pub async fn open_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let code = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let (draft, table) = run_as(&state, &req, caller, move |conn, user, actor| {
        let table = rounds::table_by_code(conn, &code)?.ok_or(ApiError::NotFound)?;
        let (draft, _) = rounds::open_draft(conn, &table, writer(user), &actor, day)?;
        Ok((draft, table))
    })
    .await?;
    Ok(HttpResponse::Created().json(json!({
        "key": draft.draft_key,
        "revision": draft.revision,
        "table": table.code,
        "status": "draft",
    })))
}

#[derive(Debug, Deserialize)]
struct PutBody {
    #[serde(default)]
    revision: Option<i32>,
    #[serde(flatten)]
    round: RoundBody,
}

fn unreadable(err: &serde_json::Error) -> ApiError {
    ApiError::Invalid(FieldErrors::round(format!(
        "the round could not be read: {err}"
    )))
}

/// `PUT /api/v1/rounds/{key}`: validates and saves the entered round.
pub async fn save_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    let draft = run_as(&state, &req, caller, move |conn, user, _| {
        let put: PutBody = serde_json::from_slice(&body).map_err(|e| unreadable(&e))?;
        let writer = writer(user);
        let (draft, table) = load(conn, &key)?;
        if draft.settled_round_id.is_some() {
            return Err(RoundsError::AlreadySettled.into());
        }
        // Not signed on comes before what is wrong with the round.
        rounds::entry_shift(conn, &table, writer)?;
        validate(&put.round, &table)?;
        let data = serde_json::to_value(&put.round).map_err(|e| unreadable(&e))?;
        Ok(rounds::save_draft(
            conn,
            &table,
            writer,
            &key,
            put.revision,
            &data,
        )?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(json!({ "key": draft.draft_key, "revision": draft.revision })))
}

/// `POST /api/v1/rounds/{key}/preview`: the settlement the saved round would get.
pub async fn preview_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    let body = run_as(&state, &req, caller, move |conn, user, _| {
        let (draft, table) = load(conn, &key)?;
        rounds::entry_shift(conn, &table, writer(user))?;
        let (_, settlement) = settle_draft(&draft, &table)?;
        Ok(json!({
            "key": draft.draft_key,
            "revision": draft.revision,
            "table": table.code,
            "currency": table.currency,
            "rule_profile_version_id": table.profile_version_id,
            "settlement": settlement,
        }))
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}

#[derive(Debug, Default, Deserialize)]
struct ConfirmBody {
    #[serde(default)]
    revision: Option<i32>,
}

/// `POST /api/v1/rounds/{key}/confirm`: settles the round (201), or returns it if it already
/// was (200).
pub async fn confirm_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let (body, created) = run_as(&state, &req, caller, move |conn, user, actor| {
        let confirm_body: ConfirmBody = if body.iter().all(u8::is_ascii_whitespace) {
            ConfirmBody::default()
        } else {
            serde_json::from_slice(&body).map_err(|e| unreadable(&e))?
        };
        let (draft, table) = load(conn, &key)?;
        if let Some(id) = draft.settled_round_id {
            let round = rounds::get_round(conn, id)
                .map_err(RoundsError::from)?
                .ok_or(ApiError::NotFound)?;
            return Ok((settled_body(&round, &table)?, false));
        }
        let (settled, created) = confirm_draft(
            conn,
            &draft,
            &table,
            confirm_body.revision,
            day,
            user,
            &actor,
        )?;
        Ok((settled_body(&settled, &table)?, created))
    })
    .await?;
    Ok(settled_response(body, created))
}

/// A settled round: 201 when this request settled it, 200 when it already was.
fn settled_response(body: String, created: bool) -> HttpResponse {
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    HttpResponse::build(status)
        .content_type(ContentType::json())
        .body(body)
}

/// `GET /api/v1/rounds/{key}`: the draft, or the settled round.
pub async fn show_round(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    let body = run(&state, move |conn| {
        if rounds::draft_by_key(conn, &key)
            .map_err(RoundsError::from)?
            .is_none()
        {
            // A round recorded whole has no draft.
            let round = rounds::round_by_key(conn, &key)
                .map_err(RoundsError::from)?
                .ok_or(ApiError::NotFound)?;
            let table =
                rounds::table_by_id(conn, round.round.table_id)?.ok_or(ApiError::NotFound)?;
            return settled_body(&round, &table);
        }
        let (draft, table) = load(conn, &key)?;
        match draft.settled_round_id {
            Some(id) => {
                let round = rounds::get_round(conn, id)
                    .map_err(RoundsError::from)?
                    .ok_or(ApiError::NotFound)?;
                settled_body(&round, &table)
            }
            None => Ok(draft_body(&draft, &table).to_string()),
        }
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(body))
}

/// Whether a caller's one-time key is usable: 8 to 64 letters, digits and `.`, `_`, `:`, `-`.
fn check_key(key: &str) -> Result<(), ApiError> {
    let usable = (8..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if usable {
        Ok(())
    } else {
        let mut errors = FieldErrors::default();
        errors.add(
            "key",
            "the round's key must be 8 to 64 letters, digits, '.', '_', ':' or '-'",
        );
        Err(ApiError::Invalid(errors))
    }
}

/// `PUT /api/v1/tables/{code}/rounds/{key}`: records and settles a whole round in one call,
/// for casino systems that send rounds complete. `key` is the caller's one-time key: sending
/// the same round again (a retry) returns the round already stored (200) instead of settling
/// it twice (201 the first time).
pub async fn record_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (code, key) = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    if let Some(written) = record_remembered(&state, &req, &caller, &code, &key, day, &body).await {
        return Ok(settled_response(written, true));
    }
    let memos = state.table_memos.clone();
    // A token found good here is remembered, for this caller's next rounds.
    let token = match &caller {
        Caller::Token(token) => Some((state.checked_tokens.clone(), token.clone())),
        Caller::SignedIn(_) => None,
    };
    let (body, created) = run_as(&state, &req, caller, move |conn, user, actor| {
        if let Some((tokens, token)) = &token {
            tokens.remember(token, user);
        }
        // Read once the caller is known: a bad token hears 401, not what is wrong with its round.
        check_key(&key)?;
        let entered: RoundBody = serde_json::from_slice(&body).map_err(|e| unreadable(&e))?;
        let entry = Entry {
            key: &key,
            gaming_day: day,
            writer: writer(user),
            actor: &actor,
        };
        let (settled, table, created) = rounds::record(conn, &memos, &code, &entry, |table| {
            settle_entered(&entered, table)
        })?;
        Ok((settled_body(&settled, &table)?, created))
    })
    .await?;
    Ok(settled_response(body, created))
}

/// A whole round validated and settled under `table`'s limits and rules.
fn settle_entered(
    entered: &RoundBody,
    table: &TableInfo,
) -> Result<(Round, SettlementOut), ApiError> {
    let round = validate(entered, table)?;
    let settlement =
        settle(&round).map_err(|err| ApiError::Invalid(FieldErrors::round(err.to_string())))?;
    let settlement = SettlementOut::new(&round, &settlement);
    Ok((round, settlement))
}

/// The body of a whole round recorded from what this process remembers of the caller (a
/// signed-in user, or a token found good before) and of the table
/// ([`rounds::record_remembered`]): no database call but the write, which checks all it was
/// made from. `None`, with nothing written, when there is nothing to go on or anything is
/// amiss, the round or the key included: the round is then recorded the long way, which checks
/// the caller first and says what is wrong.
async fn record_remembered(
    state: &AppState,
    req: &HttpRequest,
    caller: &Caller,
    code: &str,
    key: &str,
    day: NaiveDate,
    body: &[u8],
) -> Option<String> {
    let (user, token) = match caller {
        Caller::SignedIn(user) => (user.clone(), None),
        Caller::Token(token) => {
            let (user, check) = state.checked_tokens.recall(token)?;
            (user, Some(check))
        }
    };
    check_key(key).ok()?;
    let entered: RoundBody = serde_json::from_slice(body).ok()?;
    let actor = user.actor_at(client_addr(req));
    let entry = Entry {
        key,
        gaming_day: day,
        writer: writer(&user),
        actor: &actor,
    };
    let written = rounds::record_remembered(
        &state.round_writer,
        &state.table_memos,
        code,
        &entry,
        token,
        |table| settle_entered(&entered, table),
    )
    .await;
    let Some((round, table)) = written else {
        if let Caller::Token(token) = caller {
            state.checked_tokens.forget(token);
        }
        return None;
    };
    settled_body(&round, &table).ok()
}
