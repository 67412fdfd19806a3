//! What confirming any round shares, a draft's or a whole one: the round validated and
//! settled under its table's rules; its row, places and sealed `round.settled` event; and the
//! loop that reads the table and writes until the table has not moved in between (see
//! [`crate::db::rounds::sql`]).

use chrono::NaiveDate;
use diesel::{Connection, PgConnection};
use serde_json::Value;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, ChainHead, NewAuditEvent, SealedEvent};
use crate::db::ids::{DraftKey, RoundId, SlipId, UserId};
use crate::db::rounds::confirm::{self, EntryRow, RoundWrite, TokenToCheck};
use crate::db::rounds::payload::{
    self, PointsRoundRecord, PointsRoundSettled, PointsSettlementRecord, RoundRecord, RoundSettled,
    SettlementRecord,
};
use crate::db::rounds::rows::{place_rows, points_place_rows, PlaceRow, RoundRow};
use crate::db::shifts::Shift;
use crate::db::tables::PlayingTable;
use crate::recording::entry::{self, FieldErrors, Limits, RoundBody};
use crate::recording::points::{self, PointsBody, PointsTable};
use crate::recording::problems::card_problems;
use crate::recording::{RoundsError, Writer};
use crate::rules::accounting::opener_holds;
use crate::rules::game::{Game, GameRules};
use crate::rules::houseway;
use crate::rules::money::Money;
use crate::rules::points::round::PointsRound;
use crate::rules::points::settle::settle_points;
use crate::rules::points::wire::{PointsRoundIn, PointsSettlementOut};
use crate::rules::profile::RuleProfile;
use crate::rules::round::Round;
use crate::rules::settle::settle;
use crate::rules::wire::{RoundIn, SettlementOut};

/// A round as entered, read for the game of its table: a banking round (a dealer and bets) or
/// a points round (players only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entered {
    Banking(RoundBody),
    Points(PointsBody),
}

impl Entered {
    /// The round in `json`, read as a round of `game`; an unreadable one is refused as the
    /// round's error, naming what could not be read.
    pub fn read(json: &[u8], game: Game) -> Result<Entered, RoundsError> {
        let read = match game {
            Game::Banking => serde_json::from_slice(json).map(Entered::Banking),
            Game::Points => serde_json::from_slice(json).map(Entered::Points),
        };
        read.map_err(|err| unreadable(&err, game))
    }

    /// [`Entered::read`] from a JSON value (a draft's saved round).
    pub fn from_value(value: Value, game: Game) -> Result<Entered, RoundsError> {
        let read = match game {
            Game::Banking => serde_json::from_value(value).map(Entered::Banking),
            Game::Points => serde_json::from_value(value).map(Entered::Points),
        };
        read.map_err(|err| unreadable(&err, game))
    }

    /// The round as the JSON it was read from.
    pub fn to_value(&self) -> Result<Value, RoundsError> {
        match self {
            Entered::Banking(body) => serde_json::to_value(body),
            Entered::Points(body) => serde_json::to_value(body),
        }
        .map_err(|err| RoundsError::round(format!("the round could not be read: {err}")))
    }
}

fn unreadable(err: &serde_json::Error, game: Game) -> RoundsError {
    RoundsError::round(match game {
        Game::Banking => format!("the round could not be read: {err}"),
        Game::Points => format!(
            "the round could not be read as a points-game round (players in seats 1-4, no \
             dealer, no bets): {err}"
        ),
    })
}

/// A round validated and settled under its table's rules, with its settlement as the API
/// shows it.
#[derive(Debug, Clone)]
pub enum Settled {
    Banking {
        round: Round,
        out: SettlementOut,
    },
    Points {
        round: PointsRound,
        out: PointsSettlementOut,
    },
}

impl Settled {
    /// The settlement as the API shows it.
    pub fn settlement_json(&self) -> Result<Value, RoundsError> {
        match self {
            Settled::Banking { out, .. } => serde_json::to_value(out),
            Settled::Points { out, .. } => serde_json::to_value(out),
        }
        .map_err(|err| RoundsError::round(err.to_string()))
    }

