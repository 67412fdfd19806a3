//! Ratings at the tables (docs/players.md, "Rating at the table"): a carded player seated at a
//! seat, away and back, and leaving with the chips they walk with; a rating's figures computed
//! from the rounds settled at that seat while they sat (`rules::rating`). Seating an excluded
//! player is refused with the reason, recorded for the pit board and audited.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use serde_json::json;

use crate::accounting::drop::{day_open, locked_table, recording_shift, DropTable, Stop};
use crate::accounting::record::{attempt, Refusal};
use crate::accounting::slips::Me;
use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::handle::Db;
use crate::db::ids::{ObservationId, PlayerId, RatingId, TableId, UserId};
use crate::db::observations::{self as observation_rows, ObservationRow};
use crate::db::players::{
    self as rows, NewRating, NewRefusal, NewStep, PlayerRow, RatingRow, StepRow,
};
use crate::players::{event, observes, status_of, FormRefusal};
use crate::rules::drop::{self as arithmetic, LARGEST};
use crate::rules::money::Money;
use crate::rules::rating::{figures, Figures, SeatRound, Span};

/// A rating with its figures, as a player's page and the reports show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    pub id: RatingId,
    pub player: PlayerId,
    pub table_id: TableId,
    pub table_code: String,
    pub currency: String,
    pub seat: u8,
    pub gaming_day: NaiveDate,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub paused: bool,
    pub walked_with: Option<Money>,
    /// The buy-ins recorded at the seat while the rating ran (not voided).
    pub bought_in: Money,
    pub figures: Figures,
    /// The same rounds split by the dealer who dealt them, in the dealers' order (a rating
    /// can span a dealer's break); their time played is the whole rating's.
    pub by_dealer: Vec<(UserId, Figures)>,
}

/// A player seated at a table, as its screen shows them to the dealer: the card number and the
/// first name only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seated {
    pub seat: u8,
    pub rating: RatingId,
    pub card_number: String,
    pub first_name: String,
    pub since: DateTime<Utc>,
    pub paused: bool,
}

/// The span of a rating from its steps.
fn span_of(row: &RatingRow, steps: &[&StepRow]) -> Span {
    Span::from_steps(
        row.started_at,
        steps.iter().map(|s| (s.kind.as_str(), s.at)),
    )
}

