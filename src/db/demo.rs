//! Demo data for trying the product (`pusoy-pit seed-demo`). Idempotent: what exists is left
//! as it is. One function per kind of data, so later kinds (tables, rule profiles) slot in.

use diesel::prelude::*;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::profiles::{self, ProfileError};
use crate::db::tables::{self, TableError, TableInput};
use crate::db::users::{self, CreateUserError, NewUser, Role};
use crate::password::{self, HashParams};
use crate::rules::game::GameRules;
use crate::rules::points::profile::PointsProfile;
use crate::rules::profile::{RuleProfile, TieRule};

/// A demo account and its published password.
#[derive(Debug, Clone, Copy)]
pub struct DemoAccount {
    pub username: &'static str,
    pub display_name: &'static str,
    pub role: Role,
    pub password: &'static str,
}

/// The demo accounts: one per role, two dealers, two pit managers (whoever requests a fill may
/// not sign its receipt) and two counters (a count is signed by two).
/// Their passwords meet the policy.
pub const ACCOUNTS: [DemoAccount; 11] = [
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
    DemoAccount {
        username: "cashier",
        display_name: "Cass Cashier",
        role: Role::Cashier,
        password: "demo-cashier-pit",
    },
    DemoAccount {
        username: "counter",
        display_name: "Cora Counter",
        role: Role::Count,
        password: "demo-counter-pit",
    },
    DemoAccount {
        username: "supervisor2",
        display_name: "Flor Supervisor",
        role: Role::Supervisor,
        password: "demo-supervisor2-pit",
    },
    DemoAccount {
        username: "counter2",
        display_name: "Colin Counter",
        role: Role::Count,
        password: "demo-counter2-pit",
    },
    DemoAccount {
        username: "host",
        display_name: "Hana Host",
        role: Role::Host,
        password: "demo-host-pit",
    },
    DemoAccount {
        username: "compliance",
        display_name: "Carlo Compliance",
        role: Role::Compliance,
        password: "demo-compliance-pit",
    },
];

/// A demo player: card number, first and last name, date of birth, identity document, and a
/// status other than active with its reason.
type DemoPlayer = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<(&'static str, &'static str)>,
);

