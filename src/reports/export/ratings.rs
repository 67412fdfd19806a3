//! The ratings export (docs/players.md, docs/exports.md): every rating begun in the range, with
//! its figures and the pauses and rounds they were computed from; and its check, which needs
//! no database: each rating's figures are worked out again from its rounds and pauses
//! (`rules::rating`), and a figure that differs is named by rating and field.
//!
//! The rows come rating by rating, each followed by its own:
//! - `rating`: the rating (`rating_id`), its player (`player_id`, `card_number`, `player_name`:
//!   no date of birth, identity document or notes), table, seat, currency, gaming day, start and
//!   end, and its figures: `seconds_played`, `hands`, `total_bet`, `average_bet`,
//!   `largest_bet`, `player_result`, `actual_win`, `theoretical_win` and
//!   `theoretical_complete` (every hand's house edge known), `bought_in` (the buy-ins at its
//!   seat while it ran, not voided) and `walked_with` (none while it runs);
//! - `pause`: a pause of it (`started_*` the player stepped away, `ended_*` came back; none
//!   while away);
//! - `round`: a round counted in it (`round_id`, `dealt_*` when it counts: a round entered
//!   again at the time of the round it replaced, `dealer_id`, the seat's `bet` and `result`
//!   (the player's), the house edge of its rule profile version `edge_ppm`, none while not
//!   computed).
//!
//! A rating made from an unrated observation (its player carded) names it in `observation_id`;
//! that observation's row names the rating in `rating_id`, with the player (`player_id`,
//! `card_number`, `player_name`); both rows say the carding's kind in `carding`: `running`
//! (carded while observed: the rating starts when the observation ends) or `ended` (carded
//! after it ended: the rating starts and ends as the observation did).
//!
//! After the ratings, every unrated observation begun in the range, each followed by its own:
//! - `observation`: a pit manager's observation of a player not carded (`observation_id`,
//!   `description`), its table, seat, currency, gaming day, start and end, `seconds_played`,
//!   `hands` (the rounds counted at its seat), `theoretical_complete`, `walked_with`, and its
//!   estimates: `estimated_average_bet` (as the pit manager typed it), `estimated_total_bet`
//!   and `estimated_theoretical_win`; `void_reason` when it is void;
//! - `observed_round`: a round its estimates count (`round_id`, `dealt_*`, `dealer_id`,
//!   `edge_ppm`, `observation_id`).
//!
//! A running rating's time is counted up to the manifest's `exported_at`. Amounts are in the
//! currency's minor units.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;

use crate::db::ids::{ObservationId, PlayerId, RatingId, TableId};
use crate::db::observations::{self as observation_rows, Observed};
use crate::db::players::{self as rows, PlayerRow, RatingRow, SeatRoundRow, StepRow};
use crate::rules::gaming_day::gaming_day;
use crate::rules::money::{Money, Total};
use crate::rules::rating::{estimate, figures, Dealt, Figures, SeatRound, Span};

use super::check::{Checker, Problems, Row};
use super::table::{ColumnKind, Field, Format, TableWriter};
use super::{heads, utc_text, ChainRecord, Clock, ExportError, Manifest, Query, Written};

use ColumnKind::{Bool, Int, Text};

/// The ratings export's own columns (between `row` and the row's sum).
pub const COLUMNS: &[(&str, ColumnKind)] = &[
    ("line", Text),
    ("rating_id", Int),
    ("player_id", Int),
    ("card_number", Text),
    ("player_name", Text),
    ("table", Text),
    ("seat", Int),
    ("currency", Text),
    ("gaming_day", Text),
    ("started_utc", Text),
    ("started_local", Text),
    ("ended_utc", Text),
    ("ended_local", Text),
    ("seconds_played", Int),
    ("hands", Int),
    ("total_bet", Int),
    ("average_bet", Int),
    ("largest_bet", Int),
    ("player_result", Int),
    ("actual_win", Int),
    ("theoretical_win", Int),
    ("theoretical_complete", Bool),
    ("bought_in", Int),
    ("walked_with", Int),
    ("round_id", Int),
    ("dealt_utc", Text),
    ("dealt_local", Text),
    ("dealer_id", Int),
    ("bet", Int),
    ("result", Int),
    ("edge_ppm", Int),
    ("observation_id", Int),
    ("description", Text),
    ("estimated_average_bet", Int),
    ("estimated_total_bet", Int),
    ("estimated_theoretical_win", Int),
    ("void_reason", Text),
    ("carding", Text),
];

