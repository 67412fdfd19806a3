//! The JSON API for round entry, for signed-in staff (the session cookie and an
//! `X-CSRF-Token` header) and integrations (an API token): open the table's draft, save it,
//! preview its settlement, confirm it, or record a whole round in one call. Each handler reads
//! the request, calls one use-case of [`crate::recording`] and writes its answer; errors are
//! [`AppError`]s, answered as JSON under `/api/`.

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::db::rounds::rows::SettledRound;
use crate::db::tables::PlayingTable;
use crate::db::users::User;
use crate::pit::access::Refused;
use crate::pit::rounds;
use crate::recording::drafts::Shown;
use crate::recording::whole::{self, Entry};
use crate::recording::{RoundsError, Writer};
use crate::web::access::{self, Caller};
use crate::web::error::AppError;
use crate::web::state::AppState;
use crate::web::user::{client_addr, CurrentUser};

/// Who is entering rounds on this request.
pub(crate) fn writer(user: &CurrentUser) -> Writer {
    Writer {
        user: user.id,
        role: user.role,
    }
}

/// Who a round request comes from, as [`rounds`] checks it: a token is checked on the same
/// database turn as the work ([`access::TokenCheck::Handler`]), and the work runs only for a
/// caller the route allows.
fn caller_of(caller: &Caller) -> rounds::Caller {
    match caller {
        Caller::SignedIn(user) => rounds::Caller::SignedIn(account(user)),
        Caller::Token(token) => token.unchecked(),
    }
}

fn account(user: &CurrentUser) -> rounds::Account {
    rounds::Account {
        id: user.id,
        username: user.username.clone(),
        role: user.role,
    }
}

/// The work's answer, or the caller's refusal answered as the access check would.
async fn answer<T>(
    state: &AppState,
    req: &HttpRequest,
    outcome: Result<T, Refused>,
) -> Result<T, AppError> {
    match outcome {
        Ok(done) => Ok(done),
        Err(refused) => Err(access::refuse(state, req, refused.into()).await),
    }
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
fn settled_body(round: &SettledRound, table: &PlayingTable) -> Result<String, AppError> {
    serde_json::to_string(&SettledBody {
        status: "settled",
        table: &table.table.code,
        key: round.round.draft_key.as_str(),
        round,
    })
    .map_err(AppError::from)
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

/// A request body as `T`; an unreadable one is refused as the round's error.
fn read<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, RoundsError> {
    serde_json::from_slice(body)
        .map_err(|err| RoundsError::round(format!("the round could not be read: {err}")))
}

/// `POST /api/v1/tables/{code}/rounds`: the table's open draft (created if needed).
pub async fn open_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let code = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let opened = rounds::open(&state.db, caller_of(&caller), client_addr(&req), code, day).await?;
    let (draft, table) = answer(&state, &req, opened).await?;
    Ok(HttpResponse::Created().json(json!({
        "key": draft.draft_key,
        "revision": draft.revision,
        "table": table.table.code,
        "status": "draft",
    })))
}

/// The revision the caller saw, from a draft's round as sent (`revision` beside the round's
/// fields, which are read for the table's game).
fn take_revision(round: &mut serde_json::Value) -> Result<Option<i32>, RoundsError> {
    let Some(fields) = round.as_object_mut() else {
        return Err(RoundsError::round(
            "the round could not be read: send a JSON object",
        ));
    };
    match fields.remove("revision") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(revision) => serde_json::from_value(revision).map(Some).map_err(|err| {
            RoundsError::round(format!("the round could not be read: revision: {err}"))
        }),
    }
}

/// `PUT /api/v1/rounds/{key}`: validates and saves the entered round.
pub async fn save_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let key = path.into_inner();
    let round = read::<serde_json::Value>(&body).and_then(|mut round| {
        let revision = take_revision(&mut round)?;
        Ok((round, revision))
    });
    let addr = client_addr(&req);
    let saved = rounds::save(&state.db, caller_of(&caller), addr, key, round).await?;
    let draft = answer(&state, &req, saved).await?;
    Ok(HttpResponse::Ok().json(json!({ "key": draft.draft_key, "revision": draft.revision })))
}

