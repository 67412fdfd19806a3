//! Gaming tables as administrators keep them: the list with their rule profiles and confirm
//! prompts, creating one, changing one, and whether its screen asks before a round is confirmed.

use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::ids::TableId;
use crate::db::profiles::{self, ProfileWithLatest};
use crate::db::table_settings;
use crate::db::tables::{self, TableError, TableFieldErrors, TableInput, TableListing};
use crate::pit::{PitError, Refusable};

/// What the tables' administration page lists.
pub struct TablesAdmin {
    pub listings: Vec<TableListing>,
    pub profiles: Vec<ProfileWithLatest>,
    /// Each table's code and whether its screen asks before a round is confirmed.
    pub prompts: Vec<(TableId, String, bool)>,
}

pub async fn admin_list(db: &Db) -> Result<TablesAdmin, PitError> {
    db.run(|conn| {
        Ok(TablesAdmin {
            listings: tables::list_tables(conn)?,
            profiles: profiles::list(conn)?,
            prompts: table_settings::confirm_prompts(conn)?,
        })
    })
    .await
}

/// Creates a table; refused with what to correct.
pub async fn create(
    db: &Db,
    input: TableInput,
    actor: Actor,
) -> Result<Refusable<(), TableFieldErrors>, PitError> {
    db.run(
        move |conn| match tables::create_table(conn, &input, &actor) {
            Ok(_) => Ok(Ok(())),
            Err(TableError::Invalid(errors)) => Ok(Err(*errors)),
            Err(other) => Err(other.into()),
        },
    )
    .await
}

/// Changes table `id`; its code when saved, or what to correct.
pub async fn update(
    db: &Db,
    id: TableId,
    input: TableInput,
    actor: Actor,
) -> Result<Refusable<String, TableFieldErrors>, PitError> {
    db.run(
        move |conn| match tables::update_table(conn, id, &input, &actor) {
            Ok(table) => Ok(Ok(table.code)),
            Err(TableError::Invalid(errors)) => Ok(Err(*errors)),
            Err(TableError::NotFound) => Err(PitError::NotFound),
            Err(other) => Err(other.into()),
        },
    )
    .await
}

/// Sets whether table `id`'s screen asks once before a round is confirmed.
pub async fn set_confirm_prompt(
    db: &Db,
    id: TableId,
    on: bool,
    actor: Actor,
) -> Result<(), PitError> {
    let found = db
        .run(move |conn| -> Result<bool, PitError> {
            Ok(table_settings::set_confirm_prompt(conn, id, on, &actor)?)
        })
        .await?;
    if found {
        Ok(())
    } else {
        Err(PitError::NotFound)
    }
}
