//! The rounds export: one row per place of every settled round of the range, with the round's
//! table, gaming day, dealer, profile version, approval and void; and its check, which settles
//! every round again with the engine from the exported cards.

use std::borrow::Cow;

use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use chrono::{DateTime, Utc};
use diesel::PgConnection;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_copy;
use crate::db::audit_log::{self, Details, HashBuffers, HashedFields};
use crate::db::canonical_json;
use crate::db::export::{self as db, ChainEvent, RoundLine};
use crate::db::ids::{TableId, UserId};
use crate::db::rounds::rows::{PlaceOutcome, PlaceRow, UnknownPlace};
use crate::reports::recheck::points_places_again;
use crate::rules::game::GameRules;
use crate::rules::money::Money;
use crate::rules::place::SeatNo;
use crate::rules::points::natural::Natural;
use crate::rules::points::profile::PointsProfile;
use crate::rules::points::wire::Against;
use crate::rules::profile::RuleProfile;
use crate::rules::royalty::Royalty;
use crate::rules::settle::settle;
use crate::rules::wire::{Action, HandsOut, PlaceIn, RoundIn, SeatIn, SettlementOut, WireError};

use super::check::{Checker, Problem, Problems, Row};
use super::seals::{Range, Seals};
use super::table::{ColumnKind, Field, Format, TableWriter};
use super::{
    last_sealed, table_chains, utc_text, ChainRecord, Clock, ExportError, Manifest, Position,
    ProfileRecord, Query, Written,
};

use ColumnKind::{Bool, Int, Json, Text};

/// The rounds export's own columns (between `row` and the row's sum).
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("round_id", Int),
    ("table", Text),
    ("gaming_day", Text),
    ("round_no", Int),
    ("settled_at_utc", Text),
    ("settled_at_local", Text),
    ("dealer", Text),
    ("profile", Text),
    ("profile_version_id", Int),
    ("profile_version", Int),
    ("currency", Text),
    ("place", Text),
    ("bet", Int),
    ("action", Text),
    ("royalty", Text),
    ("dealt", Text),
    ("back", Text),
    ("middle", Text),
    ("front", Text),
    ("back_name", Text),
    ("middle_name", Text),
    ("front_name", Text),
    ("fouled", Bool),
    ("foul", Text),
    ("outcome", Text),
    ("hands_won", Int),
    ("result", Int),
    ("needs_approval", Bool),
    ("approved_by", Text),
    ("approved_at_utc", Text),
    ("voided", Bool),
    ("void_reason", Text),
    ("void_note", Text),
    ("voided_by", Text),
    ("voided_at_utc", Text),
    ("replaces_round_id", Int),
    // The points game's (docs/rules.md §8), empty on a banking round's rows.
    ("natural", Text),
    ("points", Int),
    ("against", Text),
    ("pusoy", Bool),
    // The round's `round.settled` event (format 4), the same on each of its rows; and on its
    // first row, the events of its table's chain since the previous round's, its own last.
    ("event_chain", Text),
    ("event_seq", Int),
    ("event_hash", Text),
    ("chain_events", Json),
];

/// How many of [`COLUMNS`] a rounds export written before the points game has: all but the
/// points game's, which `verify-export` then does without.
pub const BEFORE_POINTS: usize = 36;

/// How many of [`COLUMNS`] a rounds export written before format 4 has: all but the round's
/// event and its chain's events.
pub const BEFORE_EVENTS: usize = 40;

/// Where each column is in a row (`row` is 0).
mod at {
    pub const ROUND_ID: usize = 1;
    pub const TABLE: usize = 2;
    pub const GAMING_DAY: usize = 3;
    pub const ROUND_NO: usize = 4;
    pub const SETTLED_UTC: usize = 5;
    pub const SETTLED_LOCAL: usize = 6;
    pub const PROFILE_VERSION_ID: usize = 9;
    pub const PLACE: usize = 12;
    pub const BET: usize = 13;
    pub const ACTION: usize = 14;
    pub const ROYALTY: usize = 15;
    pub const DEALT: usize = 16;
    pub const BACK: usize = 17;
    pub const MIDDLE: usize = 18;
    pub const FRONT: usize = 19;
    pub const BACK_NAME: usize = 20;
    pub const FOULED: usize = 23;
    pub const FOUL: usize = 24;
    pub const OUTCOME: usize = 25;
    pub const HANDS_WON: usize = 26;
    pub const RESULT: usize = 27;
    /// The columns from here on (approval, void, re-entry) are the round's, as are those
    /// before `PLACE`.
    pub const NEEDS_APPROVAL: usize = 28;
    pub const REPLACES: usize = 36;
    pub const NATURAL: usize = 37;
    pub const POINTS: usize = 38;
    pub const AGAINST: usize = 39;
    pub const PUSOY: usize = 40;
    pub const EVENT_CHAIN: usize = 41;
    pub const EVENT_SEQ: usize = 42;
    pub const EVENT_HASH: usize = 43;
    pub const CHAIN_EVENTS: usize = 44;
}

