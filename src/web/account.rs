//! The signed-in user's own account: changing their password, setting their signing PIN.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::db::users::PasswordChange;
use crate::password;
use crate::pit::staff::{self, PinRefusal};
use crate::web::error::AppError;
use crate::web::format::capitalised;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

#[derive(Default)]
pub struct FieldErrors {
    pub current: Option<String>,
    pub new: Option<String>,
    pub confirm: Option<String>,
}

impl FieldErrors {
    fn any(&self) -> bool {
        self.current.is_some() || self.new.is_some() || self.confirm.is_some()
    }
}

#[derive(Template)]
#[template(path = "password.html")]
struct PasswordPage {
    nav: Nav,
    must_change: bool,
    errors: FieldErrors,
}

#[derive(Deserialize)]
pub struct PasswordForm {
    current_password: String,
    new_password: String,
    confirm_password: String,
}

async fn must_change(state: &AppState, user: &CurrentUser) -> Result<bool, AppError> {
    let id = user.id;
    Ok(staff::find(&state.db, id)
        .await?
        .is_some_and(|u| u.must_change_password))
}

pub async fn password_form(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let page = PasswordPage {
        nav: session::nav(&session, Some(&user))?,
        must_change: must_change(&state, &user).await?,
        errors: FieldErrors::default(),
    };
    render(StatusCode::OK, &page)
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn change_password(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<PasswordForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let id = user.id;
    let stored = staff::find(&state.db, id)
        .await?
        .ok_or(AppError::SignInRequired { api: false })?;
    let mut errors = FieldErrors::default();
    let current = form.current_password;
    let hash = stored.password_hash.clone();
    if !web::block(move || password::verify(&current, &hash)).await?? {
        errors.current = Some("This is not your current password.".to_owned());
    }
    if let Err(problem) = password::check_policy(&form.new_password, &user.username) {
        errors.new = Some(capitalised(&problem.to_string()));
    }
    if form.new_password != form.confirm_password {
        errors.confirm = Some("The two new passwords differ.".to_owned());
    }
    if errors.any() {
        let page = PasswordPage {
            nav: session::nav(&session, Some(&user))?,
            must_change: stored.must_change_password,
            errors,
        };
        return render(StatusCode::UNPROCESSABLE_ENTITY, &page);
    }
    let params = state.config.password_hash;
    let new = form.new_password;
    let new_hash = web::block(move || password::hash(&new, params)).await??;
    staff::set_password(
        &state.db,
        id,
        new_hash,
        PasswordChange::BySelf,
        user.actor(&req),
    )
    .await?;
    session.renew();
    session::set_flash(&session, "Your password has been changed.")?;
    Ok(redirect("/"))
}

#[derive(Template)]
#[template(path = "signing_pin.html")]
struct PinPage {
    nav: Nav,
    has_pin: bool,
    errors: PinRefusal,
    /// Which form the errors are of: `set` or `remove`.
    form: &'static str,
}

#[derive(Deserialize)]
pub struct SetPinForm {
    current_password: String,
    pin: String,
    confirm_pin: String,
}

#[derive(Deserialize)]
pub struct RemovePinForm {
    current_password: String,
}

async fn pin_page(
    session: &Session,
    state: &AppState,
    user: &CurrentUser,
    status: StatusCode,
    errors: PinRefusal,
    form: &'static str,
) -> Result<HttpResponse, AppError> {
    let stored = staff::find(&state.db, user.id)
        .await?
        .ok_or(AppError::SignInRequired { api: false })?;
    let page = PinPage {
        nav: session::nav(session, Some(user))?,
        has_pin: stored.signing_pin.is_some(),
        errors,
        form,
    };
    render(status, &page)
}

pub async fn pin_form(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    pin_page(
        &session,
        &state,
        &user,
        StatusCode::OK,
        PinRefusal::default(),
        "set",
    )
    .await
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn set_pin(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<SetPinForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let entry = Some((form.pin, form.confirm_pin));
    let answer = staff::set_own_pin(
        &state.db,
        state.secrets(),
        user.id,
        form.current_password,
        entry,
        user.actor(&req),
    )
    .await?;
    pin_answer(
        &session,
        &state,
        &user,
        answer,
        "set",
        "Your signing PIN is set.",
    )
    .await
}

#[tracing::instrument(skip_all, fields(user = %user.username))]
pub async fn remove_pin(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
    form: web::Form<RemovePinForm>,
) -> Result<HttpResponse, AppError> {
    let answer = staff::set_own_pin(
        &state.db,
        state.secrets(),
        user.id,
        form.into_inner().current_password,
        None,
        user.actor(&req),
    )
    .await?;
    let done = "Your signing PIN is removed: you sign with your password.";
    pin_answer(&session, &state, &user, answer, "remove", done).await
}

async fn pin_answer(
    session: &Session,
    state: &AppState,
    user: &CurrentUser,
    answer: Result<(), PinRefusal>,
    form: &'static str,
    done: &str,
) -> Result<HttpResponse, AppError> {
    match answer {
        Ok(()) => {
            session::set_flash(session, done)?;
            Ok(redirect("/account/pin"))
        }
        Err(errors) => {
            let status = StatusCode::UNPROCESSABLE_ENTITY;
            pin_page(session, state, user, status, errors, form).await
        }
    }
}