/// The demo's players.
const DEMO_PLAYERS: [DemoPlayer; 3] = [
    (
        "RC1001",
        "Maria",
        "Santos",
        "1980-04-02",
        "passport P7654321",
        None,
    ),
    (
        "RC1002",
        "Jose",
        "Reyes",
        "1975-11-19",
        "driver's licence N01-75-012345",
        None,
    ),
    (
        "RC1003",
        "Liza",
        "Cruz",
        "1990-06-30",
        "UMID 0111-2222333-4",
        Some(("self_excluded", "asked to be excluded for a year")),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
    #[error(transparent)]
    Hash(#[from] password::HashError),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    Table(#[from] TableError),
}

/// The demo rule profiles: the house default and a variant.
pub fn demo_profiles() -> [(&'static str, GameRules); 3] {
    [
        ("House standard", GameRules::Banking(RuleProfile::default())),
        (
            "Suit order, no surrender",
            GameRules::Banking(RuleProfile {
                surrender: false,
                ties: TieRule::SuitOrder,
                ..RuleProfile::default()
            }),
        ),
        (
            "Points game (1-6)",
            GameRules::Points(PointsProfile::default()),
        ),
    ]
}

/// The demo's points-game table: code, name, unit (what a point is worth, in centavos) and
/// profile name.
pub const DEMO_POINTS_TABLE: (&str, &str, i64, &str) =
    ("PUSOY-P1", "Pusoy P1 (points)", 10_000, "Points game (1-6)");

/// The demo tables: code, name, minimum and maximum bet in centavos, profile name.
/// The demo tables' approval threshold: a seat winning or losing PHP 5,000.00 or more waits for a
/// pit manager's approval.
pub const DEMO_APPROVAL_THRESHOLD: i64 = 500_000;

pub const DEMO_TABLES: [(&str, &str, i64, i64, &str); 4] = [
    (
        "PUSOY-01",
        "Pusoy 1 (main floor)",
        10_000,
        5_000_000,
        "House standard",
    ),
    (
        "PUSOY-02",
        "Pusoy 2 (main floor)",
        10_000,
        5_000_000,
        "House standard",
    ),
    (
        "PUSOY-03",
        "Pusoy 3 (high limit)",
        100_000,
        20_000_000,
        "House standard",
    ),
    (
        "PUSOY-04",
        "Pusoy 4 (suit order)",
        10_000,
        5_000_000,
        "Suit order, no surrender",
    ),
];

/// What seeding did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SeedReport {
    pub accounts_created: Vec<&'static str>,
    pub accounts_present: Vec<&'static str>,
    pub profiles_created: Vec<&'static str>,
    pub tables_created: Vec<&'static str>,
}

/// Seeds everything; safe to run again.
pub fn seed(conn: &mut PgConnection, params: HashParams) -> Result<SeedReport, SeedError> {
    let mut report = SeedReport::default();
    seed_accounts(conn, params, &mut report)?;
    seed_profiles(conn, &mut report)?;
    seed_tables(conn, &mut report)?;
    seed_players(conn)?;
    Ok(report)
}

/// Registers the demo players that do not exist yet, by the demo host, on the `players` chain.
fn seed_players(conn: &mut PgConnection) -> Result<(), SeedError> {
    use crate::db::players::{self, Identity, NewStatus};
    let Some(host) = users::find_by_username(conn, "host")? else {
        return Ok(());
    };
    let actor = Actor::system("seed-demo");
    for (card, first, last, born, document, status) in DEMO_PLAYERS {
        if players::by_card(conn, card)?.is_some() {
            continue;
        }
        let identity = Identity {
            card_number: card.to_owned(),
            first_name: first.to_owned(),
            last_name: last.to_owned(),
            date_of_birth: born.parse().ok(),
            id_reference: Some(document.to_owned()),
            notes: String::new(),
        };
        let row = players::insert_player(conn, &identity, host.id)?;
        let event = |action: AuditAction, details: serde_json::Value| NewAuditEvent {
            chain: "players",
            actor: &actor,
            action,
            target: format!("player:{}", row.id),
            details,
            gaming_day: None,
            table_id: None,
        };
        audit_log::append(
            conn,
            &event(
                AuditAction::PlayerRegistered,
                serde_json::json!({ "player": row.id, "card_number": card }),
            ),
        )?;
        if let Some((status, reason)) = status {
            players::insert_status(
                conn,
                &NewStatus {
                    player_id: row.id,
                    status,
                    reason,
                    source: "",
                    set_by: host.id,
                },
            )?;
            audit_log::append(
                conn,
                &event(
                    AuditAction::PlayerStatusSet,
                    serde_json::json!({ "player": row.id, "status": status, "reason": reason }),
                ),
            )?;
        }
    }
    Ok(())
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

/// Creates the demo profiles that do not exist yet (an existing one keeps its versions).
pub fn seed_profiles(conn: &mut PgConnection, report: &mut SeedReport) -> Result<(), SeedError> {
    let actor = Actor::system("seed-demo");
    for (name, options) in demo_profiles() {
        if profiles::find_by_name(conn, name)?.is_some() {
            continue;
        }
        match profiles::create_profile(conn, name, options, &actor) {
            Ok(_) => report.profiles_created.push(name),
            Err(ProfileError::NameTaken(_)) => {}
            Err(err) => return Err(err.into()),
        }
    }
    Ok(())
}

/// Creates the demo tables that do not exist yet; run after [`seed_profiles`].
pub fn seed_tables(conn: &mut PgConnection, report: &mut SeedReport) -> Result<(), SeedError> {
    let actor = Actor::system("seed-demo");
    let (points_code, points_name, unit, points_profile) = DEMO_POINTS_TABLE;
    let banking = DEMO_TABLES
        .into_iter()
        .map(|(code, name, min_bet, max_bet, profile)| {
            (code, name, min_bet, max_bet, None, profile)
        });
    let points = (
        points_code,
        points_name,
        unit,
        unit,
        Some(unit),
        points_profile,
    );
    for (code, name, min_bet, max_bet, unit, profile) in banking.chain([points]) {
        if tables::find_by_code(conn, code)?.is_some() {
            continue;
        }
        let Some(profile) = profiles::find_by_name(conn, profile)? else {
            continue;
        };
        let input = TableInput {
            code: code.to_owned(),
            name: name.to_owned(),
            currency: "PHP".to_owned(),
            min_bet,
            max_bet,
            rule_profile_id: profile.id,
            approval_threshold: Some(DEMO_APPROVAL_THRESHOLD),
            unit,
        };
        match tables::create_table(conn, &input, &actor) {
            Ok(_) => report.tables_created.push(code),
            // Another seeder created it first.
            Err(TableError::CodeTaken(_)) => {}
            Err(err) => return Err(err.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn demo_tables_are_valid_and_name_a_demo_profile() {
        let names: Vec<&str> = demo_profiles().iter().map(|(n, _)| *n).collect();
        for (code, name, min_bet, max_bet, profile) in DEMO_TABLES {
            let input = TableInput {
                code: code.to_owned(),
                name: name.to_owned(),
                currency: "PHP".to_owned(),
                min_bet,
                max_bet,
                rule_profile_id: crate::db::ids::ProfileId(1),
                approval_threshold: Some(DEMO_APPROVAL_THRESHOLD),
                unit: None,
            };
            // Written as they are (db cannot call the check above it): the check leaves them so.
            assert_eq!(
                crate::pit::tables::validate(&input, None).as_ref(),
                Ok(&input),
                "{code}"
            );
            assert!(names.contains(&profile), "{code}");
        }
    }

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
