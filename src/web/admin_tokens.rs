//! API tokens for casino systems that integrate with us. Administrators issue a token for a
//! staff account (the integration then acts as that account), optionally until a set time, and
//! revoke it after confirming. Issuing is post/redirect/get: the token is kept in the session
//! only until the page after the redirect shows it, once, so a reload never issues another.
//! Each token is listed with its first characters, to tell tokens named alike apart. Pit
//! managers and auditors see the list read-only.

use actix_session::Session;
use actix_web::http::header::{CacheControl, CacheDirective, CACHE_CONTROL};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::config::Zone;
use crate::db::api_tokens::TokenRow;
use crate::db::ids::{TokenId, UserId};
use crate::db::users::Role;
use crate::pit::tokens::{self, IssueRefused};
use crate::web::error::AppError;
use crate::web::format::{typed_local_time, when};
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

/// Where the session keeps a token just issued until the next page shows it.
const ISSUED_KEY: &str = "issued_token";

pub struct TokenView {
    pub id: TokenId,
    pub name: String,
    pub prefix: String,
    pub username: String,
    pub role: String,
    pub issued: String,
    pub expires: Option<String>,
    /// `Live`, `Revoked …` or `Expired …`.
    pub status: String,
    pub live: bool,
}

impl TokenView {
    fn of(t: TokenRow, zone: Zone, now: DateTime<Utc>) -> TokenView {
        let expired = t.expires_at.filter(|at| *at <= now);
        let status = match (t.revoked_at, expired) {
            (Some(at), _) => format!("Revoked {}", when(at, zone)),
            (None, Some(at)) => format!("Expired {}", when(at, zone)),
            (None, None) => "Live".to_owned(),
        };
        TokenView {
            id: t.id,
            name: t.name,
            prefix: if t.prefix.is_empty() {
                "(not kept)".to_owned()
            } else {
                format!("{}…", t.prefix)
            },
            username: t.username,
            role: t
                .role
                .parse::<Role>()
                .map_or(t.role, |role| role.title().to_owned()),
            issued: when(t.created_at, zone),
            expires: t.expires_at.map(|at| when(at, zone)),
            live: t.revoked_at.is_none() && expired.is_none(),
            status,
        }
    }
}

pub struct AccountOption {
    pub id: i64,
    pub label: String,
    pub selected: bool,
}

/// A token just issued: shown once, on the page after the redirect.
#[derive(Serialize, Deserialize)]
pub struct Issued {
    pub name: String,
    pub token: String,
}

#[derive(Default)]
pub struct IssueErrors {
    pub name: Option<String>,
    pub user: Option<String>,
    pub expires: Option<String>,
}

#[derive(Template)]
#[template(path = "admin_tokens.html")]
struct TokensPage {
    nav: Nav,
    can_manage: bool,
    tokens: Vec<TokenView>,
    accounts: Vec<AccountOption>,
    name: String,
    expires_at: String,
    zone: String,
    errors: IssueErrors,
    issued: Option<Issued>,
}

#[derive(Template)]
#[template(path = "admin_token_revoke.html")]
struct RevokePage {
    nav: Nav,
    token: TokenView,
}

async fn page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    form: Option<&IssueForm>,
    errors: IssueErrors,
    issued: Option<Issued>,
) -> Result<TokensPage, AppError> {
    let (tokens, staff) = tokens::list(&state.db).await?;
    let chosen = form.and_then(|f| f.user_id.parse::<i64>().ok());
    let accounts = staff
        .iter()
        .filter(|u| !u.is_disabled() && u.role != Role::Admin)
        .map(|u| AccountOption {
            id: u.id.0,
            label: format!("{} ({})", u.username, u.role.title()),
            selected: chosen == Some(u.id.0),
        })
        .collect();
    let zone = state.config.zone();
    let now = Utc::now();
    Ok(TokensPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        tokens: tokens
            .into_iter()
            .map(|t| TokenView::of(t, zone, now))
            .collect(),
        accounts,
        name: form.map(|f| f.name.clone()).unwrap_or_default(),
        expires_at: form.map(|f| f.expires_at.clone()).unwrap_or_default(),
        zone: zone.label(),
        errors,
        issued,
    })
}

