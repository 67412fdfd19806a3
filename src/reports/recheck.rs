//! The recompute check: a settled round settled again from its stored cards with the engine,
//! under the rule-profile version it names, and compared with what was stored. A round whose
//! stored results differ from the engine's was changed behind the application's back (or
//! settled by a faulty build): the round's page shows it loudly, and `pusoy-pit review recheck
//! --day D` runs it over a whole gaming day.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::NaiveDate;
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use serde_json::{to_value, Value};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, AuditEvent, NewAuditEvent};
use crate::db::tables;

use crate::db::ids::{ProfileVersionId, RoundId};
use crate::db::profiles::{self, ProfileError};
use crate::db::review;
use crate::db::rounds::payload::{
    PointsRoundRecord, PointsSettlementRecord, RoundRecord, SettlementRecord,
};
use crate::db::rounds::rows::points_place_rows;
use crate::db::rounds::rows::{self, place_rows, PlaceName, PlaceOutcome, PlaceRow, SettledRound};
use crate::rules::game::{Game, GameRules};
use crate::rules::money::Money;
use crate::rules::points::profile::PointsProfile;
use crate::rules::points::settle::settle_points;
use crate::rules::points::wire::{PlayerIn, PointsRoundIn, PointsSettlementOut};
use crate::rules::profile::RuleProfile;
use crate::rules::settle::settle;
use crate::rules::wire::{PlaceIn, RoundIn, SeatIn, SettlementOut};

/// The engine's settlement of a stored round, and every way it differs from what was stored
/// (empty when they agree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recheck {
    /// `None` when the stored cards cannot be settled at all.
    pub settlement: Option<SettlementOut>,
    pub differences: Vec<String>,
}

impl Recheck {
    pub fn agrees(&self) -> bool {
        self.differences.is_empty()
    }
}

fn text(t: &Option<String>) -> Option<Cow<'_, str>> {
    t.as_deref().map(Cow::Borrowed)
}

fn place_in(row: &PlaceRow) -> Result<PlaceIn<'_>, String> {
    Ok(PlaceIn {
        action: row.action.banking().ok_or_else(|| {
            format!(
                "{}: {} is not an action of the banking game",
                row.place,
                row.action.key()
            )
        })?,
        royalty: row.royalty,
        back: text(&row.back),
        middle: text(&row.middle),
        front: text(&row.front),
        dealt: text(&row.dealt),
    })
}

/// The round as the engine takes it, from its stored places.
fn round_in<'a>(places: &'a [PlaceRow], profile: &RuleProfile) -> Result<RoundIn<'a>, String> {
    let (dealer, seats) = places
        .split_first()
        .filter(|(dealer, _)| dealer.place == PlaceName::Dealer)
        .ok_or("the stored places do not start with the dealer")?;
    let mut seats_in = Vec::with_capacity(seats.len());
    for row in seats {
        let number = row
            .place
            .banking_seat()
            .ok_or_else(|| format!("unknown place {:?}", row.place.key()))?;
        seats_in.push(SeatIn::new(
            number,
            row.bet.unwrap_or(Money::from_minor_units(0)),
            place_in(row)?,
        ));
    }
    Ok(RoundIn {
        rules: *profile,
        dealer: place_in(dealer)?,
        seats: seats_in,
    })
}

fn describe<T: std::fmt::Debug>(value: &Option<T>) -> String {
    match value {
        Some(v) => format!("{v:?}"),
        None => "none".to_owned(),
    }
}

/// A points round as the engine takes it, from its stored places; `unit` from the first
/// player's result and points (results are points × unit, so any player with points gives it;
/// a round where every player scored 0 settles the same under any unit).
fn points_round_in<'a>(
    places: &'a [PlaceRow],
    profile: &PointsProfile,
) -> Result<PointsRoundIn<'a>, String> {
    let mut seats = Vec::with_capacity(places.len());
    for row in places {
        let seat = row
            .place
            .points_seat()
            .ok_or_else(|| format!("unknown place {:?}", row.place.key()))?;
        seats.push(PlayerIn {
            seat,
            action: row.action.points().ok_or_else(|| {
                format!(
                    "{}: {} is not an action of the points game",
                    row.place,
                    row.action.key()
                )
            })?,
            natural: row.natural,
            back: text(&row.back),
            middle: text(&row.middle),
            front: text(&row.front),
            dealt: text(&row.dealt),
        });
    }
    let unit = places
        .iter()
        .find_map(|row| match row.points {
            Some(points) if points != 0 => {
                Some(Money::from_minor_units(row.result.minor_units() / points))
            }
            _ => None,
        })
        .unwrap_or(Money::from_minor_units(1));
    Ok(PointsRoundIn {
        game: Game::Points,
        unit,
        rules: *profile,
        seats,
    })
}

