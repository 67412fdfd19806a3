//! API tokens for casino systems that integrate with us. Administrators issue a token for a
//! staff account (the integration then acts as that account) and revoke it; the token is shown
//! once, on the page that issued it. Pit managers and auditors see the list read-only.

use actix_session::Session;
use actix_web::http::header::{CacheControl, CacheDirective};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::db::api_tokens::{self, IssueError, Revoked};
use crate::db::ids::{TokenId, UserId};
use crate::db::users::{self, Role};
use crate::web::error::AppError;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct TokenView {
    pub id: TokenId,
    pub name: String,
    pub username: String,
    pub role: String,
    pub issued: String,
    pub revoked: Option<String>,
}

pub struct AccountOption {
    pub id: i64,
    pub label: String,
    pub selected: bool,
}

/// A token just issued: shown once.
pub struct Issued {
    pub name: String,
    pub token: String,
}

#[derive(Default)]
pub struct IssueErrors {
    pub name: Option<String>,
    pub user: Option<String>,
}

#[derive(Template)]
#[template(path = "admin_tokens.html")]
struct TokensPage {
    nav: Nav,
    can_manage: bool,
    tokens: Vec<TokenView>,
    accounts: Vec<AccountOption>,
    name: String,
    errors: IssueErrors,
    issued: Option<Issued>,
}

async fn page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    form: Option<&IssueForm>,
    errors: IssueErrors,
    issued: Option<Issued>,
) -> Result<TokensPage, AppError> {
    let (tokens, staff) = state
        .db(|conn| Ok((api_tokens::list(conn)?, users::list(conn)?)))
        .await?;
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
    let zone = state.config.utc_offset;
    let tokens = tokens
        .into_iter()
        .map(|t| TokenView {
            id: t.id,
            name: t.name,
            username: t.username,
            role: t
                .role
                .parse::<Role>()
                .map_or(t.role, |role| role.title().to_owned()),
            issued: when(t.created_at, zone),
            revoked: t.revoked_at.map(|at| when(at, zone)),
        })
        .collect();
    Ok(TokensPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        tokens,
        accounts,
        name: form.map(|f| f.name.clone()).unwrap_or_default(),
        errors,
        issued,
    })
}

/// `GET /admin/tokens`
pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let page = page(&session, &state, &user, None, IssueErrors::default(), None).await?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct IssueForm {
    name: String,
    user_id: String,
}

/// `POST /admin/tokens`: issues a token and shows it once.
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
    let Some(user) = user.filter(|_| errors.name.is_none()) else {
        let page = page(&session, &state, &admin, Some(&form), errors, None).await?;
        return render(StatusCode::UNPROCESSABLE_ENTITY, &page);
    };
    let actor = admin.actor(&req);
    let issued = state
        .db(
            move |conn| match api_tokens::issue(conn, &name, user, &actor) {
                Ok(issued) => Ok(Ok(issued)),
                Err(IssueError::Query(err)) => Err(err.into()),
                Err(other) => Ok(Err(other)),
            },
        )
        .await?;
    match issued {
        Ok((_, token)) => {
            let issued = Issued {
                name: form.name.trim().to_owned(),
                token,
            };
            let page = page(
                &session,
                &state,
                &admin,
                None,
                IssueErrors::default(),
                Some(issued),
            )
            .await?;
            let mut res = render(StatusCode::CREATED, &page)?;
            // The token is on this page and nowhere else: keep it out of every cache.
            res.headers_mut().insert(
                actix_web::http::header::CACHE_CONTROL,
                CacheControl(vec![CacheDirective::NoStore])
                    .to_string()
                    .parse()
                    .map_err(|_| AppError::BadRequest)?,
            );
            Ok(res)
        }
        Err(err) => {
            let errors = IssueErrors {
                user: Some(format!(
                    "{}.",
                    crate::web::format::capitalised(&err.to_string())
                )),
                ..IssueErrors::default()
            };
            let page = page(&session, &state, &admin, Some(&form), errors, None).await?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

/// `POST /admin/tokens/{id}/revoke`: the token stops working at once.
#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn revoke(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = TokenId(id.into_inner());
    let actor = admin.actor(&req);
    let revoked = state
        .db(move |conn| Ok(api_tokens::revoke(conn, id, &actor)?))
        .await?;
    let message = match revoked {
        Revoked::Now => "Token revoked: it no longer works.",
        Revoked::Already => "That token was already revoked.",
        Revoked::NoSuchToken => return Err(AppError::NotFound),
    };
    session::set_flash(&session, message)?;
    Ok(redirect("/admin/tokens"))
}
