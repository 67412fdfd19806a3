//! What every page shares: the base layout's data (the navigation bar). Imports nothing of the
//! web application.

use crate::db::users::Role;

/// The signed-in user as the navigation bar shows them.
pub struct NavUser {
    pub display_name: String,
    pub role_title: &'static str,
    pub can_see_staff: bool,
    /// Auditors and administrators: the audit trail's pages.
    pub can_audit: bool,
    /// Pit managers, administrators and auditors: the gaming days and their seals.
    pub can_see_days: bool,
    /// Pit managers, administrators and auditors: the pit board and the reports.
    pub can_see_pit: bool,
    /// Auditors and administrators download exports.
    pub can_export: bool,
    /// Pit managers, administrators and auditors read the review queue.
    pub can_review: bool,
    /// Cashiers, administrators and auditors: the cage's desk.
    pub can_see_cage: bool,
    /// The pit, the cage, auditors and the count team: a gaming day's fills and credits.
    pub can_list_slips: bool,
    /// The count team, pit managers, administrators and auditors: the count of each drop.
    pub can_see_count: bool,
    /// Hosts, compliance officers, auditors and pit managers: the players.
    pub can_see_players: bool,
    /// Compliance officers and auditors: the compliance cases.
    pub can_see_compliance: bool,
}

/// A one-time message: something done, or something refused (shown as an error, not as the
/// green notice).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Flash {
    pub text: String,
    pub error: bool,
}

impl Flash {
    pub fn done(text: &str) -> Flash {
        Flash {
            text: text.to_owned(),
            error: false,
        }
    }

    pub fn refused(text: &str) -> Flash {
        Flash {
            text: text.to_owned(),
            error: true,
        }
    }
}

/// Data for the base layout.
pub struct Nav {
    pub user: Option<NavUser>,
    /// For the sign-out form (and every other form on the page).
    pub csrf_token: String,
    pub flash: Option<Flash>,
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
    pub fn new(user: Option<(&str, Role)>, csrf_token: String, flash: Option<Flash>) -> Nav {
        Nav {
            user: user.map(|(display_name, role)| NavUser {
                display_name: display_name.to_owned(),
                role_title: role.title(),
                can_see_staff: matches!(role, Role::Admin | Role::Supervisor | Role::Auditor),
                can_audit: matches!(role, Role::Admin | Role::Auditor),
                can_see_days: matches!(role, Role::Admin | Role::Supervisor | Role::Auditor),
                can_see_pit: matches!(role, Role::Admin | Role::Supervisor | Role::Auditor),
                can_export: matches!(role, Role::Auditor | Role::Admin),
                can_review: matches!(role, Role::Admin | Role::Supervisor | Role::Auditor),
                can_see_cage: matches!(role, Role::Cashier | Role::Admin | Role::Auditor),
                can_list_slips: matches!(
                    role,
                    Role::Supervisor | Role::Cashier | Role::Admin | Role::Auditor | Role::Count
                ),
                can_see_count: matches!(
                    role,
                    Role::Count | Role::Supervisor | Role::Admin | Role::Auditor
                ),
                can_see_players: matches!(
                    role,
                    Role::Host | Role::Compliance | Role::Auditor | Role::Supervisor
                ),
                can_see_compliance: matches!(role, Role::Compliance | Role::Auditor),
            }),
            csrf_token,
            flash,
        }
    }
}
