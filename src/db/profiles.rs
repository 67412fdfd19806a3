//! Rule profiles and their versions. A profile is a name; its options live in numbered
//! versions that are only ever inserted, so a round that records the version it was settled
//! under keeps its meaning after the profile is edited.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::json;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::{ProfileId, ProfileVersionId, TableId, UserId};
use crate::db::schema::{gaming_tables, rule_profile_versions, rule_profiles};
use crate::rules::game::{Game, GameRules};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = rule_profiles)]
pub struct Profile {
    pub id: ProfileId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = rule_profile_versions)]
pub struct VersionRow {
    pub id: ProfileVersionId,
    pub profile_id: ProfileId,
    pub version: i32,
    pub options: serde_json::Value,
    pub created_by: Option<UserId>,
    pub created_at: DateTime<Utc>,
}

/// One stored version with its options parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub id: ProfileVersionId,
    pub profile_id: ProfileId,
    pub version: i32,
    pub options: GameRules,
    pub created_at: DateTime<Utc>,
}

/// A profile with its newest version.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileWithLatest {
    pub profile: Profile,
    pub latest: Version,
}

/// Why a profile was not written or read, as the database layer found it (the use-cases say it
/// in words).
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// Not a name of 1 to 80 characters.
    #[error("bad profile name")]
    BadName,
    #[error("profile name {0:?} is taken")]
    NameTaken(String),
    /// A new version of another game than the profile's.
    #[error("profile plays the {kept} game, not the {asked} game")]
    GameChanged { kept: Game, asked: Game },
    #[error("no rule profile with id {0}")]
    NotFound(ProfileId),
    #[error("stored options of profile version {id} do not parse")]
    BadStoredOptions {
        id: ProfileVersionId,
        #[source]
        source: serde_json::Error,
    },
    #[error(transparent)]
    Query(#[from] DieselError),
}

impl TryFrom<VersionRow> for Version {
    type Error = ProfileError;

    fn try_from(row: VersionRow) -> Result<Version, ProfileError> {
        let options = serde_json::from_value(row.options)
            .map_err(|source| ProfileError::BadStoredOptions { id: row.id, source })?;
        Ok(Version {
            id: row.id,
            profile_id: row.profile_id,
            version: row.version,
            options,
            created_at: row.created_at,
        })
    }
}

fn options_json(options: &GameRules) -> serde_json::Value {
    // The options are plain bools, numbers, enums, a suit string and maps with string keys:
    // serialising them cannot fail.
    serde_json::to_value(options).unwrap_or(serde_json::Value::Null)
}

fn insert_version(
    conn: &mut PgConnection,
    profile_id: ProfileId,
    version: i32,
    options: &GameRules,
    actor: &Actor,
) -> Result<Version, ProfileError> {
    let row = diesel::insert_into(rule_profile_versions::table)
        .values((
            rule_profile_versions::profile_id.eq(profile_id),
            rule_profile_versions::version.eq(version),
            rule_profile_versions::options.eq(options_json(options)),
            rule_profile_versions::created_by.eq(actor.user_id),
        ))
        .returning(VersionRow::as_returning())
        .get_result(conn)?;
    Version::try_from(row)
}

/// Creates a profile with version 1 and records `profile.create` on the system chain.
pub fn create_profile(
    conn: &mut PgConnection,
    name: &str,
    options: impl Into<GameRules>,
    actor: &Actor,
) -> Result<(Profile, Version), ProfileError> {
    let options = &options.into();
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(ProfileError::BadName);
    }
    conn.transaction(|conn| {
        let profile = diesel::insert_into(rule_profiles::table)
            .values(rule_profiles::name.eq(name))
            .returning(Profile::as_returning())
            .get_result(conn)
            .map_err(|err| match err {
                DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
                    ProfileError::NameTaken(name.to_owned())
                }
                other => ProfileError::Query(other),
            })?;
        let version = insert_version(conn, profile.id, 1, options, actor)?;
        audit_log::append(
            conn,
            &NewAuditEvent::system(
                actor,
                AuditAction::ProfileCreate,
                format!("profile:{}", profile.id),
            )
            .details(json!({
                "name": profile.name,
                "version": 1,
                "options": options_json(options),
            })),
        )?;
        Ok((profile, version))
    })
}

/// Inserts the next version of a profile (never touching older ones), sets it waiting at every
/// table playing the profile from `from` (`None`: each table's next dealer shift; a table in
/// mid-shift keeps its version until then), and records `profile.new_version` with the options
/// before and after, when it applies and at which tables.
pub fn new_version(
    conn: &mut PgConnection,
    profile_id: ProfileId,
    options: impl Into<GameRules>,
    from: Option<DateTime<Utc>>,
    actor: &Actor,
) -> Result<Version, ProfileError> {
    let options = &options.into();
    conn.transaction(|conn| {
        // Lock the profile so two editors cannot both pick the same next number.
        let profile: Profile = rule_profiles::table
            .find(profile_id)
            .select(Profile::as_select())
            .for_update()
            .first(conn)
            .optional()?
            .ok_or(ProfileError::NotFound(profile_id))?;
        let before = latest_version(conn, profile_id)?;
        // A table's rounds, drafts and unit are of its profile's game: the game never changes.
        if let Some(kept) = before.as_ref().map(|v| v.options.game()) {
            if kept != options.game() {
                return Err(ProfileError::GameChanged {
                    kept,
                    asked: options.game(),
                });
            }
        }
        let next = before.as_ref().map_or(1, |v| v.version + 1);
        let version = insert_version(conn, profile.id, next, options, actor)?;
        let tables = set_waiting_version(conn, WaitAt::Profile(profile.id), version.id, from)?;
        audit_log::append(
            conn,
            &NewAuditEvent::system(
                actor,
                AuditAction::ProfileNewVersion,
                format!("profile:{}", profile.id),
            )
            .details(json!({
                "name": profile.name,
                "version": next,
                "before": before.map(|v| options_json(&v.options)),
                "after": options_json(options),
                "applies_from": from.map_or_else(|| json!("next_shift"), |at| json!(at)),
                "tables": tables,
            })),
        )?;
        Ok(version)
    })
}

