//! Unrated observations (docs/players.md, "Unrated observations"): a pit manager's note of a
//! player who is not carded, at a seat of a table with a dealer on shift: who they look like,
//! the average bet the pit manager estimates, when they sat down and, later, when they left and
//! with what chips. Its figures are estimates (`rules::rating::estimate`): the estimated bet
//! over the rounds settled at the seat while they sat, the house edge of each round's rule
//! profile version. An observation is never changed: its end and its void are records of
//! their own, a void by someone other than whoever recorded it, with the reason; a correction
//! is a void and a new observation. Each is an event on the `players` chain.
//!
//! An observed player carded mid-session ([`card`]): the observation ends and a rating of the
//! player starts at its seat at that same moment, so no round is counted both as an estimate
//! and as rated, and none is lost between them; the link is a record of its own.

use std::collections::HashMap;

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use diesel::PgConnection;
use serde_json::json;

use crate::accounting::cash::{self, CashTx};
use crate::accounting::drop::{
    day_open, locked_table, may_void, names, person, table_of, DropTable, Stop, Void,
};
use crate::accounting::record::attempt;
use crate::accounting::record::Refusal;
use crate::accounting::slips::{Me, Person};
use crate::accounting::{AccountingError, Saved};
use crate::db::audit_actions::AuditAction;
use crate::db::drop::BuyInRow;
use crate::db::handle::Db;
use crate::db::ids::{ObservationId, PlayerId, RatingId, TableId, UserId};
use crate::db::observations::{
    self as rows, AttributionRow, CardingRow, EndRow, NewObservation, ObservationRow, Observed,
    ENDED, RUNNING,
};
use crate::db::players::{NewRating, PlayerRow};
use crate::db::{shifts, tables};
use crate::players::ratings::{
    card_number, player_of_card, rated, refuse_excluded, seat_free, start, walked_with,
};
use crate::players::{event_on, observes};
use crate::rules::compliance::{CaseKind, Direction};
use crate::rules::drop::{self as arithmetic, BuyInKind};
use crate::rules::money::Money;
use crate::rules::rating::{estimate, started_at, Dealt, Figures};

/// The longest description, in characters.
pub const DESCRIPTION_MOST: usize = 120;
/// The longest reason of a void, in characters.
const REASON_MOST: usize = 500;

/// An observation as the pages show it, with its estimates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub id: ObservationId,
    pub table_code: String,
    pub seat: u8,
    pub gaming_day: NaiveDate,
    pub description: String,
    pub currency: String,
    pub average_bet: Money,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub walked_with: Option<Money>,
    pub recorded_by: Person,
    pub void: Option<Void>,
    /// The player it was carded as, when it was.
    pub carded: Option<Carded>,
    /// Estimated: hands are the rounds counted at the seat, their bet the estimated one.
    pub estimate: Figures,
}

/// The player an observation was carded as, and the rating it goes on as, from its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carded {
    pub player: PlayerId,
    pub card_number: String,
    /// First and last name.
    pub name: String,
    pub rating: RatingId,
    /// Carded after it ended: the rating spans the observation's own time (else it goes on
    /// from the observation's end).
    pub after_end: bool,
    pub at: DateTime<Utc>,
    pub by: Person,
}

/// A table's observations of a gaming day: the page that records, ends and voids them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableObservations {
    pub table: DropTable,
    pub day: NaiveDate,
    pub min_bet: Money,
    pub max_bet: Money,
    /// The dealer on shift there now, by name (none: nothing can be observed).
    pub dealer: Option<String>,
    pub observations: Vec<Observation>,
}

/// What a refused form's page shows: the field the refusal is about (`seat`, `description`,
/// `average_bet`, `started`, `walked_with`, `reason`), if one, and the table's observations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub field: Option<&'static str>,
    pub table: TableObservations,
}

/// An observation as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObservationForm {
    pub seat: String,
    pub description: String,
    pub average_bet: String,
    /// The local time of day the player sat down (`HH:MM`); empty: now.
    pub started: String,
}

/// When a form is sent: now, the casino's offset from UTC, and when the gaming day began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub now: DateTime<Utc>,
    pub offset: FixedOffset,
    pub day_began: DateTime<Utc>,
}

