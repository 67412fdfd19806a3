//! Rounds: the open draft of each table, its confirmation into a numbered, immutable settled
//! round (with every place's record and the `round.settled` audit event, in one transaction),
//! and the reads of tables, profile versions and rounds that round entry needs.
//!
//! Every round belongs to a dealer's shift: a dealer enters rounds only at the table they are
//! signed on at, a pit manager at any table with a dealer on shift, for that dealer's shift.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Date, Integer, Jsonb, Nullable, Text, Timestamptz};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::db::audit_log::{
    self, chain_head_unmoved, sealed_event_ctes, Actor, ChainHead, NewAuditEvent, SealedEvent,
};
use crate::db::prepared::Sql;
use crate::db::round_writer::{self, RoundWrite, RoundWriter, TokenToCheck};
use crate::db::schema::{gaming_tables, round_drafts, rounds, rule_profile_versions};
use crate::db::shifts::{self, CurrentShift, Shift};
use crate::db::tables::{self, TableId};
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
    #[error("there is no table {0}")]
    NoTable(String),
    #[error("table {0} is too busy to take the round now; send it again")]
    Busy(String),
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
    pub shift_id: i64,
    /// The dealer of that shift (also when a pit manager entered the round).
    pub dealer_id: i64,
    pub rule_profile_version_id: i64,
    pub currency: String,
    pub dealer_result: i64,
    pub settled_at: DateTime<Utc>,
}

/// One place of a settled round (RULES.md section 8), as kept in the round's row (`places`, a
/// JSON array: the dealer first, then the seats in order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    let Some((round, places)) = rounds::table
        .find(id)
        .select((RoundRow::as_select(), rounds::places))
        .first::<(RoundRow, Value)>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let places = serde_json::from_value(places)
        .map_err(|err| diesel::result::Error::DeserializationError(Box::new(err)))?;
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

/// The table's latest settled rounds, newest first (by gaming day and round number).
pub fn recent_for_table(
    conn: &mut PgConnection,
    table_id: i64,
    limit: i64,
) -> QueryResult<Vec<RoundRow>> {
    rounds::table
        .filter(rounds::table_id.eq(table_id))
        .order((rounds::gaming_day.desc(), rounds::round_no.desc()))
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

/// Who enters a round, and when, under which one-time key.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub key: &'a str,
    pub gaming_day: NaiveDate,
    pub writer: Writer,
    pub actor: &'a Actor,
}

// How a round is confirmed. Locks taken in a transaction that then waits on the client cost a
// round trip each (a `BEGIN`, the locks, the writes, a `COMMIT`), so a confirmation is one read
// and one write statement instead, each a transaction of its own:
// 1. [`ENTRY_READ`] reads, without locks, all the round needs: the table and its profile version,
//    the open shift, the head of the table's audit chain, the day's last round number, a fresh
//    round id, and what the key is already used for.
// 2. The app checks the writer against the shift, works out the round's number, its places and
//    its `round.settled` event with that event's hash on the chain.
// 3. [`CONFIRM_WRITE`] (a draft) or [`round_writer::WRITE_WHOLE_ROUNDS`] (a whole round) locks
//    the shift (and the draft), then the chain head, and writes the round, its places, the
//    event and the moved head only if none of them moved since the read (PostgreSQL re-checks a
//    locked row as it is after the wait); an unmoved head also means the round number read is
//    still the next. Otherwise it writes nothing and the app starts again from the read.
// The locks are taken in the order other writers take them (a sign-off locks its shift, then
// the chain head), and every other table has rows of its own, so tables never wait on each
// other. A whole round at a table this process wrote the last round of skips steps 1 and 2's
// database work altogether: it is made in the request's handler from what [`TableMemos`]
// remembers ([`record_remembered`]) and written by the [`RoundWriter`] together with the other
// tables' rounds waiting, in one statement whose checks decide as before; one that does not
// pass them is recorded from step 1.

