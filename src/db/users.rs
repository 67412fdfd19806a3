//! Staff accounts: roles, the users table, sign-in bookkeeping (failure count, lock-out) and
//! the administrative changes, each with its audit event in the same transaction.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::UserId;
use crate::db::schema::{sessions, sign_in_locks, users};

/// Consecutive wrong passwords from one client address that lock the account there.
pub const LOCKOUT_THRESHOLD: i32 = 5;

/// How long such a lock lasts (a pit manager or administrator may lift it sooner).
pub const LOCKOUT_MINUTES: i64 = 5;

/// Where a sign-in comes from, for its lock: the client's address, or `unknown`.
fn lock_addr(actor: &Actor) -> &str {
    actor.client_addr.as_deref().unwrap_or("unknown")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Dealer,
    Supervisor,
    Auditor,
    Admin,
    /// Works the cage: issues fills and credits.
    Cashier,
    /// Counts the drop (the count team).
    Count,
    /// Player development: keeps players' records and reads their ratings.
    Host,
    /// Files the casino's cash-transaction reports.
    Compliance,
}

impl Role {
    pub const ALL: [Role; 8] = [
        Role::Dealer,
        Role::Supervisor,
        Role::Auditor,
        Role::Admin,
        Role::Cashier,
        Role::Count,
        Role::Host,
        Role::Compliance,
    ];

    /// The stored and URL form.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Dealer => "dealer",
            Role::Supervisor => "supervisor",
            Role::Auditor => "auditor",
            Role::Admin => "admin",
            Role::Cashier => "cashier",
            Role::Count => "count",
            Role::Host => "host",
            Role::Compliance => "compliance",
        }
    }

    /// The name staff know the role by.
    pub fn title(self) -> &'static str {
        match self {
            Role::Dealer => "Dealer",
            Role::Supervisor => "Pit manager",
            Role::Auditor => "Auditor",
            Role::Admin => "Administrator",
            Role::Cashier => "Cashier",
            Role::Count => "Count clerk",
            Role::Host => "Host",
            Role::Compliance => "Compliance officer",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown role {0:?} (expected dealer, supervisor, auditor, admin, cashier, count, host or
 compliance)"
)]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

impl TryFrom<String> for Role {
    type Error = UnknownRole;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: UserId,
    pub username: String,
    pub display_name: String,
    #[diesel(deserialize_as = String)]
    pub role: Role,
    pub password_hash: String,
    pub failed_attempts: i32,
    pub locked_at: Option<DateTime<Utc>>,
    pub disabled_at: Option<DateTime<Utc>>,
    pub must_change_password: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The signing PIN as stored (`password::pin`), if the person has set one.
    pub signing_pin: Option<Vec<u8>>,
}

impl User {
    pub fn is_disabled(&self) -> bool {
        self.disabled_at.is_some()
    }

    /// Whether a lock made at some address still holds (it lasts [`LOCKOUT_MINUTES`]).
    pub fn is_locked(&self) -> bool {
        self.locked_at
            .is_some_and(|at| Utc::now() - at < chrono::Duration::minutes(LOCKOUT_MINUTES))
    }
}

/// A user name as stored: trimmed and lower-case, so `Dealer` and `dealer` are one account.
/// (`pit::staff::check_username` then allows ASCII only, so no look-alike of another name gets
/// through.)
pub fn normalize_username(name: &str) -> String {
    name.trim().to_lowercase()
}

