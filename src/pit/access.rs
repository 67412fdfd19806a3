//! Who a request acts for, as the access check asks the database: the account of a session or
//! of an API token, and the events it records on the `system` chain (refusals and their
//! counts, CSRF rejections, sign-outs).

use diesel::PgConnection;
use serde_json::Value;

use crate::db::api_tokens;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::users::{self, Role, User};
use crate::pit::PitError;

/// Why a token's request is refused before any work.
#[derive(Debug, Clone)]
pub enum Refused {
    /// The token is unknown or revoked, or its account is disabled.
    BadToken,
    /// The token's account has a role the route does not allow (it allows these).
    Role(User, &'static [Role]),
}

/// The token's account, if the token is good and the account's role may use the route: one
/// query.
pub fn check_token(
    conn: &mut PgConnection,
    token: &str,
    roles: &'static [Role],
) -> Result<Result<User, Refused>, PitError> {
    Ok(match api_tokens::authenticate(conn, token)? {
        None => Err(Refused::BadToken),
        Some((_, user)) if !roles.contains(&user.role) => Err(Refused::Role(user, roles)),
        Some((_, user)) => Ok(user),
    })
}

/// The token's account, checked on a turn of its own (for the routes checked before their
/// handler runs).
pub async fn token_user(
    db: &Db,
    token: String,
    roles: &'static [Role],
) -> Result<Result<User, Refused>, PitError> {
    db.run(move |conn| check_token(conn, &token, roles)).await
}

/// The account of a session.
pub async fn session_user(db: &Db, id: UserId) -> Result<Option<User>, PitError> {
    db.run(move |conn| Ok(users::find(conn, id)?)).await
}

/// An event of the `system` chain about a request: who, the action, the request or account
/// it is about, and its details.
pub struct SystemEvent {
    pub actor: Actor,
    pub action: AuditAction,
    pub target: String,
    pub details: Value,
}

/// Records `events` (refusals, their counts, a sign-out) on the `system` chain, in one turn.
pub async fn record(db: &Db, events: Vec<SystemEvent>) -> Result<(), PitError> {
    if events.is_empty() {
        return Ok(());
    }
    db.run(move |conn| {
        for e in events {
            audit_log::append(
                conn,
                &NewAuditEvent::system(&e.actor, e.action, e.target).details(e.details),
            )?;
        }
        Ok(())
    })
    .await
}
