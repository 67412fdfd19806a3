//! Rule profiles: the list with each one's newest version, creating one, and a new version of
//! one (from the next dealer shift, or from a time).

use chrono::{DateTime, Utc};

use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::ids::ProfileId;
use crate::db::profiles::{self, ProfileError, ProfileWithLatest};
use crate::pit::{PitError, Refusable};
use crate::rules::game::GameRules;

pub async fn list(db: &Db) -> Result<Vec<ProfileWithLatest>, PitError> {
    db.run(|conn| Ok(profiles::list(conn)?)).await
}

/// Creates profile `name` with its first version; refused (in words) when the name is taken
/// or not a name.
pub async fn create(
    db: &Db,
    name: String,
    options: GameRules,
    actor: Actor,
) -> Result<Refusable<()>, PitError> {
    db.run(
        move |conn| match profiles::create_profile(conn, &name, options, &actor) {
            Ok(_) => Ok(Ok(())),
            Err(ProfileError::BadName) => Ok(Err("Enter a name of 1 to 80 characters.".to_owned())),
            Err(ProfileError::NameTaken(name)) => {
                Ok(Err(format!("A profile named {name:?} already exists.")))
            }
            Err(other) => Err(other.into()),
        },
    )
    .await
}

/// A new version of profile `id`, in force from `from` (the next dealer shift if `None`): its
/// number, or why not (in words).
pub async fn new_version(
    db: &Db,
    id: ProfileId,
    options: GameRules,
    from: Option<DateTime<Utc>>,
    actor: Actor,
) -> Result<Refusable<i32>, PitError> {
    db.run(
        move |conn| match profiles::new_version(conn, id, options, from, &actor) {
            Ok(v) => Ok(Ok(v.version)),
            Err(ProfileError::NotFound(_)) => Err(PitError::NotFound),
            Err(ProfileError::GameChanged { kept, asked }) => Ok(Err(format!(
                "A profile keeps its game: this one plays the {kept} game, not the {asked} \
                 game. Add a new profile for the {asked} game."
            ))),
            Err(other) => Err(other.into()),
        },
    )
    .await
}
