//! Staff accounts: the list, creating one, disabling, enabling, unlocking and resetting a
//! password (each change with its audit event, in one transaction).

use diesel::PgConnection;

use crate::db::audit_log::Actor;
use crate::db::checkpoints;
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::seal_file::SealFiles;
use crate::db::shifts;
use crate::db::users::{self, CreateUserError, NewUser, PasswordChange, PinChange, User};
use crate::password::{self, pin, Secrets};
use crate::pit::{PitError, Refusable};

/// Why a user name cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsernameError {
    #[error("enter a user name")]
    Empty,
    #[error("use at most 64 characters")]
    TooLong,
    #[error("use only lower-case ASCII letters a-z, digits 0-9, '.', '-' and '_' (no accents or look-alike letters)")]
    BadCharacter,
}

/// Checks an already normalised user name.
pub fn check_username(name: &str) -> Result<(), UsernameError> {
    if name.is_empty() {
        return Err(UsernameError::Empty);
    }
    if name.chars().count() > 64 {
        return Err(UsernameError::TooLong);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '_'))
    {
        return Err(UsernameError::BadCharacter);
    }
    Ok(())
}

/// Every account, for the staff page.
pub async fn list(db: &Db) -> Result<Vec<User>, PitError> {
    db.run(|conn| Ok(users::list(conn)?)).await
}

/// One account, if it exists.
pub async fn find(db: &Db, id: UserId) -> Result<Option<User>, PitError> {
    db.run(move |conn| Ok(users::find(conn, id)?)).await
}

/// Creates an account; refused with the user name if it is taken.
pub async fn create(db: &Db, new: NewUser, actor: Actor) -> Result<Refusable<User>, PitError> {
    db.run(move |conn| match users::create(conn, &new, &actor) {
        Ok(user) => Ok(Ok(user)),
        Err(CreateUserError::UsernameTaken(name)) => Ok(Err(name)),
        Err(CreateUserError::Query(err)) => Err(err.into()),
    })
    .await
}

/// Runs a change to one account, which answers whether the account exists: a missing one is
/// [`PitError::NotFound`].
async fn change_account<F, E>(db: &Db, change: F) -> Result<(), PitError>
where
    F: FnOnce(&mut PgConnection) -> Result<bool, E> + Send + 'static,
    PitError: From<E>,
{
    let found = db
        .run(move |conn| -> Result<bool, PitError> { Ok(change(conn)?) })
        .await?;
    if found {
        Ok(())
    } else {
        Err(PitError::NotFound)
    }
}

/// An account about to be disabled, and the table and time of the shift it is on, if any
/// (which disabling ends): what the confirmation says.
pub struct ToDisable {
    pub user: User,
    pub shift: Option<(String, chrono::DateTime<chrono::Utc>)>,
}

pub async fn to_disable(db: &Db, id: UserId) -> Result<ToDisable, PitError> {
    db.run(move |conn| {
        let user = users::find(conn, id)?.ok_or(PitError::NotFound)?;
        let shift =
            shifts::dealer_table(conn, id)?.map(|(shift, table)| (table.code, shift.signed_on_at));
        Ok(ToDisable { user, shift })
    })
    .await
}

/// Disables an account; a dealer on shift is signed off, and the chain heads checkpointed.
pub async fn disable(db: &Db, id: UserId, actor: Actor, seals: SealFiles) -> Result<(), PitError> {
    change_account(db, move |conn| {
        let disabled = shifts::disable_user(conn, id, &actor);
        if matches!(disabled, Ok(true)) {
            checkpoints::at_sign_off(conn, &seals);
        }
        disabled
    })
    .await
}

pub async fn enable(db: &Db, id: UserId, actor: Actor) -> Result<(), PitError> {
    change_account(db, move |conn| users::set_disabled(conn, id, false, &actor)).await
}

/// Unlocks an account locked by failed sign-ins.
pub async fn unlock(db: &Db, id: UserId, actor: Actor) -> Result<(), PitError> {
    change_account(db, move |conn| users::unlock(conn, id, &actor)).await
}

/// Sets an account's password (hashed already): reset by an administrator, or changed by its
/// owner (whose account was read just before; an account gone since is left as it is).
pub async fn set_password(
    db: &Db,
    id: UserId,
    password_hash: String,
    change: PasswordChange,
    actor: Actor,
) -> Result<(), PitError> {
    db.run(move |conn| {
        users::set_password(conn, id, &password_hash, change, &actor)?;
        Ok(())
    })
    .await
}

/// Why a PIN was not set or removed, by field.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PinRefusal {
    pub current: Option<String>,
    pub pin: Option<String>,
    pub confirm: Option<String>,
}

impl PinRefusal {
    fn any(&self) -> bool {
        self.current.is_some() || self.pin.is_some() || self.confirm.is_some()
    }
}

/// Sets the signed-in person's own signing PIN (`entry`: the PIN and the same again) or removes
/// it (`None`), after their current password (a PIN is set only by an authenticated act of its
/// owner); the PIN must meet `password::pin::check_policy`. Audited on the system
/// chain (`user.pin_set`, `user.pin_removed`); the PIN itself is never written anywhere but
/// as its MAC.
pub async fn set_own_pin(
    db: &Db,
    secrets: Secrets,
    id: UserId,
    current_password: String,
    entry: Option<(String, String)>,
    actor: Actor,
) -> Result<Refusable<(), PinRefusal>, PitError> {
    let user = find(db, id).await?.ok_or(PitError::NotFound)?;
    let hash = user.password_hash.clone();
    let matches = tokio::task::spawn_blocking(move || password::verify(&current_password, &hash))
        .await
        .map_err(|_| PitError::Task)??;
    let mut refusal = PinRefusal::default();
    if !matches {
        refusal.current = Some("This is not your current password.".to_owned());
    }
    if let Some((pin, confirm)) = &entry {
        if let Err(problem) = pin::check_policy(pin) {
            refusal.pin = Some(problem.to_string());
        } else if pin != confirm {
            refusal.confirm = Some("The two PINs differ.".to_owned());
        }
    }
    if refusal.any() {
        return Ok(Err(refusal));
    }
    let (sealed, change) = match entry {
        Some((pin, _)) => (Some(secrets.pin_key.seal(id.0, &pin)), PinChange::Set),
        None => (None, PinChange::Removed),
    };
    change_account(db, move |conn| {
        users::set_signing_pin(conn, id, sealed, change, &actor)
    })
    .await?;
    Ok(Ok(()))
}

/// Clears an account's signing PIN (`user.pin_cleared`): an administrator's remedy for a PIN
/// forgotten or seen by others. Nobody but its owner can set one.
pub async fn clear_pin(db: &Db, id: UserId, actor: Actor) -> Result<(), PitError> {
    change_account(db, move |conn| {
        users::set_signing_pin(conn, id, None, PinChange::Cleared, &actor)
    })
    .await
}