/// Points won from each other player as the export writes them: `{"2":-13,"3":3}`.
fn against_text(against: &Against) -> String {
    // A map of seat numbers to integers: serialising cannot fail.
    serde_json::to_string(against).unwrap_or_default()
}

fn time(at: Option<DateTime<Utc>>) -> Field {
    Field::opt_text(at.map(utc_text))
}

pub(super) fn export(
    conn: &mut PgConnection,
    query: &Query,
    clock: Clock,
    format: Format,
    out: impl Write,
    mut manifest: Manifest,
) -> Result<Written, ExportError> {
    let versions: BTreeMap<i64, ProfileRecord> = db::profile_versions(conn)?
        .into_iter()
        .map(|(id, profile, version, options)| {
            (
                id,
                ProfileRecord {
                    profile,
                    version,
                    options,
                },
            )
        })
        .collect();
    manifest.chains = table_chains(conn, query.table.as_deref())?;
    let mut writer = TableWriter::new(format, COLUMNS, out)?;
    let mut used = BTreeSet::new();
    let mut fields = Vec::with_capacity(COLUMNS.len());
    let mut walks: BTreeMap<String, Walk> = BTreeMap::new();
    let mut buffers = HashBuffers::default();
    db::each_round(
        conn,
        query.from,
        query.to,
        query.table.as_deref(),
        |line: RoundLine| -> Result<(), ExportError> {
            let places: Vec<PlaceRow> = serde_json::from_str(&line.places)
                .map_err(|e| ExportError::Stored(format!("round {}: places: {e}", line.id)))?;
            let version = versions.get(&line.profile_version_id);
            used.insert(line.profile_version_id);
            let chain = audit_log::table_chain(TableId(line.table_id));
            let event = match (line.event_seq, &line.event_hash) {
                (Some(seq), Some(hash)) => {
                    let walk = walks.entry(chain.clone()).or_insert_with(|| Walk {
                        before: Position {
                            seq: seq - 1,
                            hash: hex::encode(line.event_prev_hash.as_deref().unwrap_or_default()),
                        },
                        last: None,
                    });
                    walk.last = Some(Position {
                        seq,
                        hash: hex::encode(hash),
                    });
                    Some((seq, hex::encode(hash)))
                }
                _ => None,
            };
            let mut chain_events = match &line.chain_events {
                Some(text) => Some(chain_events_text(text, &mut buffers).map_err(|e| {
                    ExportError::Stored(format!("round {}: its chain's events: {e}", line.id))
                })?),
                None => None,
            };
            for place in places {
                fields.clear();
                fields.extend([
                    Field::Int(line.id),
                    Field::text(line.table_code.as_str()),
                    Field::Text(line.gaming_day.to_string()),
                    Field::Int(i64::from(line.round_no)),
                    Field::Text(utc_text(line.settled_at)),
                    Field::Text(clock.local(line.settled_at)),
                    Field::text(line.dealer.as_str()),
                    Field::opt_text(version.map(|v| v.profile.as_str())),
                    Field::Int(line.profile_version_id),
                    Field::opt_int(version.map(|v| i64::from(v.version))),
                    Field::text(line.currency.as_str()),
                    Field::Text(place.place.key()),
                    Field::opt_int(place.bet.map(|m| m.minor_units())),
                    Field::text(place.action.key()),
                    Field::opt_text(place.royalty.map(Royalty::key)),
                    Field::opt_text(place.dealt),
                    Field::opt_text(place.back),
                    Field::opt_text(place.middle),
                    Field::opt_text(place.front),
                    Field::opt_text(place.back_name),
                    Field::opt_text(place.middle_name),
                    Field::opt_text(place.front_name),
                    Field::opt_bool(place.fouled),
                    Field::opt_text(place.foul_reason),
                    Field::opt_text(place.outcome.map(PlaceOutcome::key)),
                    Field::opt_int(place.hands_won.map(i64::from)),
                    Field::Int(place.result.minor_units()),
                    Field::Bool(line.needs_approval),
                    Field::opt_text(line.approved_by.as_deref()),
                    time(line.approved_at),
                    Field::Bool(line.voided_at.is_some()),
                    Field::opt_text(line.void_reason.as_deref()),
                    Field::opt_text(line.void_note.as_deref()),
                    Field::opt_text(line.voided_by.as_deref()),
                    time(line.voided_at),
                    Field::opt_int(line.replaces_round_id),
                    Field::opt_text(place.natural.map(Natural::key)),
                    Field::opt_int(place.points),
                    Field::opt_text(place.against.as_ref().map(against_text)),
                    Field::opt_bool(place.pusoy),
                    Field::opt_text(event.as_ref().map(|_| chain.as_str())),
                    Field::opt_int(event.as_ref().map(|e| e.0)),
                    Field::opt_text(event.as_ref().map(|e| e.1.as_str())),
                    chain_events.take().map_or(Field::Null, Field::Json),
                ]);
                writer.write(&fields)?;
            }
            Ok(())
        },
    )?;
    manifest.profiles = used
        .into_iter()
        .filter_map(|id| Some((id.to_string(), versions.get(&id)?.clone())))
        .collect();
    for record in &mut manifest.chains {
        let Some(walk) = walks.remove(&record.chain) else {
            continue;
        };
        let mut last = walk.last;
        let mut tail = Vec::new();
        if let (Some(sealed), Some(from)) = (
            last_sealed(&manifest.day_seals, &record.chain),
            last.as_ref().map(|l| l.seq),
        ) {
            if sealed.seq > from {
                let mut failed = None;
                audit_copy::each_after(conn, &record.chain, from, sealed.seq - from, &mut |e| {
                    let mut text = String::new();
                    if let Err(error) = canonical_text(e.fields(), &mut buffers, &mut text) {
                        failed = Some(format!("event {}: details {error}", e.id));
                        return false;
                    }
                    tail.push(text);
                    last = Some(Position {
                        seq: e.seq,
                        hash: hex::encode(e.hash),
                    });
                    true
                })?;
                if let Some(error) = failed {
                    return Err(ExportError::Stored(error));
                }
            }
        }
        record.before = Some(walk.before);
        record.last = last;
        record.tail = tail;
    }
    let rows = writer.finish(manifest)?;
    Ok(Written { rows })
}