/// Where each column is in a row (`row` is 0).
mod at {
    pub const LINE: usize = 1;
    pub const RATING_ID: usize = 2;
    pub const PLAYER_ID: usize = 3;
    pub const CARD_NUMBER: usize = 4;
    pub const PLAYER_NAME: usize = 5;
    pub const TABLE: usize = 6;
    pub const SEAT: usize = 7;
    pub const CURRENCY: usize = 8;
    pub const GAMING_DAY: usize = 9;
    pub const STARTED_UTC: usize = 10;
    pub const ENDED_UTC: usize = 12;
    pub const SECONDS_PLAYED: usize = 14;
    pub const HANDS: usize = 15;
    pub const TOTAL_BET: usize = 16;
    pub const AVERAGE_BET: usize = 17;
    pub const LARGEST_BET: usize = 18;
    pub const PLAYER_RESULT: usize = 19;
    pub const ACTUAL_WIN: usize = 20;
    pub const THEORETICAL_WIN: usize = 21;
    pub const THEORETICAL_COMPLETE: usize = 22;
    pub const ROUND_ID: usize = 25;
    pub const DEALT_UTC: usize = 26;
    pub const BET: usize = 29;
    pub const RESULT: usize = 30;
    pub const EDGE_PPM: usize = 31;
    pub const OBSERVATION_ID: usize = 32;
    pub const ESTIMATED_AVERAGE_BET: usize = 34;
    pub const ESTIMATED_TOTAL_BET: usize = 35;
    pub const ESTIMATED_THEORETICAL_WIN: usize = 36;
    pub const CARDING: usize = 38;
}

/// How many ratings are read and written at a time (the process holds their rounds).
const BATCH: usize = 500;

pub(super) fn export(
    conn: &mut PgConnection,
    query: &Query,
    clock: Clock,
    format: Format,
    out: impl Write,
    mut manifest: Manifest,
) -> Result<Written, ExportError> {
    let table = match &query.table {
        Some(code) => crate::db::export::tables(conn, Some(code))?
            .first()
            .map(|&(id, _)| TableId(id)),
        None => None,
    };
    let now = DateTime::parse_from_rfc3339(&manifest.exported_at)
        .map_err(|e| ExportError::Stored(format!("the export's own time: {e}")))?
        .with_timezone(&Utc);
    let head = heads(conn)?.remove(rows::PLAYERS_CHAIN);
    manifest.chains = head
        .into_iter()
        .map(|head| ChainRecord {
            chain: rows::PLAYERS_CHAIN.to_owned(),
            before: None,
            last: None,
            head,
            tail: Vec::new(),
        })
        .collect();
    let begun = rows::ratings_between(conn, query.from, query.to, table)?;
    let mut writer = TableWriter::new(format, COLUMNS, out)?;
    for batch in begun.chunks(BATCH) {
        write_batch(conn, batch, now, clock, &mut writer)?;
    }
    let observed = observation_rows::between(conn, query.from, query.to, table)?;
    for batch in observed.chunks(BATCH) {
        write_observations(conn, batch, now, clock, &mut writer)?;
    }
    let rows = writer.finish(manifest)?;
    Ok(Written { rows })
}

/// A figure as an integer field (a total beyond an `i64` is not a stored amount).
fn amount(total: Total, rating: RatingId) -> Result<Field, ExportError> {
    i64::try_from(total.0)
        .map(Field::Int)
        .map_err(|_| ExportError::Stored(format!("rating {rating}: a figure beyond 2^63")))
}

fn time(at: Option<DateTime<Utc>>, clock: Clock) -> [Field; 2] {
    match at {
        Some(at) => [Field::Text(utc_text(at)), Field::Text(clock.local(at))],
        None => [Field::Null, Field::Null],
    }
}

