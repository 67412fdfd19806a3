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
}

#[derive(Deserialize)]
pub struct LoginForm {
    username: String,
    password: String,
}

pub async fn login_form(session: Session) -> Result<HttpResponse, AppError> {
    if session::user_id(&session).is_some() {
        return Ok(redirect("/"));
    }
    let page = LoginPage {
        nav: session::nav(&session, None)?,
        username: String::new(),
        error: None,
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
    let LoginForm { username, password } = form.into_inner();
    let addr = client_addr(&req);
    let shown = username.trim().to_owned();
    let params = state.config.password_hash;
    let outcome = sign_in::sign_in(&state.db, username, password, params, addr).await?;
    match outcome {
        Some(user) => {
            tracing::info!("signed in");
            session::sign_in(&session, user.id)?;
            let next = if user.must_change_password {
                "/account/password"
            } else {
                "/"
            };
            Ok(redirect(next))
        }
        None => {
            let page = LoginPage {
                nav: session::nav(&session, None)?,
                username: shown,
                error: Some(REFUSED),
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
