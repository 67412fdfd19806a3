//! Table administration: administrators create tables and edit their name, currency, limits
//! and rule profile; supervisors and auditors see the list read-only.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::db::ids::{ProfileId, TableId};
use crate::db::tables::TableInput;
use crate::db::users::Role;
use crate::pit::tables::{self as table_admin, TableFieldErrors, TablesAdmin};
use crate::rules::money::Money;
use crate::web::error::AppError;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::tables::waiting_text;
use crate::web::user::CurrentUser;

pub struct AdminTableRow {
    pub id: i64,
    pub code: String,
    pub name: String,
    pub currency: String,
    pub min_bet: String,
    pub max_bet: String,
    pub rule_profile_id: i64,
    pub profile: String,
    pub waiting: Option<String>,
    /// Why the row's edit was refused (its fields then hold what was typed).
    pub error: Option<String>,
    /// Empty when the table's rounds need no approval.
    pub approval_threshold: String,
    /// What a point is worth at a points-game table; empty at a banking table.
    pub unit: String,
}

pub struct ProfileOption {
    pub id: i64,
    pub label: String,
}

#[derive(Default)]
pub struct TableValues {
    pub code: String,
    pub name: String,
    pub currency: String,
    pub min_bet: String,
    pub max_bet: String,
    pub rule_profile_id: i64,
    pub approval_threshold: String,
    pub unit: String,
}

#[derive(Template)]
#[template(path = "admin_tables.html")]
struct AdminTablesPage {
    nav: Nav,
    can_manage: bool,
    rows: Vec<AdminTableRow>,
    profiles: Vec<ProfileOption>,
    values: TableValues,
    errors: TableFieldErrors,
    /// Each table's "ask before confirming" setting: id, code, on.
    confirm_prompts: Vec<(i64, String, bool)>,
    /// The new-table form's first field in error: the one the page puts the cursor in.
    focus: &'static str,
}

/// The first field of the new-table form in error, in the form's order.
fn first_error(errors: &TableFieldErrors) -> &'static str {
    [
        ("code", &errors.code),
        ("name", &errors.name),
        ("currency", &errors.currency),
        ("min_bet", &errors.min_bet),
        ("max_bet", &errors.max_bet),
        ("unit", &errors.unit),
        ("rule_profile_id", &errors.rule_profile_id),
        ("approval_threshold", &errors.approval_threshold),
    ]
    .into_iter()
    .find(|(_, e)| e.is_some())
    .map_or("", |(field, _)| field)
}

/// A table's edit refused: the table, what was typed and why.
struct RefusedEdit {
    id: TableId,
    values: TableValues,
    error: String,
}

async fn page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    values: TableValues,
    errors: TableFieldErrors,
    refused: Option<RefusedEdit>,
) -> Result<AdminTablesPage, AppError> {
    let TablesAdmin {
        listings,
        profiles: all_profiles,
        prompts,
    } = table_admin::admin_list(&state.db).await?;
    Ok(AdminTablesPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        rows: listings
            .iter()
            .map(|l| AdminTableRow {
                id: l.table.id.0,
                code: l.table.code.clone(),
                name: l.table.name.clone(),
                currency: l.table.currency.clone(),
                // A points table's limits are its unit: it shows the unit only.
                min_bet: limit_text(l.table.unit, l.table.min_bet),
                max_bet: limit_text(l.table.unit, l.table.max_bet),
                unit: l.table.unit().map(Money::major_text).unwrap_or_default(),
                rule_profile_id: l.table.rule_profile_id.0,
                profile: format!("{} v{} in force", l.profile_name, l.profile.version),
                waiting: l
                    .waiting
                    .as_ref()
                    .map(|w| waiting_text(w, l, state.config.zone())),
                approval_threshold: l
                    .table
                    .approval_threshold()
                    .map(Money::plain_text)
                    .unwrap_or_default(),
                error: None,
            })
            .map(|mut row| {
                if let Some(edit) = refused.as_ref().filter(|e| e.id.0 == row.id) {
                    // The row as typed, with why it was not saved.
                    row.name = edit.values.name.clone();
                    row.currency = edit.values.currency.clone();
                    row.min_bet = edit.values.min_bet.clone();
                    row.max_bet = edit.values.max_bet.clone();
                    row.rule_profile_id = edit.values.rule_profile_id;
                    row.approval_threshold = edit.values.approval_threshold.clone();
                    row.unit = edit.values.unit.clone();
                    row.error = Some(edit.error.clone());
                }
                row
            })
            .collect(),
        profiles: all_profiles
            .iter()
            .map(|p| ProfileOption {
                id: p.profile.id.0,
                label: format!(
                    "{} (v{}, {} game)",
                    p.profile.name,
                    p.latest.version,
                    p.latest.options.game()
                ),
            })
            .collect(),
        values,
        focus: first_error(&errors),
        errors,
        confirm_prompts: prompts
            .into_iter()
            .map(|(id, code, on)| (id.0, code, on))
            .collect(),
    })
}

