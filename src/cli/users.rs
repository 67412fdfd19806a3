//! `user ...`: staff accounts from the command line, recorded in the audit trail as done by
//! `cli:$USER`.

use std::io::{BufRead, Write};

use anyhow::{bail, Context};
use diesel::PgConnection;

use crate::cli::service::connect;
use crate::config::Config;
use crate::db::audit_log::Actor;
use crate::db::checkpoints;
use crate::db::seal_file::SealFiles;
use crate::db::shifts;
use crate::db::users::{self, NewUser, PasswordChange, Role};
use crate::password;

/// What `user add` is given.
pub struct NewAccount {
    pub username: String,
    pub role: Role,
    pub name: Option<String>,
    pub password_stdin: bool,
    pub temporary: bool,
}

/// Runs `f` on a connection to the migrated database, as the operator at the command line.
fn as_operator(
    config: &Config,
    f: impl FnOnce(&mut PgConnection, &Actor) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let pool = connect(config)?;
    let mut conn = pool.get()?;
    let actor = Actor::system(&format!(
        "cli:{}",
        std::env::var("USER").unwrap_or_else(|_| "unknown".to_owned())
    ));
    f(&mut conn, &actor)
}

fn read_password(from_stdin: bool) -> anyhow::Result<String> {
    if !from_stdin {
        eprint!("Password (input is shown): ");
        std::io::stderr().flush()?;
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        bail!("no password given on standard input");
    }
    Ok(password)
}

fn find_user(conn: &mut PgConnection, username: &str) -> anyhow::Result<users::User> {
    users::find_by_username(conn, username)?.with_context(|| format!("no user named {username:?}"))
}

/// `user add`: creates an account; the password is read from standard input.
pub fn add(config: &Config, new: NewAccount) -> anyhow::Result<()> {
    as_operator(config, |conn, actor| {
        let username = users::normalize_username(&new.username);
        crate::pit::staff::check_username(&username)?;
        let password = read_password(new.password_stdin)?;
        password::check_policy(&password, &username)?;
        let user = NewUser {
            display_name: new.name.unwrap_or_else(|| username.clone()),
            username,
            role: new.role,
            password_hash: password::hash(&password, config.password_hash)?,
            must_change_password: new.temporary,
        };
        let user = users::create(conn, &user, actor)?;
        println!("created {} ({})", user.username, user.role.title());
        Ok(())
    })
}

/// `user disable` and `user enable`.
pub fn set_disabled(config: &Config, username: &str, disabled: bool) -> anyhow::Result<()> {
    as_operator(config, |conn, actor| {
        let user = find_user(conn, username)?;
        if disabled {
            shifts::disable_user(conn, user.id, actor)?;
            checkpoints::at_sign_off(conn, &SealFiles::of(config));
            println!(
                "disabled {}; their sessions and their shift, if any, have ended",
                user.username
            );
        } else {
            users::set_disabled(conn, user.id, false, actor)?;
            println!("enabled {}", user.username);
        }
        Ok(())
    })
}

/// `user reset-password`: a new password from standard input, to be changed at next sign-in.
pub fn reset_password(config: &Config, username: &str, password_stdin: bool) -> anyhow::Result<()> {
    as_operator(config, |conn, actor| {
        let user = find_user(conn, username)?;
        let password = read_password(password_stdin)?;
        password::check_policy(&password, &user.username)?;
        let hash = password::hash(&password, config.password_hash)?;
        users::set_password(conn, user.id, &hash, PasswordChange::Reset, actor)?;
        println!(
            "password of {} reset; they must choose a new one at next sign-in",
            user.username
        );
        Ok(())
    })
}

/// `user unlock`: unlocks an account locked by failed sign-ins.
pub fn unlock(config: &Config, username: &str) -> anyhow::Result<()> {
    as_operator(config, |conn, actor| {
        let user = find_user(conn, username)?;
        users::unlock(conn, user.id, actor)?;
        println!("unlocked {}", user.username);
        Ok(())
    })
}

/// `user list`: every account with its role and status.
pub fn list(config: &Config) -> anyhow::Result<()> {
    as_operator(config, |conn, _| {
        println!("{:<20} {:<14} {:<10} name", "user", "role", "status");
        for user in users::list(conn)? {
            let status = if user.is_disabled() {
                "disabled"
            } else if user.is_locked() {
                "locked"
            } else {
                "active"
            };
            println!(
                "{:<20} {:<14} {:<10} {}",
                user.username,
                user.role.as_str(),
                status,
                user.display_name
            );
        }
        Ok(())
    })
}
