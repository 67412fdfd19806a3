//! Gaming tables as administrators keep them: the list with their rule profiles and confirm
//! prompts, creating one, changing one, and whether its screen asks before a round is confirmed.
//! A table's input is checked here, once, into field errors a form can show next to each field.

use diesel::{Connection, PgConnection};

use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::ids::TableId;
use crate::db::profiles::{self, ProfileError, ProfileWithLatest, WaitAt};
use crate::db::table_settings;
use crate::db::tables::{self, GamingTable, TableError, TableInput, TableListing};
use crate::pit::{PitError, Refusable};
use crate::rules::game::Game;

/// One message per field that is wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableFieldErrors {
    pub code: Option<String>,
    pub name: Option<String>,
    pub currency: Option<String>,
    pub min_bet: Option<String>,
    pub max_bet: Option<String>,
    pub rule_profile_id: Option<String>,
    pub approval_threshold: Option<String>,
    pub unit: Option<String>,
}

impl TableFieldErrors {
    pub fn any(&self) -> bool {
        self.code.is_some()
            || self.name.is_some()
            || self.currency.is_some()
            || self.min_bet.is_some()
            || self.max_bet.is_some()
            || self.rule_profile_id.is_some()
            || self.approval_threshold.is_some()
            || self.unit.is_some()
    }
}

/// Why a table was not created or changed: what to correct, or a failure.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("the table details need correcting")]
    Invalid(Box<TableFieldErrors>),
    #[error(transparent)]
    Failed(TableError),
}

impl From<TableError> for SaveError {
    /// A code taken by another table is the code's field error.
    fn from(err: TableError) -> Self {
        match err {
            TableError::CodeTaken(code) => SaveError::Invalid(Box::new(TableFieldErrors {
                code: Some(format!("A table with code {code} already exists.")),
                ..TableFieldErrors::default()
            })),
            other => SaveError::Failed(other),
        }
    }
}

impl From<ProfileError> for SaveError {
    fn from(err: ProfileError) -> Self {
        SaveError::Failed(err.into())
    }
}

impl From<diesel::result::Error> for SaveError {
    fn from(err: diesel::result::Error) -> Self {
        SaveError::Failed(err.into())
    }
}

/// The highest table limit, in minor units (1,000,000,000.00): sums of bets and results over
/// any number of rounds a table can deal stay far inside `i64` (and PostgreSQL's `bigint`).
pub const MOST_BET: i64 = 100_000_000_000;

