//! The home page of each role: the account's recent activity, the accounts locked by failed
//! sign-ins (pit managers, administrators), the last audit verification and the latest events
//! (auditors, administrators), the staff counts (administrators), and the dealer's table.

use crate::db::audit_log::{self, AuditEvent};
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::shifts::{self, Shift};
use crate::db::tables::GamingTable;
use crate::db::users::{self, Role, User};
use crate::pit::PitError;
use crate::reports::events;
use crate::reports::verify::VERIFIED;

/// What the home page of `role` shows (empty where the role is not shown it).
pub struct Home {
    pub my_activity: Vec<AuditEvent>,
    pub locked: Vec<User>,
    /// The last verification's event, if any, and the latest events.
    pub audit: Option<(Option<AuditEvent>, Vec<AuditEvent>)>,
    pub all_users: Vec<User>,
    /// The dealer's open shift and its table.
    pub my_table: Option<(Shift, GamingTable)>,
}

pub async fn home(db: &Db, id: UserId, role: Role) -> Result<Home, PitError> {
    db.run(move |conn| {
        let my_activity = audit_log::recent_by_actor(conn, id, 10)?;
        let locked = match role {
            Role::Supervisor | Role::Admin => users::list_locked(conn)?,
            Role::Dealer
            | Role::Auditor
            | Role::Cashier
            | Role::Count
            | Role::Host
            | Role::Compliance => Vec::new(),
        };
        let audit = match role {
            Role::Auditor | Role::Admin => Some((
                events::latest(conn, VERIFIED.as_str())?,
                audit_log::recent(conn, 25)?,
            )),
            Role::Dealer
            | Role::Supervisor
            | Role::Cashier
            | Role::Count
            | Role::Host
            | Role::Compliance => None,
        };
        let all_users = match role {
            Role::Admin => users::list(conn)?,
            _ => Vec::new(),
        };
        let my_table = match role {
            Role::Dealer => shifts::dealer_table(conn, id)?,
            _ => None,
        };
        Ok(Home {
            my_activity,
            locked,
            audit,
            all_users,
            my_table,
        })
    })
    .await
}