/// The state of a table that a round's confirmation reads (`$1` table code, `$2` gaming day,
/// `$3` the round's key). The chain is the table's, named as [`tables::chain`] names it. The
/// round id is taken here, so that the audit event can name the round before it is written;
/// ids are unique, not gapless (round numbers are).
const ENTRY_READ: &str = "\
    SELECT t.id AS table_id, t.code, t.name, t.currency, t.min_bet, t.max_bet, \
           t.rule_profile_id, v.id AS profile_version_id, v.options, \
           s.id AS shift_id, s.dealer_id, s.gaming_day AS shift_day, s.signed_on_at, \
           h.last_seq, h.last_hash, \
           COALESCE((SELECT max(r.round_no) FROM rounds r \
                     WHERE r.table_id = t.id AND r.gaming_day = $2), 0) AS last_no, \
           nextval('rounds_id_seq') AS next_round_id, \
           d.id AS draft_id, d.table_id AS draft_table_id, d.revision AS draft_revision, \
           (SELECT r.id FROM rounds r WHERE r.draft_key = $3) AS key_round_id \
    FROM gaming_tables t \
    LEFT JOIN LATERAL ( \
        SELECT id, options FROM rule_profile_versions \
        WHERE profile_id = t.rule_profile_id ORDER BY version DESC LIMIT 1 \
    ) v ON true \
    LEFT JOIN dealer_shifts s ON s.table_id = t.id AND s.signed_off_at IS NULL \
    LEFT JOIN audit_chain_heads h ON h.chain = 'table:' || t.id \
    LEFT JOIN round_drafts d ON d.draft_key = $3 \
    WHERE t.code = $1";

#[derive(Debug, QueryableByName)]
struct EntryRow {
    #[diesel(sql_type = BigInt)]
    table_id: i64,
    #[diesel(sql_type = Text)]
    code: String,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    min_bet: i64,
    #[diesel(sql_type = BigInt)]
    max_bet: i64,
    #[diesel(sql_type = BigInt)]
    rule_profile_id: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    profile_version_id: Option<i64>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    options: Option<Value>,
    #[diesel(sql_type = Nullable<BigInt>)]
    shift_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    dealer_id: Option<i64>,
    #[diesel(sql_type = Nullable<Date>)]
    shift_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    signed_on_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_seq: Option<i64>,
    #[diesel(sql_type = Nullable<Bytea>)]
    last_hash: Option<Vec<u8>>,
    #[diesel(sql_type = Integer)]
    last_no: i32,
    #[diesel(sql_type = BigInt)]
    next_round_id: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    draft_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    draft_table_id: Option<i64>,
    #[diesel(sql_type = Nullable<Integer>)]
    draft_revision: Option<i32>,
    #[diesel(sql_type = Nullable<BigInt>)]
    key_round_id: Option<i64>,
}

impl EntryRow {
    fn shift(&self) -> Option<Shift> {
        match (
            self.shift_id,
            self.dealer_id,
            self.shift_day,
            self.signed_on_at,
        ) {
            (Some(id), Some(dealer_id), Some(gaming_day), Some(signed_on_at)) => Some(Shift {
                id,
                table_id: self.table_id,
                dealer_id,
                gaming_day,
                signed_on_at,
                signed_off_at: None,
            }),
            _ => None,
        }
    }

    fn head(&self) -> Option<ChainHead> {
        match (self.last_seq, &self.last_hash) {
            (Some(last_seq), Some(last_hash)) => Some(ChainHead {
                last_seq,
                last_hash: last_hash.clone(),
            }),
            _ => None,
        }
    }

    fn table(&self) -> Result<TableInfo, RoundsError> {
        let row = (
            self.table_id,
            self.code.clone(),
            self.name.clone(),
            self.currency.clone(),
            self.min_bet,
            self.max_bet,
            self.profile_version_id,
            self.options.clone(),
        );
        table_info(Some(row))?.ok_or_else(|| RoundsError::NoTable(self.code.clone()))
    }
}

fn read_entry(
    conn: &mut PgConnection,
    code: &str,
    gaming_day: NaiveDate,
    key: &str,
) -> QueryResult<Option<EntryRow>> {
    Sql::new(ENTRY_READ)
        .bind::<Text, _>(code)
        .bind::<Date, _>(gaming_day)
        .bind::<Text, _>(key)
        .get_result(conn)
        .optional()
}

