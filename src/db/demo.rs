//! Demo data for trying the product (`pusoy-pit seed-demo`). Idempotent: what exists is left
//! as it is. One function per kind of data, so later kinds (tables, rule profiles) slot in.

use diesel::prelude::*;

use crate::db::audit_log::Actor;
use crate::db::users::{self, CreateUserError, NewUser, Role};
use crate::password::{self, HashParams};

/// A demo account and its published password.
#[derive(Debug, Clone, Copy)]
pub struct DemoAccount {
    pub username: &'static str,
    pub display_name: &'static str,
    pub role: Role,
    pub password: &'static str,
}

/// The demo accounts: one per role, two dealers. Their passwords meet the policy.
pub const ACCOUNTS: [DemoAccount; 5] = [
    DemoAccount {
        username: "admin",
        display_name: "Ada Administrator",
        role: Role::Admin,
        password: "demo-admin-pit",
    },
    DemoAccount {
        username: "supervisor",
        display_name: "Sam Pit-Manager",
        role: Role::Supervisor,
        password: "demo-supervisor-pit",
    },
    DemoAccount {
        username: "dealer",
        display_name: "Dana Dealer",
        role: Role::Dealer,
        password: "demo-dealer-pit",
    },
    DemoAccount {
        username: "dealer2",
        display_name: "Dario Dealer",
        role: Role::Dealer,
        password: "demo-dealer2-pit",
    },
    DemoAccount {
        username: "auditor",
        display_name: "Audrey Auditor",
        role: Role::Auditor,
        password: "demo-auditor-pit",
    },
];

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
    #[error(transparent)]
    Hash(#[from] password::HashError),
}

/// What seeding did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SeedReport {
    pub accounts_created: Vec<&'static str>,
    pub accounts_present: Vec<&'static str>,
}

/// Seeds everything; safe to run again.
pub fn seed(conn: &mut PgConnection, params: HashParams) -> Result<SeedReport, SeedError> {
    let mut report = SeedReport::default();
    seed_accounts(conn, params, &mut report)?;
    Ok(report)
}

fn seed_accounts(
    conn: &mut PgConnection,
    params: HashParams,
    report: &mut SeedReport,
) -> Result<(), SeedError> {
    let actor = Actor::system("seed-demo");
    for account in ACCOUNTS {
        if users::find_by_username(conn, account.username)?.is_some() {
            report.accounts_present.push(account.username);
            continue;
        }
        let new = NewUser {
            username: account.username.to_owned(),
            display_name: account.display_name.to_owned(),
            role: account.role,
            password_hash: password::hash(account.password, params)?,
            must_change_password: false,
        };
        match users::create(conn, &new, &actor) {
            Ok(_) => report.accounts_created.push(account.username),
            // Another seeder got there first: the account exists, which is all we want.
            Err(CreateUserError::UsernameTaken(_)) => {
                report.accounts_present.push(account.username)
            }
            Err(CreateUserError::Query(err)) => return Err(err.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn demo_passwords_meet_the_policy() {
        for account in ACCOUNTS {
            assert_eq!(
                password::check_policy(account.password, account.username),
                Ok(())
            );
        }
    }
}
