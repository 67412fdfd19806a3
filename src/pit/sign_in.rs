//! Signing in and out: the account named, its password checked (in the time a real check takes
//! whatever the outcome), the lock at the client's address, and the events of each outcome.

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::users::{self, FailedSignIn, User};
use crate::password::{self, HashParams};
use crate::pit::access::{self, SystemEvent};
use crate::pit::PitError;

/// Runs a password hash's work on the blocking thread pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, PitError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| PitError::Task)
}

/// Signs in `username` with `password` from `addr`: the account, or `None` when refused (an
/// unknown, disabled or here-locked account, or a wrong password: one answer for all).
pub async fn sign_in(
    db: &Db,
    username: String,
    password: String,
    params: HashParams,
    addr: Option<String>,
) -> Result<Option<User>, PitError> {
    let here = Actor::anonymous(addr.clone());
    let name = username.clone();
    let (user, locked_here) = db
        .run(move |conn| -> Result<_, PitError> {
            let user = users::find_by_username(conn, &name)?;
            let locked = match &user {
                Some(user) => users::locked_for(conn, user.id, &here)?,
                None => false,
            };
            Ok((user, locked))
        })
        .await?;
    // A lock holds at the address whose wrong passwords made it, and nowhere else.
    let refused_because = match &user {
        None => Some("unknown user"),
        Some(u) if u.is_disabled() => Some("account disabled"),
        Some(_) if locked_here => Some("account locked"),
        Some(_) => None,
    };
    match (user, refused_because) {
        (_, Some(reason)) => {
            // Spend the time of a real check so the answer's speed tells nothing.
            blocking(move || password::verify_dummy(&password, params)).await?;
            let actor = Actor::anonymous(addr);
            db.run(move |conn| -> Result<(), PitError> {
                Ok(users::record_refused_sign_in(
                    conn, &username, reason, &actor,
                )?)
            })
            .await?;
            Ok(None)
        }
        (Some(user), None) => {
            let stored = user.password_hash.clone();
            let matches = blocking(move || password::verify(&password, &stored)).await??;
            if matches {
                let actor = Actor::user(user.id, &user.username, addr);
                let signed_in = user.clone();
                db.run(move |conn| -> Result<(), PitError> {
                    Ok(users::record_sign_in(conn, &signed_in, &actor)?)
                })
                .await?;
                Ok(Some(user))
            } else {
                let actor = Actor::anonymous(addr);
                let failed = db
                    .run(move |conn| -> Result<_, PitError> {
                        Ok(users::record_failed_sign_in(conn, &user, &actor)?)
                    })
                    .await?;
                if failed == FailedSignIn::LockedNow {
                    tracing::warn!("account locked after repeated failures");
                }
                Ok(None)
            }
        }
        (None, None) => Ok(None),
    }
}

/// Records `auth.signout` of account `target` (`user:name`).
pub async fn sign_out(db: &Db, actor: Actor, target: String) -> Result<(), PitError> {
    let event = SystemEvent {
        actor,
        action: AuditAction::AuthSignout,
        target,
        details: serde_json::json!({}),
    };
    access::record(db, vec![event]).await
}