/// Settles a draft: `$1`-`$13` its `round.settled` event ([`SealedEvent`]), `$14` round id,
/// `$15` table, `$16` gaming day, `$17` round number, `$18` key, `$19` shift, `$20` dealer,
/// `$21` profile version, `$22` currency, `$23` the dealer's result, `$24` places (serialised
/// [`PlaceRow`]s), for the draft `$25` still at revision `$26` and unsettled, which it marks
/// settled. The round is settled at the event's time (`$3`). Returns how many rounds it wrote:
/// 0 when something moved since the read.
///
/// It locks the open shift `$19` (a sign-off in progress is waited for, and then the shift has
/// ended and `shift` is empty) and the draft, then the chain head (`head`). The round numbered
/// `$17` (the day's last number that was read, plus one) is written only if the table's chain
/// head has not moved since that read: every round moves its table's chain head, so an unmoved
/// head means no round was written at the table in between, and the number is still the next
/// one. A table's rounds of one day are so numbered one after another without gaps (and the
/// unique index on table, day and number refuses a number taken twice in any case).
const CONFIRM_WRITE: &str = concat!(
    "WITH shift AS ( \
        SELECT 1 FROM dealer_shifts WHERE id = $19 AND signed_off_at IS NULL \
        FOR NO KEY UPDATE \
    ), ready AS ( \
        SELECT 1 FROM round_drafts, shift \
        WHERE id = $25 AND revision = $26 AND settled_round_id IS NULL \
        FOR UPDATE OF round_drafts \
    ), ",
    chain_head_unmoved!(),
    ", go AS (SELECT 1 FROM head), settled AS ( \
        INSERT INTO rounds (id, table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
            rule_profile_version_id, currency, dealer_result, settled_at, places) \
        SELECT $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $3, $24::jsonb FROM go \
    ), ",
    sealed_event_ctes!(),
    ", draft AS ( \
        UPDATE round_drafts SET settled_round_id = $14, shift_id = $19, updated_at = $3 \
        WHERE id = $25 AND EXISTS (SELECT 1 FROM go) \
    ) SELECT count(*) AS n FROM go"
);

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// How many times a confirmation reads and tries again when its table moved in between (a
/// sign-off, another round, another event on the table's chain) before giving up, and how many
/// of those tries are optimistic (the rest hold the table's shift throughout).
const ATTEMPTS: usize = 10;
const OPTIMISTIC_ATTEMPTS: usize = 3;

/// Why an attempt at a confirmation ended without a round.
enum Attempt<E> {
    /// The table moved since the read: read and try again.
    Moved,
    Failed(E),
}

impl<E: From<RoundsError>> From<RoundsError> for Attempt<E> {
    fn from(err: RoundsError) -> Self {
        Attempt::Failed(err.into())
    }
}

impl<E: From<RoundsError>> From<diesel::result::Error> for Attempt<E> {
    fn from(err: diesel::result::Error) -> Self {
        match err {
            // The same key sent twice at once: this insert lost the race on the unique key and
            // wrote nothing; the next read finds the round the other one stored.
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            ) => Attempt::Moved,
            other => Attempt::Failed(RoundsError::Query(other).into()),
        }
    }
}

/// Locks the open shift of table `code` until the transaction ends.
const LOCK_OPEN_SHIFT: &str = "\
    SELECT count(*) AS n FROM ( \
        SELECT 1 FROM dealer_shifts s JOIN gaming_tables t ON t.id = s.table_id \
        WHERE t.code = $1 AND s.signed_off_at IS NULL FOR NO KEY UPDATE OF s \
    ) locked";