/// A bet limit as the form shows it: empty at a points table (whose limits are its unit).
fn limit_text(unit: Option<i64>, limit: Money) -> String {
    match unit {
        Some(_) => String::new(),
        None => limit.major_text(),
    }
}

pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let page = page(
        &session,
        &state,
        &user,
        TableValues {
            currency: "PHP".to_owned(),
            ..TableValues::default()
        },
        TableFieldErrors::default(),
        None,
    )
    .await?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct TableForm {
    #[serde(default)]
    code: String,
    name: String,
    currency: String,
    #[serde(default)]
    min_bet: String,
    #[serde(default)]
    max_bet: String,
    rule_profile_id: String,
    /// Empty: no approval needed.
    #[serde(default)]
    approval_threshold: String,
    /// A points-game table's unit; empty at a banking table.
    #[serde(default)]
    unit: String,
}

/// The form as input, or the amount errors the database layer cannot see.
fn input(form: &TableForm) -> (TableInput, TableFieldErrors) {
    let mut errors = TableFieldErrors::default();
    let unit_text = form.unit.trim();
    let unit = if unit_text.is_empty() {
        None
    } else {
        Some(
            Money::parse_major(unit_text)
                .map(Money::minor_units)
                .unwrap_or_else(|| {
                    errors.unit =
                        Some("Enter the unit as an amount such as 10 or 10.00.".to_owned());
                    1
                }),
        )
    };
    // A points table is given its unit, not limits: its limits are its unit (the database layer
    // sets them, or asks a banking table for them, knowing the profile's game).
    if form.min_bet.trim().is_empty() && form.max_bet.trim().is_empty() {
        let input = TableInput {
            code: form.code.clone(),
            name: form.name.clone(),
            currency: form.currency.clone(),
            min_bet: unit.unwrap_or(0),
            max_bet: unit.unwrap_or(0),
            rule_profile_id: ProfileId(form.rule_profile_id.trim().parse().unwrap_or(0)),
            approval_threshold: threshold(form, &mut errors),
            unit,
        };
        return (input, errors);
    }
    let min_bet = Money::parse_major(&form.min_bet)
        .map(Money::minor_units)
        .unwrap_or_else(|| {
            errors.min_bet = Some("Enter an amount such as 100 or 100.50.".to_owned());
            1
        });
    let max_bet = Money::parse_major(&form.max_bet)
        .map(Money::minor_units)
        .unwrap_or_else(|| {
            errors.max_bet = Some("Enter an amount such as 50000 or 50000.00.".to_owned());
            min_bet
        });
    let input = TableInput {
        code: form.code.clone(),
        name: form.name.clone(),
        currency: form.currency.clone(),
        min_bet,
        max_bet,
        rule_profile_id: ProfileId(form.rule_profile_id.trim().parse().unwrap_or(0)),
        approval_threshold: threshold(form, &mut errors),
        unit,
    };
    (input, errors)
}

/// The approval threshold typed (empty: none), or its error.
fn threshold(form: &TableForm, errors: &mut TableFieldErrors) -> Option<i64> {
    let threshold = form.approval_threshold.trim();
    if threshold.is_empty() {
        return None;
    }
    Some(
        Money::parse_major(threshold)
            .map(Money::minor_units)
            .unwrap_or_else(|| {
                errors.approval_threshold = Some(
                    "Enter an amount such as 5000 or 5000.00, or leave it empty for none."
                        .to_owned(),
                );
                1
            }),
    )
}

