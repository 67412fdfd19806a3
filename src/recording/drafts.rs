//! A table's round entered step by step, as the dealer's screen and the JSON API do it: open the
//! table's draft, save it revision by revision, check (preview) its settlement, confirm it.

use chrono::NaiveDate;
use diesel::{Connection, PgConnection};
use rand::RngCore;
use serde_json::{json, Value};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::days;
use crate::db::ids::{DraftKey, UserId};
use crate::db::rounds::confirm::{read_draft_entry, write_draft_round, EntryRow};
use crate::db::rounds::drafts::{self, Draft};
use crate::db::rounds::rows::{self, SettledRound};
use crate::db::shifts::CurrentShift;
use crate::db::tables::{self, PlayingTable};
use crate::db::users::Role;
use crate::recording::entry::FieldErrors;
use crate::recording::form::{self, Fields, TypedDraft};
use crate::recording::write::{
    not_held, not_held_now, settle_entered, shift_and_head, shift_of, until_written, Attempt,
    Entered, RoundToSettle, Settled, Slot,
};
use crate::recording::{entry_shift, may_read, Belongs, RoundsError, Writer};

/// The table with this code, with the rules in force.
pub fn table(conn: &mut PgConnection, code: &str) -> Result<PlayingTable, RoundsError> {
    tables::playing_by_code(conn, code)?.ok_or_else(|| RoundsError::NoTable(code.to_owned()))
}

/// The draft with this key and its table.
pub fn load(conn: &mut PgConnection, key: &str) -> Result<(Draft, PlayingTable), RoundsError> {
    let no_draft = || RoundsError::NoDraft(key.to_owned());
    let draft = drafts::draft_by_key(conn, key)?.ok_or_else(no_draft)?;
    let table = tables::playing_by_id(conn, draft.table_id)?.ok_or_else(no_draft)?;
    Ok((draft, table))
}

/// The table's open draft, created (with a `round.draft_opened` event) if there is none, and
/// the shift `writer` enters it for. Refused when `writer` may not enter rounds at the table.
pub fn open(
    conn: &mut PgConnection,
    table: &PlayingTable,
    writer: Writer,
    actor: &Actor,
    gaming_day: NaiveDate,
) -> Result<(Draft, CurrentShift), RoundsError> {
    if days::find_close(conn, gaming_day)?.is_some() {
        return Err(RoundsError::DayClosed { day: gaming_day });
    }
    let shift = entry_shift(conn, table, writer)?;
    let id = table.table.id;
    not_held_now(conn, table)?;
    let draft = conn.transaction(|conn| {
        if let Some(draft) = drafts::open_draft_of(conn, id)? {
            return Ok(draft);
        }
        let key = new_key();
        let inserted = drafts::insert_draft(conn, &key, id, shift.shift.id, writer.user)?;
        let Some(draft) = inserted else {
            // Another screen opened the table's round first.
            return drafts::open_draft_of(conn, id)?
                .ok_or_else(|| RoundsError::NoDraft(table.table.code.clone()));
        };
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &audit_log::table_chain(id),
                actor,
                action: AuditAction::RoundDraftOpened,
                target: format!("round:{}", draft.draft_key),
                details: json!({
                    "table": table.table.code,
                    "draft_key": draft.draft_key,
                    "shift_id": shift.shift.id,
                }),
                gaming_day: Some(gaming_day),
                table_id: Some(id),
            },
        )?;
        Ok(draft)
    })?;
    Ok((draft, shift))
}

/// Stores the entered round (`data`, valid or not) in the draft `key` of `table` at its next
/// revision, if the caller saw revision `expected` (any, if `None`); the draft then belongs to
/// the shift `writer` enters it for. Refused when `writer` may not enter rounds there.
pub fn save_data(
    conn: &mut PgConnection,
    table: &PlayingTable,
    writer: Writer,
    actor: &Actor,
    key: &str,
    expected: Option<i32>,
    data: &Value,
) -> Result<Draft, RoundsError> {
    let to_save = Saving {
        key,
        writer,
        actor,
        expected,
    };
    to_save.store_with(conn, Some(table), |_| Ok(data.clone()))
}

/// A save of draft `key` by `writer`, who saw revision `expected` (any, if `None`).
struct Saving<'a> {
    key: &'a str,
    writer: Writer,
    actor: &'a Actor,
    expected: Option<i32>,
}

impl Saving<'_> {
    /// In one transaction that locks the draft first: the draft's table (`at`, when the caller
    /// has it: then the draft must be at it), refused when settled, then when `writer` may not
    /// enter rounds there, then when `data_for` the table refuses the round, then when the
    /// revision moved; stored otherwise.
    fn store_with(
        &self,
        conn: &mut PgConnection,
        at: Option<&PlayingTable>,
        data_for: impl FnOnce(&PlayingTable) -> Result<Value, RoundsError>,
    ) -> Result<Draft, RoundsError> {
        let no_draft = || RoundsError::NoDraft(self.key.to_owned());
        conn.transaction(|conn| {
            let draft = drafts::lock_draft(conn, self.key)?.ok_or_else(no_draft)?;
            let read;
            let table = match at {
                Some(table) if table.table.id == draft.table_id => table,
                Some(_) => return Err(no_draft()),
                None => {
                    read = tables::playing_by_id(conn, draft.table_id)?.ok_or_else(no_draft)?;
                    &read
                }
            };
            if draft.settled_round_id.is_some() {
                return Err(RoundsError::AlreadySettled);
            }
            // Not signed on comes before what is wrong with the round.
            let shift = entry_shift(conn, table, self.writer)?;
            let data = data_for(table)?;
            check_revision(&draft, self.expected)?;
            store(conn, table, &draft, &shift, self.writer, self.actor, &data)
        })
    }
}

