//! Signing in and out.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::users::{self, FailedSignIn, User};
use crate::password;
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

enum Outcome {
    SignedIn(User),
    Refused,
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
    let name = username.clone();
    let shown = username.trim().to_owned();
    let params = state.config.password_hash;
    let here = Actor::anonymous(addr.clone());
    let (user, locked_here) = state
        .db(move |conn| {
            let user = users::find_by_username(conn, &name)?;
            let locked = match &user {
                Some(user) => users::locked_for(conn, user.id, &here)?,
                None => false,
            };
            Ok((user, locked))
        })
        .await?;
    // A lock holds at the address whose wrong passwords made it, and nowhere else.
    let refused_because = match &user {
        None => Some("unknown user"),
        Some(u) if u.is_disabled() => Some("account disabled"),
        Some(_) if locked_here => Some("account locked"),
        Some(_) => None,
    };
    let outcome = match (user, refused_because) {
        (_, Some(reason)) => {
            // Spend the time of a real check so the answer's speed tells nothing.
            web::block(move || password::verify_dummy(&password, params)).await?;
            let actor = Actor::anonymous(addr);
            state
                .db(move |conn| {
                    Ok(users::record_refused_sign_in(
                        conn, &username, reason, &actor,
                    )?)
                })
                .await?;
            Outcome::Refused
        }
        (Some(user), None) => {
            let stored = user.password_hash.clone();
            let matches = web::block(move || password::verify(&password, &stored)).await??;
            if matches {
                let actor = Actor::user(user.id, &user.username, addr);
                let signed_in = user.clone();
                state
                    .db(move |conn| Ok(users::record_sign_in(conn, &signed_in, &actor)?))
                    .await?;
                Outcome::SignedIn(user)
            } else {
                let actor = Actor::anonymous(addr);
                let failed = state
                    .db(move |conn| Ok(users::record_failed_sign_in(conn, &user, &actor)?))
                    .await?;
                if failed == FailedSignIn::LockedNow {
                    tracing::warn!("account locked after repeated failures");
                }
                Outcome::Refused
            }
        }
        (None, None) => Outcome::Refused,
    };
    match outcome {
        Outcome::SignedIn(user) => {
            tracing::info!("signed in");
            session::sign_in(&session, user.id)?;
            let next = if user.must_change_password {
                "/account/password"
            } else {
                "/"
            };
            Ok(redirect(next))
        }
        Outcome::Refused => {
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
    state
        .db(move |conn| {
            audit_log::append(conn, &NewAuditEvent::system(&actor, "auth.signout", target))?;
            Ok(())
        })
        .await?;
    session.purge();
    Ok(redirect("/login"))
}

fn users_target(user: &CurrentUser) -> String {
    format!("user:{}", user.username)
}