/// Runs `once` (read, then write) until the table has not moved in between. The first tries
/// are optimistic; the later ones hold the table's open shift from before the read until after
/// the write, so that many rounds sent at once to one table take turns instead of starving.
fn until_written<T, E: From<RoundsError>>(
    conn: &mut PgConnection,
    code: &str,
    mut once: impl FnMut(&mut PgConnection) -> Result<T, Attempt<E>>,
) -> Result<T, E> {
    for attempt in 0..ATTEMPTS {
        let outcome = if attempt < OPTIMISTIC_ATTEMPTS {
            once(conn)
        } else {
            conn.transaction(|conn| {
                Sql::new(LOCK_OPEN_SHIFT)
                    .bind::<Text, _>(code)
                    .get_result::<Count>(conn)?;
                once(conn)
            })
        };
        match outcome {
            Ok(done) => return Ok(done),
            Err(Attempt::Moved) => {}
            Err(Attempt::Failed(err)) => return Err(err),
        }
    }
    Err(RoundsError::Busy(code.to_owned()).into())
}

/// Where a round goes, as read (or remembered): its id, the day's last round number before it,
/// and the rule profile of its table.
#[derive(Debug, Clone, Copy)]
struct Slot {
    round_id: i64,
    last_no: i32,
    rule_profile_id: i64,
}

impl EntryRow {
    fn slot(&self) -> Slot {
        Slot {
            round_id: self.next_round_id,
            last_no: self.last_no,
            rule_profile_id: self.rule_profile_id,
        }
    }
}

impl RoundToSettle<'_> {
    /// The round in `slot` for `shift` after chain head `head`, with its places and its sealed
    /// `round.settled` event, ready to write.
    fn prepare(
        &self,
        slot: Slot,
        shift: &Shift,
        head: ChainHead,
        token: Option<TokenToCheck>,
    ) -> QueryResult<RoundWrite> {
        let (table, settlement) = (self.table, self.settlement);
        let canonical = RoundIn::from_round(self.round);
        let places = place_rows(&canonical, settlement);
        let places_json = serde_json::to_string(&places)
            .map_err(|err| diesel::result::Error::SerializationError(Box::new(err)))?;
        let round_no = slot.last_no + 1;
        let round_id = slot.round_id;
        let chain = tables::chain(TableId(table.id));
        // Carries the canonical round and its settlement, so that the round can be
        // recomputed and checked from the audit row alone.
        let event = NewAuditEvent {
            chain: &chain,
            actor: self.actor,
            action: "round.settled",
            target: format!("round:{round_id}"),
            details: json!({
                "table": table.code,
                "round_no": round_no,
                "draft_key": self.key,
                "shift_id": shift.id,
                "dealer_id": shift.dealer_id,
                "rule_profile_version_id": table.profile_version_id,
                "round": canonical,
                "settlement": settlement,
            }),
            gaming_day: Some(self.gaming_day),
            table_id: Some(table.id),
        };
        let event = SealedEvent::after(head, event);
        Ok(RoundWrite {
            round: RoundRow {
                id: round_id,
                table_id: table.id,
                gaming_day: self.gaming_day,
                round_no,
                draft_key: self.key.to_owned(),
                shift_id: shift.id,
                dealer_id: shift.dealer_id,
                rule_profile_version_id: table.profile_version_id,
                currency: table.currency.clone(),
                dealer_result: settlement.dealer.result.minor_units(),
                settled_at: event.at,
            },
            places,
            places_json,
            event,
            min_bet: table.min_bet,
            max_bet: table.max_bet,
            rule_profile_id: slot.rule_profile_id,
            token,
        })
    }

    /// Writes the round in `slot` for `shift` after chain head `head` (settling `draft`, at its
    /// revision, when there is one); returns it with the chain's new head. `None`: the table
    /// moved since the read and nothing was written.
    fn write(
        &self,
        conn: &mut PgConnection,
        slot: Slot,
        shift: &Shift,
        head: ChainHead,
        draft: Option<(i64, i32)>,
    ) -> QueryResult<Option<(SettledRound, ChainHead)>> {
        let prepared = self.prepare(slot, shift, head, None)?;
        let written = match draft {
            Some((id, revision)) => {
                let round = &prepared.round;
                let written: Count = prepared
                    .event
                    .bind(Sql::new(CONFIRM_WRITE))
                    .bind::<BigInt, _>(round.id)
                    .bind::<BigInt, _>(round.table_id)
                    .bind::<Date, _>(round.gaming_day)
                    .bind::<Integer, _>(round.round_no)
                    .bind::<Text, _>(round.draft_key.as_str())
                    .bind::<BigInt, _>(round.shift_id)
                    .bind::<BigInt, _>(round.dealer_id)
                    .bind::<BigInt, _>(round.rule_profile_version_id)
                    .bind::<Text, _>(round.currency.as_str())
                    .bind::<BigInt, _>(round.dealer_result)
                    .bind::<Text, _>(prepared.places_json.as_str())
                    .bind::<BigInt, _>(id)
                    .bind::<Integer, _>(revision)
                    .get_result(conn)?;
                written.n > 0
            }
            None => round_writer::write_whole_rounds(conn, std::slice::from_ref(&prepared))?
                .contains(&prepared.round.id),
        };
        Ok(written.then(|| (prepared.settled(), prepared.event.head_after())))
    }
}

