//! Rounds: the open draft of each table, its confirmation into a numbered, immutable settled
//! round (with every place's record and the `round.settled` audit event, in one transaction),
//! and the reads of tables, profile versions and rounds that round entry needs.
//!
//! Every round belongs to a dealer's shift: a dealer enters rounds only at the table they are
//! signed on at, a pit manager at any table with a dealer on shift, for that dealer's shift.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Jsonb, Text};
use rand::RngCore;
use serde::Serialize;
use serde_json::{json, Value};

use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::schema::{
    dealer_shifts, gaming_tables, round_drafts, round_places, rounds, rule_profile_versions,
};
use crate::db::shifts::{self, CurrentShift, Shift};
use crate::db::tables::TableId;
use crate::db::users::{Role, UserId};
use crate::rules::profile::RuleProfile;
use crate::rules::settle::Round;
use crate::rules::wire::{PlaceIn, RoundIn, SettlementOut};

/// Why a round operation could not be done.
#[derive(Debug, thiserror::Error)]
pub enum RoundsError {
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    #[error("there is no round {0}")]
    NoDraft(String),
    #[error("the round was changed elsewhere (it is at revision {current}, not {expected}); reload it and try again")]
    RevisionMismatch { expected: i32, current: i32 },
    #[error("the round is already settled and can no longer be changed")]
    AlreadySettled,
    #[error("table {0} has no rule profile version")]
    NoProfileVersion(String),
    #[error("rule profile version {id} cannot be read: {source}")]
    BadProfile { id: i64, source: serde_json::Error },
    #[error("You are not signed on at {code}; sign on first.")]
    NotSignedOn { code: String },
    #[error(
        "No dealer is signed on at {code}; a dealer must sign on before rounds are entered there."
    )]
    NobodyOnShift { code: String },
    #[error("the key {0} is already used for another round; send a new key for a new round")]
    KeyTaken(String),
}

/// Who is entering a round. A dealer may enter rounds only at the table they are signed on at;
/// a pit manager (supervisor) at any table with a dealer on shift, for that dealer's shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writer {
    pub user: UserId,
    pub role: Role,
}

impl Writer {
    /// Whether this writer may enter rounds at a table whose open shift is `open`.
    pub fn may_enter(self, open: Option<&Shift>, code: &str) -> Result<(), RoundsError> {
        match (self.role, open) {
            (Role::Supervisor, Some(_)) => Ok(()),
            (Role::Supervisor, None) => Err(RoundsError::NobodyOnShift {
                code: code.to_owned(),
            }),
            (_, Some(shift)) if shift.dealer_id == self.user.0 => Ok(()),
            _ => Err(RoundsError::NotSignedOn {
                code: code.to_owned(),
            }),
        }
    }
}

/// The table's open shift that `writer` may enter rounds for (with the dealer's name).
pub fn entry_shift(
    conn: &mut PgConnection,
    table: &TableInfo,
    writer: Writer,
) -> Result<CurrentShift, RoundsError> {
    let current = shifts::current_shift(conn, TableId(table.id))?;
    writer.may_enter(current.as_ref().map(|c| &c.shift), &table.code)?;
    current.ok_or_else(|| RoundsError::NobodyOnShift {
        code: table.code.clone(),
    })
}

/// A gaming table with the rule-profile version currently in force.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableInfo {
    pub id: i64,
    pub code: String,
    pub name: String,
    pub currency: String,
    pub min_bet: i64,
    pub max_bet: i64,
    pub profile_version_id: i64,
    pub profile: RuleProfile,
}

/// A table with its latest profile version (`None`s when the profile has no version).
type TableRow = (
    i64,
    String,
    String,
    String,
    i64,
    i64,
    Option<i64>,
    Option<Value>,
);

/// The tables matching `$filter` with their profiles' versions, newest version first: the first
/// row of a table is its current version. Built with diesel's DSL so that it is prepared once
/// per connection (it runs on every round request).
macro_rules! table_with_versions {
    ($filter:expr) => {
        gaming_tables::table
            .left_join(
                rule_profile_versions::table
                    .on(rule_profile_versions::profile_id.eq(gaming_tables::rule_profile_id)),
            )
            .filter($filter)
            .order(rule_profile_versions::version.desc())
            .select((
                gaming_tables::id,
                gaming_tables::code,
                gaming_tables::name,
                gaming_tables::currency,
                gaming_tables::min_bet,
                gaming_tables::max_bet,
                rule_profile_versions::id.nullable(),
                rule_profile_versions::options.nullable(),
            ))
    };
}