/// Where the rounds of one table's chain stand: the event before the first they carry, and the
/// last they carry.
struct Walk {
    before: Position,
    last: Option<Position>,
}

/// Appends the form of `fields` its hash covers (see `audit_log::HashBuffers::canonical`):
/// details stored as hashed are that form already.
fn canonical_text(
    fields: HashedFields<'_>,
    buffers: &mut HashBuffers,
    out: &mut String,
) -> Result<(), canonical_json::NotJson> {
    let fields = match fields.details {
        Details::Text(text) if canonical_json::shaped_as_written(text) => HashedFields {
            details: Details::Canonical(text),
            ..fields
        },
        _ => fields,
    };
    buffers.canonical(&fields, out)
}

/// The events of a round's `chain_events` (as the database sends them) as the export writes
/// them: a JSON array of each event in the form its hash covers.
fn chain_events_text(text: &str, buffers: &mut HashBuffers) -> Result<String, String> {
    let events: Vec<ChainEvent<'_>> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len() + 16);
    out.push('[');
    for (n, e) in events.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        let fields = HashedFields {
            chain: &e.chain,
            seq: e.seq,
            at: e.at.with_timezone(&Utc),
            actor_user_id: e.actor_user_id.map(UserId),
            actor_name: &e.actor_name,
            action: &e.action,
            target: &e.target,
            details: Details::Text(e.details.get()),
            client_addr: e.client_addr.as_deref(),
            gaming_day: e.gaming_day,
            table_id: e.table_id.map(TableId),
        };
        canonical_text(fields, buffers, &mut out).map_err(|e| e.to_string())?;
    }
    out.push(']');
    Ok(out)
}

/// Checks a rounds export's rows: each round's rows agree on the round, are in order, and
/// settle again to the exported results, balancing to zero; since format 4, each round's rows
/// agree with its `round.settled` event, and its table's chain, walked through every event the
/// export carries (the rounds' and the manifest's `tail`), passes through the positions the
/// seals fix.
pub(super) struct RoundsCheck {
    clock: Clock,
    profiles: BTreeMap<String, Result<GameRules, String>>,
    /// The rows of the round being read.
    round: Vec<Row>,
    /// The last round read: (table, gaming day, number).
    last: Option<(String, String, i64)>,
    /// Whether the rows carry their events (format 4).
    tied: bool,
    /// Where the walk is on each chain the manifest names.
    walks: BTreeMap<String, ChainWalk>,
    /// The manifest's chains (their start, tail and end).
    chains: Vec<ChainRecord>,
    sealed: Seals,
    range: Range,
}

/// Where the walk along a chain is: the seq the next event should have, and the hash of the
/// event before it.
struct ChainWalk {
    next_seq: i64,
    prev: Vec<u8>,
    /// The last position the walk found as a seal fixes it (or its start), and the first row
    /// whose events came after it: where a change a later seal finds must be.
    confirmed: i64,
    rows_since: Option<u64>,
}

impl ChainWalk {
    /// Compares the walk's hash at `seq` (just taken) with what a seal fixes there, if one
    /// does; what is wrong if it differs.
    fn against(
        &mut self,
        seq: i64,
        hash: &[u8; 32],
        sealed: &Seals,
        chain: &str,
    ) -> Option<String> {
        let fixed = sealed.at(chain, seq)?;
        let ours = hex::encode(hash);
        let wrong = (fixed.hash != ours).then(|| {
            let rows = self
                .rows_since
                .map_or_else(String::new, |row| format!(" (rows {row} on)"));
            format!(
                "chain {chain} seq {seq}: the events to here hash to {ours}, {} fixes {}: an \
                 event after seq {}{rows} was changed",
                fixed.by, fixed.hash, self.confirmed
            )
        });
        self.confirmed = seq;
        self.rows_since = None;
        wrong
    }