pub fn find(conn: &mut PgConnection, id: UserId) -> QueryResult<Option<User>> {
    users::table
        .find(id.0)
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// The accounts `ids` that exist, in no particular order.
pub fn find_all(conn: &mut PgConnection, ids: &[UserId]) -> QueryResult<Vec<User>> {
    users::table
        .filter(users::id.eq_any(ids.iter().map(|id| id.0)))
        .select(User::as_select())
        .load(conn)
}

pub fn find_by_username(conn: &mut PgConnection, username: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(users::username.eq(normalize_username(username)))
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// All accounts, by role then user name.
pub fn list(conn: &mut PgConnection) -> QueryResult<Vec<User>> {
    users::table
        .order((users::role.asc(), users::username.asc()))
        .select(User::as_select())
        .load(conn)
}

/// Accounts locked by failed sign-ins.
pub fn list_locked(conn: &mut PgConnection) -> QueryResult<Vec<User>> {
    users::table
        .filter(users::locked_at.is_not_null())
        .order(users::username.asc())
        .select(User::as_select())
        .load(conn)
}

/// A new account; the password is already hashed.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub username: String,
    pub display_name: String,
    pub role: Role,
    pub password_hash: String,
    pub must_change_password: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum CreateUserError {
    #[error("the user name {0:?} is taken")]
    UsernameTaken(String),
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
}

/// Creates an account and records `user.create`.
pub fn create(
    conn: &mut PgConnection,
    new: &NewUser,
    actor: &Actor,
) -> Result<User, CreateUserError> {
    let username = normalize_username(&new.username);
    conn.transaction(|conn| {
        let user = diesel::insert_into(users::table)
            .values((
                users::username.eq(&username),
                users::display_name.eq(new.display_name.trim()),
                users::role.eq(new.role.as_str()),
                users::password_hash.eq(&new.password_hash),
                users::must_change_password.eq(new.must_change_password),
            ))
            .returning(User::as_returning())
            .get_result(conn)
            .map_err(|err| match err {
                diesel::result::Error::DatabaseError(
                    diesel::result::DatabaseErrorKind::UniqueViolation,
                    _,
                ) => CreateUserError::UsernameTaken(username.clone()),
                other => CreateUserError::Query(other),
            })?;
        audit_log::append(
            conn,
            &NewAuditEvent::system(actor, AuditAction::UserCreate, target(&user)).details(json!({
                "role": user.role.as_str(),
                "display_name": user.display_name,
            })),
        )?;
        Ok(user)
    })
}

/// The outcome of a failed password check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailedSignIn {
    /// The failure count went up; the account is still usable.
    Counted { failed_attempts: i32 },
    /// This failure reached the threshold and locked the account.
    LockedNow,
}

/// Whether `user` is locked for sign-ins from `actor`'s address (wrong passwords from there).
pub fn locked_for(conn: &mut PgConnection, user: UserId, actor: &Actor) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        sign_in_locks::table
            .filter(sign_in_locks::user_id.eq(user.0))
            .filter(sign_in_locks::client_addr.eq(lock_addr(actor)))
            .filter(sign_in_locks::locked_until.gt(diesel::dsl::now)),
    ))
    .get_result(conn)
}

/// Records a wrong password for an existing account (`auth.signin.failed`), counted per client
/// address: at the threshold the account is locked at that address for [`LOCKOUT_MINUTES`]
/// (`auth.lockout`), and at no other.
pub fn record_failed_sign_in(
    conn: &mut PgConnection,
    user: &User,
    actor: &Actor,
) -> QueryResult<FailedSignIn> {
    conn.transaction(|conn| {
        // Counted in SQL so two concurrent failures both count.
        let attempts: i32 = diesel::update(users::table.find(user.id.0))
            .set(users::failed_attempts.eq(users::failed_attempts + 1))
            .returning(users::failed_attempts)
            .get_result(conn)?;
        #[derive(QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::Integer)]
            failures: i32,
        }
        let here: Count = diesel::sql_query(
            "INSERT INTO sign_in_locks (user_id, client_addr, failures) VALUES ($1, $2, 1) \
             ON CONFLICT (user_id, client_addr) DO UPDATE SET \
               failures = CASE WHEN sign_in_locks.locked_until <= now() THEN 1 \
                               ELSE sign_in_locks.failures + 1 END, \
               locked_until = CASE WHEN sign_in_locks.locked_until <= now() THEN NULL \
                                   ELSE sign_in_locks.locked_until END \
             RETURNING failures",
        )
        .bind::<diesel::sql_types::BigInt, _>(user.id.0)
        .bind::<diesel::sql_types::Text, _>(lock_addr(actor))
        .get_result(conn)?;
        audit_log::append(
            conn,
            &NewAuditEvent::system(actor, AuditAction::AuthSigninFailed, target(user)).details(
                json!({
                    "reason": "wrong password",
                    "failed_attempts": attempts,
                    "from_this_address": here.failures,
                }),
            ),
        )?;
        if here.failures >= LOCKOUT_THRESHOLD {
            let until: DateTime<Utc> = diesel::update(
                sign_in_locks::table
                    .filter(sign_in_locks::user_id.eq(user.id.0))
                    .filter(sign_in_locks::client_addr.eq(lock_addr(actor))),
            )
            .set((
                sign_in_locks::failures.eq(0),
                sign_in_locks::locked_until.eq(diesel::dsl::sql::<
                    diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>,
                >(&format!(
                    "now() + interval '{LOCKOUT_MINUTES} minutes'"
                ))),
            ))
            .returning(sign_in_locks::locked_until.assume_not_null())
            .get_result(conn)?;
            diesel::update(users::table.find(user.id.0))
                .set((
                    users::locked_at.eq(Utc::now()),
                    users::updated_at.eq(Utc::now()),
                ))
                .execute(conn)?;
            audit_log::append(
                conn,
                &NewAuditEvent::system(actor, AuditAction::AuthLockout, target(user)).details(
                    json!({
                        "failed_attempts": attempts,
                        "client_addr": lock_addr(actor),
                        "locked_until": until,
                    }),
                ),
            )?;
            return Ok(FailedSignIn::LockedNow);
        }
        Ok(FailedSignIn::Counted {
            failed_attempts: attempts,
        })
    })
}