/// Normalises (trims, upper-cases code and currency) and checks every field but the profile.
///
/// `game` is the game of the table's profile, when known: a points-game table needs its unit,
/// which becomes its bet limits too; a banking table has none.
pub fn validate(
    input: &TableInput,
    game: Option<Game>,
) -> Result<TableInput, Box<TableFieldErrors>> {
    let mut clean = TableInput {
        code: input.code.trim().to_ascii_uppercase(),
        name: input.name.trim().to_owned(),
        currency: input.currency.trim().to_ascii_uppercase(),
        ..input.clone()
    };
    let mut errors = TableFieldErrors::default();
    match (game, clean.unit) {
        (Some(Game::Points), None) => {
            errors.unit = Some(
                "A points-game table needs its unit: what one point is worth, such as 10 or 10.00."
                    .to_owned(),
            );
        }
        (Some(Game::Points), Some(unit)) if unit <= 0 => {
            errors.unit = Some("The unit must be above zero.".to_owned());
        }
        (Some(Game::Points), Some(unit)) if unit > MOST_BET => {
            errors.unit = Some("The unit can be at most 1,000,000,000.00.".to_owned());
        }
        (Some(Game::Points), Some(unit)) => {
            // Its stake is its unit: limits typed otherwise are refused, never dropped.
            if ![(0, 0), (unit, unit)].contains(&(clean.min_bet, clean.max_bet)) {
                errors.min_bet = Some(
                    "A points-game table has no bet limits: what is at stake is its unit (what one point is worth). Leave the minimum and maximum empty."
                        .to_owned(),
                );
            }
            clean.min_bet = unit;
            clean.max_bet = unit;
        }
        (Some(Game::Banking), Some(_)) => {
            errors.unit = Some(
                "Only a points-game table has a unit; leave it empty for a banking table (its bet limits apply)."
                    .to_owned(),
            );
        }
        (_, _) => {}
    }
    if !tables::is_valid_code(&clean.code) {
        errors.code = Some(
            "Use 2 to 20 capital letters, digits or dashes, starting with a letter or digit (e.g. PUSOY-03)."
                .to_owned(),
        );
    }
    if clean.name.is_empty() || clean.name.chars().count() > 80 {
        errors.name = Some("Enter a name of 1 to 80 characters.".to_owned());
    }
    if clean.currency.len() != 3 || !clean.currency.bytes().all(|b| b.is_ascii_uppercase()) {
        errors.currency = Some("Enter a 3-letter currency code such as PHP.".to_owned());
    }
    match game {
        // Its limits are its unit, checked above.
        Some(Game::Points) => {}
        // Neither limit given (the form leaves them empty for a points table).
        _ if (clean.min_bet, clean.max_bet) == (0, 0) => {
            errors.min_bet = Some(
                "Enter the bet limits of a banking-game table (such as 100 and 50000), or choose a points-game profile and give its unit."
                    .to_owned(),
            );
        }
        _ => {
            if clean.min_bet <= 0 {
                errors.min_bet = Some("The minimum bet must be above zero.".to_owned());
            }
            if clean.max_bet < clean.min_bet {
                errors.max_bet =
                    Some("The maximum bet must be at least the minimum bet.".to_owned());
            } else if clean.max_bet > MOST_BET {
                errors.max_bet =
                    Some("The maximum bet can be at most 1,000,000,000.00.".to_owned());
            }
        }
    }
    match clean.approval_threshold {
        Some(threshold) if threshold <= 0 => {
            errors.approval_threshold = Some(
                "The approval threshold must be above zero (leave it empty for none).".to_owned(),
            );
        }
        Some(threshold) if threshold > MOST_BET * 100 => {
            errors.approval_threshold =
                Some("The approval threshold can be at most 100,000,000,000.00.".to_owned());
        }
        _ => {}
    }
    if errors.any() {
        Err(Box::new(errors))
    } else {
        Ok(clean)
    }
}

/// `input` checked ([`validate`]) under the game of its profile (the newest version's); every
/// field's error at once, the profile's when there is no such profile.
fn checked(conn: &mut PgConnection, input: &TableInput) -> Result<TableInput, SaveError> {
    let game = profiles::latest_version(conn, input.rule_profile_id)?.map(|v| v.options.game());
    let checked = validate(input, game);
    if game.is_some() {
        return checked.map_err(SaveError::Invalid);
    }
    let mut errors = checked.err().unwrap_or_default();
    errors.rule_profile_id = Some("Choose a rule profile.".to_owned());
    Err(SaveError::Invalid(errors))
}

/// Creates a table from `input` once it is checked ([`validate`], under its profile's game),
/// in one transaction; records `table.create` on the table's own chain.
pub fn create_table(
    conn: &mut PgConnection,
    input: &TableInput,
    actor: &Actor,
) -> Result<GamingTable, SaveError> {
    conn.transaction(|conn| {
        let input = checked(conn, input)?;
        Ok(tables::create_table(conn, &input, actor)?)
    })
}