    /// Takes the next event, in its hashed form `text` at `seq`; its hash.
    fn take(&mut self, seq: i64, text: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(&self.prev);
        hasher.update(text.as_bytes());
        let hash: [u8; 32] = hasher.finalize().into();
        self.prev = hash.to_vec();
        self.next_seq = seq + 1;
        hash
    }
}

/// An event in its hashed form: `[1, chain, seq, at, actor id, actor, action, target, details,
/// client address, gaming day, table id]`.
type Hashed = (
    u8,
    String,
    i64,
    String,
    Option<i64>,
    String,
    String,
    String,
    serde_json::Value,
    Option<String>,
    Option<String>,
    Option<i64>,
);

impl RoundsCheck {
    pub(super) fn new(manifest: &Manifest, clock: Clock, sealed: Seals) -> RoundsCheck {
        let profiles = manifest
            .profiles
            .iter()
            .map(|(id, record)| {
                let rules = serde_json::from_value::<GameRules>(record.options.clone())
                    .map_err(|e| e.to_string());
                (id.clone(), rules)
            })
            .collect();
        let walks = manifest
            .chains
            .iter()
            .filter_map(|record| {
                let before = record.before.as_ref()?;
                Some((
                    record.chain.clone(),
                    ChainWalk {
                        next_seq: before.seq + 1,
                        prev: hex::decode(&before.hash).unwrap_or_default(),
                        confirmed: before.seq,
                        rows_since: None,
                    },
                ))
            })
            .collect();
        RoundsCheck {
            clock,
            profiles,
            round: Vec::new(),
            last: None,
            tied: manifest.columns.iter().any(|c| c == "chain_events"),
            walks,
            chains: manifest.chains.clone(),
            sealed,
            range: Range::of(manifest),
        }
    }

    /// Walks the events the round of `rows` carries along its chain (checking each position a
    /// seal fixes), and compares its rows with the last of them, its `round.settled` event.
    fn check_event(&mut self, rows: &[Row], round_id: &str, problems: &mut Problems) {
        let first = &rows[0];
        let chain = first.text(at::EVENT_CHAIN);
        if chain.is_empty() {
            problems.at(
                first,
                at::EVENT_SEQ,
                format!("round {round_id}: no round.settled event records it"),
            );
            return;
        }
        let Some(walk) = self.walks.get_mut(chain) else {
            problems.at(
                first,
                at::EVENT_CHAIN,
                format!("round {round_id}: chain {chain} has no start in the manifest"),
            );
            return;
        };
        let texts: Vec<&RawValue> = match serde_json::from_str(first.text(at::CHAIN_EVENTS)) {
            Ok(texts) => texts,
            Err(e) => {
                problems.at(
                    first,
                    at::CHAIN_EVENTS,
                    format!("round {round_id}: not an array of events: {e}"),
                );
                return;
            }
        };
        let mut last = None;
        for text in texts {
            let event: Hashed = match serde_json::from_str(text.get()) {
                Ok(event) => event,
                Err(e) => {
                    problems.at(
                        first,
                        at::CHAIN_EVENTS,
                        format!("round {round_id}: an event does not read: {e}"),
                    );
                    return;
                }
            };
            let seq = event.2;
            if event.1 != chain || seq != walk.next_seq {
                problems.at(
                    first,
                    at::CHAIN_EVENTS,
                    format!(
                        "round {round_id}: chain {} seq {seq} where chain {chain} seq {} was \
                         expected: events missing or out of order",
                        event.1, walk.next_seq
                    ),
                );
            }
            walk.rows_since.get_or_insert(first.number);
            let hash = walk.take(seq, text.get());
            if let Some(wrong) = walk.against(seq, &hash, &self.sealed, chain) {
                problems.at(
                    first,
                    at::CHAIN_EVENTS,
                    format!("round {round_id}: {wrong}"),
                );
            }
            last = Some((event, hash));
        }
        let Some((event, hash)) = last else {
            problems.at(
                first,
                at::CHAIN_EVENTS,
                format!("round {round_id}: carries no events"),
            );
            return;
        };
        if event.6 != AuditAction::RoundSettled
            || event.7 != format!("round:{round_id}")
            || event.2.to_string() != first.text(at::EVENT_SEQ)
        {
            problems.at(
                first,
                at::EVENT_SEQ,
                format!(
                    "round {round_id}: the last event it carries (seq {}, {} {}) is not its \
                     round.settled event",
                    event.2, event.6, event.7
                ),
            );
            return;
        }
        if hex::encode(hash) != first.text(at::EVENT_HASH) {
            problems.at(
                first,
                at::EVENT_HASH,
                format!(
                    "round {round_id}: its event hashes to {}, after the events before it",
                    hex::encode(hash)
                ),
            );
        }
        if event.10.as_deref() != Some(first.text(at::GAMING_DAY)) {
            problems.at(
                first,
                at::GAMING_DAY,
                format!(
                    "round {round_id}: its round.settled event records gaming day {:?}",
                    event.10.unwrap_or_default()
                ),
            );
        }
        against_event(rows, &event.8, round_id, problems);
    }