/// The engine's settlement of a stored round (under the rules it names) and its places as the
/// engine would store them.
enum Again {
    Banking(SettlementOut, Vec<PlaceRow>),
    Points(Vec<PlaceRow>),
}

fn settle_again(round: &SettledRound, rules: &GameRules) -> Result<Again, String> {
    match rules {
        GameRules::Banking(profile) => {
            let input = round_in(&round.places, profile)?;
            let valid = input.to_round().map_err(|err| err.to_string())?;
            let settlement = settle(&valid).map_err(|err| err.to_string())?;
            let out = SettlementOut::new(&valid, &settlement);
            let again = place_rows(&RoundIn::from_round(&valid), &out, None);
            Ok(Again::Banking(out, again))
        }
        GameRules::Points(profile) => {
            points_places_again(&round.places, profile).map(Again::Points)
        }
    }
}

/// The fields of a round's `round.settled` event that its row determines, as the writer
/// (`recording::write`) would have put them there for this row: the table, number, key,
/// shift, dealer and rule-profile version, and the canonical round and its settlement
/// recomputed from the stored places. (`entered_by` and the format are the event's alone.)
fn settled_details_of(
    round: &SettledRound,
    code: &str,
    rules: &GameRules,
) -> Result<Value, String> {
    let r = &round.round;
    let (game, record, settlement) = match rules {
        GameRules::Banking(profile) => {
            let input = round_in(&round.places, profile)?;
            let valid = input.to_round().map_err(|err| err.to_string())?;
            let settled = settle(&valid).map_err(|err| err.to_string())?;
            let out = SettlementOut::new(&valid, &settled);
            let canonical = RoundIn::from_round(&valid);
            (
                None,
                to_value(RoundRecord::of(&canonical)),
                to_value(SettlementRecord::of(&out)),
            )
        }
        GameRules::Points(profile) => {
            let input = points_round_in(&round.places, profile)?;
            let valid = input.to_round().map_err(|err| err.to_string())?;
            let settled = settle_points(&valid).map_err(|err| err.to_string())?;
            let out = PointsSettlementOut::new(&valid, &settled);
            let canonical = PointsRoundIn::from_round(&valid);
            (
                Some(Game::Points),
                to_value(PointsRoundRecord::of(&canonical)),
                to_value(PointsSettlementRecord::of(&out)),
            )
        }
    };
    let mut details = serde_json::json!({
        "table": code,
        "round_no": r.round_no,
        "draft_key": r.draft_key,
        "shift_id": r.shift_id,
        "dealer_id": r.dealer_id,
        "rule_profile_version_id": r.rule_profile_version_id,
        "round": record.map_err(|err| err.to_string())?,
        "settlement": settlement.map_err(|err| err.to_string())?,
    });
    if let Some(game) = game {
        details["game"] = to_value(game).map_err(|err| err.to_string())?;
    }
    Ok(details)
}

/// The most differences named per record: one is enough to raise the alarm, a few say where.
const DIFFERENCES_NAMED: usize = 6;

/// Every place (as a path such as `round.seats[0].bet`) where `event` and `row` differ.
fn json_differences(path: &str, event: Option<&Value>, row: Option<&Value>, out: &mut Vec<String>) {
    if out.len() >= DIFFERENCES_NAMED || event == row {
        return;
    }
    match (event, row) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                json_differences(&format!("{path}.{key}"), a.get(key), b.get(key), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (n, (x, y)) in a.iter().zip(b).enumerate() {
                json_differences(&format!("{path}[{n}]"), Some(x), Some(y), out);
            }
        }
        _ => {
            let show = |v: Option<&Value>| v.map_or_else(|| "nothing".to_owned(), Value::to_string);
            let path = path.trim_start_matches('.');
            out.push(format!(
                "{path}: the event says {}, the stored round {}",
                show(event),
                show(row)
            ));
        }
    }
}