/// Writes these ratings, each with its pauses and the rounds its span covers.
fn write_batch<W: Write>(
    conn: &mut PgConnection,
    batch: &[RatingRow],
    now: DateTime<Utc>,
    clock: Clock,
    writer: &mut TableWriter<W>,
) -> Result<(), ExportError> {
    let ids: Vec<RatingId> = batch.iter().map(|r| r.id).collect();
    let step_rows = rows::steps(conn, &ids)?;
    let mut steps_of: HashMap<RatingId, Vec<&StepRow>> = HashMap::new();
    for step in &step_rows {
        steps_of.entry(step.rating_id).or_default().push(step);
    }
    let spans: Vec<Span> = batch
        .iter()
        .map(|r| {
            let steps = steps_of.get(&r.id).map_or(&[][..], Vec::as_slice);
            Span::from_steps(r.started_at, steps.iter().map(|s| (s.kind.as_str(), s.at)))
        })
        .collect();
    let ends: Vec<Option<DateTime<Utc>>> = spans.iter().map(|s| s.end).collect();
    let mut rounds_of: HashMap<RatingId, Vec<SeatRoundRow>> = HashMap::new();
    for round in rows::seat_rounds(conn, &ids, &ends)? {
        rounds_of
            .entry(RatingId(round.span_id))
            .or_default()
            .push(round);
    }
    let bought: HashMap<RatingId, i64> = rows::rated_buy_ins(conn, &ids, &ends)?
        .into_iter()
        .map(|b| (RatingId(b.rating_id), b.amount))
        .collect();
    let table_ids: BTreeSet<TableId> = batch.iter().map(|r| r.table_id).collect();
    let table_ids: Vec<TableId> = table_ids.into_iter().collect();
    let tables: HashMap<TableId, (String, String)> = rows::tables_of(conn, &table_ids)?
        .into_iter()
        .map(|(id, code, currency)| (id, (code, currency)))
        .collect();
    let carded_from: HashMap<RatingId, (ObservationId, String)> =
        observation_rows::cardings_of_ratings(conn, &ids)?
            .into_iter()
            .map(|c| (c.rating_id, (c.observation_id, c.kind)))
            .collect();
    let player_ids: BTreeSet<PlayerId> = batch.iter().map(|r| r.player_id).collect();
    let player_ids: Vec<PlayerId> = player_ids.into_iter().collect();
    // The card number and the name only: no date of birth, identity document or notes.
    let players: HashMap<PlayerId, (String, String)> = rows::players_of(conn, &player_ids)?
        .into_iter()
        .map(|p| {
            (
                p.id,
                (p.card_number, format!("{} {}", p.first_name, p.last_name)),
            )
        })
        .collect();
    for (rating, span) in batch.iter().zip(&spans) {
        let stored = || ExportError::Stored(format!("rating {}", rating.id));
        let (code, currency) = tables.get(&rating.table_id).ok_or_else(stored)?;
        let (card, name) = players.get(&rating.player_id).ok_or_else(stored)?;
        let counted: Vec<&SeatRoundRow> = rounds_of
            .get(&rating.id)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|r| span.covers(r.dealt_at))
            .collect();
        let seat_rounds: Vec<SeatRound> = counted
            .iter()
            .map(|r| SeatRound {
                at: r.dealt_at,
                bet: Money::from_minor_units(r.bet),
                result: Money::from_minor_units(r.result),
                edge_ppm: r.edge_ppm,
            })
            .collect();
        let f: Figures = figures(span, &seat_rounds, now);
        let walked_with = steps_of
            .get(&rating.id)
            .and_then(|s| s.iter().find_map(|s| s.walked_with));
        let [started_utc, started_local] = time(Some(rating.started_at), clock);
        let [ended_utc, ended_local] = time(span.end, clock);
        let id = Field::Int(rating.id.0);
        let table = Field::text(code.as_str());
        let seat = Field::Int(i64::from(rating.seat));
        let currency = Field::text(currency.as_str());
        writer.write(
            &[
                Field::text("rating"),
                id.clone(),
                Field::Int(rating.player_id.0),
                Field::text(card.as_str()),
                Field::text(name.as_str()),
                table.clone(),
                seat.clone(),
                currency.clone(),
                Field::Text(rating.gaming_day.to_string()),
                started_utc,
                started_local,
                ended_utc,
                ended_local,
                Field::Int(f.seconds_played),
                Field::Int(i64::from(f.hands)),
                amount(f.total_bet, rating.id)?,
                amount(f.average_bet, rating.id)?,
                Field::Int(f.largest_bet.minor_units()),
                amount(f.player_result, rating.id)?,
                amount(f.actual_win, rating.id)?,
                amount(f.theoretical_win, rating.id)?,
                Field::Bool(f.theoretical_complete),
                Field::Int(bought.get(&rating.id).copied().unwrap_or(0)),
                Field::opt_int(walked_with),
            ]
            .into_iter()
            .chain(std::iter::repeat_n(
                Field::Null,
                at::OBSERVATION_ID - at::ROUND_ID,
            ))
            .chain([Field::opt_int(
                carded_from.get(&rating.id).map(|(o, _)| o.0),
            )])
            .chain(std::iter::repeat_n(
                Field::Null,
                at::CARDING - 1 - at::OBSERVATION_ID,
            ))
            .chain([Field::opt_text(
                carded_from.get(&rating.id).map(|(_, kind)| kind.as_str()),
            )])
            .collect::<Vec<_>>(),
        )?;
        // The part of a row a pause or round repeats of its rating.
        let of_rating = |line: &str| {
            let mut fields = vec![
                Field::text(line),
                id.clone(),
                Field::Null,
                Field::Null,
                Field::Null,
                table.clone(),
                seat.clone(),
                currency.clone(),
                Field::Null,
            ];
            fields.reserve(COLUMNS.len() - fields.len());
            fields
        };
        for &(from, until) in &span.pauses {
            let mut fields = of_rating("pause");
            fields.extend(time(Some(from), clock));
            fields.extend(time(until, clock));
            fields.extend(std::iter::repeat_n(
                Field::Null,
                COLUMNS.len() - fields.len(),
            ));
            writer.write(&fields)?;
        }
        for round in counted {
            let mut fields = of_rating("round");
            round_fields(&mut fields, round, true, clock);
            fields.extend(std::iter::repeat_n(
                Field::Null,
                COLUMNS.len() - fields.len(),
            ));
            writer.write(&fields)?;
        }
    }
    Ok(())
}

/// A round's columns after a row's first ones: its id, when it was dealt, its dealer, the
/// seat's bet and result (none without `seat_bet`) and its edge.
fn round_fields(fields: &mut Vec<Field>, round: &SeatRoundRow, seat_bet: bool, clock: Clock) {
    fields.extend(std::iter::repeat_n(
        Field::Null,
        at::ROUND_ID - 1 - fields.len(),
    ));
    fields.push(Field::Int(round.round_id));
    fields.extend(time(Some(round.dealt_at), clock));
    fields.push(Field::Int(round.dealer_id.0));
    if seat_bet {
        fields.push(Field::Int(round.bet));
        fields.push(Field::Int(round.result));
    } else {
        fields.extend([Field::Null, Field::Null]);
    }
    fields.push(Field::opt_int(round.edge_ppm.map(i64::from)));
}

