//! A pit manager's decisions on settled rounds: approve a round that waited for approval, void
//! a round with a reason, and enter a voided round again as a new round that names the one it
//! replaces. Each is a new record and an audit event on the table's chain, in one transaction;
//! the round itself is never changed.
//!
//! Separation of duties ([`may_decide`]): only supervisors and administrators decide, and
//! nobody approves, voids or enters again a round they confirmed, entered or changed, or one of
//! a shift they dealt or entered or changed rounds on. A closed gaming day takes no decision (the
//! database's trigger refuses it too). Every refusal is answered with what was refused and why,
//! saves nothing, and is recorded as a `round.approve.refused`, `round.void.refused` or
//! `round.reenter.refused` event.

use chrono::NaiveDate;
use diesel::{Connection, PgConnection};
use serde_json::json;

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::days;
use crate::db::ids::{RoundId, UserId};
use crate::db::review::{self, VoidReason};
use crate::db::rounds::confirm;
use crate::db::rounds::rows::{RoundRow, SettledRound};
use crate::db::tables;
use crate::db::users::Role;
use crate::recording::entry::RoundBody;
use crate::recording::whole::Entry;
use crate::recording::write::{
    settle_banking, shift_and_head, until_written, Attempt, Settled, Slot,
};
use crate::recording::{RoundsError, Writer};

/// Who decides: the signed-in user and their role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reviewer {
    pub user: UserId,
    pub role: Role,
}

/// The longest note a void keeps, in characters.
pub const NOTE_MOST_CHARS: usize = 500;

/// Why a decision on a round was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    #[error("There is no round {0}.")]
    NoRound(RoundId),
    /// Not this person's decision to take (403).
    #[error("{0}")]
    NotYours(String),
    /// The round's state does not allow it (409).
    #[error("{0}")]
    Refused(String),
    /// What was sent is incomplete or wrong (422): the field and the message.
    #[error("{message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    /// The re-entered round itself was refused.
    #[error(transparent)]
    Round(#[from] RoundsError),
}

impl ReviewError {
    /// Whether the request was refused (and so is audited), rather than failing.
    fn is_refusal(&self) -> bool {
        match self {
            ReviewError::Query(_) | ReviewError::NoRound(_) => false,
            ReviewError::Round(err) => !matches!(err, RoundsError::Query(_)),
            _ => true,
        }
    }
}

fn refused_on_closed_day(day: NaiveDate, what: &str) -> ReviewError {
    ReviewError::Refused(format!(
        "Gaming day {day} is closed: no {what} can be recorded on it any more."
    ))
}

/// The database's refusal of an insert on a closed day as a refusal; other errors as they are.
fn closed_day_or(err: diesel::result::Error, day: NaiveDate, what: &str) -> ReviewError {
    if days::is_closed_day_refusal(&err) {
        refused_on_closed_day(day, what)
    } else {
        ReviewError::Query(err)
    }
}

fn check_reviewer(reviewer: Reviewer, what: &str) -> Result<(), ReviewError> {
    match reviewer.role {
        Role::Supervisor | Role::Admin => Ok(()),
        _ => Err(ReviewError::NotYours(format!(
            "Only a pit manager or an administrator may {what} a round."
        ))),
    }
}

/// `round N at CODE on DAY`, as messages name a round.
fn name_of(conn: &mut PgConnection, round: &RoundRow) -> Result<String, ReviewError> {
    let code = tables::find(conn, round.table_id)?
        .map(|t| t.code)
        .unwrap_or_default();
    Ok(format!(
        "Round {} at {code} on {}",
        round.round_no, round.gaming_day
    ))
}

/// Records a refusal of `action` on `round` as `{action}.refused` on the round's table chain
/// (or the system chain when there is no such round), in a transaction of its own.
fn record_refusal(
    conn: &mut PgConnection,
    id: RoundId,
    action: AuditAction,
    actor: &Actor,
    err: &ReviewError,
) {
    let round = review::lock_round(conn, id).ok().flatten();
    let chain = match &round {
        Some(round) => audit_log::table_chain(round.table_id),
        None => audit_log::SYSTEM_CHAIN.to_owned(),
    };
    let Some(refused) = action.refused() else {
        tracing::error!(%action, "a refusal of an action that records none");
        return;
    };
    let event = NewAuditEvent {
        chain: &chain,
        actor,
        action: refused,
        target: review::round_target(id),
        details: json!({ "reason": err.to_string() }),
        gaming_day: round.as_ref().map(|r| r.gaming_day),
        table_id: round.as_ref().map(|r| r.table_id),
    };
    if let Err(err) = audit_log::append(conn, &event) {
        tracing::error!(error = %err, "cannot record a refused review decision");
    }
}

