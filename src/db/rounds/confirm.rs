//! The statements that confirm rounds ([`sql`] says how): the read of a table's whole state,
//! the write of one draft's round, the write of many whole rounds at once, and what they take
//! and give.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Bool, Bytea, Date, Integer, Json, Jsonb, Nullable, Text, Timestamptz,
};
use serde_json::Value;

use crate::db::audit_log::{ChainHead, SealedEvent};
use crate::db::ids::{
    DraftId, DraftKey, ProfileId, ProfileVersionId, RoundId, ShiftId, SlipId, TableId, UserId,
};
use crate::db::prepared::{column, Sql};
use crate::db::rounds::drafts::Draft;
use crate::db::rounds::rows::{PlaceRow, RoundRow, SettledRound};
use crate::db::rounds::sql;
use crate::db::shifts::Shift;
use crate::db::tables::{GamingTable, PlayingTable, TableRulesError};
use crate::db::users::Role;
use crate::rules::money::Money;

/// A table's state as a confirmation reads it ([`sql::ENTRY_READ`]).
#[derive(Debug, QueryableByName)]
pub struct EntryRow {
    #[diesel(sql_type = BigInt)]
    pub table_id: TableId,
    #[diesel(sql_type = Text)]
    pub code: String,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    min_bet: Money,
    #[diesel(sql_type = BigInt, deserialize_as = i64)]
    max_bet: Money,
    #[diesel(sql_type = BigInt)]
    rule_profile_id: ProfileId,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    updated_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<BigInt>)]
    approval_threshold: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    unit: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    profile_version_id: Option<ProfileVersionId>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    options: Option<Value>,
    #[diesel(sql_type = Nullable<BigInt>)]
    shift_id: Option<ShiftId>,
    #[diesel(sql_type = Nullable<BigInt>)]
    dealer_id: Option<UserId>,
    #[diesel(sql_type = Nullable<Date>)]
    shift_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    signed_on_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_seq: Option<i64>,
    #[diesel(sql_type = Nullable<Bytea>)]
    last_hash: Option<Vec<u8>>,
    /// The day's last round number (0 before the first).
    #[diesel(sql_type = Integer)]
    pub last_no: i32,
    /// An id for the round, taken from the sequence.
    #[diesel(sql_type = BigInt)]
    pub next_round_id: RoundId,
    /// The draft with the round's key, if any.
    #[diesel(sql_type = Nullable<BigInt>)]
    pub draft_id: Option<DraftId>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub draft_table_id: Option<TableId>,
    #[diesel(sql_type = Nullable<Integer>)]
    pub draft_revision: Option<i32>,
    /// Every account that saved the draft ([`crate::db::rounds::drafts::Draft::edited_by`]).
    #[diesel(sql_type = Nullable<Array<Nullable<BigInt>>>)]
    pub draft_edited_by: Option<Vec<Option<UserId>>>,
    #[diesel(sql_type = Nullable<Text>)]
    draft_key: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    draft_shift_id: Option<ShiftId>,
    #[diesel(sql_type = Nullable<BigInt>)]
    draft_created_by: Option<UserId>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    draft_data: Option<Value>,
    /// The round stored under the round's key, if any.
    #[diesel(sql_type = Nullable<BigInt>)]
    pub key_round_id: Option<RoundId>,
    /// The table's newest slip that is not void, if any, and whether it was explained.
    #[diesel(sql_type = Nullable<BigInt>)]
    slip_id: Option<SlipId>,
    #[diesel(sql_type = Nullable<Text>)]
    slip_kind: Option<String>,
    #[diesel(sql_type = Nullable<Bool>)]
    slip_held: Option<bool>,
    #[diesel(sql_type = Nullable<BigInt>)]
    slip_difference: Option<i64>,
    #[diesel(sql_type = Bool)]
    slip_explained: bool,
}

/// A table's newest slip that is not void, as a round's confirmation reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingSlip {
    pub id: SlipId,
    pub kind: String,
    pub held: bool,
    pub difference: Option<i64>,
    pub explained: bool,
}