/// These observations with their estimates at `now` and the names of who recorded and voided
/// them, in the order given.
pub(crate) fn observations_of(
    conn: &mut PgConnection,
    observed: Vec<Observed>,
    now: DateTime<Utc>,
) -> Result<Vec<Observation>, AccountingError> {
    let ids: Vec<ObservationId> = observed.iter().map(|(o, _, _)| o.id).collect();
    let ends: Vec<Option<DateTime<Utc>>> = observed
        .iter()
        .map(|(_, end, _)| end.as_ref().map(|e| e.ended_at))
        .collect();
    let mut dealt: HashMap<i64, Vec<Dealt>> = HashMap::new();
    for round in rows::observed_rounds(conn, &ids, &ends)? {
        dealt
            .entry(round.span_id)
            .or_default()
            .push((round.dealt_at, round.edge_ppm));
    }
    let mut table_ids: Vec<TableId> = observed.iter().map(|(o, _, _)| o.table_id).collect();
    table_ids.sort();
    table_ids.dedup();
    let codes: HashMap<TableId, String> = crate::db::players::tables_of(conn, &table_ids)?
        .into_iter()
        .map(|(id, code, _)| (id, code))
        .collect();
    let mut carded: HashMap<ObservationId, _> = rows::cardings(conn, &ids)?
        .into_iter()
        .map(|(carding, player)| (carding.observation_id, (carding, player)))
        .collect();
    let people: Vec<UserId> = observed
        .iter()
        .flat_map(|(o, _, v)| std::iter::once(o.recorded_by).chain(v.as_ref().map(|v| v.voided_by)))
        .chain(carded.values().map(|(c, _)| c.carded_by))
        .collect();
    let names = names(conn, people.into_iter())?;
    observed
        .into_iter()
        .map(|(row, end, void)| {
            let stored = || AccountingError::BadStored(format!("observation {}", row.id));
            let ended_at = end.as_ref().map(|e| e.ended_at);
            let rounds = dealt.get(&row.id.0).map_or(&[][..], Vec::as_slice);
            Ok(Observation {
                id: row.id,
                table_code: codes.get(&row.table_id).cloned().ok_or_else(stored)?,
                seat: u8::try_from(row.seat).map_err(|_| stored())?,
                gaming_day: row.gaming_day,
                estimate: estimate(
                    row.started_at,
                    ended_at,
                    Money::from_minor_units(row.average_bet),
                    rounds,
                    now,
                ),
                description: row.description,
                currency: row.currency,
                average_bet: Money::from_minor_units(row.average_bet),
                started_at: row.started_at,
                ended_at,
                walked_with: end.and_then(|e| e.walked_with).map(Money::from_minor_units),
                recorded_by: person(&names, row.recorded_by),
                carded: carded.remove(&row.id).map(|(c, player)| Carded {
                    player: player.id,
                    card_number: player.card_number,
                    name: format!("{} {}", player.first_name, player.last_name),
                    rating: c.rating_id,
                    after_end: c.kind == ENDED,
                    at: c.carded_at,
                    by: person(&names, c.carded_by),
                }),
                void: void.map(|v| Void {
                    reason: v.reason,
                    by: person(&names, v.voided_by),
                    at: v.voided_at,
                }),
            })
        })
        .collect()
}

/// The observations begun on gaming day `day` at every table, with their estimates at `now`.
pub(crate) fn of_day(
    conn: &mut PgConnection,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<Vec<Observation>, AccountingError> {
    let observed = rows::between(conn, day, day, None)?;
    observations_of(conn, observed, now)
}

/// An observation running at a table, as its screen shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Open {
    pub id: ObservationId,
    pub seat: u8,
    pub description: String,
    pub since: DateTime<Utc>,
}

/// The observations running at a table (not ended, not void), by seat, in the caller's turn.
pub fn open_at(conn: &mut PgConnection, table: TableId) -> Result<Vec<Open>, AccountingError> {
    rows::open_at_table(conn, table)?
        .into_iter()
        .map(|row| {
            Ok(Open {
                id: row.id,
                seat: u8::try_from(row.seat)
                    .map_err(|_| AccountingError::BadStored(format!("observation {}", row.id)))?,
                description: row.description,
                since: row.started_at,
            })
        })
        .collect()
}