/// Stores `data` in the locked `draft` of `table` at its next revision, for `shift`. The first
/// save of each account is recorded as `round.draft_changed` (separation of duties:
/// [`crate::recording::review::may_decide`]).
fn store(
    conn: &mut PgConnection,
    table: &PlayingTable,
    draft: &Draft,
    shift: &CurrentShift,
    writer: Writer,
    actor: &Actor,
    data: &Value,
) -> Result<Draft, RoundsError> {
    if !draft.editors().contains(&writer.user) {
        // A second person changes the round: on the table's chain, once per person, so the
        // draft's history says who had a hand in the round before anyone confirms it.
        audit_log::append(
            conn,
            &NewAuditEvent {
                chain: &audit_log::table_chain(table.table.id),
                actor,
                action: AuditAction::RoundDraftChanged,
                target: format!("round:{}", draft.draft_key),
                details: json!({
                    "table": table.table.code,
                    "draft_key": draft.draft_key,
                    "shift_id": shift.shift.id,
                    "editor": writer.user,
                    "revision": draft.revision + 1,
                }),
                gaming_day: Some(shift.shift.gaming_day),
                table_id: Some(table.table.id),
            },
        )?;
    }
    Ok(drafts::update_draft(
        conn,
        draft,
        shift.shift.id,
        data,
        writer.user,
    )?)
}

/// Reads the entered round (`round`, JSON, as a round of the table's game), validates it and
/// saves it in draft `key` at its next revision, as [`save_data`] does, in one transaction
/// that locks the draft first.
pub fn save(
    conn: &mut PgConnection,
    key: &str,
    writer: Writer,
    actor: &Actor,
    expected: Option<i32>,
    round: Value,
) -> Result<Draft, RoundsError> {
    let to_save = Saving {
        key,
        writer,
        actor,
        expected,
    };
    to_save.store_with(conn, None, |table| {
        let entered = Entered::from_value(round, table.game())?;
        settle_entered(&entered, table)?;
        entered.to_value()
    })
}

/// The settlement the saved round of draft `key` would get.
pub fn check(
    conn: &mut PgConnection,
    key: &str,
    writer: Writer,
) -> Result<(Draft, PlayingTable, Settled), RoundsError> {
    let (draft, table) = load(conn, key)?;
    entry_shift(conn, &table, writer)?;
    // A settled round is read as itself, by those who may read it; not previewed again.
    if draft.settled_round_id.is_some() {
        return Err(RoundsError::AlreadySettled);
    }
    let settled = settle_draft(&draft, &table)?;
    Ok((draft, table, settled))
}

fn new_key() -> DraftKey {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    DraftKey(hex::encode(bytes))
}

fn check_revision(draft: &Draft, expected: Option<i32>) -> Result<(), RoundsError> {
    match expected {
        Some(expected) if expected != draft.revision => Err(RoundsError::RevisionMismatch {
            expected,
            current: draft.revision,
        }),
        _ => Ok(()),
    }
}

/// The saved round of a draft, validated and settled: the form as the table screen typed it,
/// or the round the JSON API saved.
pub fn settle_draft(draft: &Draft, table: &PlayingTable) -> Result<Settled, RoundsError> {
    // A key lookup first: the API's drafts (the confirm load run's) take no detour.
    if draft.data.get("form").is_some() {
        if let Ok(typed) = serde_json::from_value::<TypedDraft>(draft.data.clone()) {
            return settle_typed(&typed.form, table);
        }
    }
    if draft.data.as_object().is_none_or(serde_json::Map::is_empty) {
        return Err(RoundsError::Invalid(FieldErrors::round(
            "the round has not been entered yet",
        )));
    }
    let entered = Entered::from_value(draft.data.clone(), table.game())?;
    settle_entered(&entered, table)
}

/// The round of a typed form, validated and settled; every problem of it at once, the fields
/// that cannot be read at all first.
pub fn settle_typed(fields: &Fields, table: &PlayingTable) -> Result<Settled, RoundsError> {
    let (body, mut errors) = form::read(fields, table.game());
    match settle_entered(&body, table) {
        Ok(settled) if errors.is_empty() => Ok(settled),
        Ok(_) => Err(RoundsError::Invalid(errors)),
        Err(RoundsError::Invalid(more)) => {
            for (field, message) in more.0 {
                errors.add(field, message);
            }
            Err(RoundsError::Invalid(errors))
        }
        Err(other) => Err(other),
    }
}

