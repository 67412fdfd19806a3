//! Two people's signatures on a document (a slip, a fill, a credit). The first signer is the
//! account signed in; the second signs on the same tablet with their own user name and
//! password, checked as a sign-in is (argon2, the same per-address lock-out), or with the
//! signing PIN they set for the purpose (`password::pin`: 6 to 12 digits, checked by its MAC in
//! microseconds, wrong ones counted towards the same lock-out). Never a typed name.
//!
//! How a document uses it: [`second`] checks the second person before the document's
//! transaction (a refusal is audited there and then, and answered in words); the document's
//! transaction then calls [`record`] with both [`Signature`]s, which checks again that the two are
//! different people, that each account may sign in that capacity and is still enabled, and
//! appends one `signature` event per signer on the document's chain.

use chrono::NaiveDate;
use diesel::PgConnection;
use serde_json::json;

use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::{TableId, UserId};
use crate::db::users::{self, FailedSignIn, Role};
use crate::db::DbError;
use crate::password::{self, pin, Secrets};

/// The capacity a person signs in, and the roles that may sign in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// The stored form, in audit events (`dealer`).
    pub name: &'static str,
    /// What staff call it, in refusals (`the dealer`).
    pub title: &'static str,
    pub roles: &'static [Role],
}

impl Capacity {
    /// The dealer of the table (a pit manager may deal).
    pub const DEALER: Capacity = Capacity {
        name: "dealer",
        title: "the dealer",
        roles: &[Role::Dealer, Role::Supervisor],
    };
    /// The supervisor who witnesses the count.
    pub const SUPERVISOR: Capacity = Capacity {
        name: "supervisor",
        title: "a supervisor",
        roles: &[Role::Supervisor, Role::Admin],
    };
    /// One of the two counters of a table's drop: the count team only.
    pub const COUNTER: Capacity = Capacity {
        name: "counter",
        title: "a counter",
        roles: &[Role::Count],
    };

    pub fn allows(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }

    /// `a pit manager or an administrator`.
    fn who_may(&self) -> String {
        let titles: Vec<String> = self.roles.iter().map(|r| article(r.title())).collect();
        titles.join(" or ")
    }
}

/// What is being signed: the chain its events go on, its target there, and words for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// `table:<id>` for a table's documents.
    pub chain: String,
    /// `table:T1/opener` before the document exists, or the document itself (`slip:12`).
    pub target: String,
    /// `the opener`, in refusals.
    pub title: String,
    pub table_id: Option<TableId>,
    pub gaming_day: Option<NaiveDate>,
}

/// One person's signature on a document, not yet recorded: the signed-in account's, or a
/// second person's checked by [`second`] (no other way makes one for a second person).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    user: UserId,
    username: String,
    capacity: Capacity,
    /// How the person showed it was them: `session`, `password` or `pin`.
    by: &'static str,
}

impl Signature {
    /// The signed-in account signs: its session is its proof.
    pub fn signed_in(user: UserId, username: &str, capacity: Capacity) -> Signature {
        Signature {
            user,
            username: username.to_owned(),
            capacity,
            by: "session",
        }
    }

    pub fn user(&self) -> UserId {
        self.user
    }

    pub fn capacity(&self) -> Capacity {
        self.capacity
    }
}