/// The open shift of the table read in `entry` that `writer` may enter rounds for, and the head
/// of the table's audit chain (created, empty, if the chain has none yet: the write then finds
/// it, or finds that another event came first and the caller reads again).
fn shift_and_head(
    conn: &mut PgConnection,
    entry: &EntryRow,
    writer: Writer,
) -> Result<(Shift, ChainHead), RoundsError> {
    let shift = entry.shift();
    writer.may_enter(shift.as_ref(), &entry.code)?;
    let Some(shift) = shift else {
        return Err(RoundsError::NobodyOnShift {
            code: entry.code.clone(),
        });
    };
    let head = match entry.head() {
        Some(head) => head,
        None => {
            audit_log::create_head(conn, &tables::chain(TableId(entry.table_id)))?;
            ChainHead {
                last_seq: 0,
                last_hash: audit_log::GENESIS_HASH.to_vec(),
            }
        }
    };
    Ok((shift, head))
}

/// Settles a draft of `confirm.table` that the caller loaded at revision `draft_revision` and
/// settled as `confirm.round`: checks that the writer may enter rounds at the table, numbers the
/// round, stores it for the open shift and its dealer with its places, marks the draft settled
/// and appends `round.settled`, in one transaction (see above). Confirming a settled draft again
/// returns the round already stored (`false`: nothing new was written); a draft changed since it
/// was loaded is refused.
pub fn confirm(
    conn: &mut PgConnection,
    confirm: &RoundToSettle<'_>,
    draft_revision: i32,
) -> Result<(SettledRound, bool), RoundsError> {
    let table = confirm.table;
    let no_draft = || RoundsError::NoDraft(confirm.key.to_owned());
    until_written(conn, &table.code, |conn| {
        let entry =
            read_entry(conn, &table.code, confirm.gaming_day, confirm.key)?.ok_or_else(no_draft)?;
        let (Some(draft_id), Some(revision)) = (entry.draft_id, entry.draft_revision) else {
            return Err(no_draft().into());
        };
        if entry.draft_table_id != Some(table.id) {
            return Err(no_draft().into());
        }
        if let Some(id) = entry.key_round_id {
            let round = get_round(conn, id)?.ok_or_else(no_draft)?;
            return Ok((round, false));
        }
        let (shift, head) = shift_and_head(conn, &entry, confirm.writer)?;
        if revision != draft_revision {
            return Err(RoundsError::RevisionMismatch {
                expected: draft_revision,
                current: revision,
            }
            .into());
        }
        let draft = Some((draft_id, revision));
        match confirm.write(conn, entry.slot(), &shift, head, draft)? {
            Some((round, _)) => Ok((round, true)),
            None => Err(Attempt::Moved),
        }
    })
}