/// Keeps the page out of every cache: it may carry a token.
fn no_store(mut res: HttpResponse) -> HttpResponse {
    res.headers_mut().insert(
        CACHE_CONTROL,
        // A fixed, valid header value.
        CacheControl(vec![CacheDirective::NoStore])
            .to_string()
            .parse()
            .unwrap_or(actix_web::http::header::HeaderValue::from_static(
                "no-store",
            )),
    );
    res
}

/// `GET /admin/tokens`: the list, with a token just issued shown this once.
pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let issued = crate::web::session::take::<Issued>(&session, ISSUED_KEY);
    let page = page(
        &session,
        &state,
        &user,
        None,
        IssueErrors::default(),
        issued,
    )
    .await?;
    Ok(no_store(render(StatusCode::OK, &page)?))
}

#[derive(Deserialize)]
pub struct IssueForm {
    name: String,
    user_id: String,
    /// Optional: the casino's local time the token stops working, as `datetime-local` sends it.
    #[serde(default)]
    expires_at: String,
}

/// The expiry typed in the casino's local time `zone`: `Ok(None)` if left empty.
fn expiry(typed: &str, zone: Zone) -> Result<Option<DateTime<Utc>>, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Ok(None);
    }
    typed_local_time(typed, zone)
        .map(Some)
        .ok_or_else(|| {
            format!("Enter the expiry as a date and time such as 2026-12-31 18:00 ({zone}), or leave it empty.")
        })
}

/// `POST /admin/tokens`: issues a token, then redirects to the list, which shows it once.
#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn issue(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    form: web::Form<IssueForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let mut errors = IssueErrors::default();
    let user = form.user_id.parse::<i64>().ok().map(UserId);
    if user.is_none() {
        errors.user = Some("Choose the staff account the integration acts as.".to_owned());
    }
    let name = form.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 80 {
        errors.name = Some("Enter a name of 1 to 80 characters for the integration.".to_owned());
    }
    let expires_at = expiry(&form.expires_at, state.config.zone()).unwrap_or_else(|e| {
        errors.expires = Some(e);
        None
    });
    let Some(user) = user.filter(|_| errors.name.is_none() && errors.expires.is_none()) else {
        let page = page(&session, &state, &admin, Some(&form), errors, None).await?;
        return render(StatusCode::UNPROCESSABLE_ENTITY, &page);
    };
    let issued = tokens::issue(&state.db, name, user, expires_at, admin.actor(&req)).await?;
    match issued {
        Ok((_, token)) => {
            let issued = Issued {
                name: form.name.trim().to_owned(),
                token,
            };
            session.insert(ISSUED_KEY, issued)?;
            Ok(redirect("/admin/tokens#issued-token"))
        }
        Err(refused) => {
            let errors = match refused {
                IssueRefused::Expires(words) => IssueErrors {
                    expires: Some(words),
                    ..IssueErrors::default()
                },
                IssueRefused::User(words) => IssueErrors {
                    user: Some(words),
                    ..IssueErrors::default()
                },
            };
            let page = page(&session, &state, &admin, Some(&form), errors, None).await?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[derive(Deserialize)]
pub struct RevokeForm {
    /// `yes` once the administrator has confirmed; otherwise the confirmation is asked for.
    #[serde(default)]
    confirm: String,
}

/// `POST /admin/tokens/{id}/revoke`: asks for confirmation (revoking nothing), then, confirmed,
/// stops the token at once.
#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn revoke(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<RevokeForm>,
) -> Result<HttpResponse, AppError> {
    let id = TokenId(id.into_inner());
    if form.confirm != "yes" {
        let token = tokens::find(&state.db, id)
            .await?
            .ok_or(AppError::NotFound)?;
        let page = RevokePage {
            nav: session::nav(&session, Some(&admin))?,
            token: TokenView::of(token, state.config.zone(), Utc::now()),
        };
        return render(StatusCode::OK, &page);
    }
    let message = tokens::revoke(&state.db, id, admin.actor(&req)).await?;
    session::set_flash(&session, message)?;
    Ok(redirect("/admin/tokens"))
}