/// Runs `decide` in a transaction; a refusal is recorded (after the transaction rolled back).
fn audited<T>(
    conn: &mut PgConnection,
    id: RoundId,
    action: AuditAction,
    actor: &Actor,
    decide: impl FnOnce(&mut PgConnection) -> Result<T, ReviewError>,
) -> Result<T, ReviewError> {
    let outcome = decide(conn);
    if let Err(err) = &outcome {
        if err.is_refusal() {
            record_refusal(conn, id, action, actor, err);
        }
    }
    outcome
}

/// A decision on a settled round that a second person takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Void,
    Reenter,
    /// Any of them: what a round's page asks before it offers its buttons.
    Any,
}

impl Decision {
    fn verb(self) -> &'static str {
        match self {
            Decision::Approve => "approve",
            Decision::Void => "void",
            Decision::Reenter => "re-enter",
            Decision::Any => "decide on",
        }
    }
}

/// Whether `reviewer` may take `decision` on `round`, the one rule the actions and the pages
/// follow (separation of duties): only a pit manager or an administrator decides, and never
/// one who had a hand in the round: who confirmed it, entered or changed it (its draft's
/// editors, recorded in `round.settled`), dealt the shift, or entered or changed any round of
/// that shift. Refused with the reason in words ([`ReviewError::NotYours`]).
pub fn may_decide(
    conn: &mut PgConnection,
    round: &RoundRow,
    reviewer: Reviewer,
    decision: Decision,
) -> Result<(), ReviewError> {
    let verb = decision.verb();
    check_reviewer(reviewer, verb)?;
    let name = name_of(conn, round)?;
    let another = |what: String| {
        ReviewError::NotYours(format!("{what}: another pit manager must {verb} it."))
    };
    let settled = review::round_events(conn, round.id)?
        .into_iter()
        .find(|e| e.action == AuditAction::RoundSettled);
    if let Some(settled) = &settled {
        if entered_by(&settled.details).contains(&reviewer.user) {
            return Err(another(format!("You entered {name}")));
        }
        if settled.actor_user_id == Some(reviewer.user) {
            return Err(another(format!("You confirmed {name}")));
        }
    }
    if round.dealer_id == reviewer.user {
        return Err(another(format!("{name} was entered on your own shift")));
    }
    if review::worked_shift_of(conn, round, reviewer.user)? {
        return Err(another(format!(
            "You entered rounds on the shift of {name}"
        )));
    }
    Ok(())
}

/// The accounts a `round.settled` event's details name as having entered or changed the round.
fn entered_by(details: &serde_json::Value) -> Vec<UserId> {
    details
        .get("entered_by")
        .and_then(|ids| ids.as_array())
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_i64())
                .map(UserId)
                .collect()
        })
        .unwrap_or_default()
}

/// Approves round `id`: it must have waited for approval, be neither approved nor void, be on
/// an open gaming day, and be `reviewer`'s to decide ([`may_decide`]). Writes the approval and
/// `round.approved` on the table's chain, in one transaction.
pub fn approve(
    conn: &mut PgConnection,
    id: RoundId,
    reviewer: Reviewer,
    actor: &Actor,
) -> Result<RoundRow, ReviewError> {
    audited(conn, id, AuditAction::RoundApprove, actor, |conn| {
        conn.transaction(|conn| {
            check_reviewer(reviewer, "approve")?;
            let round = review::lock_round(conn, id)?.ok_or(ReviewError::NoRound(id))?;
            let name = name_of(conn, &round)?;
            if days::find_close(conn, round.gaming_day)?.is_some() {
                return Err(refused_on_closed_day(round.gaming_day, "approval"));
            }
            let state = review::state(conn, id)?;
            if state.void.is_some() {
                return Err(ReviewError::Refused(format!(
                    "{name} is void: a void round cannot be approved."
                )));
            }
            if !round.needs_approval {
                return Err(ReviewError::Refused(format!(
                    "{name} needs no approval: no seat result reached the table's threshold."
                )));
            }
            if let Some(approval) = state.approval {
                return Err(ReviewError::Refused(format!(
                    "{name} is already approved (by {}).",
                    approval.approver
                )));
            }
            may_decide(conn, &round, reviewer, Decision::Approve)?;
            let write = |conn: &mut PgConnection| -> diesel::QueryResult<()> {
                review::insert_approval(conn, &round, reviewer.user)?;
                audit_log::append(
                    conn,
                    &NewAuditEvent {
                        chain: &audit_log::table_chain(round.table_id),
                        actor,
                        action: AuditAction::RoundApproved,
                        target: review::round_target(id),
                        details: json!({ "round_no": round.round_no }),
                        gaming_day: Some(round.gaming_day),
                        table_id: Some(round.table_id),
                    },
                )?;
                Ok(())
            };
            write(conn).map_err(|err| closed_day_or(err, round.gaming_day, "approval"))?;
            Ok(round)
        })
    })
}

