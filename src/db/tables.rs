//! Gaming tables: code, name, currency, bet limits and the rule profile they play under, and
//! every read of them (with the rules in force, for round entry). Input is checked by the
//! use-cases ([`crate::pit::tables`]) before it is written here.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde::Serialize;
use serde_json::json;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::ids::{ProfileId, ProfileVersionId, TableId};
use crate::db::profiles::{self, ProfileError, Version};
use crate::db::schema::{gaming_tables, rule_profile_versions};
use crate::rules::game::{Game, GameRules};
use crate::rules::money::Money;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = gaming_tables)]
pub struct GamingTable {
    pub id: TableId,
    pub code: String,
    pub name: String,
    pub currency: String,
    #[diesel(deserialize_as = i64)]
    pub min_bet: Money,
    #[diesel(deserialize_as = i64)]
    pub max_bet: Money,
    pub rule_profile_id: ProfileId,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// A round whose largest seat result (win or loss) is at or above this waits for a
    /// supervisor's approval (minor units); `None`: no round needs approval.
    pub approval_threshold: Option<i64>,
    /// What one point is worth at a points-game table (minor units); `None` at a banking
    /// table. A points table's bet limits are its unit (the migration `2026-11-26-000002`).
    pub unit: Option<i64>,
}

impl GamingTable {
    /// The approval threshold in force, as money.
    pub fn approval_threshold(&self) -> Option<Money> {
        self.approval_threshold.map(Money::from_minor_units)
    }

    /// What one point is worth, at a points-game table.
    pub fn unit(&self) -> Option<Money> {
        self.unit.map(Money::from_minor_units)
    }
}

/// A gaming table with the rule-profile version in force: what a round is entered under.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayingTable {
    pub table: GamingTable,
    pub profile_version_id: ProfileVersionId,
    /// The game and its options, of the version in force.
    pub rules: GameRules,
}

impl PlayingTable {
    pub fn game(&self) -> Game {
        self.rules.game()
    }
}