fn table_observations(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<TableObservations, AccountingError> {
    let table = table_of(conn, code)?;
    let limits = tables::playing_by_id(conn, table.id)
        .map_err(|err| AccountingError::BadStored(format!("the rules of table {code}: {err}")))?
        .ok_or(AccountingError::NotFound("table"))?;
    let dealer = shifts::current_shift(conn, table.id)?.map(|s| s.dealer_name);
    let observed = rows::between(conn, day, day, Some(table.id))?;
    Ok(TableObservations {
        observations: observations_of(conn, observed, now)?,
        min_bet: limits.table.min_bet,
        max_bet: limits.table.max_bet,
        dealer,
        table,
        day,
    })
}

/// Table `code`'s observations of gaming day `day`, for its page.
pub async fn table(
    db: &Db,
    code: String,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<TableObservations, AccountingError> {
    db.run(move |conn| table_observations(conn, &code, day, now))
        .await
}

/// Runs `change` in a transaction: done, or refused with table `code`'s page of `day` (read
/// after the refusal, which wrote nothing).
fn answer<T>(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    now: DateTime<Utc>,
    change: impl FnOnce(&mut PgConnection) -> Result<T, Stop>,
) -> Result<Saved<T, Page>, AccountingError> {
    match attempt(conn, change)? {
        Ok(done) => Ok(Saved::Done(done)),
        Err(refusal) => refused(conn, code, day, now, refusal),
    }
}

/// A refusal with table `code`'s page of `day`.
fn refused<T>(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    now: DateTime<Utc>,
    (field, reason): Refusal,
) -> Result<Saved<T, Page>, AccountingError> {
    Ok(Saved::Refused {
        reason,
        page: Page {
            field,
            table: table_observations(conn, code, day, now)?,
        },
    })
}

fn event(
    conn: &mut PgConnection,
    me: &Me,
    action: AuditAction,
    id: ObservationId,
    day: NaiveDate,
    table: TableId,
    details: serde_json::Value,
) -> Result<(), Stop> {
    let target = format!("observation:{id}");
    Ok(event_on(
        conn,
        me,
        action,
        target,
        day,
        Some(table),
        details,
    )?)
}

fn pit_manager(me: &Me, what: &str) -> Result<(), Stop> {
    if observes(me.role) {
        Ok(())
    } else {
        Err(Stop::Refused(format!(
            "A pit manager {what} an unrated observation, not the {} role.",
            me.role.as_str()
        )))
    }
}

/// The description as typed: said, and short.
fn description_of(typed: &str) -> Result<String, Stop> {
    let description = typed.split_whitespace().collect::<Vec<_>>().join(" ");
    if description.is_empty() {
        return Err(Stop::Field(
            "description",
            "Describe the player, such as \"man, 50s, red shirt\".".to_owned(),
        ));
    }
    let length = description.chars().count();
    if length > DESCRIPTION_MOST {
        return Err(Stop::Field(
            "description",
            format!("The description has {length} characters: {DESCRIPTION_MOST} at most."),
        ));
    }
    Ok(description)
}

/// Records an observation at table `code` on gaming day `day` (the current one): a pit
/// manager, a dealer on shift there, an open day; a seat of the table's game with no rated
/// player and no other observation running; a description; an estimated average bet within
/// the table's limits; a start (now, unless typed) in the current gaming day.
/// `observation.recorded` on the `players` chain.
pub async fn record(
    db: &Db,
    code: String,
    day: NaiveDate,
    form: ObservationForm,
    clock: Clock,
    me: Me,
) -> Result<Saved<String, Page>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            pit_manager(&me, "records")?;
            let table = locked_table(conn, &code)?;
            day_open(conn, day)?;
            if shifts::current_shift(conn, table.id)?.is_none() {
                return Err(Stop::Refused(format!(
                    "No dealer is on shift at {}: an observation is of play being dealt.",
                    table.code
                )));
            }
            let seat = arithmetic::seat(table.game, &form.seat)
                .map_err(|err| Stop::Field("seat", err.to_string()))?;
            let description = description_of(&form.description)?;
            let bet = arithmetic::amount(&form.average_bet)
                .map_err(|err| Stop::Field("average_bet", err.to_string()))?;
            let limits = tables::playing_by_id(conn, table.id)
                .map_err(|err| {
                    Stop::Failed(AccountingError::BadStored(format!(
                        "the rules of table {}: {err}",
                        table.code
                    )))
                })?
                .ok_or(AccountingError::NotFound("table"))?
                .table;
            if bet < limits.min_bet || bet > limits.max_bet {
                return Err(Stop::Field(
                    "average_bet",
                    format!(
                        "An average bet of {cur} {} is outside the table's limits, {cur} {} to \
                         {cur} {}.",
                        bet.major_text(),
                        limits.min_bet.major_text(),
                        limits.max_bet.major_text(),
                        cur = table.currency,
                    ),
                ));
            }
            let started = started_at(&form.started, clock.now, clock.offset, clock.day_began)
                .map_err(|err| Stop::Field("started", err.to_string()))?;
            if let Some(rated) = crate::db::players::open_at(conn, table.id, i16::from(seat))? {
                return Err(Stop::Field(
                    "seat",
                    format!(
                        "Seat {seat} has a rated player (rating {}): their play is rated, not \
                         observed.",
                        rated.id
                    ),
                ));
            }
            if let Some(running) = rows::open_at_table(conn, table.id)?
                .into_iter()
                .find(|o| o.seat == i16::from(seat))
            {
                return Err(Stop::Field(
                    "seat",
                    format!(
                        "Seat {seat} has an observation running ({}): end it first.",
                        running.description
                    ),
                ));
            }
            let row = rows::insert(
                conn,
                &NewObservation {
                    table_id: table.id,
                    seat: i16::from(seat),
                    gaming_day: day,
                    description: &description,
                    currency: &table.currency,
                    average_bet: bet.minor_units(),
                    started_at: started,
                    recorded_by: me.id,
                },
            )?;
            event(
                conn,
                &me,
                AuditAction::ObservationRecorded,
                row.id,
                day,
                table.id,
                json!({
                    "observation": row.id,
                    "table": table.code,
                    "seat": seat,
                    "description": description,
                    "currency": table.currency,
                    "average_bet": bet,
                    "started_at": started,
                }),
            )?;
            Ok(format!(
                "Unrated player observed at seat {seat}: {description}, about {} {} a hand.",
                table.currency,
                bet.major_text()
            ))
        };
        answer(conn, &code, day, clock.now, change)
    })
    .await
}