/// A second person's user name and password or signing PIN, typed on the tablet. What is
/// typed is checked as their PIN when it is 6 to 12 digits and they have one, else as their
/// password.
#[derive(Clone)]
pub struct SecondPerson {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for SecondPerson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecondPerson")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// Checks `second` as the person who signs `document` in `capacity` beside `first` (the
/// signed-in account). Refused in words, each refusal audited (`signature.refused` on the
/// document's chain: who tried to sign what, as whom, why; never the password): an unknown
/// name, a disabled account, an account locked at this address, a wrong password (counted
/// towards the sign-in lock-out, `auth.signin.failed`), the first signer again, a role that may
/// not sign in `capacity`. `actor` is the signed-in account at the tablet's address.
pub async fn second(
    db: &crate::db::handle::Db,
    secrets: Secrets,
    second: SecondPerson,
    first: UserId,
    capacity: Capacity,
    document: &Document,
    actor: &Actor,
) -> Result<Result<Signature, String>, AccountingError> {
    let typed = second.username.clone();
    let lock_at = actor.clone();
    let candidate = db
        .run(move |conn| candidate(conn, &typed, &lock_at))
        .await?;
    check(
        db,
        secrets,
        candidate,
        second.password,
        first,
        capacity,
        document,
        actor,
    )
    .await
}

/// The account typed as the second signer, as [`check`] judges it: read in the caller's turn on
/// the database (a document reads it with what else it needs before the check).
pub struct Candidate {
    /// The user name as typed, normalised.
    name: String,
    user: Option<users::User>,
    /// Locked at the tablet's address after repeated wrong passwords.
    locked: bool,
}

/// Reads the account `username` names, and whether it is locked at `actor`'s address.
pub fn candidate(
    conn: &mut PgConnection,
    username: &str,
    actor: &Actor,
) -> Result<Candidate, AccountingError> {
    let name = users::normalize_username(username);
    let user = users::find_by_username(conn, &name)?;
    let locked = match &user {
        Some(user) => users::locked_for(conn, user.id, actor)?,
        None => false,
    };
    Ok(Candidate { name, user, locked })
}

/// [`second`] for a `candidate` already read: checks `password` (their password or signing
/// PIN) and the account, as [`second`] says.
#[allow(clippy::too_many_arguments)]
pub async fn check(
    db: &crate::db::handle::Db,
    secrets: Secrets,
    candidate: Candidate,
    password: String,
    first: UserId,
    capacity: Capacity,
    document: &Document,
    actor: &Actor,
) -> Result<Result<Signature, String>, AccountingError> {
    let Candidate { name, user, locked } = candidate;
    let before_check = match &user {
        None if name.is_empty() => Some((
            "no user name",
            format!("The second signature on {} needs a user name.", document.title),
        )),
        None => Some((
            "unknown user",
            "The user name or password of the second signer is wrong.".to_owned(),
        )),
        Some(u) if u.id == first => Some((
            "same person",
            format!(
                "{} signs once: {} must be signed by someone else.",
                u.display_name, document.title
            ),
        )),
        Some(u) if u.is_disabled() => Some((
            "account disabled",
            format!("{} is disabled and cannot sign.", u.display_name),
        )),
        Some(u) if locked => Some((
            "account locked",
            format!(
                "{} is locked after repeated wrong passwords: wait {} minutes or ask a pit manager to unlock it.",
                u.display_name,
                users::LOCKOUT_MINUTES
            ),
        )),
        Some(_) => None,
    };
    if let Some((reason, words)) = before_check {
        // Spend the time of a real check so the answer's speed tells nothing (a PIN's check
        // is quick: its dummy is too).
        if pin::looks_like_pin(&password) {
            let _ = secrets.pin_key.verify(0, &password, &[0; pin::MAC_BYTES]);
        } else {
            let params = secrets.params;
            blocking(move || password::verify_dummy(&password, params)).await?;
        }
        refused(db, document, actor, &name, reason, None).await?;
        return Ok(Err(words));
    }
    // Present: checked just above.
    let Some(user) = user else {
        return Err(AccountingError::BadStored("second signer".to_owned()));
    };
    let by_pin = match &user.signing_pin {
        Some(stored) if pin::looks_like_pin(&password) => Some(stored.clone()),
        _ => None,
    };
    let (matches, by, wrong) = match by_pin {
        Some(stored) => (
            secrets.pin_key.verify(user.id.0, &password, &stored),
            "pin",
            "wrong PIN",
        ),
        None => {
            let stored = user.password_hash.clone();
            let matches = blocking(move || password::verify(&password, &stored)).await??;
            (matches, "password", "wrong password")
        }
    };
    if !matches {
        let failed = refused(db, document, actor, &name, wrong, Some(user)).await?;
        let words = match (failed, by) {
            (Some(FailedSignIn::LockedNow), _) => format!(
                "Wrong {}: {name} is now locked here for {} minutes.",
                if by == "pin" { "PIN" } else { "password" },
                users::LOCKOUT_MINUTES
            ),
            (_, "pin") => "The user name or PIN of the second signer is wrong.".to_owned(),
            _ => "The user name or password of the second signer is wrong.".to_owned(),
        };
        return Ok(Err(words));
    }
    if !capacity.allows(user.role) {
        refused(db, document, actor, &name, "role may not sign", None).await?;
        return Ok(Err(format!(
            "{} is {} and cannot sign as {}: that needs {}.",
            user.display_name,
            article(user.role.title()),
            capacity.title,
            capacity.who_may()
        )));
    }
    Ok(Ok(Signature {
        user: user.id,
        username: user.username,
        capacity,
        by,
    }))
}

fn article(title: &str) -> String {
    let lower = title.to_lowercase();
    let an = lower.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {lower}", if an { "an" } else { "a" })
}

/// Audits a refused second signature; with `wrong_password_of`, counts the wrong password
/// towards that account's lock-out at the actor's address, as a sign-in does.
async fn refused(
    db: &crate::db::handle::Db,
    document: &Document,
    actor: &Actor,
    as_name: &str,
    reason: &'static str,
    wrong_password_of: Option<users::User>,
) -> Result<Option<FailedSignIn>, AccountingError> {
    let document = document.clone();
    let actor = actor.clone();
    let as_name = as_name.to_owned();
    db.run(move |conn| {
        use diesel::Connection;
        conn.transaction(|conn| {
            let failed = match &wrong_password_of {
                Some(user) => Some(users::record_failed_sign_in(conn, user, &actor)?),
                None => None,
            };
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &document.chain,
                    actor: &actor,
                    action: AuditAction::SignatureRefused,
                    target: document.target.clone(),
                    details: json!({ "as": as_name, "reason": reason }),
                    gaming_day: document.gaming_day,
                    table_id: document.table_id,
                },
            )?;
            Ok(failed)
        })
    })
    .await
}

