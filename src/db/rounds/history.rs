//! Rounds of the past written in bulk: the generated history of `pusoy-pit db generate`, made by
//! the same engine and sealed on the same chains as rounds entered at a table, only with their
//! own (past) times and many to a statement.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Date, Integer, Text, Timestamptz};

use crate::db::audit_log::{self, ChainHead, SealedEvent};
use crate::db::prepared::{column, Sql};
use crate::db::rounds::confirm::RoundWrite;
use crate::db::rounds::sql;

/// Writes `rounds`, all of one table in the order of their events on its chain, and their
/// `round.settled` events with `others` (the chain's other events, e.g. shifts), all sealed
/// one after another after `head`, which this transaction has locked
/// ([`audit_log::lock_chain`]). Refuses events not in that order, writing nothing.
pub fn write_history(
    conn: &mut PgConnection,
    chain: &str,
    head: &ChainHead,
    events: &[SealedEvent],
    rounds: &[RoundWrite],
) -> QueryResult<()> {
    audit_log::append_sealed(conn, chain, head, events)?;
    if rounds.is_empty() {
        return Ok(());
    }
    Sql::new(sql::INSERT_HISTORY)
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.table_id))
        .bind::<Array<Date>, _>(column::<_, NaiveDate>(rounds, |r| r.round.gaming_day))
        .bind::<Array<Integer>, _>(column(rounds, |r| r.round.round_no))
        .bind::<Array<Text>, _>(column(rounds, |r| r.round.draft_key.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.shift_id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.dealer_id))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.rule_profile_version_id))
        .bind::<Array<Text>, _>(column(rounds, |r| r.round.currency.as_str()))
        .bind::<Array<BigInt>, _>(column(rounds, |r| r.round.dealer_result.minor_units()))
        .bind::<Array<Timestamptz>, _>(column::<_, DateTime<Utc>>(rounds, |r| r.round.settled_at))
        .bind::<Array<Text>, _>(column(rounds, |r| r.places_json.as_str()))
        .bind::<Array<Bool>, _>(column(rounds, |r| r.round.needs_approval))
        .execute(conn)?;
    Ok(())
}