    /// The rows of every place, as entered and settled (what a replay is compared with).
    pub fn place_rows(&self) -> Vec<PlaceRow> {
        match self {
            Settled::Banking { round, out } => place_rows(&RoundIn::from_round(round), out, None),
            Settled::Points { round, out } => {
                points_place_rows(&PointsRoundIn::from_round(round), out)
            }
        }
    }

    /// The rows of every place, as stored: at a banking table whose profile requires the house
    /// way, a dealer's set that differs is kept with the round for the supervisor (the house
    /// way costs some 30 µs, spent only there). The points game has no dealer and no house way.
    fn stored_place_rows(&self) -> Vec<PlaceRow> {
        match self {
            Settled::Banking { round, out } => {
                let departure = houseway::dealer_departure(round);
                place_rows(&RoundIn::from_round(round), out, departure.as_ref())
            }
            Settled::Points { .. } => self.place_rows(),
        }
    }

    /// The banking settlement, if this is a banking round.
    pub fn banking(&self) -> Option<&SettlementOut> {
        match self {
            Settled::Banking { out, .. } => Some(out),
            Settled::Points { .. } => None,
        }
    }

    /// The house's result: the dealer's at a banking table; 0 at a points table, where the
    /// players' points pass between them (the house's income there is its fee).
    pub fn house_result(&self) -> Money {
        match self {
            Settled::Banking { out, .. } => out.dealer.result,
            Settled::Points { .. } => Money::from_minor_units(0),
        }
    }

    /// Each player's (seat's) result.
    fn player_results(&self) -> Vec<Money> {
        match self {
            Settled::Banking { out, .. } => out.seats.iter().map(|s| s.result).collect(),
            Settled::Points { out, .. } => out.seats.iter().map(|s| s.result).collect(),
        }
    }
}

/// The rules of `table` if it plays the banking game; else a refusal naming its game.
fn banking_rules(table: &PlayingTable) -> Result<&RuleProfile, RoundsError> {
    match &table.rules {
        GameRules::Banking(profile) => Ok(profile),
        GameRules::Points(_) => Err(RoundsError::round(format!(
            "table {} plays the points game: send its players (seats 1-4) without a dealer or bets",
            table.table.code
        ))),
    }
}

/// The entered banking round checked against `table`'s limits and rules.
pub fn validate(body: &RoundBody, table: &PlayingTable) -> Result<Round, RoundsError> {
    let t = &table.table;
    let limits = Limits {
        currency: &t.currency,
        min_bet: t.min_bet.minor_units(),
        max_bet: t.max_bet.minor_units(),
    };
    entry::validate(body, banking_rules(table)?, limits).map_err(|found| {
        // Every card problem at once, then what the bets' check and the engine found.
        let mut errors = FieldErrors::default();
        card_problems(body, &mut errors);
        for (field, message) in found.0 {
            errors.add(field, message);
        }
        RoundsError::Invalid(errors)
    })
}

/// A banking round validated and settled under `table`'s limits and rules.
pub fn settle_banking(
    entered: &RoundBody,
    table: &PlayingTable,
) -> Result<(Round, SettlementOut), RoundsError> {
    let round = validate(entered, table)?;
    let settlement = settle(&round).map_err(|err| RoundsError::round(err.to_string()))?;
    let out = SettlementOut::new(&round, &settlement);
    Ok((round, out))
}

/// A points round validated and settled under `table`'s unit and rules.
pub fn settle_points_entered(
    entered: &PointsBody,
    table: &PlayingTable,
) -> Result<Settled, RoundsError> {
    let t = &table.table;
    let (GameRules::Points(profile), Some(unit)) = (&table.rules, t.unit()) else {
        return Err(RoundsError::round(format!(
            "table {} plays the banking game: send a dealer and each seat's bet",
            t.code
        )));
    };
    let points_table = PointsTable {
        currency: &t.currency,
        unit,
        profile,
    };
    let round = points::validate(entered, points_table).map_err(RoundsError::Invalid)?;
    let settlement = settle_points(&round).map_err(|err| RoundsError::round(err.to_string()))?;
    let out = PointsSettlementOut::new(&round, &settlement);
    Ok(Settled::Points { round, out })
}

/// A round validated and settled under `table`'s rules, whichever its game.
pub fn settle_entered(entered: &Entered, table: &PlayingTable) -> Result<Settled, RoundsError> {
    match entered {
        Entered::Banking(body) => {
            settle_banking(body, table).map(|(round, out)| Settled::Banking { round, out })
        }
        Entered::Points(body) => settle_points_entered(body, table),
    }
}

