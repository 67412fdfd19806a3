//! Staff administration. Administrators create, disable, enable and reset accounts;
//! pit managers see the list and unlock accounts locked by failed sign-ins; auditors see the
//! list read-only. Every change writes its audit event in the same transaction.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::config::Zone;
use crate::db::ids::UserId;
use crate::db::seal_file::SealFiles;
use crate::db::users::{self, NewUser, PasswordChange, Role, User};
use crate::password;
use crate::pit::staff;
use crate::web::error::AppError;
use crate::web::format::capitalised;
use crate::web::format::when;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct UserRow {
    pub id: i64,
    pub username: String,
    pub display_name: String,
    pub role_title: &'static str,
    pub status: String,
    pub failed_attempts: i32,
    pub locked: bool,
    pub disabled: bool,
    pub is_self: bool,
    pub reset_error: Option<String>,
    /// Whether the person has a signing PIN (an administrator may clear it, never set it).
    pub has_pin: bool,
}

#[derive(Default)]
pub struct CreateValues {
    pub username: String,
    pub display_name: String,
    pub role: String,
}

#[derive(Default)]
pub struct CreateErrors {
    pub username: Option<String>,
    pub display_name: Option<String>,
    pub role: Option<String>,
    pub password: Option<String>,
}

impl CreateErrors {
    /// The first field in error, in the form's order: the one the page puts the cursor in.
    pub fn first(&self) -> &'static str {
        [
            ("username", &self.username),
            ("display_name", &self.display_name),
            ("role", &self.role),
            ("password", &self.password),
        ]
        .into_iter()
        .find(|(_, e)| e.is_some())
        .map_or("", |(field, _)| field)
    }

    pub fn any(&self) -> bool {
        self.username.is_some()
            || self.display_name.is_some()
            || self.role.is_some()
            || self.password.is_some()
    }
}

pub struct RoleOption {
    pub value: &'static str,
    pub title: &'static str,
    pub selected: bool,
}

#[derive(Template)]
#[template(path = "users.html")]
struct UsersPage {
    nav: Nav,
    can_manage: bool,
    can_unlock: bool,
    rows: Vec<UserRow>,
    values: CreateValues,
    errors: CreateErrors,
    roles: Vec<RoleOption>,
}

fn row(user: &User, viewer: &CurrentUser, zone: Zone) -> UserRow {
    let status = match (user.disabled_at, user.locked_at) {
        (Some(at), _) => format!("Disabled {}", when(at, zone)),
        (None, Some(at)) => format!("Locked {}", when(at, zone)),
        (None, None) => "Active".to_owned(),
    };
    UserRow {
        id: user.id.0,
        username: user.username.clone(),
        display_name: user.display_name.clone(),
        role_title: user.role.title(),
        status,
        failed_attempts: user.failed_attempts,
        locked: user.is_locked(),
        disabled: user.is_disabled(),
        is_self: user.id == viewer.id,
        reset_error: None,
        has_pin: user.signing_pin.is_some(),
    }
}

async fn users_page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    values: CreateValues,
    errors: CreateErrors,
    reset_error: Option<(i64, String)>,
) -> Result<UsersPage, AppError> {
    let all = staff::list(&state.db).await?;
    let mut rows: Vec<UserRow> = all
        .iter()
        .map(|u| row(u, viewer, state.config.zone()))
        .collect();
    if let Some((id, message)) = reset_error {
        if let Some(r) = rows.iter_mut().find(|r| r.id == id) {
            r.reset_error = Some(message);
        }
    }
    let roles = Role::ALL
        .into_iter()
        .map(|r| RoleOption {
            value: r.as_str(),
            title: r.title(),
            selected: values.role == r.as_str(),
        })
        .collect();
    Ok(UsersPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        can_unlock: matches!(viewer.role, Role::Admin | Role::Supervisor),
        rows,
        values,
        errors,
        roles,
    })
}