/// Writes these unrated observations, each with the rounds its estimates count.
fn write_observations<W: Write>(
    conn: &mut PgConnection,
    batch: &[Observed],
    now: DateTime<Utc>,
    clock: Clock,
    writer: &mut TableWriter<W>,
) -> Result<(), ExportError> {
    let ids: Vec<ObservationId> = batch.iter().map(|(o, _, _)| o.id).collect();
    let ends: Vec<Option<DateTime<Utc>>> = batch
        .iter()
        .map(|(_, end, _)| end.as_ref().map(|e| e.ended_at))
        .collect();
    let mut rounds_of: HashMap<i64, Vec<SeatRoundRow>> = HashMap::new();
    for round in observation_rows::observed_rounds(conn, &ids, &ends)? {
        rounds_of.entry(round.span_id).or_default().push(round);
    }
    // The player and the rating of each observation carded: the card number and the name only.
    let carded: HashMap<ObservationId, (RatingId, PlayerRow, String)> =
        observation_rows::cardings(conn, &ids)?
            .into_iter()
            .map(|(c, player)| (c.observation_id, (c.rating_id, player, c.kind)))
            .collect();
    let table_ids: BTreeSet<TableId> = batch.iter().map(|(o, _, _)| o.table_id).collect();
    let table_ids: Vec<TableId> = table_ids.into_iter().collect();
    let tables: HashMap<TableId, String> = rows::tables_of(conn, &table_ids)?
        .into_iter()
        .map(|(id, code, _)| (id, code))
        .collect();
    for ((o, end, void), ended) in batch.iter().zip(ends) {
        let code = tables
            .get(&o.table_id)
            .ok_or_else(|| ExportError::Stored(format!("observation {}", o.id)))?;
        let span = Span {
            start: o.started_at,
            pauses: Vec::new(),
            end: ended,
        };
        let counted: Vec<&SeatRoundRow> = rounds_of
            .get(&o.id.0)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|r| span.covers(r.dealt_at))
            .collect();
        let dealt: Vec<Dealt> = counted.iter().map(|r| (r.dealt_at, r.edge_ppm)).collect();
        let f = estimate(
            o.started_at,
            ended,
            Money::from_minor_units(o.average_bet),
            &dealt,
            now,
        );
        let amount = |total: Total| {
            i64::try_from(total.0)
                .map(Field::Int)
                .map_err(|_| ExportError::Stored(format!("observation {}: beyond 2^63", o.id)))
        };
        let of_observation = |line: &str| {
            vec![
                Field::text(line),
                Field::Null,
                Field::Null,
                Field::Null,
                Field::Null,
                Field::text(code.as_str()),
                Field::Int(i64::from(o.seat)),
                Field::text(o.currency.as_str()),
            ]
        };
        let mut fields = of_observation("observation");
        if let Some((rating, player, _)) = carded.get(&o.id) {
            fields[at::RATING_ID - 1] = Field::Int(rating.0);
            fields[at::PLAYER_ID - 1] = Field::Int(player.id.0);
            fields[at::CARD_NUMBER - 1] = Field::text(player.card_number.as_str());
            fields[at::PLAYER_NAME - 1] =
                Field::Text(format!("{} {}", player.first_name, player.last_name));
        }
        fields.push(Field::Text(o.gaming_day.to_string()));
        fields.extend(time(Some(o.started_at), clock));
        fields.extend(time(ended, clock));
        fields.push(Field::Int(f.seconds_played));
        fields.push(Field::Int(i64::from(f.hands)));
        fields.extend(std::iter::repeat_n(
            Field::Null,
            at::THEORETICAL_COMPLETE - 1 - fields.len(),
        ));
        fields.push(Field::Bool(f.theoretical_complete));
        fields.push(Field::Null);
        fields.push(Field::opt_int(end.as_ref().and_then(|e| e.walked_with)));
        fields.extend(std::iter::repeat_n(
            Field::Null,
            at::OBSERVATION_ID - 1 - fields.len(),
        ));
        fields.push(Field::Int(o.id.0));
        fields.push(Field::text(o.description.as_str()));
        fields.push(Field::Int(o.average_bet));
        fields.push(amount(f.total_bet)?);
        fields.push(amount(f.theoretical_win)?);
        fields.push(Field::opt_text(void.as_ref().map(|v| v.reason.as_str())));
        fields.push(Field::opt_text(
            carded.get(&o.id).map(|(_, _, kind)| kind.as_str()),
        ));
        writer.write(&fields)?;
        for round in counted {
            let mut fields = of_observation("observed_round");
            // The seat's bet and result are the player's, whom the rounds do not know.
            round_fields(&mut fields, round, false, clock);
            fields.push(Field::Int(o.id.0));
            fields.extend(std::iter::repeat_n(
                Field::Null,
                COLUMNS.len() - fields.len(),
            ));
            writer.write(&fields)?;
        }
    }
    Ok(())
}

/// A rating as its rows tell it, until the next rating begins.
struct RatingSeen {
    row: Row,
    id: i64,
    span: Option<Span>,
    rounds: Vec<SeatRound>,
    /// Its rounds' ids, and the row each is on.
    round_ids: BTreeMap<i64, u64>,
}