/// Every way `round` (as stored) differs from `settled`, the `round.settled` event that recorded
/// it (empty when they agree): its fields, places, bets and results against what the event
/// holds, and the event's own gaming day and table. A round rewritten into another
/// self-consistent round passes [`recheck`] but not this.
pub fn against_event(
    round: &SettledRound,
    code: &str,
    rules: &GameRules,
    settled: &AuditEvent,
) -> Vec<String> {
    let mut differences = Vec::new();
    if settled.gaming_day != Some(round.round.gaming_day) {
        differences.push(format!(
            "gaming day: the event says {}, the stored round {}",
            describe(&settled.gaming_day),
            round.round.gaming_day
        ));
    }
    if settled.table_id != Some(round.round.table_id) {
        differences.push(format!(
            "table: the event says {}, the stored round {}",
            describe(&settled.table_id),
            round.round.table_id
        ));
    }
    let expected = match settled_details_of(round, code, rules) {
        Ok(expected) => expected,
        Err(err) => {
            differences.push(format!("the stored cards cannot be settled: {err}"));
            return differences;
        }
    };
    let Value::Object(fields) = &expected else {
        return differences;
    };
    for (key, row) in fields {
        json_differences(key, settled.details.get(key), Some(row), &mut differences);
    }
    differences
}

/// The places of a points round as the engine would store them, settled again under `profile`
/// from `places` (its players as stored, or as exported).
pub fn points_places_again(
    places: &[PlaceRow],
    profile: &PointsProfile,
) -> Result<Vec<PlaceRow>, String> {
    let input = points_round_in(places, profile)?;
    let valid = input.to_round().map_err(|err| err.to_string())?;
    let settlement = settle_points(&valid).map_err(|err| err.to_string())?;
    let out = PointsSettlementOut::new(&valid, &settlement);
    Ok(points_place_rows(&PointsRoundIn::from_round(&valid), &out))
}

/// Settles `round` again under `rules` (the version it was settled under) and compares.
pub fn recheck(round: &SettledRound, rules: &GameRules) -> Recheck {
    let settled = settle_again(round, rules);
    let (settlement, again) = match settled {
        Ok(Again::Banking(out, again)) => (Some(out), again),
        Ok(Again::Points(again)) => (None, again),
        Err(err) => {
            return Recheck {
                settlement: None,
                differences: vec![format!("the stored cards cannot be settled: {err}")],
            }
        }
    };
    let house = settlement
        .as_ref()
        .map_or(Money::from_minor_units(0), |settlement| {
            settlement.dealer.result
        });
    let mut differences = Vec::new();
    if house != round.round.dealer_result {
        differences.push(format!(
            "house result: stored {}, recomputed {}",
            round.round.dealer_result.signed_text(),
            house.signed_text()
        ));
    }
    compare_places(round, &again, &mut differences);
    Recheck {
        settlement,
        differences,
    }
}

/// Every way the stored places differ from those settled again.
fn compare_places(round: &SettledRound, again: &[PlaceRow], differences: &mut Vec<String>) {
    if again.len() != round.places.len() {
        differences.push(format!(
            "places: stored {}, recomputed {}",
            round.places.len(),
            again.len()
        ));
    }
    for (stored, fresh) in round.places.iter().zip(again) {
        let place = &stored.place;
        if stored.result != fresh.result {
            differences.push(format!(
                "{place} result: stored {}, recomputed {}",
                stored.result.signed_text(),
                fresh.result.signed_text()
            ));
        }
        let pairs = [
            ("fouled", describe(&stored.fouled), describe(&fresh.fouled)),
            (
                "outcome",
                describe(&stored.outcome.map(PlaceOutcome::key)),
                describe(&fresh.outcome.map(PlaceOutcome::key)),
            ),
            (
                "hands won",
                describe(&stored.hands_won),
                describe(&fresh.hands_won),
            ),
            (
                "back",
                describe(&stored.back_name),
                describe(&fresh.back_name),
            ),
            (
                "middle",
                describe(&stored.middle_name),
                describe(&fresh.middle_name),
            ),
            (
                "front",
                describe(&stored.front_name),
                describe(&fresh.front_name),
            ),
            ("points", describe(&stored.points), describe(&fresh.points)),
            (
                "points against",
                describe(&stored.against),
                describe(&fresh.against),
            ),
            ("pusoy", describe(&stored.pusoy), describe(&fresh.pusoy)),
        ];
        for (what, was, now) in pairs {
            if was != now {
                differences.push(format!("{place} {what}: stored {was}, recomputed {now}"));
            }
        }
    }
}

/// The `round.settled` events of rounds `ids`, by target (`round:ID`).
fn settled_events_by_round(
    conn: &mut PgConnection,
    ids: &[RoundId],
) -> QueryResult<HashMap<String, Vec<AuditEvent>>> {
    let mut events: HashMap<String, Vec<AuditEvent>> = HashMap::new();
    for event in review::settled_events_of(conn, ids)? {
        events.entry(event.target.clone()).or_default().push(event);
    }
    Ok(events)
}