fn table_info(row: Option<TableRow>) -> Result<Option<TableInfo>, RoundsError> {
    let Some((id, code, name, currency, min_bet, max_bet, version_id, options)) = row else {
        return Ok(None);
    };
    let (Some(version_id), Some(options)) = (version_id, options) else {
        return Err(RoundsError::NoProfileVersion(code));
    };
    let profile = serde_json::from_value(options).map_err(|source| RoundsError::BadProfile {
        id: version_id,
        source,
    })?;
    Ok(Some(TableInfo {
        id,
        code,
        name,
        currency,
        min_bet,
        max_bet,
        profile_version_id: version_id,
        profile,
    }))
}

/// The table with this code and its current profile version.
pub fn table_by_code(
    conn: &mut PgConnection,
    code: &str,
) -> Result<Option<TableInfo>, RoundsError> {
    let row = table_with_versions!(gaming_tables::code.eq(code))
        .first(conn)
        .optional()?;
    table_info(row)
}

/// The table with this id and its current profile version.
pub fn table_by_id(conn: &mut PgConnection, id: i64) -> Result<Option<TableInfo>, RoundsError> {
    let row = table_with_versions!(gaming_tables::id.eq(id))
        .first(conn)
        .optional()?;
    table_info(row)
}

/// A round being entered.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = round_drafts)]
pub struct Draft {
    pub id: i64,
    pub draft_key: String,
    pub table_id: i64,
    pub shift_id: Option<i64>,
    pub created_by: i64,
    pub revision: i32,
    pub data: Value,
    pub settled_round_id: Option<i64>,
}

fn open_draft_of(conn: &mut PgConnection, table_id: i64) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::table_id.eq(table_id))
        .filter(round_drafts::settled_round_id.is_null())
        .filter(round_drafts::abandoned_at.is_null())
        .select(Draft::as_select())
        .first(conn)
        .optional()
}

fn new_key() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The table's open draft, created (with a `round.draft_opened` event) if there is none, and
/// the shift `writer` enters it for. Refused when `writer` may not enter rounds at the table.
pub fn open_draft(
    conn: &mut PgConnection,
    table: &TableInfo,
    writer: Writer,
    actor: &Actor,
    gaming_day: NaiveDate,
) -> Result<(Draft, CurrentShift), RoundsError> {
    let shift = entry_shift(conn, table, writer)?;
    let draft = conn.transaction(|conn| {
        if let Some(draft) = open_draft_of(conn, table.id)? {
            return Ok(draft);
        }
        // Two screens may open the table's round at once: the partial unique index lets one
        // insert win and the other finds that draft.
        let inserted = diesel::insert_into(round_drafts::table)
            .values((
                round_drafts::draft_key.eq(new_key()),
                round_drafts::table_id.eq(table.id),
                round_drafts::shift_id.eq(shift.shift.id),
                round_drafts::created_by.eq(writer.user.0),
            ))
            .on_conflict_do_nothing()
            .returning(Draft::as_returning())
            .get_result(conn)
            .optional()?;
        let Some(draft) = inserted else {
            return open_draft_of(conn, table.id)?
                .ok_or_else(|| RoundsError::NoDraft(table.code.clone()));
        };
        let chain = format!("table:{}", table.id);
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &chain,
                actor,
                action: "round.draft_opened",
                target: format!("round:{}", draft.draft_key),
                details: json!({
                    "table": table.code,
                    "draft_key": draft.draft_key,
                    "shift_id": shift.shift.id,
                }),
                gaming_day: Some(gaming_day),
                table_id: Some(table.id),
            },
        )?;
        Ok(draft)
    })?;
    Ok((draft, shift))
}

/// The draft with this key, settled or not.
pub fn draft_by_key(conn: &mut PgConnection, key: &str) -> QueryResult<Option<Draft>> {
    round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .select(Draft::as_select())
        .first(conn)
        .optional()
}

