//! The pit manager's review of settled rounds as the pages read it: a round's page (the round,
//! its review state, its events and links, whether the reader may decide on it), the queue,
//! and the decisions (approve, void, enter again), which are [`crate::recording::review`]'s.

use chrono::NaiveDate;
use diesel::PgConnection;

use crate::db::audit_log::{Actor, AuditEvent};
use crate::db::days;
use crate::db::handle::Db;
use crate::db::ids::{RoundId, TableId, UserId};
use crate::db::profiles;
use crate::db::review::{self, QueueFilter, QueueRow, ReviewState};
use crate::db::rounds::rows::{self, RoundRow, SettledRound};
use crate::db::shifts;
use crate::db::tables::{self, PlayingTable};
use crate::db::users;
use crate::pit::PitError;
use crate::recording::entry::RoundBody;
use crate::recording::form::Fields;
use crate::recording::review::{self as decide, Decision, ReviewError, Reviewer, VoidRequest};
use crate::recording::write::Settled;
use crate::recording::{self, drafts, Belongs, RoundsError, Writer};

/// Everything a round's page reads.
pub struct RoundRead {
    pub table: PlayingTable,
    pub round: SettledRound,
    pub state: ReviewState,
    pub dealer: String,
    pub profile_name: String,
    pub profile: Option<profiles::Version>,
    pub events: Vec<AuditEvent>,
    /// The round entered again in place of this void one, and the void one this replaces.
    pub replaced_by: Option<RoundLink>,
    pub replaces: Option<RoundLink>,
    /// Whether the round's gaming day is closed (no decision can be taken on it).
    pub day_closed: bool,
    /// Why the reader may not decide on the round (separation of duties), if they may not.
    pub not_yours: Option<String>,
}

/// Another round as a page links to it: its table's code, its id and its number.
pub struct RoundLink {
    pub code: String,
    pub id: RoundId,
    pub round_no: i32,
}

/// The code of table `table` (empty if it is gone).
fn table_code(conn: &mut PgConnection, table: TableId) -> Result<String, PitError> {
    Ok(tables::find(conn, table)?
        .map(|t| t.code)
        .unwrap_or_default())
}

/// Round `id` as a link.
fn link_of(conn: &mut PgConnection, id: RoundId) -> Result<RoundLink, PitError> {
    let round = rows::get_round(conn, id)?.ok_or(PitError::NotFound)?;
    Ok(RoundLink {
        code: table_code(conn, round.round.table_id)?,
        id,
        round_no: round.round.round_no,
    })
}

/// Round `id` of table `code`, for `reader`: a dealer reads only the rounds of their own
/// shift ([`recording::may_read`]); pit managers, administrators and auditors every round.
pub async fn round(
    db: &Db,
    code: String,
    id: RoundId,
    reader: Reviewer,
) -> Result<RoundRead, PitError> {
    db.run(move |conn| read(conn, &code, id, reader)).await
}

/// Round `id` for `reader`, found by its id alone: the page a refused decision on it shows.
pub async fn round_by_id(db: &Db, id: RoundId, reader: Reviewer) -> Result<RoundRead, PitError> {
    db.run(move |conn| {
        let round = rows::get_round(conn, id)?.ok_or(PitError::NotFound)?;
        let code = table_code(conn, round.round.table_id)?;
        read(conn, &code, id, reader)
    })
    .await
}

fn read(
    conn: &mut PgConnection,
    code: &str,
    id: RoundId,
    reader: Reviewer,
) -> Result<RoundRead, PitError> {
    let table = drafts::table(conn, code)?;
    let round = rows::get_round(conn, id)?
        .filter(|r| r.round.table_id == table.table.id)
        .ok_or(PitError::NotFound)?;
    recording::may_read(
        conn,
        reader.user,
        reader.role,
        Belongs::ToShift(round.round.shift_id),
    )?;
    let state = review::state(conn, id)?;
    let dealer = users::find(conn, round.round.dealer_id)?
        .map(|u| u.username)
        .unwrap_or_default();
    let (profile_name, profile) =
        match profiles::named_version(conn, round.round.rule_profile_version_id)? {
            Some((name, version)) => (name, Some(version)),
            None => (String::new(), None),
        };
    let events = review::round_events(conn, id)?;
    let replaced_by = state.replaced_by.map(|r| link_of(conn, r)).transpose()?;
    let replaces = state.replaces.map(|r| link_of(conn, r)).transpose()?;
    let day_closed = days::find_close(conn, round.round.gaming_day)?.is_some();
    let not_yours = match decide::may_decide(conn, &round.round, reader, Decision::Any) {
        Ok(()) => None,
        Err(ReviewError::NotYours(why)) => Some(why),
        Err(err) => return Err(err.into()),
    };
    Ok(RoundRead {
        table,
        round,
        state,
        dealer,
        profile_name,
        profile,
        events,
        replaced_by,
        replaces,
        day_closed,
        not_yours,
    })
}

/// A round decided on, and the code of its table (for its page's address).
pub struct Decided {
    pub round: RoundRow,
    pub code: String,
}