/// Whether a round settled as `settled` waits for a supervisor's approval at a table whose
/// approval threshold is `threshold`: its largest single player result, win or loss, is at or
/// above it (the dealer's result, the sum of the seats', does not count).
pub fn needs_approval(threshold: Option<Money>, settled: &Settled) -> bool {
    threshold.is_some_and(|threshold| {
        settled.player_results().iter().any(|result| {
            result.minor_units().unsigned_abs() >= threshold.minor_units().unsigned_abs()
        })
    })
}

/// A validated round to settle at `table` under the one-time `key` (a draft's key, or the
/// caller's for a round recorded whole); `settlement` is its settlement.
#[derive(Debug, Clone, Copy)]
pub struct RoundToSettle<'a> {
    pub key: &'a str,
    pub table: &'a PlayingTable,
    pub gaming_day: NaiveDate,
    pub writer: Writer,
    pub actor: &'a Actor,
    pub settled: &'a Settled,
    /// Every account that entered or changed the round before it is confirmed: a draft's
    /// editors, or the writer of a round sent whole. Recorded in `round.settled`; none of them
    /// decides on the round ([`crate::recording::review::may_decide`]).
    pub entered_by: &'a [UserId],
}

/// Where a round goes, as read (or remembered): its id and the day's last round number before
/// it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    pub round_id: RoundId,
    pub last_no: i32,
}

impl Slot {
    pub(crate) fn read(entry: &EntryRow) -> Slot {
        Slot {
            round_id: entry.next_round_id,
            last_no: entry.last_no,
        }
    }
}

/// How many times a confirmation reads and tries again when its table moved in between (a
/// sign-off, another round, another event on the table's chain) before giving up, and how many
/// of those tries are optimistic (the rest hold the table's shift throughout).
const ATTEMPTS: usize = 10;
const OPTIMISTIC_ATTEMPTS: usize = 3;

/// Why an attempt at a confirmation ended without a round.
pub(crate) enum Attempt<E> {
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
            other => Attempt::Failed(RoundsError::from(other).into()),
        }
    }
}