pub async fn list_users(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let page = users_page(
        &session,
        &state,
        &user,
        CreateValues::default(),
        CreateErrors::default(),
        None,
    )
    .await?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct CreateForm {
    username: String,
    display_name: String,
    role: String,
    password: String,
}

#[tracing::instrument(skip_all, fields(admin = %admin.username, new_user = %form.username))]
pub async fn create_user(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    form: web::Form<CreateForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let username = users::normalize_username(&form.username);
    let mut errors = CreateErrors::default();
    if let Err(problem) = staff::check_username(&username) {
        errors.username = Some(capitalised(&problem.to_string()));
    }
    let display_name = form.display_name.trim().to_owned();
    if display_name.is_empty() || display_name.chars().count() > 100 {
        errors.display_name = Some("Enter a name of 1 to 100 characters.".to_owned());
    }
    let role = form.role.parse::<Role>();
    if role.is_err() {
        errors.role = Some("Choose a role.".to_owned());
    }
    if let Err(problem) = password::check_policy(&form.password, &username) {
        errors.password = Some(capitalised(&problem.to_string()));
    }
    // Shown again exactly as typed (the password never is).
    let values = CreateValues {
        username: form.username.clone(),
        display_name: display_name.clone(),
        role: form.role.clone(),
    };
    let role = match role {
        Ok(role) if !errors.any() => role,
        _ => return create_refused(&session, &state, &admin, values, errors).await,
    };
    let params = state.config.password_hash;
    let new_password = form.password;
    let password_hash = web::block(move || password::hash(&new_password, params)).await??;
    let new = NewUser {
        username,
        display_name,
        role,
        password_hash,
        // The administrator chose this password: the user picks their own at first sign-in.
        must_change_password: true,
    };
    let actor = admin.actor(&req);
    let created = staff::create(&state.db, new, actor).await?;
    match created {
        Ok(user) => {
            session::set_flash(
                &session,
                &format!(
                    "Created {} ({}). They must choose a new password at first sign-in.",
                    user.username,
                    user.role.title()
                ),
            )?;
            Ok(redirect("/admin/users"))
        }
        Err(name) => {
            let errors = CreateErrors {
                username: Some(format!("The user name {name} is taken.")),
                ..CreateErrors::default()
            };
            create_refused(&session, &state, &admin, values, errors).await
        }
    }
}

async fn create_refused(
    session: &Session,
    state: &AppState,
    admin: &CurrentUser,
    values: CreateValues,
    errors: CreateErrors,
) -> Result<HttpResponse, AppError> {
    let page = users_page(session, state, admin, values, errors, None).await?;
    render(StatusCode::UNPROCESSABLE_ENTITY, &page)
}

/// The disable form: `confirm=yes` once the administrator has read what disabling does.
#[derive(Deserialize)]
pub struct DisableForm {
    #[serde(default)]
    confirm: String,
}

#[derive(Template)]
#[template(path = "user_disable.html")]
struct DisablePage {
    nav: Nav,
    id: i64,
    username: String,
    display_name: String,
    role_title: &'static str,
    /// "PUSOY-03 since 2026-03-01 22:05 (PHT, UTC+08:00)" when they are on shift.
    shift: Option<String>,
}

/// `POST /admin/users/{id}/disable`: first a page saying what disabling will do (sign-outs, and
/// the end of a dealer's shift mid-game) and asking to confirm; with `confirm=yes`, done.
#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn disable_user(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<DisableForm>,
) -> Result<HttpResponse, AppError> {
    let id = UserId(id.into_inner());
    if id == admin.id {
        session::set_error_flash(&session, "You cannot disable your own account.")?;
        return Ok(redirect("/admin/users"));
    }
    if form.confirm != "yes" {
        let staff::ToDisable { user, shift } = staff::to_disable(&state.db, id).await?;
        let zone = state.config.zone();
        let page = DisablePage {
            nav: session::nav(&session, Some(&admin))?,
            id: user.id.0,
            username: user.username,
            display_name: user.display_name,
            role_title: user.role.title(),
            shift: shift.map(|(code, since)| format!("{code} since {}", when(since, zone))),
        };
        return render(StatusCode::OK, &page);
    }
    staff::disable(
        &state.db,
        id,
        admin.actor(&req),
        SealFiles::of(&state.config),
    )
    .await?;
    session::set_flash(
        &session,
        "Account disabled; its sessions and its shift, if any, have ended.",
    )?;
    Ok(redirect("/admin/users"))
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn enable_user(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = UserId(id.into_inner());
    staff::enable(&state.db, id, admin.actor(&req)).await?;
    session::set_flash(&session, "Account enabled.")?;
    Ok(redirect("/admin/users"))
}

#[tracing::instrument(skip_all, fields(by = %by.username))]
pub async fn unlock_user(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    by: CurrentUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = UserId(id.into_inner());
    staff::unlock(&state.db, id, by.actor(&req)).await?;
    session::set_flash(&session, "Account unlocked.")?;
    let back = if by.role == Role::Supervisor {
        "/"
    } else {
        "/admin/users"
    };
    Ok(redirect(back))
}

/// Clears a person's signing PIN (forgotten, or seen by someone else): they sign with their
/// password until they set a new one themselves.
pub async fn clear_pin(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let id = UserId(id.into_inner());
    staff::clear_pin(&state.db, id, admin.actor(&req)).await?;
    session::set_flash(
        &session,
        "Signing PIN cleared: they sign with their password until they set a new PIN.",
    )?;
    Ok(redirect("/admin/users"))
}

#[derive(Deserialize)]
pub struct ResetForm {
    new_password: String,
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn reset_password(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<ResetForm>,
) -> Result<HttpResponse, AppError> {
    let id = UserId(id.into_inner());
    let target = staff::find(&state.db, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let new_password = form.into_inner().new_password;
    if let Err(problem) = password::check_policy(&new_password, &target.username) {
        let page = users_page(
            &session,
            &state,
            &admin,
            CreateValues::default(),
            CreateErrors::default(),
            Some((id.0, capitalised(&problem.to_string()))),
        )
        .await?;
        return render(StatusCode::UNPROCESSABLE_ENTITY, &page);
    }
    let params = state.config.password_hash;
    let hash = web::block(move || password::hash(&new_password, params)).await??;
    staff::set_password(
        &state.db,
        id,
        hash,
        PasswordChange::Reset,
        admin.actor(&req),
    )
    .await?;
    session::set_flash(
        &session,
        &format!(
            "Password of {} reset; their sessions have ended and they must choose a new one at next sign-in.",
            target.username
        ),
    )?;
    Ok(redirect("/admin/users"))
}