/// Checks a ratings export: each row's fields, and each rating's figures against its pauses
/// and rounds when its rows end.
pub(super) struct RatingsCheck {
    from: NaiveDate,
    to: NaiveDate,
    table: Option<String>,
    /// When the export was read: a running rating's time runs to it.
    now: Option<DateTime<Utc>>,
    open: Option<RatingSeen>,
    seen: BTreeSet<i64>,
    observed: Option<ObservationSeen>,
    observations_seen: BTreeSet<i64>,
    /// The ratings that go on from an observation, by id, and the observations carded as a
    /// rating: each side's row, and the id it names on the other side.
    carded_ratings: BTreeMap<i64, (Row, i64)>,
    carded_observations: BTreeMap<i64, (Row, i64)>,
    /// The casino's clock (none: the manifest's does not read): a carding's gaming day.
    clock: Option<Clock>,
}

/// An unrated observation as its rows tell it, until the next observation or rating.
struct ObservationSeen {
    row: Row,
    id: i64,
    start: Option<DateTime<Utc>>,
    /// Its end (none while it runs), if it reads.
    end: Option<Option<DateTime<Utc>>>,
    average_bet: Option<i64>,
    dealt: Vec<Dealt>,
    /// Its rounds' ids, and the row each is on.
    round_ids: BTreeMap<i64, u64>,
}

/// A row's time column, or the problem with it.
fn time_at(row: &Row, column: usize, problems: &mut Problems) -> Option<DateTime<Utc>> {
    match DateTime::parse_from_rfc3339(row.text(column)) {
        Ok(at) => Some(at.with_timezone(&Utc)),
        Err(_) => {
            problems.at(
                row,
                column,
                format!("{:?} is not a time in UTC", row.text(column)),
            );
            None
        }
    }
}

/// A row's integer column, or the problem with it.
fn int_at(row: &Row, column: usize, problems: &mut Problems) -> Option<i64> {
    match row.text(column).parse::<i64>() {
        Ok(n) => Some(n),
        Err(_) => {
            problems.at(
                row,
                column,
                format!("{:?} is not a whole number", row.text(column)),
            );
            None
        }
    }
}

/// A row's house edge (none: not computed), or the problem with it.
fn edge_at(row: &Row, problems: &mut Problems) -> Option<Option<i32>> {
    match row.text(at::EDGE_PPM) {
        "" => Some(None),
        text => match text.parse::<i32>() {
            Ok(edge) => Some(Some(edge)),
            Err(_) => {
                problems.at(
                    row,
                    at::EDGE_PPM,
                    format!("{text:?} is not parts per million"),
                );
                None
            }
        },
    }
}

impl RatingsCheck {
    pub(super) fn new(manifest: &Manifest) -> RatingsCheck {
        RatingsCheck {
            from: manifest.query.from,
            to: manifest.query.to,
            table: manifest.query.table.clone(),
            now: DateTime::parse_from_rfc3339(&manifest.exported_at)
                .ok()
                .map(|at| at.with_timezone(&Utc)),
            open: None,
            seen: BTreeSet::new(),
            observed: None,
            observations_seen: BTreeSet::new(),
            carded_ratings: BTreeMap::new(),
            carded_observations: BTreeMap::new(),
            clock: manifest
                .utc_offset
                .parse::<chrono::FixedOffset>()
                .ok()
                .zip(chrono::NaiveTime::parse_from_str(&manifest.gaming_day_start, "%H:%M").ok())
                .map(|(utc_offset, gaming_day_start)| Clock {
                    utc_offset,
                    gaming_day_start,
                }),
        }
    }

    /// A row's id in `column` when it names one (empty: none), or the problem with it.
    fn named(row: &Row, column: usize, problems: &mut Problems) -> Option<i64> {
        match row.text(column) {
            "" => None,
            _ => int_at(row, column, problems),
        }
    }

    /// Whether a carded observation's row and its rating's hold the shape of their carding's
    /// kind: both name it; `running`, the rating starts when the observation ends; `ended`,
    /// the rating starts and ends as the observation did.
    fn check_carding_kind(
        &self,
        observation: i64,
        o_row: &Row,
        rating: i64,
        r_row: &Row,
        problems: &mut Problems,
    ) {
        let kind = o_row.text(at::CARDING);
        if !matches!(kind, "running" | "ended") {
            problems.at(
                o_row,
                at::CARDING,
                format!("observation {observation}: {kind:?} is not a kind of carding"),
            );
            return;
        }
        if r_row.text(at::CARDING) != kind {
            problems.at(
                r_row,
                at::CARDING,
                format!(
                    "rating {rating} goes on from observation {observation}, whose row says \
                     {kind:?}"
                ),
            );
            return;
        }
        let time = |row: &Row, column: usize| DateTime::parse_from_rfc3339(row.text(column)).ok();
        let held: &[(usize, usize, &str)] = if kind == "running" {
            &[(at::STARTED_UTC, at::ENDED_UTC, "ends")]
        } else {
            &[
                (at::STARTED_UTC, at::STARTED_UTC, "starts"),
                (at::ENDED_UTC, at::ENDED_UTC, "ends"),
            ]
        };
        for &(r_column, o_column, does) in held {
            if let (Some(r_at), Some(o_at)) = (time(r_row, r_column), time(o_row, o_column)) {
                if r_at != o_at {
                    let starts = if r_column == at::STARTED_UTC {
                        "starts"
                    } else {
                        "ends"
                    };
                    problems.at(
                        r_row,
                        r_column,
                        format!(
                            "rating {rating} {starts} at {r_at}, and observation {observation} \
                             it was carded from ({kind}) {does} at {o_at}: the time between \
                             them is lost or counted twice"
                        ),
                    );
                }
            } else if kind == "ended" && r_row.text(r_column).is_empty() {
                problems.at(
                    r_row,
                    r_column,
                    format!(
                        "rating {rating} was carded from observation {observation} after it \
                         ended, and has no end"
                    ),
                );
            }
        }
    }