/// The observation `id` at table `code`, for a change to it: locked table, open day.
fn observed_here(
    conn: &mut PgConnection,
    code: &str,
    id: ObservationId,
) -> Result<(DropTable, Observed), Stop> {
    let table = locked_table(conn, code)?;
    let observed = rows::observation(conn, id)?
        .filter(|(o, _, _)| o.table_id == table.id)
        .ok_or(AccountingError::NotFound("observation"))?;
    day_open(conn, observed.0.gaming_day)?;
    Ok((table, observed))
}

/// The gaming day of observation `id` at table `code` (the page a refusal shows).
fn day_of(
    conn: &mut PgConnection,
    code: &str,
    id: ObservationId,
) -> Result<NaiveDate, AccountingError> {
    let table = table_of(conn, code)?;
    rows::observation(conn, id)?
        .filter(|(o, _, _)| o.table_id == table.id)
        .map(|(o, _, _)| o.gaming_day)
        .ok_or(AccountingError::NotFound("observation"))
}

/// A change to observation `id` at table `code` by a pit manager (`what` they do to it, in
/// words): `step` with the table, locked, and the observation, on its open gaming day, in one
/// transaction; refused, the table's page of that day.
async fn change_observed(
    db: &Db,
    code: String,
    id: ObservationId,
    now: DateTime<Utc>,
    me: Me,
    what: &'static str,
    step: impl FnOnce(&mut PgConnection, &Me, DropTable, Observed) -> Result<String, Stop>
        + Send
        + 'static,
) -> Result<Saved<String, Page>, AccountingError> {
    db.run(move |conn| {
        let day = day_of(conn, &code, id)?;
        let change = |conn: &mut PgConnection| {
            pit_manager(&me, what)?;
            let (table, observed) = observed_here(conn, &code, id)?;
            step(conn, &me, table, observed)
        };
        answer(conn, &code, day, now, change)
    })
    .await
}

/// Adds an observation ended at `at` to an event's details: its time and hands, and its
/// estimated total bet and theoretical win.
fn with_estimates(
    conn: &mut PgConnection,
    row: ObservationRow,
    at: DateTime<Utc>,
    details: &mut serde_json::Value,
) -> Result<(), AccountingError> {
    // Its end as written (or to be written) at `at`: the rounds after it are not its own.
    let end = EndRow {
        observation_id: row.id,
        ended_at: at,
        walked_with: None,
        ended_by: row.recorded_by,
    };
    let ended = observations_of(conn, vec![(row, Some(end), None)], at)?;
    let f = ended.first().map(|o| o.estimate).unwrap_or_default();
    details["seconds_played"] = json!(f.seconds_played);
    details["hands"] = json!(f.hands);
    details["estimated_total_bet"] = json!(f.total_bet.0 as i64);
    details["estimated_theoretical_win"] = json!(f.theoretical_win.0 as i64);
    Ok(())
}