fn merge(mut into: TableFieldErrors, from: TableFieldErrors) -> TableFieldErrors {
    into.code = into.code.or(from.code);
    into.name = into.name.or(from.name);
    into.currency = into.currency.or(from.currency);
    into.min_bet = into.min_bet.or(from.min_bet);
    into.max_bet = into.max_bet.or(from.max_bet);
    into.rule_profile_id = into.rule_profile_id.or(from.rule_profile_id);
    into.approval_threshold = into.approval_threshold.or(from.approval_threshold);
    into.unit = into.unit.or(from.unit);
    into
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn create(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    form: web::Form<TableForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let (new, amount_errors) = input(&form);
    let values = TableValues {
        code: form.code.clone(),
        name: form.name.clone(),
        currency: form.currency.clone(),
        min_bet: form.min_bet.clone(),
        max_bet: form.max_bet.clone(),
        rule_profile_id: new.rule_profile_id.0,
        approval_threshold: form.approval_threshold.clone(),
        unit: form.unit.clone(),
    };
    let errors = if amount_errors.any() {
        let checked = table_admin::validate(&new, None)
            .err()
            .map(|e| *e)
            .unwrap_or_default();
        Some(merge(amount_errors, checked))
    } else {
        table_admin::create(&state.db, new, admin.actor(&req))
            .await?
            .err()
    };
    match errors {
        None => {
            session::set_flash(
                &session,
                &format!("Created table {}.", values.code.trim().to_ascii_uppercase()),
            )?;
            Ok(redirect("/admin/tables"))
        }
        Some(errors) => {
            let page = page(&session, &state, &admin, values, errors, None).await?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn update(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<TableForm>,
) -> Result<HttpResponse, AppError> {
    let id = TableId(id.into_inner());
    let form = form.into_inner();
    let (change, amount_errors) = input(&form);
    let outcome = if amount_errors.any() {
        Err(amount_errors)
    } else {
        table_admin::update(&state.db, id, change, admin.actor(&req)).await?
    };
    match outcome {
        Ok(code) => {
            session::set_flash(&session, &format!("Saved table {code}."))?;
            Ok(redirect("/admin/tables"))
        }
        Err(errors) => {
            let problems: Vec<String> = [
                errors.name,
                errors.currency,
                errors.min_bet,
                errors.max_bet,
                errors.rule_profile_id,
                errors.approval_threshold,
                errors.unit,
            ]
            .into_iter()
            .flatten()
            .collect();
            let refused = RefusedEdit {
                id,
                values: TableValues {
                    code: String::new(),
                    name: form.name.clone(),
                    currency: form.currency.clone(),
                    min_bet: form.min_bet.clone(),
                    max_bet: form.max_bet.clone(),
                    rule_profile_id: form.rule_profile_id.trim().parse().unwrap_or(0),
                    approval_threshold: form.approval_threshold.clone(),
                    unit: form.unit.clone(),
                },
                error: format!("Not saved: {}", problems.join(" ")),
            };
            let values = TableValues {
                currency: "PHP".to_owned(),
                ..TableValues::default()
            };
            let page = page(
                &session,
                &state,
                &admin,
                values,
                TableFieldErrors::default(),
                Some(refused),
            )
            .await?;
            render(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

#[derive(Deserialize)]
pub struct ConfirmPromptForm {
    /// `on` when the box is ticked; absent otherwise.
    #[serde(default)]
    confirm_prompt: Option<String>,
}

/// `POST /admin/tables/{id}/confirm-prompt`: whether the table's screen asks once before a
/// round is confirmed.
#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn set_confirm_prompt(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<ConfirmPromptForm>,
) -> Result<HttpResponse, AppError> {
    let id = TableId(id.into_inner());
    let on = form.confirm_prompt.as_deref() == Some("on");
    table_admin::set_confirm_prompt(&state.db, id, on, admin.actor(&req)).await?;
    let message = if on {
        "The table now asks before each round is confirmed."
    } else {
        "The table no longer asks before a round is confirmed."
    };
    session::set_flash_of(&session, &Ok(message.to_owned()))?;
    Ok(redirect("/admin/tables"))
}
