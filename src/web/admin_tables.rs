//! Table administration: administrators create tables and edit their name, currency, limits
//! and rule profile; supervisors and auditors see the list read-only.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::db::profiles;
use crate::db::tables::{self, TableError, TableFieldErrors, TableId, TableInput};
use crate::db::users::Role;
use crate::web::access::CurrentUser;
use crate::web::error::AppError;
use crate::web::pages::{redirect, render, Nav};
use crate::web::session;
use crate::web::AppState;

pub struct AdminTableRow {
    pub id: i64,
    pub code: String,
    pub name: String,
    pub currency: String,
    pub min_bet: String,
    pub max_bet: String,
    pub rule_profile_id: i64,
    pub profile: String,
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
}

/// Minor units as plain major units (`10000` → `100.00`) for form fields.
fn major(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, (minor % 100).abs())
}

/// Parses `100`, `100.5` or `100.50` (major units) into minor units.
pub fn parse_amount(text: &str) -> Option<i64> {
    let text = text.trim().replace(',', "");
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 2 {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let cents: i64 = format!("{frac:0<2}").parse().ok()?;
    whole
        .parse::<i64>()
        .ok()?
        .checked_mul(100)?
        .checked_add(cents)
}

async fn page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    values: TableValues,
    errors: TableFieldErrors,
) -> Result<AdminTablesPage, AppError> {
    let (listings, all_profiles) = state
        .db(|conn| {
            let listings = tables::list_tables(conn)?;
            let all = profiles::list(conn).map_err(TableError::from)?;
            Ok((listings, all))
        })
        .await?;
    Ok(AdminTablesPage {
        nav: Nav::new(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        rows: listings
            .iter()
            .map(|l| AdminTableRow {
                id: l.table.id,
                code: l.table.code.clone(),
                name: l.table.name.clone(),
                currency: l.table.currency.clone(),
                min_bet: major(l.table.min_bet),
                max_bet: major(l.table.max_bet),
                rule_profile_id: l.table.rule_profile_id,
                profile: format!("{} v{}", l.profile_name, l.profile.version),
            })
            .collect(),
        profiles: all_profiles
            .iter()
            .map(|p| ProfileOption {
                id: p.profile.id,
                label: format!("{} (v{})", p.profile.name, p.latest.version),
            })
            .collect(),
        values,
        errors,
    })
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
    min_bet: String,
    max_bet: String,
    rule_profile_id: String,
}

/// The form as input, or the amount errors the database layer cannot see.
fn input(form: &TableForm) -> (TableInput, TableFieldErrors) {
    let mut errors = TableFieldErrors::default();
    let min_bet = parse_amount(&form.min_bet).unwrap_or_else(|| {
        errors.min_bet = Some("Enter an amount such as 100 or 100.50.".to_owned());
        1
    });
    let max_bet = parse_amount(&form.max_bet).unwrap_or_else(|| {
        errors.max_bet = Some("Enter an amount such as 50000 or 50000.00.".to_owned());
        min_bet
    });
    let input = TableInput {
        code: form.code.clone(),
        name: form.name.clone(),
        currency: form.currency.clone(),
        min_bet,
        max_bet,
        rule_profile_id: form.rule_profile_id.trim().parse().unwrap_or(0),
    };
    (input, errors)
}

fn merge(mut into: TableFieldErrors, from: TableFieldErrors) -> TableFieldErrors {
    into.code = into.code.or(from.code);
    into.name = into.name.or(from.name);
    into.currency = into.currency.or(from.currency);
    into.min_bet = into.min_bet.or(from.min_bet);
    into.max_bet = into.max_bet.or(from.max_bet);
    into.rule_profile_id = into.rule_profile_id.or(from.rule_profile_id);
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
        rule_profile_id: new.rule_profile_id,
    };
    let errors = if amount_errors.any() {
        let checked = tables::validate(&new).err().map(|e| *e).unwrap_or_default();
        Some(merge(amount_errors, checked))
    } else {
        let actor = admin.actor(&req);
        state
            .db(move |conn| match tables::create_table(conn, &new, &actor) {
                Ok(_) => Ok(None),
                Err(TableError::Invalid(errors)) => Ok(Some(*errors)),
                Err(other) => Err(other.into()),
            })
            .await?
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
            let page = page(&session, &state, &admin, values, errors).await?;
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
    let (change, amount_errors) = input(&form.into_inner());
    let outcome = if amount_errors.any() {
        Err(amount_errors)
    } else {
        let actor = admin.actor(&req);
        state
            .db(
                move |conn| match tables::update_table(conn, id, &change, &actor) {
                    Ok(table) => Ok(Ok(table.code)),
                    Err(TableError::Invalid(errors)) => Ok(Err(*errors)),
                    Err(TableError::NotFound) => Err(AppError::NotFound),
                    Err(other) => Err(other.into()),
                },
            )
            .await?
    };
    let message = match outcome {
        Ok(code) => format!("Saved table {code}."),
        Err(errors) => {
            let problems: Vec<String> = [
                errors.name,
                errors.currency,
                errors.min_bet,
                errors.max_bet,
                errors.rule_profile_id,
            ]
            .into_iter()
            .flatten()
            .collect();
            format!("Not saved: {}", problems.join(" "))
        }
    };
    session::set_flash(&session, &message)?;
    Ok(redirect("/admin/tables"))
}

#[cfg(test)]
mod tests {
    use super::parse_amount;

    #[test]
    fn amounts_are_read_in_major_units() {
        assert_eq!(parse_amount("100"), Some(10_000));
        assert_eq!(parse_amount("100.5"), Some(10_050));
        assert_eq!(parse_amount(" 50,000.00 "), Some(5_000_000));
        for bad in ["", "-1", "1.234", "abc", "1.x", ".5"] {
            assert_eq!(parse_amount(bad), None, "{bad}");
        }
    }
}
