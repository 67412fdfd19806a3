//! Who a request acts for, as the access check asks the database: the account of a session or
//! of an API token, and the refusals it records (`authz.denied`, `api_token.refused`, and the
//! counts of repeated ones).

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use serde_json::{json, Value};

use crate::db::api_tokens;
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

/// A refusal to record: who, the event's action, the request (`GET /path`) and its details.
pub struct Refusal {
    pub actor: Actor,
    pub action: &'static str,
    pub target: String,
    pub details: Value,
}

/// An account's refusals on one route in a minute now over, that were counted, not recorded.
pub struct Repeated {
    pub who: Actor,
    pub route: String,
    pub count: u64,
    pub minute: DateTime<Utc>,
}

/// Records a refusal (if any) and the counts of repeated ones, on the `system` chain.
pub async fn record_refusals(
    db: &Db,
    refusal: Option<Refusal>,
    repeated: Vec<Repeated>,
) -> Result<(), PitError> {
    db.run(move |conn| {
        if let Some(r) = refusal {
            audit_log::append(
                conn,
                &NewAuditEvent::system(&r.actor, r.action, r.target).details(r.details),
            )?;
        }
        for r in repeated {
            audit_log::append(
                conn,
                &NewAuditEvent::system(&r.who, "authz.denied_repeatedly", r.route)
                    .details(json!({ "count": r.count, "minute": r.minute })),
            )?;
        }
        Ok(())
    })
    .await
}