/// Records and settles a whole round at the table `code` under the caller's one-time key,
/// without a draft (for casino systems that send a round complete). `settle` validates and
/// settles the round under the table's rules as read. Checks the writer's shift, numbers the
/// round, stores it and its places and appends `round.settled`, in one transaction (see above).
/// Recording the same key again returns the round already stored (`false`); a key already used
/// at another table, or by a draft, is refused.
pub fn record<E: From<RoundsError>>(
    conn: &mut PgConnection,
    memos: &TableMemos,
    code: &str,
    entry: &Entry<'_>,
    settle: impl Fn(&TableInfo) -> Result<(Round, SettlementOut), E>,
) -> Result<(SettledRound, TableInfo, bool), E> {
    let recorded = until_written(conn, code, |conn| {
        let read = read_entry(conn, code, entry.gaming_day, entry.key)?
            .ok_or_else(|| RoundsError::NoTable(code.to_owned()))?;
        let table = read.table()?;
        let (round, settlement) = settle(&table).map_err(Attempt::Failed)?;
        if let Some(existing) = used_under(conn, &read, entry.key, &table)? {
            return Ok((existing, table, false));
        }
        let (shift, head) = shift_and_head(conn, &read, entry.writer)?;
        let to_settle = entry.round_to_settle(&table, &round, &settlement);
        let slot = read.slot();
        match to_settle.write(conn, slot, &shift, head, None)? {
            Some((written, head)) => {
                // The table as the write left it, for its next round.
                memos.remember(code, TableMemo::after(&to_settle, slot, shift, head));
                Ok((written, table, true))
            }
            None => Err(Attempt::Moved),
        }
    })?;
    // Round ids for the next rounds written from memory (the round is written whatever this
    // says).
    if let Err(err) = memos.top_up_round_ids(conn) {
        tracing::warn!(error = %err, "cannot take round ids");
    }
    Ok(recorded)
}

impl<'a> Entry<'a> {
    /// The round to settle under this entry's key, at `table`.
    fn round_to_settle(
        &self,
        table: &'a TableInfo,
        round: &'a Round,
        settlement: &'a SettlementOut,
    ) -> RoundToSettle<'a> {
        RoundToSettle {
            key: self.key,
            table,
            gaming_day: self.gaming_day,
            writer: self.writer,
            actor: self.actor,
            round,
            settlement,
        }
    }
}

/// Records a whole round at the table `code` from what this process remembers of the table
/// after its last round there ([`TableMemos`]), without reading first: `writer` writes it with
/// the other rounds waiting, and checks under lock that nothing it was made from has moved
/// (`token`, if any, included). `None` when there is nothing to go on, when the round would be
/// refused on what is remembered, or when something moved: nothing is written, and the caller
/// records the round with [`record`], which reads the table and gives any refusal on the table
/// as it is.
pub async fn record_remembered<E>(
    writer: &RoundWriter,
    memos: &TableMemos,
    code: &str,
    entry: &Entry<'_>,
    token: Option<TokenToCheck>,
    settle: impl Fn(&TableInfo) -> Result<(Round, SettlementOut), E>,
) -> Option<(SettledRound, TableInfo)> {
    let memo = memos.recall(code, entry.gaming_day)?;
    let forget = || {
        memos.forget(code);
        None
    };
    if entry.writer.may_enter(Some(&memo.shift), code).is_err() {
        return forget();
    }
    // A refusal is only given on the table as read: the memory may hold old limits or rules.
    let Ok((round, settlement)) = settle(&memo.table) else {
        return forget();
    };
    let slot = Slot {
        round_id: memos.take_round_id()?,
        last_no: memo.last_no,
        rule_profile_id: memo.rule_profile_id,
    };
    let to_settle = entry.round_to_settle(&memo.table, &round, &settlement);
    let Ok(prepared) = to_settle.prepare(slot, &memo.shift, memo.head.clone(), token) else {
        return forget();
    };
    let (settled, head) = (prepared.settled(), prepared.event.head_after());
    if !writer.write(prepared).await {
        return forget();
    }
    memos.remember(
        code,
        TableMemo::after(&to_settle, slot, memo.shift.clone(), head),
    );
    Some((settled, memo.table))
}

/// What a table looked like right after this process wrote a round there.
#[derive(Debug, Clone)]
struct TableMemo {
    gaming_day: NaiveDate,
    table: TableInfo,
    rule_profile_id: i64,
    shift: Shift,
    head: ChainHead,
    last_no: i32,
}