/// Why a table cannot take rounds, as its rows say (round entry says it in words).
#[derive(Debug, thiserror::Error)]
pub enum TableRulesError {
    #[error("no rule profile version at table {0}")]
    NoProfileVersion(String),
    #[error("rule profile version {id} does not parse")]
    BadProfile {
        id: ProfileVersionId,
        source: serde_json::Error,
    },
    #[error("database query failed")]
    Query(#[from] DieselError),
}

impl PlayingTable {
    /// `table` under its latest profile version (`version`: its id and options), if it has one.
    pub fn new(
        table: GamingTable,
        version: Option<(ProfileVersionId, serde_json::Value)>,
    ) -> Result<PlayingTable, TableRulesError> {
        let Some((id, options)) = version else {
            return Err(TableRulesError::NoProfileVersion(table.code));
        };
        let rules = serde_json::from_value(options)
            .map_err(|source| TableRulesError::BadProfile { id, source })?;
        Ok(PlayingTable {
            table,
            profile_version_id: id,
            rules,
        })
    }
}

/// Whether the `rule_profile_versions` row joined is the version in force at the table now:
/// the waiting version once its time has come, else the table's own (see the migration
/// `2026-11-25-000006`; [`VERSION_IN_FORCE`](crate::db::rounds::sql::VERSION_IN_FORCE) says the
/// same in SQL).
macro_rules! version_in_force {
    () => {
        rule_profile_versions::id
            .eq(gaming_tables::profile_version_id)
            .and(
                gaming_tables::next_profile_from
                    .is_null()
                    .or(gaming_tables::next_profile_from.gt(diesel::dsl::now)),
            )
            .or(rule_profile_versions::id
                .nullable()
                .eq(gaming_tables::next_profile_version_id)
                .and(gaming_tables::next_profile_from.le(diesel::dsl::now)))
    };
}

/// The tables matching `$filter` with the profile version in force at each. Built with diesel's
/// DSL so that it is prepared once per connection (it runs on every round request).
macro_rules! table_with_versions {
    ($filter:expr) => {
        gaming_tables::table
            .left_join(rule_profile_versions::table.on(version_in_force!()))
            .filter($filter)
            .select((
                GamingTable::as_select(),
                rule_profile_versions::id.nullable(),
                rule_profile_versions::options.nullable(),
            ))
    };
}

type VersionedRow = (
    GamingTable,
    Option<ProfileVersionId>,
    Option<serde_json::Value>,
);

fn playing(row: Option<VersionedRow>) -> Result<Option<PlayingTable>, TableRulesError> {
    row.map(|(table, id, options)| PlayingTable::new(table, id.zip(options)))
        .transpose()
}

/// The table with this code and the rules in force.
pub fn playing_by_code(
    conn: &mut PgConnection,
    code: &str,
) -> Result<Option<PlayingTable>, TableRulesError> {
    let row = table_with_versions!(gaming_tables::code.eq(code))
        .first(conn)
        .optional()?;
    playing(row)
}

/// The table with this id and the rules in force.
pub fn playing_by_id(
    conn: &mut PgConnection,
    id: TableId,
) -> Result<Option<PlayingTable>, TableRulesError> {
    let row = table_with_versions!(gaming_tables::id.eq(id))
        .first(conn)
        .optional()?;
    playing(row)
}

/// The table, locked against other sign-ons and sign-offs until the transaction ends.
/// `FOR NO KEY UPDATE`, not `FOR UPDATE`: a confirm holding the table's open shift inserts rows
/// whose foreign keys take key-share locks on the table row, and must not wait for a sign-off
/// that waits for it.
pub fn lock(conn: &mut PgConnection, id: TableId) -> QueryResult<Option<GamingTable>> {
    gaming_tables::table
        .find(id)
        .select(GamingTable::as_select())
        .for_no_key_update()
        .first(conn)
        .optional()
}

/// What a create or edit form submits (the code is fixed once created).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInput {
    pub code: String,
    pub name: String,
    pub currency: String,
    pub min_bet: i64,
    pub max_bet: i64,
    pub rule_profile_id: ProfileId,
    /// Minor units; `None`: the table's rounds need no approval.
    pub approval_threshold: Option<i64>,
    /// What one point is worth (minor units): given for a points-game table only, whose bet
    /// limits are then its unit.
    pub unit: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Another table has this code (the database's unique index refused it).
    #[error("table code {0} is taken")]
    CodeTaken(String),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    Query(#[from] DieselError),
}

/// Whether `code` matches `^[A-Z0-9][A-Z0-9-]{1,19}$` (the database checks the same).
pub fn is_valid_code(code: &str) -> bool {
    let bytes = code.as_bytes();
    (2..=20).contains(&bytes.len())
        && bytes[0].is_ascii_uppercase() | bytes[0].is_ascii_digit()
        && bytes[1..]
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'-')
}

fn details(t: &GamingTable) -> serde_json::Value {
    json!({
        "code": t.code,
        "name": t.name,
        "currency": t.currency,
        "min_bet": t.min_bet,
        "max_bet": t.max_bet,
        "rule_profile_id": t.rule_profile_id,
        "approval_threshold": t.approval_threshold,
        "unit": t.unit,
    })
}

/// Creates a table from `input` as the caller checked it and records `table.create` on the
/// table's own chain, in one transaction.
pub fn create_table(
    conn: &mut PgConnection,
    input: &TableInput,
    actor: &Actor,
) -> Result<GamingTable, TableError> {
    conn.transaction(|conn| {
        let table = diesel::insert_into(gaming_tables::table)
            .values((
                gaming_tables::code.eq(&input.code),
                gaming_tables::name.eq(&input.name),
                gaming_tables::currency.eq(&input.currency),
                gaming_tables::min_bet.eq(input.min_bet),
                gaming_tables::max_bet.eq(input.max_bet),
                gaming_tables::rule_profile_id.eq(input.rule_profile_id),
                gaming_tables::approval_threshold.eq(input.approval_threshold),
                gaming_tables::unit.eq(input.unit),
            ))
            .returning(GamingTable::as_returning())
            .get_result(conn)
            .map_err(|err| match err {
                DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
                    TableError::CodeTaken(input.code.clone())
                }
                other => TableError::Query(other),
            })?;
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &audit_log::table_chain(table.id),
                actor,
                action: AuditAction::TableCreate,
                target: format!("table:{}", table.code),
                details: details(&table),
                gaming_day: None,
                table_id: Some(table.id),
            },
        )?;
        Ok(table)
    })
}

/// The table, locked until the transaction ends, to be changed.
pub fn lock_for_update(conn: &mut PgConnection, id: TableId) -> QueryResult<Option<GamingTable>> {
    gaming_tables::table
        .find(id)
        .select(GamingTable::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Writes `input`'s name, currency, limits and profile (not the code) over `before`, the table
/// as the caller's transaction locked it ([`lock_for_update`]), as the caller checked them;
/// records `table.update` with the values before and after.
pub fn update_table(
    conn: &mut PgConnection,
    before: &GamingTable,
    input: &TableInput,
    actor: &Actor,
) -> QueryResult<GamingTable> {
    let after = diesel::update(gaming_tables::table.find(before.id))
        .set((
            gaming_tables::name.eq(&input.name),
            gaming_tables::currency.eq(&input.currency),
            gaming_tables::min_bet.eq(input.min_bet),
            gaming_tables::max_bet.eq(input.max_bet),
            gaming_tables::rule_profile_id.eq(input.rule_profile_id),
            gaming_tables::approval_threshold.eq(input.approval_threshold),
            gaming_tables::unit.eq(input.unit),
            gaming_tables::updated_at.eq(diesel::dsl::now),
        ))
        .returning(GamingTable::as_returning())
        .get_result(conn)?;
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: &audit_log::table_chain(after.id),
            actor,
            action: AuditAction::TableUpdate,
            target: format!("table:{}", after.code),
            details: json!({ "before": details(before), "after": details(&after) }),
            gaming_day: None,
            table_id: Some(after.id),
        },
    )?;
    Ok(after)
}