/// Changes table `id`'s name, currency, limits and profile (not its code) once checked, in one
/// transaction holding the table's row; records `table.update` with the values before and
/// after. `None` when there is no such table.
pub fn update_table(
    conn: &mut PgConnection,
    id: TableId,
    input: &TableInput,
    actor: &Actor,
) -> Result<Option<GamingTable>, SaveError> {
    conn.transaction(|conn| {
        let Some(before) = tables::lock_for_update(conn, id)? else {
            return Ok(None);
        };
        let input = TableInput {
            code: before.code.clone(),
            ..input.clone()
        };
        let input = checked(conn, &input)?;
        // A new profile applies from the table's next dealer shift, as a new version does.
        if input.rule_profile_id != before.rule_profile_id {
            let newest = profiles::latest_version(conn, input.rule_profile_id)?
                .ok_or(ProfileError::NotFound(input.rule_profile_id))?;
            profiles::set_waiting_version(conn, WaitAt::Table(id), newest.id, None)?;
        }
        Ok(Some(tables::update_table(conn, &before, &input, actor)?))
    })
}

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
    db.run(move |conn| match create_table(conn, &input, &actor) {
        Ok(_) => Ok(Ok(())),
        Err(SaveError::Invalid(errors)) => Ok(Err(*errors)),
        Err(SaveError::Failed(err)) => Err(err.into()),
    })
    .await
}

/// Changes table `id`; its code when saved, or what to correct.
pub async fn update(
    db: &Db,
    id: TableId,
    input: TableInput,
    actor: Actor,
) -> Result<Refusable<String, TableFieldErrors>, PitError> {
    db.run(move |conn| match update_table(conn, id, &input, &actor) {
        Ok(Some(table)) => Ok(Ok(table.code)),
        Ok(None) => Err(PitError::NotFound),
        Err(SaveError::Invalid(errors)) => Ok(Err(*errors)),
        Err(SaveError::Failed(err)) => Err(err.into()),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::ids::ProfileId;

    fn input() -> TableInput {
        TableInput {
            code: " pusoy-03 ".to_owned(),
            name: "Pusoy 3".to_owned(),
            currency: "php".to_owned(),
            min_bet: 10_000,
            max_bet: 5_000_000,
            rule_profile_id: ProfileId(1),
            approval_threshold: None,
            unit: None,
        }
    }

    #[test]
    fn validation_normalises_code_and_currency() {
        let clean = validate(&input(), None).ok();
        assert_eq!(clean.as_ref().map(|c| c.code.as_str()), Some("PUSOY-03"));
        assert_eq!(clean.as_ref().map(|c| c.currency.as_str()), Some("PHP"));
    }

    #[test]
    fn validation_reports_each_wrong_field() {
        let errors = validate(
            &TableInput {
                code: "x".to_owned(),
                name: " ".to_owned(),
                currency: "PESO".to_owned(),
                min_bet: 0,
                max_bet: -1,
                rule_profile_id: ProfileId(1),
                approval_threshold: None,
                unit: None,
            },
            None,
        )
        .err()
        .unwrap_or_default();
        assert!(errors.code.is_some());
        assert!(errors.name.is_some());
        assert!(errors.currency.is_some());
        assert!(errors.min_bet.is_some());
        assert!(errors.max_bet.is_some());
    }

    #[test]
    fn a_maximum_below_the_minimum_is_refused() {
        let errors = validate(
            &TableInput {
                max_bet: 9_999,
                ..input()
            },
            None,
        )
        .err()
        .unwrap_or_default();
        assert!(errors.max_bet.is_some() && errors.min_bet.is_none());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod limit_tests {
    use super::*;
    use crate::db::ids::ProfileId;

    #[test]
    fn a_limit_whose_sums_could_overflow_is_refused() {
        let input = |max_bet| TableInput {
            code: "PUSOY-01".to_owned(),
            name: "Table".to_owned(),
            currency: "PHP".to_owned(),
            min_bet: 100,
            max_bet,
            rule_profile_id: ProfileId(1),
            approval_threshold: None,
            unit: None,
        };
        let validate = |input: &TableInput| validate(input, None);
        let refused = validate(&input(9_223_372_036_854_775_807)).unwrap_err();
        assert!(refused
            .max_bet
            .unwrap()
            .contains("at most 1,000,000,000.00"));
        assert!(validate(&input(MOST_BET + 1)).is_err());
        assert!(validate(&input(MOST_BET)).is_ok());
    }
}