/// Records a sign-in refused before any password check counted: an unknown name, or a
/// disabled or locked account (`auth.signin.failed` with the reason).
pub fn record_refused_sign_in(
    conn: &mut PgConnection,
    username: &str,
    reason: &str,
    actor: &Actor,
) -> QueryResult<()> {
    conn.transaction(|conn| {
        audit_log::append(
            conn,
            &NewAuditEvent::system(
                actor,
                AuditAction::AuthSigninFailed,
                format!("user:{}", normalize_username(username)),
            )
            .details(json!({ "reason": reason })),
        )?;
        Ok(())
    })
}

/// Records a successful sign-in (`auth.signin`) and clears the failure count.
pub fn record_sign_in(conn: &mut PgConnection, user: &User, actor: &Actor) -> QueryResult<()> {
    conn.transaction(|conn| {
        diesel::update(users::table.find(user.id.0))
            .set(users::failed_attempts.eq(0))
            .execute(conn)?;
        diesel::delete(
            sign_in_locks::table
                .filter(sign_in_locks::user_id.eq(user.id.0))
                .filter(sign_in_locks::client_addr.eq(lock_addr(actor))),
        )
        .execute(conn)?;
        audit_log::append(
            conn,
            &NewAuditEvent::system(actor, AuditAction::AuthSignin, target(user))
                .details(json!({ "role": user.role.as_str() })),
        )?;
        Ok(())
    })
}

/// Unlocks an account and clears its failure count (`user.unlock`). Returns false when the
/// user does not exist.
pub fn unlock(conn: &mut PgConnection, id: UserId, actor: &Actor) -> QueryResult<bool> {
    change_user(conn, id, actor, |conn, user| {
        diesel::update(users::table.find(id.0))
            .set((
                users::locked_at.eq(None::<DateTime<Utc>>),
                users::failed_attempts.eq(0),
                users::updated_at.eq(Utc::now()),
            ))
            .execute(conn)?;
        diesel::delete(sign_in_locks::table.filter(sign_in_locks::user_id.eq(id.0)))
            .execute(conn)?;
        let details = json!({
            "was_locked": user.is_locked(),
            "failed_attempts": user.failed_attempts,
        });
        Ok((AuditAction::UserUnlock, details))
    })
}

/// Changes the account `id` and writes its audit event in one transaction: `change` makes the
/// change and names the event's action and details. Returns false when the user does not exist.
fn change_user(
    conn: &mut PgConnection,
    id: UserId,
    actor: &Actor,
    change: impl FnOnce(&mut PgConnection, &User) -> QueryResult<(AuditAction, Value)>,
) -> QueryResult<bool> {
    conn.transaction(|conn| {
        let Some(user) = find(conn, id)? else {
            return Ok(false);
        };
        let (action, details) = change(conn, &user)?;
        let event = NewAuditEvent::system(actor, action, target(&user)).details(details);
        audit_log::append(conn, &event)?;
        Ok(true)
    })
}