/// Every table's id and code.
pub fn codes(conn: &mut PgConnection) -> QueryResult<Vec<(TableId, String)>> {
    gaming_tables::table
        .select((gaming_tables::id, gaming_tables::code))
        .order(gaming_tables::id.asc())
        .load(conn)
}

/// Every table's id, code and currency (what an audit page names a table chain by).
pub fn codes_and_currencies(
    conn: &mut PgConnection,
) -> QueryResult<Vec<(TableId, String, String)>> {
    gaming_tables::table
        .select((
            gaming_tables::id,
            gaming_tables::code,
            gaming_tables::currency,
        ))
        .order(gaming_tables::id.asc())
        .load(conn)
}

pub fn find(conn: &mut PgConnection, id: TableId) -> QueryResult<Option<GamingTable>> {
    gaming_tables::table
        .find(id)
        .select(GamingTable::as_select())
        .first(conn)
        .optional()
}

pub fn find_by_code(conn: &mut PgConnection, code: &str) -> QueryResult<Option<GamingTable>> {
    gaming_tables::table
        .filter(gaming_tables::code.eq(code.trim().to_ascii_uppercase()))
        .select(GamingTable::as_select())
        .first(conn)
        .optional()
}

/// A table as the lists show it: the profile version in force and the one waiting, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct TableListing {
    pub table: GamingTable,
    /// The name of the profile of the version in force.
    pub profile_name: String,
    /// The version the table's rounds are entered under now.
    pub profile: Version,
    pub waiting: Option<WaitingVersion>,
}

/// A profile version waiting to apply at a table.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitingVersion {
    pub profile_name: String,
    pub version: Version,
    /// When it applies; `None`: from the table's next dealer shift.
    pub from: Option<DateTime<Utc>>,
}

/// Every table by code, with the profile version in force now and the one waiting.
pub fn list_tables(conn: &mut PgConnection) -> Result<Vec<TableListing>, TableError> {
    type Row = (
        GamingTable,
        ProfileVersionId,
        Option<ProfileVersionId>,
        Option<DateTime<Utc>>,
    );
    let rows: Vec<Row> = gaming_tables::table
        .order(gaming_tables::code.asc())
        .select((
            GamingTable::as_select(),
            gaming_tables::profile_version_id,
            gaming_tables::next_profile_version_id,
            gaming_tables::next_profile_from,
        ))
        .load(conn)?;
    let now = Utc::now();
    let mut out = Vec::with_capacity(rows.len());
    for (table, current, next, from) in rows {
        let (in_force, waiting) = match (next, from) {
            (Some(next), Some(from)) if from <= now => (next, None),
            (Some(next), from) => (current, Some((next, from))),
            (None, _) => (current, None),
        };
        let (profile_name, profile) = profiles::version_by_id(conn, in_force)?;
        let waiting = match waiting {
            Some((id, from)) => {
                let (profile_name, version) = profiles::version_by_id(conn, id)?;
                Some(WaitingVersion {
                    profile_name,
                    version,
                    from,
                })
            }
            None => None,
        };
        out.push(TableListing {
            table,
            profile_name,
            profile,
            waiting,
        });
    }
    Ok(out)
}

/// At a dealer's sign-on: the waiting version becomes the table's own if it applies from the next
/// shift or its time has come. Returns the version the new shift starts under.
pub fn start_shift_version(conn: &mut PgConnection, id: TableId) -> QueryResult<ProfileVersionId> {
    let started: Option<ProfileVersionId> = diesel::update(
        gaming_tables::table.find(id).filter(
            gaming_tables::next_profile_version_id.is_not_null().and(
                gaming_tables::next_profile_from
                    .is_null()
                    .or(gaming_tables::next_profile_from.le(diesel::dsl::now)),
            ),
        ),
    )
    .set((
        gaming_tables::profile_version_id
            .eq(gaming_tables::next_profile_version_id.assume_not_null()),
        gaming_tables::next_profile_version_id.eq(None::<ProfileVersionId>),
        gaming_tables::next_profile_from.eq(None::<DateTime<Utc>>),
    ))
    .returning(gaming_tables::profile_version_id)
    .get_result(conn)
    .optional()?;
    match started {
        Some(version) => Ok(version),
        None => gaming_tables::table
            .find(id)
            .select(gaming_tables::profile_version_id)
            .first(conn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_pattern() {
        for good in ["PUSOY-03", "A1", "9-9", "ABCDEFGHIJ0123456789"] {
            assert!(is_valid_code(good), "{good}");
        }
        for bad in [
            "",
            "A",
            "-A",
            "pusoy",
            "PUSOY 3",
            "ABCDEFGHIJ01234567890",
            "É1",
        ] {
            assert!(!is_valid_code(bad), "{bad}");
        }
    }
}