    fn check_round(&mut self, problems: &mut Problems) {
        let rows = std::mem::take(&mut self.round);
        let Some(first) = rows.first() else {
            return;
        };
        let round_id = first.text(at::ROUND_ID).to_owned();
        // The round's own columns are the same on each of its rows.
        for row in &rows[1..] {
            // The round's event's columns, where the file has them.
            let events_end = if self.tied {
                at::EVENT_HASH + 1
            } else {
                at::EVENT_CHAIN
            };
            for column in (at::ROUND_ID..at::PLACE)
                .chain(at::NEEDS_APPROVAL..=at::REPLACES)
                .chain(at::EVENT_CHAIN..events_end)
            {
                if row.text(column) != first.text(column) {
                    problems.at(
                        row,
                        column,
                        format!(
                            "differs from the first row of round {round_id} (row {})",
                            first.number
                        ),
                    );
                }
            }
        }
        let key = (
            first.text(at::TABLE).to_owned(),
            first.text(at::GAMING_DAY).to_owned(),
            first.text(at::ROUND_NO).parse::<i64>().unwrap_or(0),
        );
        if let Some(last) = &self.last {
            if last.0 == key.0 && last.1 == key.1 && last.2 >= key.2 {
                problems.at(
                    first,
                    at::ROUND_NO,
                    format!(
                        "round {} of {} on {} comes after round {}: rows out of order",
                        key.2, key.0, key.1, last.2
                    ),
                );
            }
        }
        self.last = Some(key);
        if self.tied {
            self.check_event(&rows, &round_id, problems);
        }
        match self.clock_check(first) {
            Ok(()) => {}
            Err(message) => problems.at(first, at::SETTLED_LOCAL, message),
        }
        let version = first.text(at::PROFILE_VERSION_ID);
        let rules = match self.profiles.get(version) {
            Some(Ok(rules)) => *rules,
            Some(Err(error)) => {
                problems.at(
                    first,
                    at::PROFILE_VERSION_ID,
                    format!(
                        "the manifest's options of profile version {version} do not read: {error}"
                    ),
                );
                return;
            }
            None => {
                problems.at(
                    first,
                    at::PROFILE_VERSION_ID,
                    format!("profile version {version} is not in the manifest"),
                );
                return;
            }
        };
        match rules {
            GameRules::Banking(rules) => resettle(&rows, rules, &round_id, problems),
            GameRules::Points(rules) => resettle_points(&rows, &rules, &round_id, problems),
        }
    }

    fn clock_check(&self, row: &Row) -> Result<(), String> {
        let utc = DateTime::parse_from_rfc3339(row.text(at::SETTLED_UTC))
            .map_err(|e| format!("settled_at_utc does not read: {e}"))?
            .with_timezone(&Utc);
        let local = self.clock.local(utc);
        if row.text(at::SETTLED_LOCAL) != local {
            return Err(format!(
                "{:?} is not settled_at_utc in local time ({local})",
                row.text(at::SETTLED_LOCAL)
            ));
        }
        Ok(())
    }
}

impl Checker for RoundsCheck {
    fn row(&mut self, row: Row, problems: &mut Problems) {
        if self
            .round
            .first()
            .is_some_and(|first| first.text(at::ROUND_ID) != row.text(at::ROUND_ID))
        {
            self.check_round(problems);
        }
        self.round.push(row);
    }

    fn finish(&mut self, problems: &mut Problems) {
        self.check_round(problems);
        if !self.tied {
            problems.note(
                "written before format 4: the rounds are not tied to their events or the seals"
                    .to_owned(),
            );
            return;
        }
        for record in std::mem::take(&mut self.chains) {
            self.finish_chain(&record, problems);
        }
    }
}

impl RoundsCheck {
    /// Walks the manifest's tail of `record`'s chain after its rounds' events, and checks that
    /// the walk started and ends where the manifest says, and how far the seals covered it.
    fn finish_chain(&mut self, record: &ChainRecord, problems: &mut Problems) {
        let chain = &record.chain;
        let (Some(before), Some(walk)) = (&record.before, self.walks.get_mut(chain)) else {
            return;
        };
        if let Some(fixed) = self.sealed.at(chain, before.seq) {
            if fixed.hash != before.hash {
                problems.file(format!(
                    "chain {chain}: the manifest's position before its rounds' events (seq {}, \
                     hash {}) is not what {} fixes there ({})",
                    before.seq, before.hash, fixed.by, fixed.hash
                ));
            }
        }
        for (n, text) in record.tail.iter().enumerate() {
            let seq = match serde_json::from_str::<Hashed>(text) {
                Ok(event) if event.1 == *chain => event.2,
                _ => {
                    problems.file(format!(
                        "chain {chain}: event {} of the manifest's tail does not read as an \
                         event of this chain",
                        n + 1
                    ));
                    return;
                }
            };
            if seq != walk.next_seq {
                problems.file(format!(
                    "chain {chain}: the manifest's tail has seq {seq} where seq {} was expected",
                    walk.next_seq
                ));
            }
            let hash = walk.take(seq, text);
            let since = walk.rows_since;
            if let Some(wrong) = walk.against(seq, &hash, &self.sealed, chain) {
                // Named at the first round whose events the seal no longer confirms.
                problems.found.push(Problem {
                    row: since,
                    field: since.map(|_| "chain_events".to_owned()),
                    message: format!("(through the manifest's tail) {wrong}"),
                });
            }
        }
        let end = walk.next_seq - 1;
        let hash = hex::encode(&walk.prev);
        match &record.last {
            Some(last) if last.seq != end || last.hash != hash => problems.file(format!(
                "chain {chain}: its events end at seq {end} hash {hash}, the manifest says seq \
                 {} hash {}",
                last.seq, last.hash
            )),
            _ => {}
        }
        self.sealed.coverage(chain, end, &self.range, problems);
    }
}