/// Ends observation `id` at table `code` now, with the chips walked with if typed (empty:
/// not seen). By a pit manager; not a void one, not twice. `observation.ended` on the
/// `players` chain, with its estimates.
pub async fn end(
    db: &Db,
    code: String,
    id: ObservationId,
    typed_walked_with: String,
    now: DateTime<Utc>,
    me: Me,
) -> Result<Saved<String, Page>, AccountingError> {
    change_observed(
        db,
        code,
        id,
        now,
        me,
        "ends",
        move |conn, me, table, observed| {
            let (row, ended, void) = observed;
            if void.is_some() {
                return Err(Stop::Refused(format!("Observation {id} is void.")));
            }
            if ended.is_some() {
                return Err(Stop::Refused(format!(
                    "Observation {id} has ended already."
                )));
            }
            let walked = match typed_walked_with.trim() {
                "" => None,
                typed => Some(
                    walked_with(typed)
                        .map_err(|err| Stop::Field("walked_with", err.to_string()))?,
                ),
            };
            let at = now.max(row.started_at);
            rows::insert_end(conn, id, at, walked.map(Money::minor_units), me.id)?
                .ok_or_else(|| Stop::Refused(format!("Observation {id} has ended already.")))?;
            let (seat, day) = (row.seat, row.gaming_day);
            let description = row.description.clone();
            let mut details = json!({
                "observation": id,
                "table": table.code,
                "seat": seat,
                "ended_at": at,
                "walked_with": walked,
            });
            with_estimates(conn, row, at, &mut details)?;
            event(
                conn,
                me,
                AuditAction::ObservationEnded,
                id,
                day,
                table.id,
                details,
            )?;
            Ok(format!(
                "Observation ended at seat {seat}: {description}{}.",
                walked.map_or(String::new(), |chips| format!(
                    ", walked with {} {}",
                    table.currency,
                    chips.major_text()
                ))
            ))
        },
    )
    .await
}

/// Cards the player of observation `id` at table `code` (card `typed_card`, a player on
/// record), on gaming day `day` (the current one); the link is kept (`observation_cardings`,
/// with its kind) and audited (`observation.carded` on the `players` chain). A running
/// observation ends now, its estimates kept, and a rating of the player starts at its seat at
/// that same moment (`rating.started`). An ended one, of the current gaming day, is carded
/// after the fact ([`card_ended`]). By a pit manager, of an observation not void and not
/// carded, on open gaming days. A self-excluded or barred player is refused as a seating is
/// (the refusal recorded for the pit board and audited, the observation left as it was).
pub async fn card(
    db: &Db,
    code: String,
    id: ObservationId,
    typed_card: String,
    day: NaiveDate,
    now: DateTime<Utc>,
    me: Me,
) -> Result<Saved<String, Page>, AccountingError> {
    db.run(move |conn| {
        let shown = day_of(conn, &code, id)?;
        // Done, or an excluded player's refusal, which is written and kept.
        let change = |conn: &mut PgConnection| -> Result<Result<String, String>, Stop> {
            pit_manager(&me, "cards the player of")?;
            let (table, (row, ended, void)) = observed_here(conn, &code, id)?;
            day_open(conn, day)?;
            if void.is_some() {
                return Err(Stop::Refused(format!(
                    "Observation {id} is void: seat the player at the table screen."
                )));
            }
            if let Some(carded) = rows::cardings(conn, &[id])?.first() {
                return Err(Stop::Refused(format!(
                    "Observation {id} is carded already (rating {}).",
                    carded.0.rating_id
                )));
            }
            let card = card_number(&typed_card);
            if card.is_empty() {
                return Err(Stop::Field(
                    "card",
                    "Type or scan the player's card number.".to_owned(),
                ));
            }
            let player = player_of_card(conn, &card)?.ok_or_else(|| {
                Stop::Field(
                    "card",
                    format!(
                        "No player has card {card}: check the number (a host registers a new \
                         player first)."
                    ),
                )
            })?;
            let seat = u8::try_from(row.seat)
                .map_err(|_| AccountingError::BadStored(format!("observation {id}")))?;
            if let Some(refused) = refuse_excluded(conn, &me, &player, &table, seat, day)? {
                let after = if ended.is_some() {
                    format!("Observation {id} stays unrated.")
                } else {
                    format!("Observation {id} keeps running: end it when they leave.")
                };
                return Ok(Err(format!("{refused} {after}")));
            }
            let carding = Carding {
                me: &me,
                table: &table,
                seat,
                player: &player,
                day,
                now,
            };
            match ended {
                Some(end) => card_ended(conn, &carding, row, &end).map(Ok),
                None => card_running(conn, &carding, row).map(Ok),
            }
        };
        match attempt(conn, change)? {
            Ok(Ok(done)) => Ok(Saved::Done(done)),
            Ok(Err(excluded)) => refused(conn, &code, shown, now, (Some("card"), excluded)),
            Err(refusal) => refused(conn, &code, shown, now, refusal),
        }
    })
    .await
}

/// A carding's who, where, whom and when.
struct Carding<'a> {
    me: &'a Me,
    table: &'a DropTable,
    seat: u8,
    player: &'a PlayerRow,
    day: NaiveDate,
    now: DateTime<Utc>,
}