/// These ratings with their figures and buy-ins at `now`, in the order given: five queries
/// however many.
pub(crate) fn rated(
    conn: &mut PgConnection,
    rows_in: Vec<RatingRow>,
    now: DateTime<Utc>,
) -> Result<Vec<Rating>, AccountingError> {
    let ids: Vec<RatingId> = rows_in.iter().map(|r| r.id).collect();
    let step_rows = rows::steps(conn, &ids)?;
    let mut steps_of: HashMap<RatingId, Vec<&StepRow>> = HashMap::new();
    for step in &step_rows {
        steps_of.entry(step.rating_id).or_default().push(step);
    }
    let spans: Vec<Span> = rows_in
        .iter()
        .map(|r| span_of(r, steps_of.get(&r.id).map_or(&[][..], Vec::as_slice)))
        .collect();
    let ends: Vec<Option<DateTime<Utc>>> = spans.iter().map(|s| s.end).collect();
    let mut rounds_of: HashMap<RatingId, Vec<(UserId, SeatRound)>> = HashMap::new();
    for r in rows::seat_rounds(conn, &ids, &ends)? {
        rounds_of.entry(RatingId(r.span_id)).or_default().push((
            r.dealer_id,
            SeatRound {
                at: r.dealt_at,
                bet: Money::from_minor_units(r.bet),
                result: Money::from_minor_units(r.result),
                edge_ppm: r.edge_ppm,
            },
        ));
    }
    let bought: HashMap<RatingId, i64> = rows::rated_buy_ins(conn, &ids, &ends)?
        .into_iter()
        .map(|b| (RatingId(b.rating_id), b.amount))
        .collect();
    let mut table_ids: Vec<TableId> = rows_in.iter().map(|r| r.table_id).collect();
    table_ids.sort();
    table_ids.dedup();
    let tables: HashMap<TableId, (String, String)> = rows::tables_of(conn, &table_ids)?
        .into_iter()
        .map(|(id, code, currency)| (id, (code, currency)))
        .collect();
    rows_in
        .into_iter()
        .zip(spans)
        .map(|(row, span)| {
            let (code, currency) = tables
                .get(&row.table_id)
                .cloned()
                .ok_or_else(|| AccountingError::BadStored(format!("rating {}", row.id)))?;
            let walked_with = steps_of
                .get(&row.id)
                .and_then(|s| s.iter().find_map(|s| s.walked_with))
                .map(Money::from_minor_units);
            let dealt = rounds_of.get(&row.id).map_or(&[][..], Vec::as_slice);
            let rounds: Vec<SeatRound> = dealt.iter().map(|&(_, round)| round).collect();
            let f = figures(&span, &rounds, now);
            let mut dealers: Vec<UserId> = dealt.iter().map(|&(dealer, _)| dealer).collect();
            dealers.sort();
            dealers.dedup();
            let by_dealer = dealers
                .into_iter()
                .map(|dealer| {
                    let theirs: Vec<SeatRound> = dealt
                        .iter()
                        .filter(|&&(d, _)| d == dealer)
                        .map(|&(_, round)| round)
                        .collect();
                    (dealer, figures(&span, &theirs, now))
                })
                .filter(|(_, f)| f.hands > 0)
                .collect();
            Ok(Rating {
                id: row.id,
                player: row.player_id,
                table_id: row.table_id,
                table_code: code,
                currency,
                seat: u8::try_from(row.seat)
                    .map_err(|_| AccountingError::BadStored(format!("rating {}", row.id)))?,
                gaming_day: row.gaming_day,
                started_at: row.started_at,
                ended_at: span.end,
                paused: span.pauses.last().is_some_and(|p| p.1.is_none()),
                walked_with,
                bought_in: Money::from_minor_units(bought.get(&row.id).copied().unwrap_or(0)),
                figures: f,
                by_dealer,
            })
        })
        .collect()
}

/// The players seated at a table, by seat, in the caller's turn of the database (the table
/// screen shows them).
pub fn seated_at(conn: &mut PgConnection, table: TableId) -> Result<Vec<Seated>, AccountingError> {
    let open = rows::open_at_table(conn, table)?;
    let ids: Vec<RatingId> = open.iter().map(|(r, _)| r.id).collect();
    let steps = rows::steps(conn, &ids)?;
    open.into_iter()
        .map(|(rating, player)| {
            let last = steps.iter().rfind(|s| s.rating_id == rating.id);
            Ok(Seated {
                seat: u8::try_from(rating.seat)
                    .map_err(|_| AccountingError::BadStored(format!("rating {}", rating.id)))?,
                rating: rating.id,
                card_number: player.card_number,
                first_name: player.first_name,
                since: rating.started_at,
                paused: last.is_some_and(|s| s.kind == "pause"),
            })
        })
        .collect()
}

/// The table `code`, locked, on an open day, where `me` may record (the dealer on shift there,
/// a pit manager or an administrator), and the seat typed.
fn table_and_seat(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    seat: &str,
    me: &Me,
) -> Result<(DropTable, u8), Stop> {
    let table = locked_table(conn, code)?;
    day_open(conn, day)?;
    recording_shift(conn, &table, me, "rating")?;
    let seat =
        arithmetic::seat(table.game, seat).map_err(|err| Stop::Field("seat", err.to_string()))?;
    Ok((table, seat))
}

/// A refusal of a change that wrote nothing, as the form's answer.
fn form_refusal((field, reason): Refusal) -> FormRefusal {
    FormRefusal { field, reason }
}

/// A card number as typed, as it is stored: without spaces and dashes, in capitals.
pub(crate) fn card_number(typed: &str) -> String {
    typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_uppercase()
}

/// The player with card `card` (as stored), locked until the transaction ends so a status and
/// a seating of theirs take turns; none: nobody has it.
pub(crate) fn player_of_card(
    conn: &mut PgConnection,
    card: &str,
) -> Result<Option<PlayerRow>, AccountingError> {
    let Some(found) = rows::by_card(conn, card)? else {
        return Ok(None);
    };
    Ok(Some(rows::lock_player(conn, found.id)?.unwrap_or(found)))
}