/// The text a value of a `round.settled` event's details is exported as (NULL, absent: empty).
fn recorded_text(value: Option<&serde_json::Value>) -> String {
    match value {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// Whether a `seat` of an event's details is the place `place` (`seat2`) of a row.
fn is_place(seat: Option<&serde_json::Value>, place: &str) -> bool {
    let number = place.strip_prefix("seat");
    match seat {
        Some(serde_json::Value::Number(n)) => number == Some(n.to_string().as_str()),
        Some(serde_json::Value::String(text)) => text == place || number == Some(text.as_str()),
        _ => false,
    }
}

/// The dealer's or a seat's part of a round's record or settlement (`place`: `dealer`,
/// `seat2`), as a `round.settled` event's details have it.
fn place_of<'v>(part: Option<&'v serde_json::Value>, place: &str) -> Option<&'v serde_json::Value> {
    if place == "dealer" {
        return part?.get("dealer");
    }
    part?
        .get("seats")?
        .as_array()?
        .iter()
        .find(|s| is_place(s.get("seat"), place))
}

/// Compares the rows of a round with its `round.settled` event's `details`: its table and
/// number, and each place's bet and result, and the cards the event recorded.
fn against_event(
    rows: &[Row],
    details: &serde_json::Value,
    round_id: &str,
    problems: &mut Problems,
) {
    let first = &rows[0];
    let round_level = [
        (at::TABLE, recorded_text(details.get("table"))),
        (at::ROUND_NO, recorded_text(details.get("round_no"))),
    ];
    for (column, recorded) in round_level {
        if first.text(column) != recorded {
            problems.at(
                first,
                column,
                format!(
                    "round {round_id}: exported {:?}, its round.settled event records {recorded:?}",
                    first.text(column)
                ),
            );
        }
    }
    let entered = details.get("round");
    let settled = details.get("settlement");
    for row in rows {
        let place = row.text(at::PLACE);
        let (entered, settled) = (place_of(entered, place), place_of(settled, place));
        if entered.is_none() || settled.is_none() {
            problems.at(
                row,
                at::PLACE,
                format!("round {round_id}: its round.settled event records no {place}"),
            );
            continue;
        }
        let fields = [
            (at::BET, "bet", entered),
            (at::BACK, "back", entered),
            (at::MIDDLE, "middle", entered),
            (at::FRONT, "front", entered),
            (at::DEALT, "dealt", entered),
            (at::RESULT, "result", settled),
        ];
        for (column, name, from) in fields {
            let value = from.and_then(|v| v.get(name));
            // Cards the event does not record (a seat's hands the house way set from the cards
            // dealt) are settled again by the engine, not compared.
            if value.is_none() && ![at::BET, at::RESULT].contains(&column) {
                continue;
            }
            let recorded = recorded_text(value);
            if row.text(column) != recorded {
                problems.at(
                    row,
                    column,
                    format!(
                        "round {round_id} {place}: exported {:?}, its round.settled event \
                         records {recorded:?}",
                        row.text(column)
                    ),
                );
            }
        }
    }
}

/// A text column as an optional borrowed text (empty is NULL).
fn opt(row: &Row, column: usize) -> Option<Cow<'_, str>> {
    let text = row.text(column);
    (!text.is_empty()).then_some(Cow::Borrowed(text))
}

/// A serde enum from its text (`"surrender"`).
fn word<T: serde::de::DeserializeOwned>(text: &str) -> Result<Option<T>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map(Some)
        .map_err(|_| format!("{text:?} is not a known value"))
}

fn int(row: &Row, column: usize) -> Result<Option<i64>, String> {
    let text = row.text(column);
    if text.is_empty() {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| format!("{text:?} is not a whole number"))
}

/// The place of a row: the dealer (None) or a seat.
fn seat_of(row: &Row) -> Result<Option<SeatNo>, String> {
    match row.text(at::PLACE) {
        "dealer" => Ok(None),
        place => place
            .strip_prefix("seat")
            .and_then(|n| n.parse::<i64>().ok())
            .and_then(|n| SeatNo::new(n).ok())
            .map(Some)
            .ok_or_else(|| format!("{place:?} is not dealer, seat1, seat2 or seat3")),
    }
}