/// Links observation `row` to its player's `rating` (`kind`) and writes `observation.carded`
/// with the observation's estimates up to `ended` and `more` details.
fn link(
    conn: &mut PgConnection,
    c: &Carding<'_>,
    row: ObservationRow,
    rating: RatingId,
    kind: &str,
    ended: DateTime<Utc>,
    more: serde_json::Value,
) -> Result<(), Stop> {
    let id = row.id;
    rows::insert_carding(
        conn,
        &CardingRow {
            observation_id: id,
            rating_id: rating,
            player_id: c.player.id,
            gaming_day: c.day,
            carded_by: c.me.id,
            carded_at: if kind == ENDED { c.now } else { ended },
            kind: kind.to_owned(),
        },
    )?
    .ok_or_else(|| Stop::Refused(format!("Observation {id} is carded already.")))?;
    let mut details = json!({
        "observation": id,
        "kind": kind,
        "table": c.table.code,
        "seat": c.seat,
        "player": c.player.id,
        "card_number": c.player.card_number,
        "rating": rating,
        "carded_at": if kind == ENDED { c.now } else { ended },
    });
    if let (Some(details), serde_json::Value::Object(more)) = (details.as_object_mut(), more) {
        details.extend(more);
    }
    with_estimates(conn, row, ended, &mut details)?;
    event(
        conn,
        c.me,
        AuditAction::ObservationCarded,
        id,
        c.day,
        c.table.id,
        details,
    )
}

/// Buy-in `buy_in` at `table`, in cash, as `player`'s cash in for the check.
fn cash_in<'a>(buy_in: &'a BuyInRow, player: PlayerId, table: &'a DropTable) -> CashTx<'a> {
    CashTx {
        source: "buy_in",
        id: buy_in.id.0,
        at: buy_in.created_at,
        target: format!("buy_in:{}", buy_in.id),
        day: buy_in.gaming_day,
        direction: Direction::In,
        currency: &buy_in.currency,
        amount: buy_in.amount,
        player: Some(player),
        table: Some(table.id),
        table_code: Some(&table.code),
        seat: Some(buy_in.seat),
    }
}

/// Attributes to the carded player the buy-ins recorded with no player at observation `row`'s
/// seat from its start to `ended` (they were recorded before the player was known): each by a
/// record of its own (`buy_in_attributions`; the buy-in is never edited), `buy_in.attributed`
/// on the `players` chain, and, in cash, checked as the player's cash of its gaming day as it
/// would have been at its recording ([`cash::check`]: `cash.recorded` and any case on the
/// `compliance` chain). Answers the words for the pit: how many, how much, and the player's
/// cash in today against the reporting threshold (never a structuring candidate).
fn attribute_buy_ins(
    conn: &mut PgConnection,
    c: &Carding<'_>,
    row: &ObservationRow,
    rating: RatingId,
    ended: DateTime<Utc>,
) -> Result<String, Stop> {
    let observed = rows::buy_ins_observed(conn, row, ended)?;
    if observed.is_empty() {
        return Ok(String::new());
    }
    let (mut total, mut covered, mut warned) = (Money::ZERO, false, None);
    for buy_in in &observed {
        rows::insert_attribution(
            conn,
            &AttributionRow {
                buy_in_id: buy_in.id,
                player_id: c.player.id,
                rating_id: rating,
                observation_id: row.id,
                gaming_day: buy_in.gaming_day,
                attributed_by: c.me.id,
                attributed_at: c.now,
            },
        )?;
        event_on(
            conn,
            c.me,
            AuditAction::BuyinAttributed,
            format!("buy_in:{}", buy_in.id),
            buy_in.gaming_day,
            Some(c.table.id),
            json!({
                "buy_in": buy_in.id,
                "player": c.player.id,
                "card_number": c.player.card_number,
                "rating": rating,
                "observation": row.id,
                "table": c.table.code,
                "seat": buy_in.seat,
                "kind": buy_in.kind.as_str(),
                "currency": buy_in.currency,
                "amount": buy_in.amount,
                "recorded_at": buy_in.created_at,
            }),
        )?;
        total = Money::from_minor_units(
            total
                .minor_units()
                .saturating_add(buy_in.amount.minor_units()),
        );
        if buy_in.kind == BuyInKind::Cash {
            let checked = cash::check(conn, &c.me.actor, &cash_in(buy_in, c.player.id, c.table))?;
            covered |= checked.cases.iter().any(|(_, k)| *k == CaseKind::Covered);
            warned = checked.warned.or(warned);
        }
    }
    let mut words = format!(
        " {} buy-in(s) at the seat while observed, {} {}, are theirs now.",
        observed.len(),
        c.table.currency,
        total.major_text()
    );
    if covered {
        words.push_str(
            " The player's cash in today is above the reporting threshold: the pit manager \
             checks their identification.",
        );
    } else if let Some((day_total, percent)) = warned {
        words.push_str(&format!(
            " The player's cash in today is {} {} ({percent} % of the reporting threshold): the \
             pit is warned.",
            c.table.currency,
            day_total.major_text()
        ));
    }
    Ok(words)
}

