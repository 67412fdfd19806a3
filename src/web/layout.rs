//! What every page shares: the base layout's data (the navigation bar). Imports nothing of the
//! web application.

use crate::db::users::Role;

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

    /// For a page of the user with `display_name` and `role`, if one is signed in.
    pub fn new(user: Option<(&str, Role)>, csrf_token: String, flash: Option<String>) -> Nav {
        Nav {
            user: user.map(|(display_name, role)| NavUser {
                display_name: display_name.to_owned(),
                role_title: role.title(),
                can_see_staff: matches!(role, Role::Admin | Role::Supervisor | Role::Auditor),
            }),
            csrf_token,
            flash,
        }
    }
}