/// The newest version of a profile, if the profile exists.
pub fn latest_version(
    conn: &mut PgConnection,
    profile_id: ProfileId,
) -> Result<Option<Version>, ProfileError> {
    rule_profile_versions::table
        .filter(rule_profile_versions::profile_id.eq(profile_id))
        .order(rule_profile_versions::version.desc())
        .select(VersionRow::as_select())
        .first(conn)
        .optional()?
        .map(Version::try_from)
        .transpose()
}

/// One version with its profile's name.
pub fn version_by_id(
    conn: &mut PgConnection,
    id: ProfileVersionId,
) -> Result<(String, Version), ProfileError> {
    named_version(conn, id)?.ok_or(ProfileError::from(diesel::result::Error::NotFound))
}

/// The stored version with this id and its profile's name, if it exists.
pub fn named_version(
    conn: &mut PgConnection,
    id: ProfileVersionId,
) -> Result<Option<(String, Version)>, ProfileError> {
    let found: Option<(String, VersionRow)> = rule_profile_versions::table
        .find(id)
        .inner_join(rule_profiles::table)
        .select((rule_profiles::name, VersionRow::as_select()))
        .first(conn)
        .optional()?;
    found
        .map(|(name, row)| Ok((name, Version::try_from(row)?)))
        .transpose()
}

/// The stored version with this id (the one a settled round names).
pub fn version(
    conn: &mut PgConnection,
    id: ProfileVersionId,
) -> Result<Option<Version>, ProfileError> {
    rule_profile_versions::table
        .find(id)
        .select(VersionRow::as_select())
        .first(conn)
        .optional()?
        .map(Version::try_from)
        .transpose()
}

/// Every version of a profile, oldest first.
pub fn versions(
    conn: &mut PgConnection,
    profile_id: ProfileId,
) -> Result<Vec<Version>, ProfileError> {
    rule_profile_versions::table
        .filter(rule_profile_versions::profile_id.eq(profile_id))
        .order(rule_profile_versions::version.asc())
        .select(VersionRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Version::try_from)
        .collect()
}

/// Every profile by name, each with its newest version.
pub fn list(conn: &mut PgConnection) -> Result<Vec<ProfileWithLatest>, ProfileError> {
    let profiles: Vec<Profile> = rule_profiles::table
        .order(rule_profiles::name.asc())
        .select(Profile::as_select())
        .load(conn)?;
    let mut out = Vec::with_capacity(profiles.len());
    for profile in profiles {
        // Every profile is created with version 1 in the same transaction.
        let Some(latest) = latest_version(conn, profile.id)? else {
            continue;
        };
        out.push(ProfileWithLatest { profile, latest });
    }
    Ok(out)
}

pub fn find_by_name(conn: &mut PgConnection, name: &str) -> QueryResult<Option<Profile>> {
    rule_profiles::table
        .filter(rule_profiles::name.eq(name.trim()))
        .select(Profile::as_select())
        .first(conn)
        .optional()
}

/// Makes a waiting version whose time has come the tables' own (the version in force does not
/// change), so that a newer waiting version can take its place. Returns how many tables moved.
pub fn settle_due_versions(conn: &mut PgConnection) -> QueryResult<usize> {
    diesel::update(
        gaming_tables::table.filter(gaming_tables::next_profile_from.le(diesel::dsl::now)),
    )
    .set((
        gaming_tables::profile_version_id
            .eq(gaming_tables::next_profile_version_id.assume_not_null()),
        gaming_tables::next_profile_version_id.eq(None::<ProfileVersionId>),
        gaming_tables::next_profile_from.eq(None::<DateTime<Utc>>),
    ))
    .execute(conn)
}

/// Which tables a new profile version waits at.
pub enum WaitAt {
    /// Every table playing the profile.
    Profile(ProfileId),
    Table(TableId),
}

/// Sets `version` waiting at the tables `at`, from `from` (`None`: each table's next dealer
/// shift), in place of any version waiting there. Returns the codes of the tables.
pub fn set_waiting_version(
    conn: &mut PgConnection,
    at: WaitAt,
    version: ProfileVersionId,
    from: Option<DateTime<Utc>>,
) -> QueryResult<Vec<String>> {
    settle_due_versions(conn)?;
    let set = (
        gaming_tables::next_profile_version_id.eq(Some(version)),
        gaming_tables::next_profile_from.eq(from),
    );
    let mut codes: Vec<String> = match at {
        WaitAt::Profile(profile) => {
            diesel::update(gaming_tables::table.filter(gaming_tables::rule_profile_id.eq(profile)))
                .set(set)
                .returning(gaming_tables::code)
                .get_results(conn)?
        }
        WaitAt::Table(id) => diesel::update(gaming_tables::table.find(id))
            .set(set)
            .returning(gaming_tables::code)
            .get_results(conn)?,
    };
    codes.sort();
    Ok(codes)
}