/// [`against_event`] for `round`, given the `round.settled` events found for it: there must be
/// exactly one.
fn against_its_event(
    round: &SettledRound,
    code: &str,
    rules: &GameRules,
    events: &HashMap<String, Vec<AuditEvent>>,
) -> Vec<String> {
    match events
        .get(&review::round_target(round.round.id))
        .map(Vec::as_slice)
    {
        Some([settled]) => against_event(round, code, rules, settled),
        None | Some([]) => vec!["no round.settled event records it".to_owned()],
        Some(more) => vec![format!("{} round.settled events record it", more.len())],
    }
}

/// Why a round or a day could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum RecheckError {
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("round {round} names rule profile version {version}, which does not exist")]
    NoVersion {
        round: RoundId,
        version: ProfileVersionId,
    },
}

/// One round of a day whose stored result differs from the engine's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub round: RoundId,
    pub table_id: crate::db::ids::TableId,
    pub round_no: i32,
    pub differences: Vec<String>,
}

/// A gaming day's recompute check: how many rounds were checked, and those that differ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DayRecheck {
    pub rounds: usize,
    pub differing: Vec<Difference>,
}

/// Rounds read per query.
const PAGE: i64 = 500;

/// Checks every settled round of gaming day `day` (voided ones too: a void does not make a
/// changed record right), telling `progress` how many rounds are done after each batch.
pub fn recheck_day(
    conn: &mut PgConnection,
    day: NaiveDate,
    progress: &mut dyn FnMut(usize),
) -> Result<DayRecheck, RecheckError> {
    let mut profiles_by_version: HashMap<ProfileVersionId, GameRules> = HashMap::new();
    // Every table's code, read once (not a query per round).
    let codes: HashMap<_, _> = tables::codes(conn)?.into_iter().collect();
    let mut report = DayRecheck::default();
    let mut after = None;
    loop {
        let ids = review::day_round_ids(conn, day, after, PAGE)?;
        let Some(last) = ids.last() else { break };
        after = Some(*last);
        let events = settled_events_by_round(conn, &ids)?;
        for id in ids {
            let Some(round) = rows::get_round(conn, id)? else {
                continue;
            };
            let version = round.round.rule_profile_version_id;
            let profile = match profiles_by_version.get(&version) {
                Some(profile) => *profile,
                None => {
                    let found = profiles::version(conn, version)?
                        .ok_or(RecheckError::NoVersion { round: id, version })?;
                    profiles_by_version.insert(version, found.options);
                    found.options
                }
            };
            report.rounds += 1;
            let mut differences = recheck(&round, &profile).differences;
            // And against the event that recorded it: a round rewritten into another
            // self-consistent one settles again as stored.
            let code = codes.get(&round.round.table_id).map_or("", String::as_str);
            differences.extend(against_its_event(&round, code, &profile, &events));
            if !differences.is_empty() {
                report.differing.push(Difference {
                    round: id,
                    table_id: round.round.table_id,
                    round_no: round.round.round_no,
                    differences,
                });
            }
        }
        progress(report.rounds);
    }
    Ok(report)
}

/// The action of the audit event that records a gaming day's recompute check (on the `system`
/// chain, target `day:YYYY-MM-DD`).
pub const RECHECKED: AuditAction = AuditAction::ReviewRechecked;

/// A finished recompute check as its audit event's details keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecheckRecord {
    pub gaming_day: NaiveDate,
    /// Rounds settled again.
    pub rounds: usize,
    pub differing: Vec<DifferingRound>,
    pub seconds: f64,
}

/// A round whose stored result differs from the engine's, with its table's code for a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DifferingRound {
    pub round_id: i64,
    pub table: String,
    pub round_no: i32,
    pub differences: Vec<String>,
}

fn day_target(day: NaiveDate) -> String {
    format!("day:{day}")
}