fn lock_draft(conn: &mut PgConnection, key: &str) -> Result<Draft, RoundsError> {
    round_drafts::table
        .filter(round_drafts::draft_key.eq(key))
        .select(Draft::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| RoundsError::NoDraft(key.to_owned()))
}

fn check_revision(draft: &Draft, expected: Option<i32>) -> Result<(), RoundsError> {
    match expected {
        Some(expected) if expected != draft.revision => Err(RoundsError::RevisionMismatch {
            expected,
            current: draft.revision,
        }),
        _ => Ok(()),
    }
}

/// Stores the entered round in the draft of `table` and bumps its revision; the draft then
/// belongs to the shift `writer` enters it for. Refused when `writer` may not enter rounds there.
pub fn save_draft(
    conn: &mut PgConnection,
    table: &TableInfo,
    writer: Writer,
    key: &str,
    expected_revision: Option<i32>,
    data: &Value,
) -> Result<Draft, RoundsError> {
    conn.transaction(|conn| {
        let draft = lock_draft(conn, key)?;
        if draft.table_id != table.id {
            return Err(RoundsError::NoDraft(key.to_owned()));
        }
        if draft.settled_round_id.is_some() {
            return Err(RoundsError::AlreadySettled);
        }
        let shift = entry_shift(conn, table, writer)?;
        check_revision(&draft, expected_revision)?;
        let saved = diesel::update(round_drafts::table.find(draft.id))
            .set((
                round_drafts::shift_id.eq(shift.shift.id),
                round_drafts::revision.eq(draft.revision + 1),
                round_drafts::data.eq(data),
                round_drafts::updated_at.eq(diesel::dsl::now),
            ))
            .returning(Draft::as_returning())
            .get_result(conn)?;
        Ok(saved)
    })
}

/// A settled round's header row.
#[derive(Debug, Clone, PartialEq, Queryable, QueryableByName, Selectable, Serialize)]
#[diesel(table_name = rounds)]
pub struct RoundRow {
    pub id: i64,
    pub table_id: i64,
    pub gaming_day: NaiveDate,
    pub round_no: i32,
    pub draft_key: String,
    /// The dealer's shift the round was dealt in.
    pub shift_id: Option<i64>,
    /// The dealer of that shift (also when a pit manager entered the round).
    pub dealer_id: i64,
    pub rule_profile_version_id: i64,
    pub currency: String,
    pub dealer_result: i64,
    pub settled_at: DateTime<Utc>,
}

/// One place of a settled round (RULES.md section 8).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Serialize)]
#[diesel(table_name = round_places)]
pub struct PlaceRow {
    pub place: String,
    pub bet: Option<i64>,
    pub action: String,
    pub royalty: Option<String>,
    pub dealt: Option<String>,
    pub back: Option<String>,
    pub middle: Option<String>,
    pub front: Option<String>,
    pub back_name: Option<String>,
    pub middle_name: Option<String>,
    pub front_name: Option<String>,
    pub fouled: Option<bool>,
    pub foul_reason: Option<String>,
    pub outcome: Option<String>,
    pub hands_won: Option<i16>,
    pub result: i64,
}

/// A settled round with its places (dealer first, then the seats in order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettledRound {
    #[serde(flatten)]
    pub round: RoundRow,
    pub places: Vec<PlaceRow>,
}

/// The settled round with this id.
pub fn get_round(conn: &mut PgConnection, id: i64) -> QueryResult<Option<SettledRound>> {
    let Some(round) = rounds::table
        .find(id)
        .select(RoundRow::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let places = round_places::table
        .filter(round_places::round_id.eq(id))
        .order(round_places::place)
        .select(PlaceRow::as_select())
        .load(conn)?;
    Ok(Some(SettledRound { round, places }))
}

/// The settled round confirmed from the draft with this key.
pub fn round_by_key(conn: &mut PgConnection, key: &str) -> QueryResult<Option<SettledRound>> {
    let id: Option<i64> = rounds::table
        .filter(rounds::draft_key.eq(key))
        .select(rounds::id)
        .first(conn)
        .optional()?;
    match id {
        Some(id) => get_round(conn, id),
        None => Ok(None),
    }
}

/// The table's latest settled rounds, newest first.
pub fn recent_for_table(
    conn: &mut PgConnection,
    table_id: i64,
    limit: i64,
) -> QueryResult<Vec<RoundRow>> {
    rounds::table
        .filter(rounds::table_id.eq(table_id))
        .order(rounds::id.desc())
        .limit(limit)
        .select(RoundRow::as_select())
        .load(conn)
}

/// A validated round to settle at `table` under the one-time `key` (a draft's key, or the
/// caller's for a round recorded whole); `settlement` is its settlement.
#[derive(Debug, Clone, Copy)]
pub struct RoundToSettle<'a> {
    pub key: &'a str,
    pub table: &'a TableInfo,
    pub gaming_day: NaiveDate,
    pub writer: Writer,
    pub actor: &'a Actor,
    pub round: &'a Round,
    pub settlement: &'a SettlementOut,
}