/// Disables an account and ends all its sessions at once (`user.disable`), or enables it
/// again (`user.enable`). Returns false when the user does not exist.
pub fn set_disabled(
    conn: &mut PgConnection,
    id: UserId,
    disabled: bool,
    actor: &Actor,
) -> QueryResult<bool> {
    change_user(conn, id, actor, |conn, _| {
        let now = Utc::now();
        diesel::update(users::table.find(id.0))
            .set((
                users::disabled_at.eq(disabled.then_some(now)),
                users::updated_at.eq(now),
            ))
            .execute(conn)?;
        let ended = if disabled {
            diesel::delete(sessions::table.filter(sessions::user_id.eq(id.0))).execute(conn)?
        } else {
            0
        };
        let action = if disabled {
            AuditAction::UserDisable
        } else {
            AuditAction::UserEnable
        };
        Ok((action, json!({ "sessions_ended": ended })))
    })
}

/// Replaces a password hash. `action` is `user.password_change` (by the user, who keeps only
/// the current session) or `user.password_reset` (by an administrator or the CLI, which ends
/// every session of the user and makes them choose a new password at next sign-in).
pub fn set_password(
    conn: &mut PgConnection,
    id: UserId,
    password_hash: &str,
    change: PasswordChange,
    actor: &Actor,
) -> QueryResult<bool> {
    change_user(conn, id, actor, |conn, user| {
        let (must_change, action) = match change {
            PasswordChange::BySelf => (false, AuditAction::UserPasswordChange),
            PasswordChange::Reset => (true, AuditAction::UserPasswordReset),
        };
        diesel::update(users::table.find(id.0))
            .set((
                users::password_hash.eq(password_hash),
                users::must_change_password.eq(must_change),
                users::updated_at.eq(Utc::now()),
            ))
            .execute(conn)?;
        // A reset also clears the signing PIN: whoever lost their password may have lost
        // control of the account.
        let pin_cleared = change == PasswordChange::Reset && user.signing_pin.is_some();
        if pin_cleared {
            diesel::update(users::table.find(id.0))
                .set(users::signing_pin.eq(None::<Vec<u8>>))
                .execute(conn)?;
        }
        // Every session ends: a reset signs the user out everywhere; one who changed their own
        // keeps the session they changed it in only by renewing it (the caller does).
        let ended =
            diesel::delete(sessions::table.filter(sessions::user_id.eq(id.0))).execute(conn)?;
        let mut details = json!({ "sessions_ended": ended });
        if pin_cleared {
            details["signing_pin_cleared"] = json!(true);
        }
        Ok((action, details))
    })
}

/// Sets (`user.pin_set`, by its owner), removes (`user.pin_removed`, by its owner) or clears
/// (`user.pin_cleared`, by an administrator) an account's signing PIN, stored as `sealed`
/// (`password::pin::PinKey::seal`). Returns false when the user does not exist.
pub fn set_signing_pin(
    conn: &mut PgConnection,
    id: UserId,
    sealed: Option<Vec<u8>>,
    change: PinChange,
    actor: &Actor,
) -> QueryResult<bool> {
    change_user(conn, id, actor, |conn, user| {
        diesel::update(users::table.find(id.0))
            .set((
                users::signing_pin.eq(sealed),
                users::updated_at.eq(Utc::now()),
            ))
            .execute(conn)?;
        let action = match change {
            PinChange::Set => AuditAction::UserPinSet,
            PinChange::Removed => AuditAction::UserPinRemoved,
            PinChange::Cleared => AuditAction::UserPinCleared,
        };
        Ok((action, json!({ "had_pin": user.signing_pin.is_some() })))
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinChange {
    Set,
    Removed,
    Cleared,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordChange {
    BySelf,
    Reset,
}

/// The audit target naming a user.
pub fn target(user: &User) -> String {
    format!("user:{}", user.username)
}