/// Runs `once` (read, then write) until the table has not moved in between. The first tries
/// are optimistic; the later ones hold the table's open shift from before the read until after
/// the write, so that many rounds sent at once to one table take turns instead of starving.
pub(crate) fn until_written<T, E: From<RoundsError>>(
    conn: &mut PgConnection,
    code: &str,
    mut once: impl FnMut(&mut PgConnection) -> Result<T, Attempt<E>>,
) -> Result<T, E> {
    for attempt in 0..ATTEMPTS {
        let outcome = if attempt < OPTIMISTIC_ATTEMPTS {
            once(conn)
        } else {
            conn.transaction(|conn| {
                confirm::lock_open_shift(conn, code)?;
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

/// Refuses a new round at the table read in `entry` while its opener holds it: a difference
/// from the previous closer above the limit, not yet explained (docs/accounting.md). Read
/// inside the write's attempt: an opener signed since moves the table's chain head, and the
/// attempt is read again.
pub(crate) fn not_held(entry: &EntryRow) -> Result<(), RoundsError> {
    match entry.standing_slip() {
        Some(slip) if opener_holds(&slip.kind, slip.held, slip.explained) => {
            Err(held_by(&entry.code, slip.id, slip.difference))
        }
        _ => Ok(()),
    }
}

fn held_by(code: &str, slip: SlipId, difference: Option<i64>) -> RoundsError {
    RoundsError::OpenerHeld {
        code: code.to_owned(),
        slip: slip.0,
        difference: Money::from_minor_units(difference.unwrap_or_default()).major_text(),
    }
}

/// Refuses a new draft at table `table` while its opener holds it ([`not_held`], read on its
/// own).
pub(crate) fn not_held_now(
    conn: &mut PgConnection,
    table: &PlayingTable,
) -> Result<(), RoundsError> {
    match crate::db::accounting::held_opener(conn, table.table.id)? {
        None => Ok(()),
        Some(slip) => Err(held_by(&table.table.code, slip.id, slip.difference)),
    }
}

/// The open shift of the table read in `entry`, if `writer` may enter rounds for it.
pub(crate) fn shift_of(entry: &EntryRow, writer: Writer) -> Result<Shift, RoundsError> {
    let shift = entry.shift();
    writer.may_enter(shift.as_ref(), &entry.code)?;
    shift.ok_or_else(|| RoundsError::NobodyOnShift {
        code: entry.code.clone(),
    })
}

/// The open shift of the table read in `entry` that `writer` may enter rounds for, and the head
/// of the table's audit chain (created, empty, if the chain has none yet: the write then finds
/// it, or finds that another event came first and the caller reads again).
pub(crate) fn shift_and_head(
    conn: &mut PgConnection,
    entry: &EntryRow,
    writer: Writer,
) -> Result<(Shift, ChainHead), RoundsError> {
    let shift = shift_of(entry, writer)?;
    let head = match entry.head() {
        Some(head) => head,
        None => {
            audit_log::create_head(conn, &audit_log::table_chain(entry.table_id))?;
            ChainHead::genesis()
        }
    };
    Ok((shift, head))
}

impl RoundToSettle<'_> {
    /// The round in `slot` for `shift` after chain head `head`, with its places and its sealed
    /// `round.settled` event, ready to write.
    pub(crate) fn prepare(
        &self,
        slot: Slot,
        shift: &Shift,
        head: ChainHead,
        token: Option<TokenToCheck>,
    ) -> Result<RoundWrite, RoundsError> {
        let table = &self.table.table;
        let places = self.settled.stored_place_rows();
        let places_json = serde_json::to_string(&places)
            .map_err(|err| diesel::result::Error::SerializationError(Box::new(err)))?;
        let round_no = slot.last_no + 1;
        let round_id = slot.round_id;
        // Carries the canonical round and its settlement, so that the round can be
        // recomputed and checked from the audit row alone.
        let event = NewAuditEvent {
            chain: &audit_log::table_chain(table.id),
            actor: self.actor,
            action: AuditAction::RoundSettled,
            target: format!("round:{round_id}"),
            details: self
                .details(round_no, shift)
                .map_err(|err| diesel::result::Error::SerializationError(Box::new(err)))?,
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
                draft_key: DraftKey(self.key.to_owned()),
                shift_id: shift.id,
                dealer_id: shift.dealer_id,
                rule_profile_version_id: self.table.profile_version_id,
                currency: table.currency.clone(),
                dealer_result: self.settled.house_result(),
                settled_at: event.at,
                needs_approval: needs_approval(table.approval_threshold(), self.settled),
            },
            places,
            places_json,
            event,
            min_bet: table.min_bet,
            max_bet: table.max_bet,
            rule_profile_id: table.rule_profile_id,
            approval_threshold: table.approval_threshold,
            token,
        })
    }

    /// The `round.settled` event's details: the canonical round and its settlement, so that the
    /// round can be recomputed and checked from the audit row alone.
    fn details(&self, round_no: i32, shift: &Shift) -> Result<Value, serde_json::Error> {
        let table = &self.table.table;
        match self.settled {
            Settled::Banking { round, out } => {
                let canonical = RoundIn::from_round(round);
                serde_json::to_value(RoundSettled {
                    format: payload::FORMAT,
                    table: &table.code,
                    round_no,
                    draft_key: self.key,
                    shift_id: shift.id,
                    dealer_id: shift.dealer_id,
                    entered_by: self.entered_by,
                    rule_profile_version_id: self.table.profile_version_id,
                    round: RoundRecord::of(&canonical),
                    settlement: SettlementRecord::of(out),
                })
            }
            Settled::Points { round, out } => {
                let canonical = PointsRoundIn::from_round(round);
                serde_json::to_value(PointsRoundSettled {
                    format: payload::FORMAT,
                    game: Game::Points,
                    table: &table.code,
                    round_no,
                    draft_key: self.key,
                    shift_id: shift.id,
                    dealer_id: shift.dealer_id,
                    entered_by: self.entered_by,
                    rule_profile_version_id: self.table.profile_version_id,
                    round: PointsRoundRecord::of(&canonical),
                    settlement: PointsSettlementRecord::of(out),
                })
            }
        }
    }
}