/// Locks the draft and the open shift of its table together (`FOR NO KEY UPDATE`): a sign-off
/// racing the confirm waits for it, or has already ended the shift and the join finds nothing.
/// (The lock does not conflict with the key-share locks foreign keys take.)
fn lock_draft_and_shift(conn: &mut PgConnection, key: &str) -> QueryResult<Option<(Draft, Shift)>> {
    round_drafts::table
        .inner_join(
            dealer_shifts::table.on(dealer_shifts::table_id
                .eq(round_drafts::table_id)
                .and(dealer_shifts::signed_off_at.is_null())),
        )
        .filter(round_drafts::draft_key.eq(key))
        .select((Draft::as_select(), Shift::as_select()))
        .for_no_key_update()
        .first(conn)
        .optional()
}

/// Numbers a round and inserts it (binds `$1`..`$8`). The counter row stays locked until
/// commit, so rounds of a table and day are numbered one after another, and a rolled-back round
/// gives its number back.
macro_rules! numbered_round {
    () => {
        "WITH counter AS ( \
            INSERT INTO round_counters (table_id, gaming_day, last_no) VALUES ($1, $2, 1) \
            ON CONFLICT (table_id, gaming_day) \
            DO UPDATE SET last_no = round_counters.last_no + 1 RETURNING last_no \
        ), settled AS ( \
            INSERT INTO rounds (table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
                                rule_profile_version_id, currency, dealer_result) \
            SELECT $1, $2, counter.last_no, $3, $4, $5, $6, $7, $8 FROM counter \
            RETURNING id, table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
                      rule_profile_version_id, currency, dealer_result, settled_at \
        )"
    };
}

/// Inserts the places of the round just inserted, from the JSON array bound as `$param`
/// (serialised [`PlaceRow`]s), in the same statement.
macro_rules! its_places {
    ($param:literal) => {
        concat!(
            ", places AS ( \
                INSERT INTO round_places (round_id, table_id, gaming_day, place, bet, action, \
                    royalty, dealt, back, middle, front, back_name, middle_name, front_name, \
                    fouled, foul_reason, outcome, hands_won, result) \
                SELECT settled.id, $1, $2, p.place, p.bet, p.action, p.royalty, p.dealt, p.back, \
                    p.middle, p.front, p.back_name, p.middle_name, p.front_name, p.fouled, \
                    p.foul_reason, p.outcome, p.hands_won, p.result \
                FROM settled, jsonb_to_recordset(",
            $param,
            ") AS p(place text, bet bigint, action text, royalty text, dealt text, back text, \
                    middle text, front text, back_name text, middle_name text, front_name text, \
                    fouled boolean, foul_reason text, outcome text, hands_won smallint, \
                    result bigint) \
            )"
        )
    };
}

/// Numbers the round, inserts it and its places (`$10`) and marks draft `$9` settled, in one
/// statement.
const INSERT_ROUND: &str = concat!(
    numbered_round!(),
    its_places!("$10"),
    ", draft AS ( \
        UPDATE round_drafts SET settled_round_id = settled.id, shift_id = settled.shift_id, \
                                updated_at = now() \
        FROM settled WHERE round_drafts.id = $9 \
    ) SELECT * FROM settled"
);

/// Numbers the round and inserts it and its places (`$9`), for a round recorded whole (no
/// draft), in one statement.
const RECORD_ROUND: &str = concat!(
    numbered_round!(),
    its_places!("$9"),
    " SELECT * FROM settled"
);