/// A self-excluded or barred player refused a seat: the refusal is recorded for the pit board
/// and audited (`player.seat_refused`), and these are its words. None: the player is active.
/// The caller commits what this wrote, and writes nothing else.
pub(crate) fn refuse_excluded(
    conn: &mut PgConnection,
    me: &Me,
    player: &PlayerRow,
    table: &DropTable,
    seat: u8,
    day: NaiveDate,
) -> Result<Option<String>, AccountingError> {
    let status = status_of(rows::current_status(conn, player.id)?.as_ref())?;
    if !status.excluded() {
        return Ok(None);
    }
    let refused = rows::insert_refusal(
        conn,
        &NewRefusal {
            player_id: player.id,
            table_id: table.id,
            seat: i16::from(seat),
            gaming_day: day,
            status: status.as_str(),
            refused_by: me.id,
        },
    )?;
    event(
        conn,
        me,
        AuditAction::PlayerSeatRefused,
        player.id,
        day,
        Some(table.id),
        json!({
            "player": player.id,
            "refusal": refused.id,
            "table": table.code,
            "seat": seat,
            "status": status.as_str(),
        }),
    )?;
    Ok(Some(format!(
        "Do not seat card {}: {} is {}. A pit manager has been alerted.",
        player.card_number,
        player.first_name,
        status.title().to_lowercase()
    )))
}

/// Refuses a rating of `player` at seat `seat` of `table` while the seat has a rated player,
/// or the player is rated at another seat.
pub(crate) fn seat_free(
    conn: &mut PgConnection,
    player: &PlayerRow,
    table: &DropTable,
    seat: u8,
) -> Result<(), AccountingError> {
    if let Some(there) = rows::open_at(conn, table.id, i16::from(seat))? {
        return Err(AccountingError::Refused(format!(
            "Seat {seat} has a rated player already (rating {}): end it first.",
            there.id
        )));
    }
    if let Some(elsewhere) = rows::open_of(conn, player.id)? {
        return Err(AccountingError::Refused(format!(
            "{} is rated at another seat (rating {}): end that rating first.",
            player.first_name, elsewhere.id
        )));
    }
    Ok(())
}

/// Starts a rating of `player` at seat `seat` of `table`, from `at` (none: now), and writes
/// `rating.started` (naming the observation it goes on from, if one).
#[allow(clippy::too_many_arguments)]
pub(crate) fn start(
    conn: &mut PgConnection,
    me: &Me,
    player: &PlayerRow,
    table: &DropTable,
    seat: u8,
    day: NaiveDate,
    at: Option<DateTime<Utc>>,
    from: Option<ObservationId>,
) -> Result<RatingRow, AccountingError> {
    let started = rows::start_rating(
        conn,
        &NewRating {
            player_id: player.id,
            table_id: table.id,
            seat: i16::from(seat),
            gaming_day: day,
            started_by: me.id,
            started_at: at,
        },
    )?
    .ok_or_else(|| {
        AccountingError::Refused(
            "The seat or the player was rated a moment ago: look again.".to_owned(),
        )
    })?;
    let mut details = json!({
        "player": player.id,
        "rating": started.id,
        "table": table.code,
        "seat": seat,
    });
    if let Some(observation) = from {
        details["observation"] = json!(observation);
    }
    event(
        conn,
        me,
        AuditAction::RatingStarted,
        player.id,
        day,
        Some(table.id),
        details,
    )?;
    Ok(started)
}

/// A seated player's rating as a step at the table left it, for the answer: the dealer's sight
/// of the player (card number and first name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtSeat {
    pub rating: RatingId,
    pub seat: u8,
    pub card_number: String,
    pub first_name: String,
    /// The step done: `seated`, `paused`, `resumed` or `left`.
    pub step: &'static str,
    /// The chips walked with, when the player left.
    pub walked_with: Option<Money>,
    /// What the table screen says of it.
    pub words: String,
}