/// A running observation carded: it ends now, and the player's rating starts at its seat then.
fn card_running(
    conn: &mut PgConnection,
    c: &Carding<'_>,
    row: ObservationRow,
) -> Result<String, Stop> {
    let (id, seat, player) = (row.id, c.seat, c.player);
    seat_free(conn, player, c.table, seat)?;
    let at = c.now.max(row.started_at);
    rows::insert_end(conn, id, at, None, c.me.id)?
        .ok_or_else(|| Stop::Refused(format!("Observation {id} has ended already.")))?;
    let rating = start(conn, c.me, player, c.table, seat, c.day, Some(at), Some(id))?;
    let description = row.description.clone();
    let observed = row.clone();
    link(conn, c, row, rating.id, RUNNING, at, json!({}))?;
    let bought = attribute_buy_ins(conn, c, &observed, rating.id, at)?;
    Ok(format!(
        "Observation {id} at seat {seat} ({description}) carded: card {} ({} {}) rated at seat \
         {seat} from now on; the observation's estimates are kept up to now.{bought}",
        player.card_number, player.first_name, player.last_name
    ))
}

/// An ended observation carded after the fact (the player showed the card when leaving): of the
/// current gaming day, its seat rated by nobody else and its player rated nowhere at any moment
/// of its time. The player's rating is made for the observation's own time at its table and
/// seat, with no pause, ended when it ended with the chips it saw walked with, and rated from
/// the rounds as any rating (`rating.started`, `rating.ended` with the figures).
fn card_ended(
    conn: &mut PgConnection,
    c: &Carding<'_>,
    row: ObservationRow,
    end: &EndRow,
) -> Result<String, Stop> {
    let (id, seat, player) = (row.id, c.seat, c.player);
    if row.gaming_day != c.day {
        return Err(Stop::Refused(format!(
            "Observation {id} is of gaming day {}: only an observation of the current gaming \
             day, {}, is carded after it ended.",
            row.gaming_day, c.day
        )));
    }
    let (from, to) = (row.started_at, end.ended_at);
    let met = crate::db::players::ratings_meeting(conn, c.table.id, row.seat, player.id, from, to)?;
    if let Some(other) = met.first() {
        return Err(Stop::Refused(
            if other.table_id == c.table.id && other.seat == row.seat {
                format!(
                    "Seat {seat} was rated while observation {id} ran (rating {}): its rounds of \
                     that time are that rating's.",
                    other.id
                )
            } else {
                format!(
                    "{} was rated at another seat while observation {id} ran (rating {}): a \
                     player is rated at one seat at a time.",
                    player.first_name, other.id
                )
            },
        ));
    }
    let rating = crate::db::players::insert_ended_rating(
        conn,
        &NewRating {
            player_id: player.id,
            table_id: c.table.id,
            seat: row.seat,
            gaming_day: c.day,
            started_by: c.me.id,
            started_at: Some(from),
        },
        to,
        end.walked_with,
    )?;
    let f = rated(conn, vec![rating.clone()], c.now)?
        .first()
        .map(|r| r.figures)
        .unwrap_or_default();
    let mut details = json!({
        "player": player.id,
        "rating": rating.id,
        "table": c.table.code,
        "seat": seat,
        "observation": id,
        "started_at": from,
    });
    crate::players::event(
        conn,
        c.me,
        AuditAction::RatingStarted,
        player.id,
        c.day,
        Some(c.table.id),
        details.clone(),
    )?;
    details["ended_at"] = json!(to);
    details["walked_with"] = json!(end.walked_with.map(Money::from_minor_units));
    details["hands"] = json!(f.hands);
    details["total_bet"] = json!(f.total_bet.0 as i64);
    details["player_result"] = json!(f.player_result.0 as i64);
    details["theoretical_win"] = json!(f.theoretical_win.0 as i64);
    details["seconds_played"] = json!(f.seconds_played);
    crate::players::event(
        conn,
        c.me,
        AuditAction::RatingEnded,
        player.id,
        c.day,
        Some(c.table.id),
        details,
    )?;
    let description = row.description.clone();
    let observed = row.clone();
    link(
        conn,
        c,
        row,
        rating.id,
        ENDED,
        to,
        json!({ "started_at": from, "ended_at": to }),
    )?;
    let bought = attribute_buy_ins(conn, c, &observed, rating.id, to)?;
    Ok(format!(
        "Observation {id} at seat {seat} ({description}) carded after it ended: card {} ({} {}) \
         rated at seat {seat} for the observation's time, {} hand(s).{bought}",
        player.card_number, player.first_name, player.last_name, f.hands
    ))
}