impl RoundToSettle<'_> {
    /// Numbers and stores the round for `shift` with its places (marking `draft` settled when
    /// there is one) and appends `round.settled`; returns the round as `get_round` would read it
    /// back (places in place order: dealer, then the seats).
    fn write(
        &self,
        conn: &mut PgConnection,
        shift: &Shift,
        draft: Option<i64>,
    ) -> QueryResult<SettledRound> {
        let canonical = RoundIn::from_round(self.round);
        let places = place_rows(&canonical, self.settlement);
        let places_json = serde_json::to_value(&places)
            .map_err(|err| diesel::result::Error::SerializationError(Box::new(err)))?;
        let sql = if draft.is_some() {
            INSERT_ROUND
        } else {
            RECORD_ROUND
        };
        let query = diesel::sql_query(sql)
            .into_boxed()
            .bind::<BigInt, _>(self.table.id)
            .bind::<Date, _>(self.gaming_day)
            .bind::<Text, _>(self.key)
            .bind::<BigInt, _>(shift.id)
            .bind::<BigInt, _>(shift.dealer_id)
            .bind::<BigInt, _>(self.table.profile_version_id)
            .bind::<Text, _>(&self.table.currency)
            .bind::<BigInt, _>(self.settlement.dealer.result.minor_units());
        let query = match draft {
            Some(id) => query.bind::<BigInt, _>(id),
            None => query,
        };
        let round: RoundRow = query.bind::<Jsonb, _>(&places_json).get_result(conn)?;
        self.audit(conn, shift, &round, &canonical)?;
        Ok(SettledRound { round, places })
    }

    /// Appends `round.settled`, carrying the canonical round and its settlement, so that the
    /// round can be recomputed from the audit row alone.
    fn audit(
        &self,
        conn: &mut PgConnection,
        shift: &Shift,
        round: &RoundRow,
        canonical: &RoundIn<'_>,
    ) -> QueryResult<()> {
        let (table, settlement) = (self.table, self.settlement);
        let chain = format!("table:{}", table.id);
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &chain,
                actor: self.actor,
                action: "round.settled",
                target: format!("round:{}", round.id),
                details: json!({
                    "table": table.code,
                    "round_no": round.round_no,
                    "draft_key": self.key,
                    "shift_id": shift.id,
                    "dealer_id": shift.dealer_id,
                    "rule_profile_version_id": table.profile_version_id,
                    "round": canonical,
                    "settlement": settlement,
                }),
                gaming_day: Some(self.gaming_day),
                table_id: Some(table.id),
            },
        )?;
        Ok(())
    }
}

/// Settles a draft: checks that the writer may enter rounds at the table (under lock, see
/// [`lock_draft_and_shift`]), numbers the round, stores it for the open shift and its dealer,
/// stores its places, marks the draft settled and appends `round.settled`, all in one
/// transaction. Confirming a settled draft again returns the round already stored (`false`:
/// nothing new was written).
pub fn confirm(
    conn: &mut PgConnection,
    confirm: &RoundToSettle<'_>,
    expected_revision: Option<i32>,
) -> Result<(SettledRound, bool), RoundsError> {
    let table = confirm.table;
    conn.transaction(|conn| {
        let locked = lock_draft_and_shift(conn, confirm.key)?;
        let (draft, shift) = match locked {
            Some((draft, shift)) => (draft, Some(shift)),
            // No open shift at the draft's table (or no draft): say which.
            None => (lock_draft(conn, confirm.key)?, None),
        };
        if let Some(id) = draft.settled_round_id {
            let round =
                get_round(conn, id)?.ok_or_else(|| RoundsError::NoDraft(confirm.key.to_owned()))?;
            return Ok((round, false));
        }
        if draft.table_id != table.id {
            return Err(RoundsError::NoDraft(confirm.key.to_owned()));
        }
        confirm.writer.may_enter(shift.as_ref(), &table.code)?;
        let Some(shift) = shift else {
            return Err(RoundsError::NobodyOnShift {
                code: table.code.clone(),
            });
        };
        check_revision(&draft, expected_revision)?;
        Ok((confirm.write(conn, &shift, Some(draft.id))?, true))
    })
}