fn place_in<'r>(row: &'r Row, problems: &mut Problems) -> Option<PlaceIn<'r>> {
    let action = match word::<Action>(row.text(at::ACTION)) {
        Ok(action) => action.unwrap_or_default(),
        Err(e) => {
            problems.at(row, at::ACTION, e);
            return None;
        }
    };
    let royalty = match word(row.text(at::ROYALTY)) {
        Ok(royalty) => royalty,
        Err(e) => {
            problems.at(row, at::ROYALTY, e);
            return None;
        }
    };
    Some(PlaceIn {
        action,
        royalty,
        back: opt(row, at::BACK),
        middle: opt(row, at::MIDDLE),
        front: opt(row, at::FRONT),
        dealt: opt(row, at::DEALT),
    })
}

/// Settles the round of `rows` (the dealer's row first) again and compares each place.
fn resettle(rows: &[Row], rules: RuleProfile, round_id: &str, problems: &mut Problems) {
    let first = &rows[0];
    if first.text(at::PLACE) != "dealer" {
        problems.at(
            first,
            at::PLACE,
            format!("round {round_id} does not start with the dealer's row"),
        );
        return;
    }
    let Some(dealer) = place_in(first, problems) else {
        return;
    };
    let mut seats = Vec::new();
    for row in &rows[1..] {
        let seat = match seat_of(row) {
            Ok(Some(seat)) => seat,
            Ok(None) => {
                problems.at(
                    row,
                    at::PLACE,
                    format!("a second dealer in round {round_id}"),
                );
                return;
            }
            Err(e) => {
                problems.at(row, at::PLACE, e);
                return;
            }
        };
        let bet = match int(row, at::BET) {
            Ok(Some(bet)) => Money::from_minor_units(bet),
            Ok(None) => {
                problems.at(row, at::BET, "a seat's bet is missing".to_owned());
                return;
            }
            Err(e) => {
                problems.at(row, at::BET, e);
                return;
            }
        };
        let Some(play) = place_in(row, problems) else {
            return;
        };
        seats.push(SeatIn::new(seat, bet, play));
    }
    let round_in = RoundIn {
        rules,
        dealer,
        seats,
    };
    let round = match round_in.to_round() {
        Ok(round) => round,
        Err(error) => {
            let (row, column) = where_refused(rows, &error);
            problems.at(
                row,
                column,
                format!("the engine refuses round {round_id}: {error}"),
            );
            return;
        }
    };
    let settled = match settle(&round) {
        Ok(settled) => SettlementOut::new(&round, &settled),
        Err(error) => {
            problems.at(
                first,
                at::RESULT,
                format!("round {round_id} does not settle: {error}"),
            );
            return;
        }
    };
    compare(rows, &settled, round_id, problems);
}

/// The row and column an engine's refusal points at (the place's cards, or its first row).
fn where_refused<'r>(rows: &'r [Row], error: &WireError) -> (&'r Row, usize) {
    use crate::rules::place::Place;
    let (place, column) = match error {
        WireError::Cards { place, hand, .. } => (
            Some(*place),
            match *hand {
                "back" => at::BACK,
                "middle" => at::MIDDLE,
                "front" => at::FRONT,
                _ => at::DEALT,
            },
        ),
        WireError::Set { place, .. } | WireError::PartialSet { place, .. } => {
            (Some(*place), at::BACK)
        }
        WireError::DealtCount { place, .. } => (Some(*place), at::DEALT),
        _ => (None, at::ACTION),
    };
    let row = place
        .and_then(|place| {
            rows.iter().find(|row| match (place, seat_of(row)) {
                (Place::Dealer, Ok(None)) => true,
                (Place::Seat(seat), Ok(Some(s))) => seat == s,
                _ => false,
            })
        })
        .unwrap_or(&rows[0]);
    (row, column)
}

/// What the engine says of one place, as the export writes it.
struct Expected<'a> {
    result: i64,
    fouled: Option<bool>,
    foul: Option<&'a str>,
    outcome: Option<String>,
    hands_won: Option<u8>,
    hands: Option<&'a HandsOut>,
}

fn compare(rows: &[Row], settled: &SettlementOut, round_id: &str, problems: &mut Problems) {
    for row in rows {
        let expected = match seat_of(row) {
            Ok(None) => Expected {
                result: settled.dealer.result.minor_units(),
                fouled: settled.dealer.fouled,
                foul: settled.dealer.foul.as_deref(),
                outcome: None,
                hands_won: None,
                hands: settled.dealer.hands.as_ref(),
            },
            Ok(Some(seat)) => match settled.seats.iter().find(|s| s.seat == seat) {
                Some(out) => Expected {
                    result: out.result.minor_units(),
                    fouled: out.fouled,
                    foul: out.foul.as_deref(),
                    outcome: serde_json::to_value(out.outcome)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned)),
                    hands_won: out.hands_won,
                    hands: out.hands.as_ref(),
                },
                None => continue,
            },
            Err(_) => continue,
        };
        let mut check =
            |column: usize, engine: String| check_field(row, column, &engine, round_id, problems);
        check(at::RESULT, expected.result.to_string());
        check(
            at::FOULED,
            expected.fouled.map(|f| f.to_string()).unwrap_or_default(),
        );
        check(at::FOUL, expected.foul.unwrap_or_default().to_owned());
        check(at::OUTCOME, expected.outcome.unwrap_or_default());
        check(
            at::HANDS_WON,
            expected
                .hands_won
                .map(|n| n.to_string())
                .unwrap_or_default(),
        );
        let names = expected.hands.map(|h| [&h.back, &h.middle, &h.front]);
        for (offset, column) in (at::BACK_NAME..at::BACK_NAME + 3).enumerate() {
            check(
                column,
                names.map(|n| n[offset].to_string()).unwrap_or_default(),
            );
        }
    }
    check_balance(rows, round_id, problems);
}