impl EntryRow {
    /// The table's open shift.
    pub fn shift(&self) -> Option<Shift> {
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

    /// The head of the table's audit chain; `None` before the chain's first event.
    pub fn head(&self) -> Option<ChainHead> {
        match (self.last_seq, &self.last_hash) {
            (Some(last_seq), Some(last_hash)) => Some(ChainHead {
                last_seq,
                last_hash: last_hash.clone(),
            }),
            _ => None,
        }
    }

    /// The draft under the round's key, if any.
    pub fn draft(&self) -> Option<Draft> {
        Some(Draft {
            id: self.draft_id?,
            draft_key: DraftKey(self.draft_key.clone()?),
            table_id: self.draft_table_id?,
            shift_id: self.draft_shift_id,
            created_by: self.draft_created_by?,
            revision: self.draft_revision?,
            data: self.draft_data.clone()?,
            settled_round_id: self.key_round_id,
            edited_by: self.draft_edited_by.clone().unwrap_or_default(),
        })
    }

    /// The table's newest slip that is not void, if any.
    pub fn standing_slip(&self) -> Option<StandingSlip> {
        Some(StandingSlip {
            id: self.slip_id?,
            kind: self.slip_kind.clone()?,
            held: self.slip_held?,
            difference: self.slip_difference,
            explained: self.slip_explained,
        })
    }

    /// The table with the rules in force.
    pub fn table(&self) -> Result<PlayingTable, TableRulesError> {
        let table = GamingTable {
            id: self.table_id,
            code: self.code.clone(),
            name: self.name.clone(),
            currency: self.currency.clone(),
            min_bet: self.min_bet,
            max_bet: self.max_bet,
            rule_profile_id: self.rule_profile_id,
            created_at: self.created_at,
            updated_at: self.updated_at,
            approval_threshold: self.approval_threshold,
            unit: self.unit,
        };
        PlayingTable::new(table, self.profile_version_id.zip(self.options.clone()))
    }
}

/// The state of table `code` for a round under `key` on `gaming_day` ([`sql::ENTRY_READ`]).
pub fn read_entry(
    conn: &mut PgConnection,
    code: &str,
    gaming_day: NaiveDate,
    key: &str,
) -> QueryResult<Option<EntryRow>> {
    Sql::new(sql::ENTRY_READ)
        .bind::<Text, _>(code)
        .bind::<Date, _>(gaming_day)
        .bind::<Text, _>(key)
        .get_result(conn)
        .optional()
}

/// The state of the table of the draft under `key` for its round on `gaming_day`, if the
/// draft is at the table `at` (when named) ([`sql::DRAFT_ENTRY_READ`]).
pub fn read_draft_entry(
    conn: &mut PgConnection,
    at: Option<&str>,
    gaming_day: NaiveDate,
    key: &str,
) -> QueryResult<Option<EntryRow>> {
    Sql::new(sql::DRAFT_ENTRY_READ)
        .bind::<Nullable<Text>, _>(at)
        .bind::<Date, _>(gaming_day)
        .bind::<Text, _>(key)
        .get_result(conn)
        .optional()
}

/// An API token the request came with that was not checked on this request: the write checks
/// it is still good and still its writer's, with the writer's role.
#[derive(Debug, Clone)]
pub struct TokenToCheck {
    pub hash: Vec<u8>,
    pub role: Role,
}

/// A round ready to write: its row, its places and its sealed `round.settled` event, with the
/// table's settings it was validated under (currency in `round`, the bet limits and the rule
/// profile) and the caller's token to check, if any.
#[derive(Debug, Clone)]
pub struct RoundWrite {
    pub round: RoundRow,
    pub places: Vec<PlaceRow>,
    pub places_json: String,
    pub event: SealedEvent,
    pub min_bet: Money,
    pub max_bet: Money,
    pub rule_profile_id: ProfileId,
    /// The table's approval threshold `round.needs_approval` was decided under.
    pub approval_threshold: Option<i64>,
    pub token: Option<TokenToCheck>,
}

impl RoundWrite {
    pub fn settled(&self) -> SettledRound {
        SettledRound {
            round: self.round.clone(),
            places: self.places.clone(),
        }
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Writes `round`, settling draft `draft` at `revision` ([`sql::CONFIRM_WRITE`]); whether it
/// was written (not when something moved since the read).
pub fn write_draft_round(
    conn: &mut PgConnection,
    write: &RoundWrite,
    draft: DraftId,
    revision: i32,
) -> QueryResult<bool> {
    let round = &write.round;
    let written: Count = write
        .event
        .bind(Sql::new(sql::CONFIRM_WRITE))
        .bind::<BigInt, _>(round.id)
        .bind::<BigInt, _>(round.table_id)
        .bind::<Date, _>(round.gaming_day)
        .bind::<Integer, _>(round.round_no)
        .bind::<Text, _>(round.draft_key.as_str())
        .bind::<BigInt, _>(round.shift_id)
        .bind::<BigInt, _>(round.dealer_id)
        .bind::<BigInt, _>(round.rule_profile_version_id)
        .bind::<Text, _>(round.currency.as_str())
        .bind::<BigInt, _>(round.dealer_result.minor_units())
        .bind::<Text, _>(write.places_json.as_str())
        .bind::<BigInt, _>(draft)
        .bind::<Integer, _>(revision)
        .bind::<Bool, _>(round.needs_approval)
        .get_result(conn)?;
    Ok(written.n > 0)
}

#[derive(QueryableByName)]
struct Written {
    #[diesel(sql_type = BigInt)]
    id: RoundId,
}

/// Writes `rounds` (at most one per table) in one statement, a transaction of its own or part
/// of the caller's; returns the ids of those written (see [`sql::WRITE_WHOLE_ROUNDS`]).
pub fn write_whole_rounds(
    conn: &mut PgConnection,
    rounds: &[RoundWrite],
) -> QueryResult<Vec<RoundId>> {
    let written: Vec<Written> = Sql::new(sql::WRITE_WHOLE_ROUNDS)
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.chain.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.event.seq))
        .bind::<Array<Timestamptz>, _>(column::<_, DateTime<Utc>>(rounds, |r| r.event.at))
        .bind::<Array<Nullable<BigInt>>, _>(column(rounds, |r| r.event.actor_user_id))
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.actor_name.as_str()))
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.action.as_str()))
        .bind::<Array<Text>, _>(column(rounds, |r| r.event.target.as_str()))
        .bind::<Array<Json>, _>(column(rounds, |r| &r.event.details))
        .bind::<Array<Nullable<Text>>, _>(column(rounds, |r| r.event.client_addr.as_deref()))
        .bind::<Array<Date>, _>(column::<_, NaiveDate>(rounds, |r| r.round.gaming_day))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.table_id))
        .bind::<Array<Bytea>, _>(column(rounds, |r| r.event.prev_hash.as_slice()))
        .bind::<Array<Bytea>, _>(column(rounds, |r| r.event.hash.as_slice()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.id))
        .bind::<Array<Integer>, _>(column(rounds, |r| r.round.round_no))
        .bind::<Array<Text>, _>(column(rounds, |r| r.round.draft_key.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.shift_id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.dealer_id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.rule_profile_version_id))
        .bind::<Array<Text>, _>(column(rounds, |r| r.round.currency.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.dealer_result.minor_units()))
        .bind::<Array<Text>, _>(column(rounds, |r| r.places_json.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.min_bet.minor_units()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.max_bet.minor_units()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.rule_profile_id))
        .bind::<Array<Nullable<Bytea>>, _>(column(rounds, |r| {
            r.token.as_ref().map(|t| t.hash.as_slice())
        }))
        .bind::<Array<Text>, _>(column(rounds, |r| {
            r.token.as_ref().map_or("", |t| t.role.as_str())
        }))
        .bind::<Array<Bool>, _>(column(rounds, |r| r.round.needs_approval))
        .bind::<Array<Nullable<BigInt>>, _>(column(rounds, |r| r.approval_threshold))
        .load(conn)?;
    Ok(written.into_iter().map(|w| w.id).collect())
}

/// Locks the open shift of table `code` until the transaction ends ([`sql::LOCK_OPEN_SHIFT`]).
pub fn lock_open_shift(conn: &mut PgConnection, code: &str) -> QueryResult<()> {
    Sql::new(sql::LOCK_OPEN_SHIFT)
        .bind::<Text, _>(code)
        .get_result::<Count>(conn)?;
    Ok(())
}

/// `count` round ids taken from the sequence ([`sql::NEXT_ROUND_IDS`]).
pub fn next_round_ids(conn: &mut PgConnection, count: i64) -> QueryResult<Vec<RoundId>> {
    let ids: Vec<Written> = Sql::new(sql::NEXT_ROUND_IDS)
        .bind::<BigInt, _>(count)
        .load(conn)?;
    Ok(ids.into_iter().map(|row| row.id).collect())
}
