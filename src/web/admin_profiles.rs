//! Rule profile administration: administrators create profiles and edit them (each edit is a
//! new version; rounds keep the version they were settled under). Others read the list.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::db::ids::ProfileId;
use crate::db::profiles::{self, ProfileError};
use crate::db::tables::TableError;
use crate::db::users::Role;
use crate::rules::profile::{BothFouled, RuleProfile, SuitOrder, TieRule, Wheel};
use crate::web::error::AppError;
use crate::web::layout::Nav;
use crate::web::respond::{redirect, render};
use crate::web::session;
use crate::web::state::AppState;
use crate::web::user::CurrentUser;

pub struct ProfileRow {
    pub id: i64,
    /// Prefix for the edit form's field ids.
    pub prefix: String,
    pub name: String,
    pub version: i32,
    pub description: String,
    pub options: OptionValues,
}

pub struct OptionValues {
    pub surrender: bool,
    pub royalties: bool,
    pub dealer_royalties: bool,
    pub ties: &'static str,
    pub both_fouled: &'static str,
    pub wheel: &'static str,
    pub suit_order: String,
}

impl From<&RuleProfile> for OptionValues {
    fn from(p: &RuleProfile) -> Self {
        OptionValues {
            surrender: p.surrender,
            royalties: p.royalties,
            dealer_royalties: p.dealer_royalties,
            ties: match p.ties {
                TieRule::DealerWins => "dealer_wins",
                TieRule::SuitOrder => "suit_order",
            },
            both_fouled: match p.both_fouled {
                BothFouled::Push => "push",
                BothFouled::PlayerLoses => "player_loses",
            },
            wheel: match p.wheel {
                Wheel::Lowest => "lowest",
                Wheel::Second => "second",
            },
            suit_order: p.suit_order.to_string(),
        }
    }
}

#[derive(Default)]
pub struct ProfileErrors {
    pub name: Option<String>,
    pub suit_order: Option<String>,
}

#[derive(Template)]
#[template(path = "admin_profiles.html")]
struct ProfilesPage {
    nav: Nav,
    can_manage: bool,
    rows: Vec<ProfileRow>,
    name: String,
    values: OptionValues,
    errors: ProfileErrors,
}

async fn page(
    session: &Session,
    state: &AppState,
    viewer: &CurrentUser,
    name: String,
    values: OptionValues,
    errors: ProfileErrors,
) -> Result<ProfilesPage, AppError> {
    let all = state
        .db(|conn| Ok(profiles::list(conn).map_err(TableError::from)?))
        .await?;
    Ok(ProfilesPage {
        nav: session::nav(session, Some(viewer))?,
        can_manage: viewer.role == Role::Admin,
        rows: all
            .iter()
            .map(|p| ProfileRow {
                id: p.profile.id.0,
                prefix: format!("p{}", p.profile.id),
                name: p.profile.name.clone(),
                version: p.latest.version,
                description: p.latest.options.describe(),
                options: OptionValues::from(&p.latest.options),
            })
            .collect(),
        name,
        values,
        errors,
    })
}

pub async fn list(
    session: Session,
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, AppError> {
    let values = OptionValues::from(&RuleProfile::default());
    let page = page(
        &session,
        &state,
        &user,
        String::new(),
        values,
        ProfileErrors::default(),
    )
    .await?;
    render(StatusCode::OK, &page)
}

#[derive(Deserialize)]
pub struct ProfileForm {
    #[serde(default)]
    name: String,
    surrender: Option<String>,
    royalties: Option<String>,
    dealer_royalties: Option<String>,
    ties: String,
    both_fouled: String,
    wheel: String,
    suit_order: String,
}

/// The options the form describes, or the message for the suit order field.
fn options(form: &ProfileForm) -> Result<RuleProfile, String> {
    let suit_order: SuitOrder = form
        .suit_order
        .trim()
        .to_ascii_lowercase()
        .parse()
        .map_err(|_| {
            "List the four suits d, c, h, s once each, highest first (e.g. dchs).".to_owned()
        })?;
    Ok(RuleProfile {
        surrender: form.surrender.is_some(),
        royalties: form.royalties.is_some(),
        dealer_royalties: form.dealer_royalties.is_some(),
        ties: if form.ties == "suit_order" {
            TieRule::SuitOrder
        } else {
            TieRule::DealerWins
        },
        both_fouled: if form.both_fouled == "player_loses" {
            BothFouled::PlayerLoses
        } else {
            BothFouled::Push
        },
        wheel: if form.wheel == "second" {
            Wheel::Second
        } else {
            Wheel::Lowest
        },
        suit_order,
    })
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn create(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    form: web::Form<ProfileForm>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    let name = form.name.trim().to_owned();
    let mut errors = ProfileErrors::default();
    let parsed = options(&form);
    if let Err(message) = &parsed {
        errors.suit_order = Some(message.clone());
    }
    if name.is_empty() || name.chars().count() > 80 {
        errors.name = Some("Enter a name of 1 to 80 characters.".to_owned());
    }
    if let (Ok(opts), None) = (&parsed, &errors.name) {
        let (opts, actor, new_name) = (*opts, admin.actor(&req), name.clone());
        let created = state
            .db(
                move |conn| match profiles::create_profile(conn, &new_name, &opts, &actor) {
                    Ok(_) => Ok(None),
                    Err(err @ (ProfileError::NameTaken(_) | ProfileError::BadName)) => {
                        Ok(Some(err.to_string()))
                    }
                    Err(other) => Err(TableError::from(other).into()),
                },
            )
            .await?;
        match created {
            None => {
                session::set_flash(&session, &format!("Created rule profile {name} (v1)."))?;
                return Ok(redirect("/admin/profiles"));
            }
            Some(message) => errors.name = Some(message),
        }
    }
    let values = match &parsed {
        Ok(opts) => OptionValues::from(opts),
        Err(_) => OptionValues {
            suit_order: form.suit_order.clone(),
            ..OptionValues::from(&RuleProfile::default())
        },
    };
    let page = page(&session, &state, &admin, name, values, errors).await?;
    render(StatusCode::UNPROCESSABLE_ENTITY, &page)
}

#[tracing::instrument(skip_all, fields(admin = %admin.username))]
pub async fn update(
    req: HttpRequest,
    session: Session,
    state: web::Data<AppState>,
    admin: CurrentUser,
    id: web::Path<i64>,
    form: web::Form<ProfileForm>,
) -> Result<HttpResponse, AppError> {
    let id = ProfileId(id.into_inner());
    let message = match options(&form.into_inner()) {
        Err(problem) => Err(format!("Not saved: {problem}")),
        Ok(opts) => {
            let actor = admin.actor(&req);
            let version = state
                .db(
                    move |conn| match profiles::new_version(conn, id, &opts, &actor) {
                        Ok(v) => Ok(v.version),
                        Err(ProfileError::NotFound(_)) => Err(AppError::NotFound),
                        Err(other) => Err(TableError::from(other).into()),
                    },
                )
                .await?;
            Ok(format!(
                "Saved as version {version}. Rounds already settled keep the version they were played under."
            ))
        }
    };
    session::set_flash_of(&session, &message)?;
    Ok(redirect("/admin/profiles"))
}