/// Names `column` of `row` if the export says other than the engine (`engine`).
fn check_field(row: &Row, column: usize, engine: &str, round_id: &str, problems: &mut Problems) {
    if row.text(column) != engine {
        problems.at(
            row,
            column,
            format!(
                "round {round_id} {}: exported {:?}, the engine settles {engine:?}",
                row.text(at::PLACE),
                row.text(column)
            ),
        );
    }
}

/// Names the round of `rows` if its exported results do not sum to zero.
fn check_balance(rows: &[Row], round_id: &str, problems: &mut Problems) {
    let sum = rows.iter().fold(0_i64, |sum, row| {
        sum.saturating_add(row.text(at::RESULT).parse::<i64>().unwrap_or(0))
    });
    if sum != 0 {
        let last = &rows[rows.len() - 1];
        problems.at(
            last,
            at::RESULT,
            format!(
                "round {round_id} (rows {} to {}) does not balance: its results sum to {sum}",
                rows[0].number, last.number
            ),
        );
    }
}

/// A points round's player as exported, in the shape it is stored in (what the engine settles
/// again, as the recompute check does); the column that does not read, and why, otherwise.
fn points_place(row: &Row) -> Result<PlaceRow, (usize, String)> {
    let text = |column: usize| opt(row, column).map(Cow::into_owned);
    let result = int(row, at::RESULT)
        .map_err(|e| (at::RESULT, e))?
        .ok_or_else(|| (at::RESULT, "a player's result is missing".to_owned()))?;
    let place = row
        .text(at::PLACE)
        .parse()
        .map_err(|e: UnknownPlace| (at::PLACE, format!("{:?} is {e}", row.text(at::PLACE))))?;
    let action = word(row.text(at::ACTION))
        .map_err(|e| (at::ACTION, e))?
        .ok_or_else(|| (at::ACTION, "a player's action is missing".to_owned()))?;
    let natural = word(row.text(at::NATURAL)).map_err(|e| (at::NATURAL, e))?;
    Ok(PlaceRow {
        place,
        action,
        dealt: text(at::DEALT),
        back: text(at::BACK),
        middle: text(at::MIDDLE),
        front: text(at::FRONT),
        result: Money::from_minor_units(result),
        natural,
        points: int(row, at::POINTS).map_err(|e| (at::POINTS, e))?,
        ..PlaceRow::default()
    })
}

/// Settles the points round of `rows` (its players' rows) again under `rules` and compares
/// each player's row with the engine's.
fn resettle_points(rows: &[Row], rules: &PointsProfile, round_id: &str, problems: &mut Problems) {
    let mut places = Vec::with_capacity(rows.len());
    for row in rows {
        match points_place(row) {
            Ok(place) => places.push(place),
            Err((column, message)) => {
                problems.at(row, column, message);
                return;
            }
        }
    }
    let again = match points_places_again(&places, rules) {
        Ok(again) => again,
        Err(error) => {
            problems.at(
                &rows[0],
                at::ACTION,
                format!("the engine refuses points round {round_id}: {error}"),
            );
            return;
        }
    };
    if again.len() != rows.len() {
        problems.at(
            &rows[0],
            at::PLACE,
            format!(
                "points round {round_id}: {} rows exported, the engine settles {} players",
                rows.len(),
                again.len()
            ),
        );
        return;
    }
    for (row, fresh) in rows.iter().zip(&again) {
        let mut check =
            |column: usize, engine: String| check_field(row, column, &engine, round_id, problems);
        check(at::RESULT, fresh.result.minor_units().to_string());
        check(
            at::FOULED,
            fresh.fouled.map(|f| f.to_string()).unwrap_or_default(),
        );
        check(at::FOUL, fresh.foul_reason.clone().unwrap_or_default());
        check(
            at::OUTCOME,
            fresh
                .outcome
                .map(PlaceOutcome::key)
                .unwrap_or_default()
                .to_owned(),
        );
        check(
            at::POINTS,
            fresh.points.map(|p| p.to_string()).unwrap_or_default(),
        );
        check(
            at::AGAINST,
            fresh.against.as_ref().map(against_text).unwrap_or_default(),
        );
        check(
            at::PUSOY,
            fresh.pusoy.map(|p| p.to_string()).unwrap_or_default(),
        );
        let names = [&fresh.back_name, &fresh.middle_name, &fresh.front_name];
        for (name, column) in names.into_iter().zip(at::BACK_NAME..at::BACK_NAME + 3) {
            check(column, name.clone().unwrap_or_default());
        }
    }
    check_balance(rows, round_id, problems);
}