/// A void as asked for: the reason's text as sent (if any) and the note.
#[derive(Debug, Clone, Copy)]
pub struct VoidRequest<'a> {
    pub reason: Option<&'a str>,
    pub note: &'a str,
}

impl VoidRequest<'_> {
    /// The reason and the trimmed note, or what is wrong with them.
    pub fn check(&self) -> Result<(VoidReason, String), ReviewError> {
        let reason = match self.reason.map(str::trim).filter(|r| !r.is_empty()) {
            None => {
                return Err(ReviewError::Invalid {
                    field: "reason",
                    message: "Choose why the round is void: misdeal, wrong cards entered, wrong \
                              bet, dispute or other."
                        .to_owned(),
                })
            }
            Some(text) => VoidReason::parse(text).ok_or_else(|| ReviewError::Invalid {
                field: "reason",
                message: format!(
                    "{text:?} is not a reason for a void: choose misdeal, wrong cards entered, \
                     wrong bet, dispute or other."
                ),
            })?,
        };
        let note = self.note.trim();
        if reason == VoidReason::Other && note.is_empty() {
            return Err(ReviewError::Invalid {
                field: "note",
                message: "A void for another reason needs a note saying what it is.".to_owned(),
            });
        }
        if note.chars().count() > NOTE_MOST_CHARS {
            return Err(ReviewError::Invalid {
                field: "note",
                message: format!("The note can be at most {NOTE_MOST_CHARS} characters."),
            });
        }
        Ok((reason, note.to_owned()))
    }
}

/// Voids round `id` for `request`'s reason: it must not be void already, its gaming day
/// must be open, and it must be `reviewer`'s to decide ([`may_decide`]). Writes the void and `round.voided` on the table's chain, in one transaction.
/// The round stays as it was, marked void, and drops out of totals.
pub fn void(
    conn: &mut PgConnection,
    id: RoundId,
    request: VoidRequest<'_>,
    reviewer: Reviewer,
    actor: &Actor,
) -> Result<RoundRow, ReviewError> {
    audited(conn, id, AuditAction::RoundVoid, actor, |conn| {
        conn.transaction(|conn| {
            check_reviewer(reviewer, "void")?;
            let round = review::lock_round(conn, id)?.ok_or(ReviewError::NoRound(id))?;
            let (reason, note) = request.check()?;
            let name = name_of(conn, &round)?;
            may_decide(conn, &round, reviewer, Decision::Void)?;
            if days::find_close(conn, round.gaming_day)?.is_some() {
                return Err(refused_on_closed_day(round.gaming_day, "void"));
            }
            if let Some(void) = review::state(conn, id)?.void {
                return Err(ReviewError::Refused(format!(
                    "{name} is already void (by {}: {}); a void cannot be voided again or undone.",
                    void.voider,
                    void.reason.words()
                )));
            }
            let write = |conn: &mut PgConnection| -> diesel::QueryResult<()> {
                review::insert_void(conn, &round, reason, &note, reviewer.user)?;
                audit_log::append(
                    conn,
                    &NewAuditEvent {
                        chain: &audit_log::table_chain(round.table_id),
                        actor,
                        action: AuditAction::RoundVoided,
                        target: review::round_target(id),
                        details: json!({
                            "round_no": round.round_no,
                            "reason": reason.as_str(),
                            "note": note,
                            "dealer_result": round.dealer_result,
                        }),
                        gaming_day: Some(round.gaming_day),
                        table_id: Some(round.table_id),
                    },
                )?;
                Ok(())
            };
            write(conn).map_err(|err| closed_day_or(err, round.gaming_day, "void"))?;
            Ok(round)
        })
    })
}

/// The one-time key of the round entered in place of voided round `id`: a voided round is
/// entered again at most once, so a form sent twice finds the round the first one stored.
pub fn reentry_key(id: RoundId) -> String {
    format!("reentry-{id}")
}

/// The voided round `id`, if it may be entered again (void, not yet replaced).
pub fn replaceable(conn: &mut PgConnection, id: RoundId) -> Result<RoundRow, ReviewError> {
    let round = review::lock_round(conn, id)?.ok_or(ReviewError::NoRound(id))?;
    let state = review::state(conn, id)?;
    let name = name_of(conn, &round)?;
    if state.void.is_none() {
        return Err(ReviewError::Refused(format!(
            "{name} is not void: only a void round can be entered again."
        )));
    }
    if let Some(by) = state.replaced_by {
        return Err(ReviewError::Refused(format!(
            "{name} was already entered again (round id {by})."
        )));
    }
    Ok(round)
}