/// Records `signatures` on `document` inside the caller's transaction: refused (in words, as
/// [`AccountingError::Refused`]) when one person signs twice, an account is gone or disabled, or
/// its role may not sign in its capacity; otherwise one `signature` event per signer on the
/// document's chain (the signer as actor, at `client_addr`).
pub fn record(
    conn: &mut PgConnection,
    document: &Document,
    signatures: &[Signature],
    client_addr: Option<String>,
) -> Result<(), AccountingError> {
    let ids: Vec<UserId> = signatures.iter().map(Signature::user).collect();
    let accounts = users::find_all(conn, &ids)?;
    let signed = checked(document, signatures, &accounts, client_addr)?;
    audit_log::append_all(conn, &events(document, &signed))?;
    Ok(())
}

/// A signature checked by [`checked`], to be recorded as its `signature` event.
pub struct Signed {
    /// The signer, at the tablet's address.
    actor: Actor,
    details: serde_json::Value,
}

/// [`record`]'s checks of `signatures` against `accounts` (the signers' accounts, read in the
/// caller's transaction), in its words: what each signature's event will be, in their order.
pub fn checked(
    document: &Document,
    signatures: &[Signature],
    accounts: &[users::User],
    client_addr: Option<String>,
) -> Result<Vec<Signed>, AccountingError> {
    let mut signed = Vec::with_capacity(signatures.len());
    for (i, signature) in signatures.iter().enumerate() {
        if signatures[..i].iter().any(|s| s.user == signature.user) {
            return Err(AccountingError::Refused(format!(
                "{} signs once: {} needs two different people.",
                signature.username, document.title
            )));
        }
        let user = accounts
            .iter()
            .find(|user| user.id == signature.user)
            .ok_or_else(|| {
                AccountingError::Refused(format!("{} has no account.", signature.username))
            })?;
        if user.is_disabled() {
            return Err(AccountingError::Refused(format!(
                "{} is disabled and cannot sign.",
                user.display_name
            )));
        }
        if !signature.capacity.allows(user.role) {
            return Err(AccountingError::Refused(format!(
                "{} is {} and cannot sign as {}: that needs {}.",
                user.display_name,
                article(user.role.title()),
                signature.capacity.title,
                signature.capacity.who_may()
            )));
        }
        signed.push(Signed {
            actor: Actor::user(user.id, &user.username, client_addr.clone()),
            details: json!({
                "capacity": signature.capacity.name,
                "role": user.role.as_str(),
                "by": signature.by,
            }),
        });
    }
    Ok(signed)
}

/// The `signature` events of `signed` on `document`'s chain, in order.
pub fn events<'a>(document: &'a Document, signed: &'a [Signed]) -> Vec<NewAuditEvent<'a>> {
    signed
        .iter()
        .map(|signed| NewAuditEvent {
            chain: &document.chain,
            actor: &signed.actor,
            action: AuditAction::Signature,
            target: document.target.clone(),
            details: signed.details.clone(),
            gaming_day: document.gaming_day,
            table_id: document.table_id,
        })
        .collect()
}

/// Runs a password hash's work on the blocking thread pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, AccountingError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| AccountingError::Db(DbError::Task))
}
