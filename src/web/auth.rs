//! Signing in and out.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::pit::sign_in;
use crate::web::error::AppError;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::{client_addr, CurrentUser};

/// One message for every refusal, so the page does not tell which names exist or are locked.
const REFUSED: &str = "Wrong user name or password, or the account is locked or disabled. \
                       After five failed attempts a pit manager must unlock the account.";

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    nav: Nav,
    username: String,
    error: Option<&'static str>,
    /// Where to go once signed in (a page of this site), or empty.
    next: String,
}

#[derive(Deserialize)]
pub struct LoginForm {
    username: String,
    password: String,
    #[serde(default)]
    next: String,
}

/// `?next=` on the sign-in page: where a screen that was signed out goes back to.
#[derive(Deserialize)]
pub struct Next {
    #[serde(default)]
    next: String,
}

/// `next` if it is a path on this site (`/tables/PUSOY-01`), never another site
/// (`//evil.example`, `https://...`, `/\evil.example`).
fn local_path(next: &str) -> Option<&str> {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control);
    local.then_some(next)
}

pub async fn login_form(
    session: Session,
    query: web::Query<Next>,
) -> Result<HttpResponse, AppError> {
    let next = local_path(&query.next).unwrap_or_default().to_owned();
    if session::user_id(&session).is_some() {
        return Ok(redirect(if next.is_empty() { "/" } else { &next }));
    }
    let page = LoginPage {
        nav: session::nav(&session, None)?,
        username: String::new(),
        error: None,
        next,
    };
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(username = %form.username))]
pub async fn login(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    form: web::Form<LoginForm>,
) -> Result<HttpResponse, AppError> {
    let LoginForm {
        username,
        password,
        next,
    } = form.into_inner();
    let next = local_path(&next).unwrap_or_default().to_owned();
    let addr = client_addr(&req);
    let shown = username.trim().to_owned();
    let params = state.config.password_hash;
    let outcome = sign_in::sign_in(&state.db, username, password, params, addr).await?;
    match outcome {
        Some(user) => {
            tracing::info!("signed in");
            session::sign_in(&session, user.id)?;
            let to = if user.must_change_password {
                "/account/password"
            } else if !next.is_empty() {
                &next
            } else {
                "/"
            };
            Ok(redirect(to))
        }
        None => {
            let page = LoginPage {
                nav: session::nav(&session, None)?,
                username: shown,
                error: Some(REFUSED),
                next,
            };
            render(StatusCode::UNAUTHORIZED, &page)
        }
    }
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn logout(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let actor = user.actor(&req);
    let target = users_target(&user);
    sign_in::sign_out(&state.db, actor, target).await?;
    session.purge();
    Ok(redirect("/login"))
}

fn users_target(user: &CurrentUser) -> String {
    format!("user:{}", user.username)
}