/// Enters `entered` at the voided round `id`'s table as a new round that replaces it: the same
/// validation as any round, the table's next round number on `gaming_day`, for the dealer on
/// shift there. The round, its `round.settled` event, the link to the round it replaces and
/// `round.reentered` are written in one transaction, or nothing is.
pub fn reenter(
    conn: &mut PgConnection,
    id: RoundId,
    entered: &RoundBody,
    writer: Writer,
    gaming_day: NaiveDate,
    actor: &Actor,
) -> Result<SettledRound, ReviewError> {
    let reviewer = Reviewer {
        user: writer.user,
        role: writer.role,
    };
    audited(conn, id, AuditAction::RoundReenter, actor, |conn| {
        check_reviewer(reviewer, "re-enter")?;
        let voided = replaceable(conn, id)?;
        may_decide(conn, &voided, reviewer, Decision::Reenter)?;
        let code = tables::find(conn, voided.table_id)?
            .map(|t| t.code)
            .ok_or(ReviewError::NoRound(id))?;
        let key = reentry_key(id);
        let entry = Entry {
            key: &key,
            gaming_day,
            writer,
            actor,
        };
        until_written(conn, &code, |conn| {
            conn.transaction(|conn| reenter_once(conn, &code, &entry, entered, &voided))
        })
    })
}

fn reenter_once(
    conn: &mut PgConnection,
    code: &str,
    entry: &Entry<'_>,
    entered: &RoundBody,
    voided: &RoundRow,
) -> Result<SettledRound, Attempt<ReviewError>> {
    let read = confirm::read_entry(conn, code, entry.gaming_day, entry.key)?
        .ok_or_else(|| RoundsError::NoTable(code.to_owned()))?;
    if read.key_round_id.is_some() || read.draft_id.is_some() {
        return Err(Attempt::Failed(
            replaceable(conn, voided.id)
                .err()
                .unwrap_or(ReviewError::Refused(
                    "This round was already entered again.".to_owned(),
                )),
        ));
    }
    replaceable(conn, voided.id).map_err(Attempt::Failed)?;
    let table = read.table().map_err(RoundsError::from)?;
    // Re-entry takes banking rounds (its form is the banking game's).
    let (round, out) = settle_banking(entered, &table)?;
    let settled = Settled::Banking { round, out };
    let (shift, head) = shift_and_head(conn, &read, entry.writer)?;
    let to_settle = entry.round_to_settle(&table, &settled);
    let slot = Slot::read(&read);
    let write = to_settle.prepare(slot, &shift, head, None)?;
    let day = write.round.gaming_day;
    let written = confirm::write_whole_rounds(conn, std::slice::from_ref(&write))
        .map_err(|err| closed_day_attempt(err, day))?;
    if !written.contains(&slot.round_id) {
        return Err(Attempt::Moved);
    }
    let link = |conn: &mut PgConnection| -> diesel::QueryResult<()> {
        review::insert_reentry(conn, &write.round, voided.id)?;
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &audit_log::table_chain(voided.table_id),
                actor: entry.actor,
                action: AuditAction::RoundReentered,
                target: review::round_target(voided.id),
                details: json!({
                    "round_no": voided.round_no,
                    "reentered_as": write.round.id,
                    "reentered_round_no": write.round.round_no,
                    "reentered_gaming_day": write.round.gaming_day,
                }),
                gaming_day: Some(write.round.gaming_day),
                table_id: Some(voided.table_id),
            },
        )?;
        Ok(())
    };
    link(conn).map_err(|err| closed_day_attempt(err, day))?;
    Ok(write.settled())
}

/// A failed write of a re-entry: a closed day refused, a lost race read again, else failed.
fn closed_day_attempt(err: diesel::result::Error, day: NaiveDate) -> Attempt<ReviewError> {
    if days::is_closed_day_refusal(&err) {
        Attempt::Failed(refused_on_closed_day(day, "round"))
    } else {
        Attempt::from(err)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn checked(reason: Option<&str>, note: &str) -> Result<(VoidReason, String), String> {
        VoidRequest { reason, note }
            .check()
            .map_err(|err| err.to_string())
    }

    #[test]
    fn a_void_needs_a_known_reason_and_other_needs_a_note() {
        assert_eq!(
            checked(Some("misdeal"), " "),
            Ok((VoidReason::Misdeal, String::new()))
        );
        assert_eq!(
            checked(Some("other"), " card fell "),
            Ok((VoidReason::Other, "card fell".to_owned()))
        );
        assert!(checked(None, "x").unwrap_err().starts_with("Choose why"));
        assert!(checked(Some(" "), "x")
            .unwrap_err()
            .starts_with("Choose why"));
        assert!(checked(Some("bored"), "")
            .unwrap_err()
            .contains("not a reason"));
        assert!(checked(Some("other"), "  ")
            .unwrap_err()
            .contains("needs a note"));
        let long = "x".repeat(NOTE_MOST_CHARS + 1);
        assert!(checked(Some("dispute"), &long)
            .unwrap_err()
            .contains("at most"));
    }
}