impl AtSeat {
    fn of(rating: &RatingRow, seat: u8, player: &PlayerRow, step: &'static str) -> AtSeat {
        AtSeat {
            rating: rating.id,
            seat,
            card_number: player.card_number.clone(),
            first_name: player.first_name.clone(),
            step,
            walked_with: None,
            words: String::new(),
        }
    }
}

/// What came of a seating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seating {
    /// The player is seated and their rating started.
    Seated(AtSeat),
    /// A self-excluded or barred player, not seated: the refusal is kept for the pit board and
    /// audited; these are its words.
    Excluded(String),
    /// Refused, nothing written.
    Refused(FormRefusal),
}

/// Seats the player with card `card` at seat `seat` of table `code` and starts their rating
/// (`rating.started`). Refused for a card nobody has, a seat or player already rated, a seat
/// where an unrated observation is running (a pit manager cards that player from it instead,
/// or ends it), and a self-excluded or barred player: that refusal is recorded for the pit
/// board and audited (`player.seat_refused`), and its words give the reason.
pub async fn seat(
    db: &Db,
    code: String,
    day: NaiveDate,
    seat: String,
    card: String,
    me: Me,
) -> Result<Seating, AccountingError> {
    db.run(move |conn| {
        let card = card_number(&card);
        if card.is_empty() {
            return Ok(Seating::Refused(FormRefusal {
                field: Some("card"),
                reason: "Type or scan the player's card number.".to_owned(),
            }));
        }
        // An excluded player's refusal is written and kept; every other refusal writes nothing.
        let done = attempt(conn, |conn| {
            let (table, seat) = table_and_seat(conn, &code, day, &seat, &me)?;
            let Some(player) = player_of_card(conn, &card)? else {
                return Err(Stop::Field(
                    "card",
                    format!("No player has card {card}: check the number, or seat them unrated."),
                ));
            };
            if let Some(refused) = refuse_excluded(conn, &me, &player, &table, seat, day)? {
                return Ok(Seating::Excluded(refused));
            }
            seat_free(conn, &player, &table, seat).map_err(|err| match err {
                AccountingError::Refused(reason) => Stop::Field("seat", reason),
                other => Stop::Failed(other),
            })?;
            if let Some(observed) = observation_rows::open_at_table(conn, table.id)?
                .into_iter()
                .find(|o| o.seat == i16::from(seat))
            {
                return Err(Stop::Field("seat", observed_seat(&me, seat, &observed)));
            }
            let rating = start(conn, &me, &player, &table, seat, day, None, None)?;
            Ok(Seating::Seated(AtSeat {
                words: format!("Card {card} rated at seat {seat}."),
                ..AtSeat::of(&rating, seat, &player, "seated")
            }))
        })?;
        Ok(done.unwrap_or_else(|refused| Seating::Refused(form_refusal(refused))))
    })
    .await
}

/// Why a carded player is not seated where an unrated observation is running, and what to do:
/// the observed player carded from the observation keeps the time observed and counts no round
/// twice (a pit manager does it, at the table screen's Unrated players); another player waits
/// until the observation is ended.
fn observed_seat(me: &Me, seat: u8, observed: &ObservationRow) -> String {
    let what = format!(
        "Seat {seat} has an unrated player observed (observation {}: {}).",
        observed.id, observed.description
    );
    if observes(me.role) {
        format!(
            "{what} If this is that player, card them from the observation (Unrated players: \
             Card player) so that the time observed is kept; if that player left, end the \
             observation first."
        )
    } else {
        format!(
            "{what} If this is that player, call a pit manager to card them from the \
             observation; if that player left, a pit manager ends it first."
        )
    }
}

/// What is done to a seated player's rating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The player steps away: rounds at the seat are not theirs until they resume.
    Pause,
    Resume,
    /// The player leaves with the chips typed (in major units; 0 for none).
    Leave {
        walked_with: String,
    },
}

impl Step {
    fn kind(&self) -> &'static str {
        match self {
            Step::Pause => "pause",
            Step::Resume => "resume",
            Step::Leave { .. } => "end",
        }
    }
}