/// A draft, or the round it was settled as (or that was recorded whole under its key).
pub enum Shown {
    Draft(Draft, PlayingTable),
    Settled(SettledRound, PlayingTable),
}

/// What is stored under `key`, for `user` of `role` if they may read it ([`may_read`]).
pub fn show(
    conn: &mut PgConnection,
    key: &str,
    user: UserId,
    role: Role,
) -> Result<Shown, RoundsError> {
    let no_round = || RoundsError::NoDraft(key.to_owned());
    let shown = if drafts::draft_by_key(conn, key)?.is_none() {
        // A round recorded whole has no draft.
        let round = rows::round_by_key(conn, key)?.ok_or_else(no_round)?;
        let table = tables::playing_by_id(conn, round.round.table_id)?.ok_or_else(no_round)?;
        Shown::Settled(round, table)
    } else {
        let (draft, table) = load(conn, key)?;
        match draft.settled_round_id {
            Some(id) => Shown::Settled(rows::get_round(conn, id)?.ok_or_else(no_round)?, table),
            None => Shown::Draft(draft, table),
        }
    };
    let belongs = match &shown {
        Shown::Settled(round, _) => Belongs::ToShift(round.round.shift_id),
        Shown::Draft(draft, _) => Belongs::ToTable(draft.table_id),
    };
    may_read(conn, user, role, belongs)?;
    Ok(shown)
}

/// A settled round, to be answered again to `writer` (a repeated confirmation): only if they
/// may read it.
fn replay(
    conn: &mut PgConnection,
    writer: Writer,
    round: SettledRound,
) -> Result<(SettledRound, bool), RoundsError> {
    may_read(
        conn,
        writer.user,
        writer.role,
        Belongs::ToShift(round.round.shift_id),
    )?;
    Ok((round, false))
}

/// Why a round saved on another shift is not confirmed as it stands by someone else.
pub const OTHER_SHIFT: &str = "this round was saved on an earlier shift by someone else: \
     check it and press Preview to take it onto your shift before confirming";

/// Confirms draft `key` (at table `at`, when the caller names one), for `writer`: refuses it if
/// the caller saw another revision (`expected`), validates and settles the revision read, and
/// stores it, checking the writer's shift under lock and refusing any other revision (see
/// [`crate::db::rounds::sql`]: one read of the draft with its table's state, one write). A
/// draft settled already gives its round (`false`: nothing new was written).
pub fn confirm(
    conn: &mut PgConnection,
    key: &str,
    at: Option<&str>,
    expected: Option<i32>,
    gaming_day: NaiveDate,
    writer: Writer,
    actor: &Actor,
) -> Result<(SettledRound, PlayingTable, bool), RoundsError> {
    let no_draft = || RoundsError::NoDraft(key.to_owned());
    let read = |conn: &mut PgConnection| -> Result<(EntryRow, Draft), RoundsError> {
        let entry = read_draft_entry(conn, at, gaming_day, key)?.ok_or_else(no_draft)?;
        let draft = entry.draft().ok_or_else(no_draft)?;
        Ok((entry, draft))
    };
    let (entry, draft) = read(conn)?;
    let code = entry.code.clone();
    // The revision confirmed: the one the caller saw, else the one first read.
    let revision = expected.unwrap_or(draft.revision);
    let mut first = Some((entry, draft));
    until_written(conn, &code, |conn| {
        let (entry, draft) = match first.take() {
            Some(read_first) => read_first,
            None => read(conn)?,
        };
        let table = entry.table().map_err(RoundsError::from)?;
        if let Some(id) = entry.key_round_id {
            let round = rows::get_round(conn, id)?.ok_or_else(no_draft)?;
            let (round, created) = replay(conn, writer, round)?;
            return Ok((round, table, created));
        }
        if draft.revision != revision {
            return Err(RoundsError::RevisionMismatch {
                expected: revision,
                current: draft.revision,
            }
            .into());
        }
        // A round saved on an earlier shift is confirmed as it stands only by someone who
        // entered it: anyone else saves it on their shift first (Preview), having had it in
        // front of them.
        if !draft.editors().contains(&writer.user)
            && draft.shift_id != Some(shift_of(&entry, writer)?.id)
        {
            return Err(RoundsError::round(OTHER_SHIFT).into());
        }
        // When the round cannot be settled and the writer is not on shift either, the shift is
        // what they are told about first.
        let settled =
            settle_draft(&draft, &table).map_err(|err| match shift_of(&entry, writer) {
                Err(refused) => refused,
                Ok(_) => err,
            })?;
        let (shift, head) = shift_and_head(conn, &entry, writer)?;
        not_held(&entry)?;
        let confirm = RoundToSettle {
            key: draft.draft_key.as_str(),
            table: &table,
            gaming_day,
            writer,
            actor,
            settled: &settled,
            entered_by: &draft.editors(),
        };
        let write = confirm.prepare(Slot::read(&entry), &shift, head, None)?;
        if write_draft_round(conn, &write, draft.id, draft.revision)? {
            Ok((write.settled(), table, true))
        } else {
            Err(Attempt::Moved)
        }
    })
}
