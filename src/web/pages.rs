//! What every page shares: the navigation bar's data and rendering a template to a response.

use actix_session::Session;
use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use askama::Template;

use crate::db::users::Role;
use crate::web::access::CurrentUser;
use crate::web::error::AppError;
use crate::web::session;

/// The signed-in user as the navigation bar shows them.
pub struct NavUser {
    pub display_name: String,
    pub role_title: &'static str,
    pub can_see_staff: bool,
}

/// Data for the base layout.
pub struct Nav {
    pub user: Option<NavUser>,
    /// For the sign-out form (and every other form on the page).
    pub csrf_token: String,
    pub flash: Option<String>,
}

impl Nav {
    /// For pages rendered without a session (error pages): no user, no forms.
    pub fn anonymous() -> Nav {
        Nav {
            user: None,
            csrf_token: String::new(),
            flash: None,
        }
    }

    pub fn new(session: &Session, user: Option<&CurrentUser>) -> Result<Nav, AppError> {
        Ok(Nav {
            user: user.map(|u| NavUser {
                display_name: u.display_name.clone(),
                role_title: u.role.title(),
                can_see_staff: matches!(u.role, Role::Admin | Role::Supervisor | Role::Auditor),
            }),
            csrf_token: session::csrf_token(session)?,
            flash: session::take_flash(session),
        })
    }
}

pub fn render(status: StatusCode, page: &impl Template) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::build(status)
        .content_type(ContentType::html())
        .body(page.render()?))
}

pub fn redirect(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((actix_web::http::header::LOCATION, to))
        .finish()
}