/// The chips a leaving player walks with, as typed: zero or more.
pub(crate) fn walked_with(typed: &str) -> Result<Money, AccountingError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(AccountingError::Refused(
            "Enter the chips the player walks with (0 for none).".to_owned(),
        ));
    }
    match Money::parse_major(typed) {
        Some(amount) if amount.minor_units() >= 0 && amount <= LARGEST => Ok(amount),
        _ if typed.trim_start_matches('0').is_empty() => Ok(Money::ZERO),
        _ => Err(AccountingError::Refused(format!(
            "{typed:?} is not an amount of chips: type it in major units, such as 0 or 1,250."
        ))),
    }
}

/// Pauses, resumes or ends the rating at seat `seat` of table `code`: `rating.paused`,
/// `rating.resumed`, `rating.ended` (with the figures and the chips walked with).
pub async fn step(
    db: &Db,
    code: String,
    day: NaiveDate,
    seat: String,
    step: Step,
    now: DateTime<Utc>,
    me: Me,
) -> Result<Result<AtSeat, FormRefusal>, AccountingError> {
    db.run(move |conn| {
        let done = attempt(conn, |conn| {
            let (table, seat) = table_and_seat(conn, &code, day, &seat, &me)?;
            let rating = rows::open_at(conn, table.id, i16::from(seat))?
                .ok_or_else(|| Stop::Field("seat", format!("Nobody is rated at seat {seat}.")))?;
            let steps = rows::steps(conn, &[rating.id])?;
            let paused = steps.last().is_some_and(|s| s.kind == "pause");
            let player =
                rows::player(conn, rating.player_id)?.ok_or(AccountingError::NotFound("player"))?;
            let walked = match (&step, paused) {
                (Step::Pause, true) => {
                    return Err(Stop::Refused(format!(
                        "{} is away already.",
                        player.first_name
                    )))
                }
                (Step::Resume, false) => {
                    return Err(Stop::Refused(format!(
                        "{} is playing: nothing to resume.",
                        player.first_name
                    )))
                }
                (Step::Leave { walked_with: typed }, _) => Some(
                    walked_with(typed)
                        .map_err(|err| Stop::Field("walked_with", err.to_string()))?,
                ),
                _ => None,
            };
            let seq = i16::try_from(steps.len() + 1)
                .map_err(|_| Stop::Refused("Too many steps.".to_owned()))?;
            rows::insert_step(
                conn,
                &NewStep {
                    rating_id: rating.id,
                    seq,
                    kind: step.kind(),
                    by: me.id,
                    walked_with: walked.map(Money::minor_units),
                },
            )?;
            let mut details = json!({
                "player": player.id,
                "rating": rating.id,
                "table": table.code,
                "seat": seat,
            });
            let (action, done, words) = match walked {
                None if step == Step::Pause => (
                    AuditAction::RatingPaused,
                    "paused",
                    format!("{} is away from seat {seat}.", player.first_name),
                ),
                None => (
                    AuditAction::RatingResumed,
                    "resumed",
                    format!("{} is back at seat {seat}.", player.first_name),
                ),
                Some(chips) => {
                    rows::close_open(conn, rating.id)?;
                    let ended = rated(conn, vec![rating.clone()], now)?;
                    if let Some(f) = ended.first().map(|r| r.figures) {
                        details["walked_with"] = json!(chips);
                        details["hands"] = json!(f.hands);
                        details["total_bet"] = json!(f.total_bet.0 as i64);
                        details["player_result"] = json!(f.player_result.0 as i64);
                        details["theoretical_win"] = json!(f.theoretical_win.0 as i64);
                        details["seconds_played"] = json!(f.seconds_played);
                    }
                    (
                        AuditAction::RatingEnded,
                        "left",
                        format!(
                            "{} left seat {seat} with {} {}.",
                            player.first_name,
                            table.currency,
                            chips.major_text()
                        ),
                    )
                }
            };
            event(conn, &me, action, player.id, day, Some(table.id), details)?;
            Ok(AtSeat {
                walked_with: walked,
                words,
                ..AtSeat::of(&rating, seat, &player, done)
            })
        })?;
        Ok(done.map_err(form_refusal))
    })
    .await
}
