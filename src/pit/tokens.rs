//! API tokens for integrations: the list, issuing one for a staff account, revoking one.

use chrono::{DateTime, Utc};

use crate::db::api_tokens::{self, IssueError, TokenRow};
use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::ids::{TokenId, UserId};
use crate::db::users::{self, User};
use crate::pit::{PitError, Refusable};

/// Every token, and every account one may act as (for the form).
pub async fn list(db: &Db) -> Result<(Vec<TokenRow>, Vec<User>), PitError> {
    db.run(|conn| Ok((api_tokens::list(conn)?, users::list(conn)?)))
        .await
}

pub async fn find(db: &Db, id: TokenId) -> Result<Option<TokenRow>, PitError> {
    db.run(move |conn| Ok(api_tokens::find(conn, id)?)).await
}

/// A token refused, in words for the form's field they concern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueRefused {
    /// Its name, or the account it acts as.
    User(String),
    Expires(String),
}

/// Issues a token named `name` acting as `user`: its id and the token itself (shown once), or
/// why not: a name not of 1 to 80 characters, an expiry not in the future, an account that is
/// not an active one.
pub async fn issue(
    db: &Db,
    name: String,
    user: UserId,
    expires_at: Option<DateTime<Utc>>,
    actor: Actor,
) -> Result<Refusable<(TokenId, String), IssueRefused>, PitError> {
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 80 {
        return Ok(Err(IssueRefused::User(
            "Enter a name of 1 to 80 characters for the integration.".to_owned(),
        )));
    }
    if expires_at.is_some_and(|at| at <= Utc::now()) {
        return Ok(Err(IssueRefused::Expires(
            "The expiry must be in the future.".to_owned(),
        )));
    }
    db.run(
        move |conn| match api_tokens::issue(conn, &name, user, expires_at, &actor) {
            Ok(issued) => Ok(Ok(issued)),
            Err(IssueError::NoSuchUser) => Ok(Err(IssueRefused::User(
                "There is no active staff account with that id.".to_owned(),
            ))),
            Err(IssueError::Query(err)) => Err(err.into()),
        },
    )
    .await
}

/// Revokes token `id` at once: the message to show, or [`PitError::NotFound`].
pub async fn revoke(db: &Db, id: TokenId, actor: Actor) -> Result<&'static str, PitError> {
    use api_tokens::Revoked;
    let revoked = db
        .run(move |conn| -> Result<Revoked, PitError> { Ok(api_tokens::revoke(conn, id, &actor)?) })
        .await?;
    match revoked {
        Revoked::Now => Ok("Token revoked: it no longer works."),
        Revoked::Already => Ok("That token was already revoked."),
        Revoked::NoSuchToken => Err(PitError::NotFound),
    }
}