    /// Whether each observation carded and the rating it goes on as say the same of each other:
    /// they name each other, at one table, seat and currency, for one player, the rating
    /// holding the shape of the carding's kind; and a rating begun in the range is in the file.
    fn check_cardings(&self, problems: &mut Problems) {
        for (&observation, (o_row, rating)) in &self.carded_observations {
            match self.carded_ratings.get(rating) {
                Some((r_row, named)) if *named == observation => {
                    for column in [
                        at::TABLE,
                        at::SEAT,
                        at::CURRENCY,
                        at::PLAYER_ID,
                        at::CARD_NUMBER,
                        at::PLAYER_NAME,
                    ] {
                        if r_row.text(column) != o_row.text(column) {
                            problems.at(
                                r_row,
                                column,
                                format!(
                                    "rating {rating} goes on from observation {observation}, \
                                     whose row says {:?}",
                                    o_row.text(column)
                                ),
                            );
                        }
                    }
                    self.check_carding_kind(observation, o_row, *rating, r_row, problems);
                }
                Some((_, named)) => problems.at(
                    o_row,
                    at::RATING_ID,
                    format!(
                        "observation {observation} is carded as rating {rating}, which goes on \
                         from observation {named}"
                    ),
                ),
                None if self.seen.contains(rating) => problems.at(
                    o_row,
                    at::RATING_ID,
                    format!(
                        "observation {observation} is carded as rating {rating}, whose row \
                         names no observation"
                    ),
                ),
                None => {
                    // A rating carded after the observation ended begins when it began.
                    let from = match o_row.text(at::CARDING) {
                        "ended" => at::STARTED_UTC,
                        _ => at::ENDED_UTC,
                    };
                    let begun = DateTime::parse_from_rfc3339(o_row.text(from))
                        .ok()
                        .zip(self.clock)
                        .map(|(end, clock)| {
                            gaming_day(
                                end.with_timezone(&Utc),
                                clock.utc_offset,
                                clock.gaming_day_start,
                            )
                        });
                    if let Some(day) = begun.filter(|day| (self.from..=self.to).contains(day)) {
                        problems.at(
                            o_row,
                            at::RATING_ID,
                            format!(
                                "observation {observation} is carded as rating {rating}, begun \
                                 on {day} in the range, which the file does not hold"
                            ),
                        );
                    }
                }
            }
        }
        for (&rating, (r_row, observation)) in &self.carded_ratings {
            match self.carded_observations.get(observation) {
                Some((_, named)) if *named == rating => {}
                Some((_, named)) => problems.at(
                    r_row,
                    at::OBSERVATION_ID,
                    format!(
                        "rating {rating} goes on from observation {observation}, which is \
                         carded as rating {named}"
                    ),
                ),
                None if self.observations_seen.contains(observation) => problems.at(
                    r_row,
                    at::OBSERVATION_ID,
                    format!(
                        "rating {rating} goes on from observation {observation}, whose row \
                         names no rating"
                    ),
                ),
                // The observation began before the range.
                None => {}
            }
        }
    }

    /// Whether a rating's or an observation's row is of the query: its gaming day in the
    /// range, its table the query's.
    fn of_query(&self, row: &Row, problems: &mut Problems) {
        match row.text(at::GAMING_DAY).parse::<NaiveDate>() {
            Ok(day) if day < self.from || day > self.to => problems.at(
                row,
                at::GAMING_DAY,
                format!("{day} is outside the range {} to {}", self.from, self.to),
            ),
            Ok(_) => {}
            Err(_) => problems.at(
                row,
                at::GAMING_DAY,
                format!("{:?} is not a date", row.text(at::GAMING_DAY)),
            ),
        }
        if let Some(table) = &self.table {
            if row.text(at::TABLE) != table {
                problems.at(row, at::TABLE, format!("the export is of table {table}"));
            }
        }
    }