/// Approves round `id`.
pub async fn approve(
    db: &Db,
    id: RoundId,
    by: Reviewer,
    actor: Actor,
) -> Result<Decided, PitError> {
    db.run(move |conn| {
        let round = decide::approve(conn, id, by, &actor)?;
        let code = table_code(conn, round.table_id)?;
        Ok(Decided { round, code })
    })
    .await
}

/// Voids round `id` for `reason` (a [`VoidRequest`]'s reason and note, as sent).
pub async fn void(
    db: &Db,
    id: RoundId,
    reason: Option<String>,
    note: String,
    by: Reviewer,
    actor: Actor,
) -> Result<Decided, PitError> {
    db.run(move |conn| {
        let request = VoidRequest {
            reason: reason.as_deref(),
            note: &note,
        };
        let round = decide::void(conn, id, request, by, &actor)?;
        let code = table_code(conn, round.table_id)?;
        Ok(Decided { round, code })
    })
    .await
}

/// What the re-entry form needs: the voided round (if it may be entered again), its table's
/// code and who is on shift there.
pub struct Reentry {
    pub voided: SettledRound,
    pub code: String,
    pub shift_dealer: String,
}

fn reentry(conn: &mut PgConnection, id: RoundId, reviewer: Reviewer) -> Result<Reentry, PitError> {
    let replaceable = decide::replaceable(conn, id)?;
    decide::may_decide(conn, &replaceable, reviewer, Decision::Reenter)?;
    let voided = rows::get_round(conn, id)?.ok_or(PitError::NotFound)?;
    let code = table_code(conn, voided.round.table_id)?;
    let shift_dealer = shifts::current_shift(conn, voided.round.table_id)?
        .map(|s| s.dealer_name)
        .unwrap_or_else(|| "nobody (a dealer must sign on first)".to_owned());
    Ok(Reentry {
        voided,
        code,
        shift_dealer,
    })
}

/// The void round `id` to enter again, if `reviewer` may.
pub async fn reentry_form(db: &Db, id: RoundId, reviewer: Reviewer) -> Result<Reentry, PitError> {
    db.run(move |conn| reentry(conn, id, reviewer)).await
}

/// What the corrected round would settle as (at the table, under its rules in force), before
/// it is entered again: the settlement and the table's currency, or the problems in words.
pub struct ReentryPreview {
    pub form: Reentry,
    pub currency: String,
    pub settled: Result<Settled, String>,
}

/// Previews round `typed` (the form as sent) in place of the void round `id`, if `reviewer`
/// may enter it again. Changes nothing.
pub async fn reentry_preview(
    db: &Db,
    id: RoundId,
    reviewer: Reviewer,
    typed: Fields,
) -> Result<ReentryPreview, PitError> {
    db.run(move |conn| {
        let form = reentry(conn, id, reviewer)?;
        let table = drafts::table(conn, &form.code)?;
        let settled = match drafts::settle_typed(&typed, &table) {
            Ok(settled) => Ok(settled),
            Err(RoundsError::Invalid(errors)) => Err(errors.summary()),
            Err(other) => return Err(other.into()),
        };
        Ok(ReentryPreview {
            form,
            currency: table.table.currency,
            settled,
        })
    })
    .await
}

/// A re-entry refused for what was entered: the form again, with the round as entered (or
/// as the void one was, if it could not be read) and the reason.
pub struct ReentryRefused {
    pub form: Reentry,
    pub body: Option<RoundBody>,
    pub error: String,
}

/// Enters round `body` (as read from the form, or the form's errors in words) in place of the
/// void round `id`: the new round's page address, or the form again with the reason.
pub async fn reenter(
    db: &Db,
    id: RoundId,
    body: Result<RoundBody, String>,
    writer: Writer,
    day: NaiveDate,
    actor: Actor,
) -> Result<Result<String, ReentryRefused>, PitError> {
    db.run(move |conn| {
        let error = match &body {
            Ok(entered) => match decide::reenter(conn, id, entered, writer, day, &actor) {
                Ok(settled) => {
                    let code = table_code(conn, settled.round.table_id)?;
                    return Ok(Ok(format!("/tables/{code}/rounds/{}", settled.round.id)));
                }
                // A round that does not validate is shown again with the reason.
                Err(ReviewError::Round(RoundsError::Invalid(errors))) => errors.summary(),
                Err(other) => return Err(other.into()),
            },
            Err(error) => error.clone(),
        };
        let reviewer = Reviewer {
            user: writer.user,
            role: writer.role,
        };
        Ok(Err(ReentryRefused {
            form: reentry(conn, id, reviewer)?,
            body: body.ok(),
            error,
        }))
    })
    .await
}

/// A page of the review queue (up to `limit` rounds), with the tables and dealers to filter by.
pub struct Queue {
    pub rows: Vec<QueueRow>,
    pub tables: Vec<(TableId, String)>,
    pub dealers: Vec<(UserId, String)>,
}

pub async fn queue(db: &Db, filter: QueueFilter, limit: i64) -> Result<Queue, PitError> {
    db.run(move |conn| {
        Ok(Queue {
            rows: review::queue(conn, &filter, limit)?,
            tables: review::table_codes(conn)?,
            dealers: review::dealer_names(conn)?,
        })
    })
    .await
}