/// Records `found`, the check of gaming day `day` that took `seconds`, as an audit event by
/// `actor`, and returns what it recorded.
pub fn record(
    conn: &mut PgConnection,
    actor: &Actor,
    day: NaiveDate,
    found: &DayRecheck,
    seconds: f64,
) -> QueryResult<RecheckRecord> {
    let mut differing = Vec::with_capacity(found.differing.len());
    for round in &found.differing {
        differing.push(DifferingRound {
            round_id: round.round.0,
            table: tables::find(conn, round.table_id)?
                .map(|t| t.code)
                .unwrap_or_default(),
            round_no: round.round_no,
            differences: round.differences.clone(),
        });
    }
    let record = RecheckRecord {
        gaming_day: day,
        rounds: found.rounds,
        differing,
        seconds,
    };
    let details = serde_json::to_value(&record)
        .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
    audit_log::append(
        conn,
        &NewAuditEvent::system(actor, RECHECKED, day_target(day)).details(details),
    )?;
    Ok(record)
}

/// The latest recompute check recorded for gaming day `day`: when, by whom, and its record
/// (`None` in the record when its details do not read).
pub fn latest(
    conn: &mut PgConnection,
    day: NaiveDate,
) -> QueryResult<Option<(AuditEvent, Option<RecheckRecord>)>> {
    use crate::db::schema::audit_events as e;
    let event = e::table
        .filter(e::action.eq(RECHECKED.as_str()))
        .filter(e::target.eq(day_target(day)))
        .order(e::id.desc())
        .select(AuditEvent::as_select())
        .first(conn)
        .optional()?;
    Ok(event.map(|event| {
        let record = serde_json::from_value(event.details.clone()).ok();
        (event, record)
    }))
}

/// A stored record that differs from the audit event that recorded it, or lacks it: what it is
/// (`round 3 at PUSOY-01 on 2026-11-26 (id 41)`) and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordProblem {
    pub what: String,
    pub differences: Vec<String>,
}

/// Rounds compared per batch.
const BOUND_PAGE: i64 = 2_000;

/// Every settled round against its `round.settled` event ([`against_event`]), every void and
/// approval against its event, and every `round.settled` event against a stored round:
/// rounds, places, bets and results rewritten behind the application's back (even into
/// another self-consistent round, with the chains left intact) are found and named.
/// `progress` is told how many rounds are done after each batch.
pub fn records_against_events(
    conn: &mut PgConnection,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<RecordProblem>, RecheckError> {
    let codes: HashMap<_, _> = tables::codes(conn)?.into_iter().collect();
    let code_of = |id| {
        codes
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("table {id}"))
    };
    let name = |id: RoundId, table, round_no: i32, day: NaiveDate| {
        format!("round {round_no} at {} on {day} (id {id})", code_of(table))
    };
    let mut rules_of: HashMap<ProfileVersionId, GameRules> = HashMap::new();
    let mut problems = Vec::new();
    let mut after = None;
    let mut done = 0;
    loop {
        let rounds = rows::rounds_after(conn, after, BOUND_PAGE)?;
        let Some(last) = rounds.last() else { break };
        after = Some(last.round.id);
        let ids: Vec<RoundId> = rounds.iter().map(|r| r.round.id).collect();
        let events = settled_events_by_round(conn, &ids)?;
        for round in &rounds {
            let r = &round.round;
            let what = name(r.id, r.table_id, r.round_no, r.gaming_day);
            let version = r.rule_profile_version_id;
            if let std::collections::hash_map::Entry::Vacant(slot) = rules_of.entry(version) {
                match profiles::version(conn, version)? {
                    Some(found) => {
                        slot.insert(found.options);
                    }
                    None => {
                        problems.push(RecordProblem {
                            what,
                            differences: vec![format!(
                                "it names rule profile version {version}, which does not exist"
                            )],
                        });
                        continue;
                    }
                }
            }
            let rules = &rules_of[&version];
            let differences = against_its_event(round, &code_of(r.table_id), rules, &events);
            if !differences.is_empty() {
                problems.push(RecordProblem { what, differences });
            }
        }
        done += rounds.len();
        progress(done);
    }
    for id in review::settled_rounds_missing(conn)? {
        problems.push(RecordProblem {
            what: format!("round id {id}"),
            differences: vec![
                "its round.settled event is in the trail, the round is not stored".to_owned(),
            ],
        });
    }
    for bad in review::decisions_unlike_their_events(conn)? {
        let difference = match (bad.has_row, bad.has_event) {
            (true, false) => format!("the {} is stored, but no event records it", bad.kind),
            (false, true) => format!("an event records a {}, but it is not stored", bad.kind),
            _ => format!(
                "the stored {} differs from its event (who decided, or a void's reason or note)",
                bad.kind
            ),
        };
        problems.push(RecordProblem {
            what: format!("the {} of round id {}", bad.kind, bad.round_id),
            differences: vec![difference],
        });
    }
    Ok(problems)
}