/// `POST /api/v1/rounds/{key}/preview`: the settlement the saved round would get.
pub async fn preview_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let key = path.into_inner();
    let previewed = rounds::preview(&state.db, caller_of(&caller), client_addr(&req), key).await?;
    let (draft, table, settlement) = answer(&state, &req, previewed).await?;
    Ok(HttpResponse::Ok().json(json!({
        "key": draft.draft_key,
        "revision": draft.revision,
        "table": table.table.code,
        "currency": table.table.currency,
        "rule_profile_version_id": table.profile_version_id,
        "game": table.game(),
        "settlement": settlement,
    })))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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
) -> Result<HttpResponse, AppError> {
    let key = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    let revision = if body.iter().all(u8::is_ascii_whitespace) {
        Ok(None)
    } else {
        read::<ConfirmBody>(&body).map(|confirm| confirm.revision)
    };
    let addr = client_addr(&req);
    let confirmed =
        rounds::confirm(&state.db, caller_of(&caller), addr, key, revision, day).await?;
    let (settled, table, created) = answer(&state, &req, confirmed).await?;
    Ok(settled_response(settled_body(&settled, &table)?, created))
}

/// `GET /api/v1/rounds/{key}`: the draft, or the settled round, to those who may read it
/// ([`crate::recording::may_read`]).
pub async fn show_round(
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let key = path.into_inner();
    let body = match rounds::show(&state.db, key, writer(&user)).await? {
        Shown::Settled(round, table) => settled_body(&round, &table)?,
        Shown::Draft(draft, table) => json!({
            "key": draft.draft_key,
            "revision": draft.revision,
            "table": table.table.code,
            "status": "draft",
            "data": draft.data,
        })
        .to_string(),
    };
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(body))
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
) -> Result<HttpResponse, AppError> {
    let (code, key) = path.into_inner();
    let day = state.config.gaming_day(Utc::now());
    if let Some(written) = record_remembered(&state, &req, &caller, &code, &key, day, &body).await {
        return Ok(settled_response(written, true));
    }
    // A token found good here is remembered, for this caller's next rounds.
    let tokens = state.checked_tokens.clone();
    let secret = match &caller {
        Caller::Token(token) => Some(token.secret().to_owned()),
        Caller::SignedIn(_) => None,
    };
    let remember = move |user: &User| {
        if let Some(secret) = &secret {
            tokens.remember(secret, &CurrentUser::of(user, None));
        }
    };
    let round = rounds::Whole {
        code,
        key,
        body,
        day,
        memos: state.table_memos.clone(),
    };
    let addr = client_addr(&req);
    let recorded = rounds::record(&state.db, caller_of(&caller), addr, round, remember).await?;
    let (settled, table, created) = answer(&state, &req, recorded).await?;
    let body = settled_body(&settled, &table)?;
    Ok(settled_response(body, created))
}

/// The body of a whole round recorded from what this process remembers of the caller (a
/// signed-in user, or a token found good before) and of the table
/// ([`whole::record_remembered`]): no database call but the write, which checks all it was
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
            let (user, check) = state.checked_tokens.recall(token.secret(), |u| u.role)?;
            if !token.allows(user.role) {
                return None;
            }
            (user, Some(check))
        }
    };
    let actor = user.actor_at(client_addr(req));
    let entry = Entry {
        key,
        gaming_day: day,
        writer: writer(&user),
        actor: &actor,
    };
    let written = whole::record_remembered(
        &state.round_writer,
        &state.table_memos,
        code,
        &entry,
        body,
        token,
    )
    .await;
    let Some((round, table)) = written else {
        if let Caller::Token(token) = caller {
            state.checked_tokens.forget(token.secret());
        }
        return None;
    };
    settled_body(&round, &table).ok()
}