impl TableMemo {
    fn after(written: &RoundToSettle<'_>, slot: Slot, shift: Shift, head: ChainHead) -> Self {
        TableMemo {
            gaming_day: written.gaming_day,
            table: written.table.clone(),
            rule_profile_id: slot.rule_profile_id,
            shift,
            head,
            last_no: slot.last_no + 1,
        }
    }
}

/// Round ids taken from the sequence at a time, for rounds written without a read.
const ID_BLOCK: usize = 64;

/// Each table's state as this process last left it, so that the next whole round there can be
/// written without a read: the write checks, under lock, that the shift, the audit chain, the
/// round number, the table's settings and its profile's versions are still as remembered, and
/// writes nothing otherwise. Memos are only ever a guess; the database decides.
#[derive(Debug, Default)]
pub struct TableMemos {
    tables: std::sync::Mutex<std::collections::HashMap<String, TableMemo>>,
    round_ids: std::sync::Mutex<Vec<i64>>,
}

impl TableMemos {
    fn recall(&self, code: &str, gaming_day: NaiveDate) -> Option<TableMemo> {
        let tables = self.tables.lock().ok()?;
        tables
            .get(code)
            .filter(|memo| memo.gaming_day == gaming_day)
            .cloned()
    }

    fn remember(&self, code: &str, memo: TableMemo) {
        if let Ok(mut tables) = self.tables.lock() {
            tables.insert(code.to_owned(), memo);
        }
    }

    fn forget(&self, code: &str) {
        if let Ok(mut tables) = self.tables.lock() {
            tables.remove(code);
        }
    }

    /// A round id from those taken from the sequence beforehand; `None` when none are left.
    fn take_round_id(&self) -> Option<i64> {
        self.round_ids.lock().ok()?.pop()
    }

    /// Takes another block of round ids from the sequence when fewer than half a block are
    /// left.
    pub fn top_up_round_ids(&self, conn: &mut PgConnection) -> QueryResult<()> {
        let left = self.round_ids.lock().map_or(0, |ids| ids.len());
        if left >= ID_BLOCK / 2 {
            return Ok(());
        }
        let mut block: Vec<i64> =
            Sql::new("SELECT nextval('rounds_id_seq') AS n FROM generate_series(1, $1)")
                .bind::<BigInt, _>(i64::try_from(ID_BLOCK).unwrap_or(64))
                .load::<Count>(conn)?
                .into_iter()
                .map(|row| row.n)
                .collect();
        // Taken from the end: the lowest first.
        block.sort_unstable_by(|a, b| b.cmp(a));
        if let Ok(mut ids) = self.round_ids.lock() {
            block.extend(ids.drain(..));
            *ids = block;
        }
        Ok(())
    }
}

/// The round already recorded under `key` at `table`; an error if the key is in use elsewhere.
fn used_under(
    conn: &mut PgConnection,
    read: &EntryRow,
    key: &str,
    table: &TableInfo,
) -> Result<Option<SettledRound>, RoundsError> {
    if read.draft_id.is_some() {
        return Err(RoundsError::KeyTaken(key.to_owned()));
    }
    let Some(round_id) = read.key_round_id else {
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

/// The table's house result for gaming day `day` and for `shift` (a shift's rounds are on its
/// own gaming day or later), in one query.
pub fn house_results(
    conn: &mut PgConnection,
    table_id: i64,
    day: NaiveDate,
    shift: &Shift,
) -> QueryResult<HouseResults> {
    Sql::new(
        "SELECT COALESCE(SUM(dealer_result) FILTER (WHERE gaming_day = $2), 0)::bigint AS day, \
                COALESCE(SUM(dealer_result) FILTER (WHERE shift_id = $3), 0)::bigint AS shift \
         FROM rounds WHERE table_id = $1 AND gaming_day >= LEAST($2, $4)",
    )
    .bind::<BigInt, _>(table_id)
    .bind::<Date, _>(day)
    .bind::<BigInt, _>(shift.id)
    .bind::<Date, _>(shift.gaming_day)
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