    fn begin_observation(&mut self, row: Row, problems: &mut Problems) {
        let id = int_at(&row, at::OBSERVATION_ID, problems).unwrap_or(0);
        if !self.observations_seen.insert(id) {
            problems.at(
                &row,
                at::OBSERVATION_ID,
                format!("observation {id} is written twice"),
            );
        }
        self.of_query(&row, problems);
        if row.text(at::TABLE).is_empty() {
            problems.at(&row, at::TABLE, format!("observation {id} names no table"));
        }
        let start = time_at(&row, at::STARTED_UTC, problems);
        let end = match row.text(at::ENDED_UTC) {
            "" => Some(None),
            _ => time_at(&row, at::ENDED_UTC, problems).map(Some),
        };
        if let (Some(start), Some(Some(end))) = (start, end) {
            if end < start {
                problems.at(
                    &row,
                    at::ENDED_UTC,
                    format!("observation {id} ends before it starts"),
                );
            }
        }
        if let Some(rating) = Self::named(&row, at::RATING_ID, problems) {
            if matches!(end, Some(None)) {
                problems.at(
                    &row,
                    at::ENDED_UTC,
                    format!("observation {id} is carded as rating {rating} and has no end"),
                );
            }
            if let Some((first, _)) = self
                .carded_observations
                .values()
                .find(|(_, named)| *named == rating)
            {
                problems.at(
                    &row,
                    at::RATING_ID,
                    format!(
                        "rating {rating} goes on from two observations (row {} too)",
                        first.number
                    ),
                );
            }
            self.carded_observations.insert(id, (row.clone(), rating));
        }
        let average_bet = int_at(&row, at::ESTIMATED_AVERAGE_BET, problems);
        if average_bet.is_some_and(|bet| bet <= 0) {
            problems.at(
                &row,
                at::ESTIMATED_AVERAGE_BET,
                format!("observation {id}: an estimated average bet not above zero"),
            );
        }
        self.observed = Some(ObservationSeen {
            row,
            id,
            start,
            end,
            average_bet,
            dealt: Vec::new(),
            round_ids: BTreeMap::new(),
        });
    }

    /// An observed round: it follows its observation's row with the same table, seat and
    /// currency, falls in its time, and is counted once.
    fn observed_round(&mut self, row: &Row, problems: &mut Problems) {
        let round = int_at(row, at::ROUND_ID, problems).unwrap_or(0);
        let dealt = time_at(row, at::DEALT_UTC, problems);
        let edge = edge_at(row, problems);
        let id = row.text(at::OBSERVATION_ID);
        let Some(o) = self.observed.as_mut().filter(|o| o.id.to_string() == id) else {
            problems.at(
                row,
                at::OBSERVATION_ID,
                format!("a round of observation {id}, whose row it does not follow"),
            );
            return;
        };
        for column in [at::TABLE, at::SEAT, at::CURRENCY] {
            if row.text(column) != o.row.text(column) {
                problems.at(
                    row,
                    column,
                    format!("observation {id} says {:?}", o.row.text(column)),
                );
            }
        }
        if let Some(first) = o.round_ids.insert(round, row.number) {
            problems.at(
                row,
                at::ROUND_ID,
                format!("observation {id} counts round {round} twice (row {first} too)"),
            );
        }
        if let (Some(start), Some(end), Some(dealt)) = (o.start, o.end, dealt) {
            if dealt < start || end.is_some_and(|end| dealt >= end) {
                problems.at(
                    row,
                    at::DEALT_UTC,
                    format!("round {round} is outside observation {id}'s time"),
                );
            }
        }
        if let (Some(dealt), Some(edge)) = (dealt, edge) {
            o.dealt.push((dealt, edge));
        }
    }

    /// Works out an observation's estimates again from its rows and names each that differs.
    fn close_observation(&mut self, problems: &mut Problems) {
        let Some(o) = self.observed.take() else {
            return;
        };
        let (Some(start), Some(end), Some(bet)) = (o.start, o.end, o.average_bet) else {
            return;
        };
        let f = estimate(
            start,
            end,
            Money::from_minor_units(bet),
            &o.dealt,
            self.now.unwrap_or(start),
        );
        let expected: [(usize, String); 5] = [
            (at::HANDS, f.hands.to_string()),
            (at::ESTIMATED_TOTAL_BET, f.total_bet.0.to_string()),
            (
                at::ESTIMATED_THEORETICAL_WIN,
                f.theoretical_win.0.to_string(),
            ),
            (at::THEORETICAL_COMPLETE, f.theoretical_complete.to_string()),
            (at::SECONDS_PLAYED, f.seconds_played.to_string()),
        ];
        for (column, value) in expected {
            if o.row.text(column) != value {
                problems.at(
                    &o.row,
                    column,
                    format!(
                        "observation {}: its {} round(s) make {value}, the row says {}",
                        o.id,
                        o.dealt.len(),
                        o.row.text(column)
                    ),
                );
            }
        }
    }

    fn begin(&mut self, row: Row, problems: &mut Problems) {
        let id = int_at(&row, at::RATING_ID, problems).unwrap_or(0);
        if !self.seen.insert(id) {
            problems.at(&row, at::RATING_ID, format!("rating {id} is written twice"));
        }
        self.of_query(&row, problems);
        if let Some(observation) = Self::named(&row, at::OBSERVATION_ID, problems) {
            self.carded_ratings.insert(id, (row.clone(), observation));
        }
        let start = time_at(&row, at::STARTED_UTC, problems);
        let end = match row.text(at::ENDED_UTC) {
            "" => Some(None),
            _ => time_at(&row, at::ENDED_UTC, problems).map(Some),
        };
        let span = match (start, end) {
            (Some(start), Some(end)) => {
                if end.is_some_and(|end| end < start) {
                    problems.at(
                        &row,
                        at::ENDED_UTC,
                        format!("rating {id} ends before it starts"),
                    );
                }
                Some(Span {
                    start,
                    pauses: Vec::new(),
                    end,
                })
            }
            _ => None,
        };
        self.open = Some(RatingSeen {
            row,
            id,
            span,
            rounds: Vec::new(),
            round_ids: BTreeMap::new(),
        });
    }