/// Whether a key is a draft's, and the round recorded under it, if any.
type KeyUse = (bool, Option<i64>);

/// What `key` is already used for, as two columns of one query.
macro_rules! key_use {
    ($key:expr) => {
        (
            diesel::dsl::exists(round_drafts::table.filter(round_drafts::draft_key.eq($key))),
            rounds::table
                .filter(rounds::draft_key.eq($key))
                .select(rounds::id)
                .single_value(),
        )
    };
}

/// The open shift at a table, locked like [`lock_draft_and_shift`] locks it, and what `key` is
/// already used for, in one prepared query.
fn lock_open_shift(
    conn: &mut PgConnection,
    table_id: i64,
    key: &str,
) -> QueryResult<Option<(Shift, KeyUse)>> {
    dealer_shifts::table
        .filter(dealer_shifts::table_id.eq(table_id))
        .filter(dealer_shifts::signed_off_at.is_null())
        .select((Shift::as_select(), key_use!(key)))
        .for_no_key_update()
        .first(conn)
        .optional()
}

/// Records and settles a whole round under the caller's one-time `key`, without a draft (for
/// casino systems that send a round complete): checks the writer's shift under lock, numbers
/// the round, stores it and its places and appends `round.settled`, in one transaction.
/// Recording the same key again returns the round already stored (`false`); a key already used
/// at another table, or by a draft, is refused.
pub fn record(
    conn: &mut PgConnection,
    record: &RoundToSettle<'_>,
) -> Result<(SettledRound, bool), RoundsError> {
    let table = record.table;
    let recorded = conn.transaction(|conn| {
        let (shift, key_use) = match lock_open_shift(conn, table.id, record.key)? {
            Some((shift, key_use)) => (Some(shift), key_use),
            None => (None, diesel::select(key_use!(record.key)).get_result(conn)?),
        };
        if let Some(existing) = used_under(conn, key_use, record.key, table)? {
            return Ok((existing, false));
        }
        record.writer.may_enter(shift.as_ref(), &table.code)?;
        let Some(shift) = shift else {
            return Err(RoundsError::NobodyOnShift {
                code: table.code.clone(),
            });
        };
        Ok((record.write(conn, &shift, None)?, true))
    });
    match recorded {
        // The same key sent twice at once: the second insert lost the race on the unique key
        // (and gave its round number back); answer with the round the first one stored.
        Err(RoundsError::Query(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        ))) => {
            let key_use = diesel::select(key_use!(record.key)).get_result(conn)?;
            used_under(conn, key_use, record.key, table)?
                .map(|round| (round, false))
                .ok_or_else(|| RoundsError::KeyTaken(record.key.to_owned()))
        }
        other => other,
    }
}

/// The round already recorded under `key` at `table`; an error if the key is in use elsewhere.
fn used_under(
    conn: &mut PgConnection,
    (draft_exists, round_id): KeyUse,
    key: &str,
    table: &TableInfo,
) -> Result<Option<SettledRound>, RoundsError> {
    if draft_exists {
        return Err(RoundsError::KeyTaken(key.to_owned()));
    }
    let Some(round_id) = round_id else {
        return Ok(None);
    };
    match get_round(conn, round_id)? {
        Some(round) if round.round.table_id == table.id => Ok(Some(round)),
        Some(_) => Err(RoundsError::KeyTaken(key.to_owned())),
        None => Ok(None),
    }
}

/// A serde enum's text (`"surrender"`, `"six_pairs"`...).
fn text_of<T: Serialize>(value: &T) -> Option<String> {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => Some(text),
        _ => None,
    }
}

fn base_row(place: String, bet: Option<i64>, play: &PlaceIn<'_>, result: i64) -> PlaceRow {
    let text = |t: &Option<std::borrow::Cow<'_, str>>| t.as_deref().map(str::to_owned);
    PlaceRow {
        place,
        bet,
        action: text_of(&play.action).unwrap_or_default(),
        royalty: play.royalty.as_ref().and_then(text_of),
        dealt: text(&play.dealt),
        back: text(&play.back),
        middle: text(&play.middle),
        front: text(&play.front),
        back_name: None,
        middle_name: None,
        front_name: None,
        fouled: None,
        foul_reason: None,
        outcome: None,
        hands_won: None,
        result,
    }
}