/// Voids observation `id` at table `code` with a reason: by a pit manager who did not record
/// it ([`may_void`]), on an open day, not twice. It stays, shown struck, out of the day's
/// figures. `observation.void` on the `players` chain.
pub async fn void(
    db: &Db,
    code: String,
    id: ObservationId,
    reason: String,
    now: DateTime<Utc>,
    me: Me,
) -> Result<Saved<String, Page>, AccountingError> {
    change_observed(
        db,
        code,
        id,
        now,
        me,
        "voids",
        move |conn, me, table, observed| {
            let (row, _, void) = observed;
            may_void(me.id, me.role, row.recorded_by, "observation").map_err(Stop::Refused)?;
            if void.is_some() {
                return Err(Stop::Refused(format!("Observation {id} is void already.")));
            }
            let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
            if reason.is_empty() {
                return Err(Stop::Field(
                    "reason",
                    "Say why the observation is void.".to_owned(),
                ));
            }
            if reason.chars().count() > REASON_MOST {
                return Err(Stop::Field(
                    "reason",
                    format!("A reason has {REASON_MOST} characters at most."),
                ));
            }
            rows::insert_void(conn, id, &reason, me.id)?
                .ok_or_else(|| Stop::Refused(format!("Observation {id} is void already.")))?;
            event(
                conn,
                me,
                AuditAction::ObservationVoid,
                id,
                row.gaming_day,
                table.id,
                json!({
                    "observation": id,
                    "table": table.code,
                    "seat": row.seat,
                    "recorded_by": row.recorded_by,
                    "reason": reason,
                }),
            )?;
            let withdrawn = withdraw_buy_ins(conn, me, &table, &row, &reason)?;
            Ok(format!(
                "Observation {id} at seat {} ({}) is void.{withdrawn}",
                row.seat, row.description
            ))
        },
    )
    .await
}

/// Observation `row`, carded, voided with `reason`: the buy-ins attributed to its player when
/// carded stood on it (a player seen at its seat in its time), and count for that player no
/// more. Nothing is changed: every read of attributions leaves out those whose observation has
/// a void. Each is withdrawn on the `players` chain (`buyin.attribution_withdrawn`), each in
/// cash on the `compliance` chain too, where a case already raised with them stays for the
/// compliance officer to decide, its basis changed ([`cash::withdrawn`]). The rating made from
/// the carding is the player's play from the rounds and stays, as the void leaves it. Answers
/// the pit's words: how many and how much (never a case: no tipping off).
fn withdraw_buy_ins(
    conn: &mut PgConnection,
    me: &Me,
    table: &DropTable,
    row: &ObservationRow,
    reason: &str,
) -> Result<String, Stop> {
    let attributed = rows::attributions_of(conn, row.id)?;
    let Some((first, _)) = attributed.first() else {
        return Ok(String::new());
    };
    let (player, rating) = (first.player_id, first.rating_id);
    let why = json!({
        "observation": row.id,
        "rating": rating,
        "reason": reason,
        "voided_by": me.id,
    });
    let mut in_cash = Vec::new();
    for (attribution, buy_in) in &attributed {
        event_on(
            conn,
            me,
            AuditAction::BuyinAttributionWithdrawn,
            format!("buy_in:{}", buy_in.id),
            buy_in.gaming_day,
            Some(table.id),
            json!({
                "buy_in": buy_in.id,
                "player": attribution.player_id,
                "rating": attribution.rating_id,
                "observation": row.id,
                "table": table.code,
                "seat": buy_in.seat,
                "kind": buy_in.kind.as_str(),
                "currency": buy_in.currency,
                "amount": buy_in.amount,
                "reason": reason,
            }),
        )?;
        if buy_in.kind == BuyInKind::Cash {
            in_cash.push(cash_in(buy_in, player, table));
        }
    }
    let total = attributed
        .iter()
        .map(|(_, b)| b.amount.minor_units())
        .fold(0, i64::saturating_add);
    let all: Vec<_> = attributed.iter().map(|(_, b)| b.id).collect();
    cash::withdrawn(conn, &me.actor, player, &in_cash, &all, &why)?;
    Ok(format!(
        " The {} buy-in(s) at the seat while it was observed, {} {}, attributed to the player \
         carded from it, are not that player's any more; rating {rating} stays.",
        attributed.len(),
        table.currency,
        Money::from_minor_units(total).major_text()
    ))
}