    /// The rating a pause or round row belongs to: the one its rows follow, with the same
    /// table, seat and currency.
    fn of_open<'a>(
        open: &'a mut Option<RatingSeen>,
        row: &Row,
        problems: &mut Problems,
    ) -> Option<&'a mut RatingSeen> {
        let id = row.text(at::RATING_ID);
        let Some(rating) = open.as_mut().filter(|r| r.id.to_string() == id) else {
            problems.at(
                row,
                at::RATING_ID,
                format!(
                    "a {} of rating {id}, whose row it does not follow",
                    row.text(at::LINE)
                ),
            );
            return None;
        };
        for column in [at::TABLE, at::SEAT, at::CURRENCY] {
            if row.text(column) != rating.row.text(column) {
                problems.at(
                    row,
                    column,
                    format!("rating {id} says {:?}", rating.row.text(column)),
                );
            }
        }
        Some(rating)
    }

    /// Works out a rating's figures again from its rows and names each that differs.
    fn close(&mut self, problems: &mut Problems) {
        let Some(rating) = self.open.take() else {
            return;
        };
        let Some(span) = rating.span else {
            return;
        };
        let rounds = rating.rounds;
        let now = self.now.unwrap_or(span.start);
        let f = figures(&span, &rounds, now);
        let row = &rating.row;
        let expected: [(usize, String); 9] = [
            (at::HANDS, f.hands.to_string()),
            (at::TOTAL_BET, f.total_bet.0.to_string()),
            (at::AVERAGE_BET, f.average_bet.0.to_string()),
            (at::LARGEST_BET, f.largest_bet.minor_units().to_string()),
            (at::PLAYER_RESULT, f.player_result.0.to_string()),
            (at::ACTUAL_WIN, f.actual_win.0.to_string()),
            (at::THEORETICAL_WIN, f.theoretical_win.0.to_string()),
            (at::THEORETICAL_COMPLETE, f.theoretical_complete.to_string()),
            (at::SECONDS_PLAYED, f.seconds_played.to_string()),
        ];
        for (column, value) in expected {
            if row.text(column) != value {
                problems.at(
                    row,
                    column,
                    format!(
                        "rating {}: its {} round(s) and pauses make {value}, the row says {}",
                        rating.id,
                        rounds.len(),
                        row.text(column)
                    ),
                );
            }
        }
    }
}

impl Checker for RatingsCheck {
    fn row(&mut self, row: Row, problems: &mut Problems) {
        match row.text(at::LINE) {
            "rating" => {
                self.close(problems);
                self.close_observation(problems);
                self.begin(row, problems);
            }
            "observation" => {
                self.close(problems);
                self.close_observation(problems);
                self.begin_observation(row, problems);
            }
            "observed_round" => self.observed_round(&row, problems),
            "pause" => {
                let from = time_at(&row, at::STARTED_UTC, problems);
                let until = match row.text(at::ENDED_UTC) {
                    "" => Some(None),
                    _ => time_at(&row, at::ENDED_UTC, problems).map(Some),
                };
                if let Some(rating) = Self::of_open(&mut self.open, &row, problems) {
                    if let (Some(span), Some(from), Some(until)) =
                        (rating.span.as_mut(), from, until)
                    {
                        if from < span.start || until.is_some_and(|until| until < from) {
                            problems.at(
                                &row,
                                at::STARTED_UTC,
                                format!("a pause of rating {} out of its time", rating.id),
                            );
                        }
                        span.pauses.push((from, until));
                    }
                }
            }
            "round" => {
                let id = int_at(&row, at::ROUND_ID, problems).unwrap_or(0);
                let dealt = time_at(&row, at::DEALT_UTC, problems);
                let bet = int_at(&row, at::BET, problems);
                let result = int_at(&row, at::RESULT, problems);
                let edge_ppm = edge_at(&row, problems);
                if bet.is_some_and(|bet| bet < 0) {
                    problems.at(&row, at::BET, "a bet below zero".to_owned());
                }
                if let Some(rating) = Self::of_open(&mut self.open, &row, problems) {
                    if let Some(first) = rating.round_ids.insert(id, row.number) {
                        problems.at(
                            &row,
                            at::ROUND_ID,
                            format!(
                                "rating {} counts round {id} twice (row {first} too)",
                                rating.id
                            ),
                        );
                    }
                    // Its pauses come before its rounds: whether the round is the player's is
                    // known here.
                    if let (Some(span), Some(dealt)) = (&rating.span, dealt) {
                        if !span.covers(dealt) {
                            problems.at(
                                &row,
                                at::DEALT_UTC,
                                format!(
                                    "round {id} is outside rating {}'s time or in one of its \
                                     pauses",
                                    rating.id
                                ),
                            );
                        }
                    }
                    if let (Some(at), Some(bet), Some(result), Some(edge_ppm)) =
                        (dealt, bet, result, edge_ppm)
                    {
                        rating.rounds.push(SeatRound {
                            at,
                            bet: Money::from_minor_units(bet),
                            result: Money::from_minor_units(result),
                            edge_ppm,
                        });
                    }
                }
            }
            other => problems.at(
                &row,
                at::LINE,
                format!("{other:?} is not a line of this export"),
            ),
        }
    }

    fn finish(&mut self, problems: &mut Problems) {
        self.close(problems);
        self.close_observation(problems);
        self.check_cardings(problems);
    }
}