/// The rows of every place, from the canonical round and its settlement.
fn place_rows(round: &RoundIn<'_>, settlement: &SettlementOut) -> Vec<PlaceRow> {
    let dealer = &settlement.dealer;
    let mut row = base_row(
        "dealer".to_owned(),
        None,
        &round.dealer,
        dealer.result.minor_units(),
    );
    if let Some(hands) = &dealer.hands {
        row.back_name = Some(hands.back.to_string());
        row.middle_name = Some(hands.middle.to_string());
        row.front_name = Some(hands.front.to_string());
    }
    row.fouled = dealer.fouled;
    row.foul_reason.clone_from(&dealer.foul);
    let mut rows = vec![row];
    for seat in &round.seats {
        let Some(out) = settlement.seats.iter().find(|s| s.seat == seat.seat) else {
            continue;
        };
        let mut row = base_row(
            format!("seat{}", seat.seat.number()),
            Some(seat.bet.minor_units()),
            &seat.play(),
            out.result.minor_units(),
        );
        if let Some(hands) = &out.hands {
            row.back_name = Some(hands.back.to_string());
            row.middle_name = Some(hands.middle.to_string());
            row.front_name = Some(hands.front.to_string());
        }
        row.fouled = out.fouled;
        row.foul_reason.clone_from(&out.foul);
        row.outcome = text_of(&out.outcome);
        row.hands_won = out.hands_won.map(i16::from);
        rows.push(row);
    }
    rows
}

/// The house results (sums of dealer results) of a table: its rounds on one gaming day, and
/// the rounds of one shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, QueryableByName)]
pub struct HouseResults {
    #[diesel(sql_type = BigInt)]
    pub day: i64,
    #[diesel(sql_type = BigInt)]
    pub shift: i64,
}

/// The table's house result for gaming day `day` and for shift `shift_id`, in one query.
pub fn house_results(
    conn: &mut PgConnection,
    table_id: i64,
    day: NaiveDate,
    shift_id: i64,
) -> QueryResult<HouseResults> {
    diesel::sql_query(
        "SELECT COALESCE(SUM(dealer_result) FILTER (WHERE gaming_day = $2), 0)::bigint AS day, \
                COALESCE(SUM(dealer_result) FILTER (WHERE shift_id = $3), 0)::bigint AS shift \
         FROM rounds WHERE table_id = $1 AND (gaming_day = $2 OR shift_id = $3)",
    )
    .bind::<BigInt, _>(table_id)
    .bind::<Date, _>(day)
    .bind::<BigInt, _>(shift_id)
    .get_result(conn)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::{NaiveDate, Utc};

    use super::*;

    fn shift_of(dealer: i64) -> Shift {
        Shift {
            id: 7,
            table_id: 1,
            dealer_id: dealer,
            gaming_day: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
            signed_on_at: Utc::now(),
            signed_off_at: None,
        }
    }

    #[test]
    fn only_the_dealer_on_shift_or_a_pit_manager_may_enter_rounds() {
        use Role::{Admin, Auditor, Dealer, Supervisor};
        let on = shift_of(1);
        // (writer, role, open shift, allowed)
        let cases = [
            (1, Dealer, Some(&on), Ok(())),
            (2, Dealer, Some(&on), Err("You are not signed on at T-1; sign on first.")),
            (1, Dealer, None, Err("You are not signed on at T-1; sign on first.")),
            (9, Supervisor, Some(&on), Ok(())),
            (
                9,
                Supervisor,
                None,
                Err("No dealer is signed on at T-1; a dealer must sign on before rounds are entered there."),
            ),
            (9, Admin, Some(&on), Err("You are not signed on at T-1; sign on first.")),
            (9, Auditor, Some(&on), Err("You are not signed on at T-1; sign on first.")),
        ];
        for (user, role, open, expected) in cases {
            let writer = Writer {
                user: UserId(user),
                role,
            };
            let got = writer.may_enter(open, "T-1").map_err(|e| e.to_string());
            assert_eq!(
                got,
                expected.map_err(str::to_owned),
                "{user} {role:?} {open:?}"
            );
        }
    }
}
