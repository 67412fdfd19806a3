//! The reports' reads as the pages ask for them, each in one turn of the database (the
//! reports themselves are [`crate::reports`]'s), and the recompute check of a gaming day started
//! in the background, its verdict recorded by the one who asked.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use chrono::{FixedOffset, NaiveDate, NaiveTime};

use crate::accounting::reconcile::{DayRounds, TableDay};
use crate::db::audit_log::{Actor, AuditEvent};
use crate::db::handle::Db;
use crate::db::ids::{ShiftId, TableId};
use crate::pit::PitError;
use crate::reports::checks::{Done, Rechecks};
use crate::reports::gaming_day::{self, HourResult, Report, ShiftRounds};
use crate::reports::house_way::{self, HouseWayReport};
use crate::reports::pit::{self, Board, FlagRules};
use crate::reports::recheck::{self, DayRecheck, RecheckRecord};

/// The latest gaming day with rounds, up to `today`.
pub async fn latest_day(db: &Db, today: NaiveDate) -> Result<Option<NaiveDate>, PitError> {
    db.run(move |conn| Ok(gaming_day::latest_day(conn, today)?))
        .await
}

/// The gaming-day report over `from` to `to`.
pub async fn gaming_day(db: &Db, from: NaiveDate, to: NaiveDate) -> Result<Report, PitError> {
    db.run(move |conn| Ok(gaming_day::report(conn, from, to)?))
        .await
}

/// The house way's report over `from` to `to`.
pub async fn house_way(
    db: &Db,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<HouseWayReport, PitError> {
    db.run(move |conn| Ok(house_way::report(conn, from, to)?))
        .await
}

/// The house result by local hour over `from` to `to`.
pub async fn by_hour(
    db: &Db,
    from: NaiveDate,
    to: NaiveDate,
    offset: FixedOffset,
    start: NaiveTime,
) -> Result<Vec<HourResult>, PitError> {
    db.run(move |conn| Ok(gaming_day::by_hour(conn, from, to, offset, start)?))
        .await
}

/// A shift's rounds, for its chart.
pub async fn shift_rounds(db: &Db, id: ShiftId) -> Result<Option<ShiftRounds>, PitError> {
    db.run(move |conn| Ok(gaming_day::shift_rounds(conn, id)?))
        .await
}

/// The live pit board of gaming day `day` at `now`, with each table's accounting of the day
/// (opener, drop so far, fills and credits in transit, the two wins once closed), the day's
/// rounds read once, by the board's statement, the seatings refused today (excluded
/// players), and the players whose cash of the day nears or passes the compliance threshold.
pub async fn board(
    db: &Db,
    day: NaiveDate,
    now: chrono::DateTime<chrono::Utc>,
    rules: FlagRules,
    settings: crate::accounting::reconcile::Settings,
) -> Result<
    (
        Board,
        HashMap<TableId, TableDay>,
        Vec<RefusedSeating>,
        Vec<crate::players::compliance::CashWarning>,
    ),
    PitError,
> {
    db.run(move |conn| {
        let board = pit::board(conn, day, now, rules)?;
        let refused = crate::db::players::refusals_of_day(conn, day)?
            .into_iter()
            .map(|(row, player, code)| RefusedSeating {
                table: code,
                seat: row.seat,
                card_number: player.card_number,
                name: format!("{} {}", player.first_name, player.last_name),
                status: row.status,
                at: row.refused_at,
            })
            .collect();
        let played: Vec<DayRounds> = board
            .tables
            .iter()
            .map(|(row, _)| DayRounds {
                table: row.table_id,
                code: row.code.clone(),
                currency: row.currency.clone(),
                points_game: row.points_game,
                house: row.day_house.minor_units(),
                rounds: row.day_rounds,
                void_rounds: row.day_void_rounds,
                pending: row.day_pending,
            })
            .collect();
        let accounting = crate::accounting::reconcile::board_lines(conn, day, &played, settings)?;
        let warnings = crate::players::compliance::warnings(conn, day)?;
        Ok((board, accounting, refused, warnings))
    })
    .await
}

/// A seating refused today because the player is excluded: the pit board's alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedSeating {
    pub table: String,
    pub seat: i16,
    pub card_number: String,
    pub name: String,
    /// `self_excluded` or `barred`.
    pub status: String,
    pub at: chrono::DateTime<chrono::Utc>,
}

/// The latest recompute check of gaming day `day`, if any.
pub async fn latest_recheck(
    db: &Db,
    day: NaiveDate,
) -> Result<Option<(AuditEvent, Option<RecheckRecord>)>, PitError> {
    db.run(move |conn| Ok(recheck::latest(conn, day)?)).await
}

/// Starts the recompute check of gaming day `day` in the background (unless one is running:
/// `false`); its verdict is recorded as `actor`'s (`by` by name) when it is done.
pub fn start_recheck(
    db: &Db,
    rechecks: &Arc<Rechecks>,
    day: NaiveDate,
    by: &str,
    actor: Actor,
) -> bool {
    let started = Instant::now();
    let done: Done<DayRecheck> = Box::new(move |conn, found| {
        let Ok(found) = found else { return };
        let seconds = started.elapsed().as_secs_f64();
        if let Err(err) = recheck::record(conn, &actor, day, found, seconds) {
            tracing::error!(error = %err, "cannot record a recompute check");
        }
    });
    rechecks.start_recheck(db.pool().clone(), day, by, done)
}
