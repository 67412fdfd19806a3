//! The dealer's table screen's use-cases, one per request: show the table (reading only: a GET
//! opens nothing), save the form as typed and check it (opening the table's round on the first
//! save), and confirm it. The form is stored field by field as typed, valid or not
//! ([`crate::recording::form`]), and checked separately.

use chrono::NaiveDate;
use diesel::PgConnection;

use crate::db::audit_log::Actor;
use crate::db::ids::RoundId;
use crate::db::review;
use crate::db::rounds::drafts::{self as draft_rows, Draft};
use crate::db::rounds::rows::{self, HouseResults, RoundRow};
use crate::db::shifts::CurrentShift;
use crate::db::table_settings;
use crate::db::tables::PlayingTable;
use crate::recording::drafts;
use crate::recording::entry::FieldErrors;
use crate::recording::form::{self, Fields, TypedDraft};
use crate::recording::write::Settled;
use crate::recording::{entry_shift, RoundsError, Writer};
use crate::rules::houseway::HouseWayOut;
use crate::rules::money::Money;
use crate::rules::profile::RuleProfile;

/// How many of the table's latest rounds the screen lists.
const RECENT: i64 = 10;

/// What the stored form comes to: every problem, or the settlement it would get.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub errors: FieldErrors,
    pub settlement: Option<Settled>,
}

/// The table's round as stored: its draft (none before the first save) and its fields as typed.
#[derive(Debug, Clone)]
pub struct Stored {
    pub table: PlayingTable,
    pub draft: Option<Draft>,
    pub fields: Fields,
    pub checked: Checked,
    /// Whether the table asks once before a round is confirmed.
    pub confirm_prompt: bool,
}

/// One seat of the table's last round, for "same players and bets as last round".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastSeat {
    pub seat: u8,
    pub bet: Money,
}

/// Everything the screen shows besides the form.
#[derive(Debug, Clone)]
pub struct Side {
    pub shift: CurrentShift,
    pub recent: Vec<RoundRow>,
    /// Which of `recent` are voided (shown, marked, and left out of the house results).
    pub voided: Vec<RoundId>,
    pub house: HouseResults,
    pub last_seats: Vec<LastSeat>,
}

/// The whole screen.
#[derive(Debug, Clone)]
pub struct Screen {
    pub stored: Stored,
    pub side: Side,
}

/// A revision as the form sends it: empty for none yet, else a number.
pub fn revision(text: Option<&str>) -> Result<Option<i32>, RoundsError> {
    match text.map(str::trim).unwrap_or_default() {
        "" => Ok(None),
        text => text.parse().map(Some).map_err(|_| {
            RoundsError::Invalid({
                let mut errors = FieldErrors::default();
                errors.add(
                    "revision",
                    format!("the revision `{text}` is not a number; reload the page"),
                );
                errors
            })
        }),
    }
}

fn check(fields: &Fields, table: &PlayingTable) -> Result<Checked, RoundsError> {
    if form::is_blank(fields) {
        return Ok(Checked::default());
    }
    match drafts::settle_typed(fields, table) {
        Ok(settlement) => Ok(Checked {
            errors: FieldErrors::default(),
            settlement: Some(settlement),
        }),
        Err(RoundsError::Invalid(errors)) => Ok(Checked {
            errors,
            settlement: None,
        }),
        Err(other) => Err(other),
    }
}

fn side(
    conn: &mut PgConnection,
    table: &PlayingTable,
    shift: CurrentShift,
    day: NaiveDate,
) -> Result<Side, RoundsError> {
    let recent = rows::recent_for_table(conn, table.table.id, RECENT)?;
    let ids: Vec<RoundId> = recent.iter().map(|r| r.id).collect();
    let voided = review::voided_among(conn, &ids)?;
    let house = rows::house_results(conn, table.table.id, day, &shift.shift)?;
    let last_seats = match recent.first() {
        Some(last) => rows::get_round(conn, last.id)?
            .map(|round| {
                round
                    .places
                    .iter()
                    .filter_map(|place| {
                        let seat = place.place.seat()?;
                        Some(LastSeat {
                            seat,
                            bet: place.bet?,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(Side {
        shift,
        recent,
        voided,
        house,
        last_seats,
    })
}

/// `GET`: the table's screen as stored, changing nothing. Refused when `writer` may not enter
/// rounds at the table.
pub fn show(
    conn: &mut PgConnection,
    code: &str,
    writer: Writer,
    day: NaiveDate,
) -> Result<Screen, RoundsError> {
    let table = drafts::table(conn, code)?;
    let shift = entry_shift(conn, &table, writer)?;
    let draft = draft_rows::open_draft_of(conn, table.table.id)?;
    let fields = draft
        .as_ref()
        .map(|d| form::fields_of_data(&d.data))
        .unwrap_or_default();
    let checked = check(&fields, &table)?;
    let side = side(conn, &table, shift, day)?;
    Ok(Screen {
        stored: Stored {
            confirm_prompt: table_settings::confirm_prompt(conn, table.table.id)?,
            table,
            draft,
            fields,
            checked,
        },
        side,
    })
}

/// The form as typed, to store at table `code` for `writer` on gaming day `day`, if the caller
/// saw revision `expected` (any, if `None`).
#[derive(Debug, Clone, Copy)]
pub struct Save<'a> {
    pub code: &'a str,
    pub writer: Writer,
    pub actor: &'a Actor,
    pub day: NaiveDate,
    pub typed: &'a Fields,
    pub expected: Option<i32>,
}

/// Stores the form as typed in the table's round (opened now if it has none) at its next
/// revision, and checks it.
pub fn save(conn: &mut PgConnection, save: Save<'_>) -> Result<Stored, RoundsError> {
    let Save {
        code,
        writer,
        actor,
        day,
        typed,
        expected,
    } = save;
    let table = drafts::table(conn, code)?;
    let (draft, _) = drafts::open(conn, &table, writer, actor, day)?;
    let data = serde_json::to_value(TypedDraft {
        form: typed.clone(),
    })
    .map_err(|err| RoundsError::round(err.to_string()))?;
    let draft = drafts::save_data(
        conn,
        &table,
        writer,
        actor,
        draft.draft_key.as_str(),
        expected,
        &data,
    )?;
    let checked = check(typed, &table)?;
    Ok(Stored {
        confirm_prompt: table_settings::confirm_prompt(conn, table.table.id)?,
        table,
        draft: Some(draft),
        fields: typed.clone(),
        checked,
    })
}

/// [`save`], then the whole screen (the Preview button without script).
pub fn preview(conn: &mut PgConnection, to_save: Save<'_>) -> Result<Screen, RoundsError> {
    let stored = save(conn, to_save)?;
    let shift = entry_shift(conn, &stored.table, to_save.writer)?;
    let side = side(conn, &stored.table, shift, to_save.day)?;
    Ok(Screen { stored, side })
}

/// "Set by house way" (without script): the form as typed, with the dealer's hands set by the
/// house way from the dealer's 13 dealt cards, saved and checked as [`preview`] does. If the
/// dealt cards cannot be set, the form is saved as typed and the problem is said on the dealt
/// field.
pub fn set_by_house_way(conn: &mut PgConnection, to_save: Save<'_>) -> Result<Screen, RoundsError> {
    let table = drafts::table(conn, to_save.code)?;
    match form::set_dealer_by_house_way(to_save.typed, house_way_rules(&table)?) {
        Ok(filled) => preview(
            conn,
            Save {
                typed: &filled,
                ..to_save
            },
        ),
        Err((field, problem)) => {
            let mut screen = preview(conn, to_save)?;
            let checked = &mut screen.stored.checked;
            checked.settlement = None;
            checked.errors.0.insert(field.to_owned(), problem);
            Ok(screen)
        }
    }
}

/// The house way's set, for the dealer, of 13 cards typed at table `code` (under the rules in
/// force there), or the problem with them. Reads only.
pub fn house_way_at(
    conn: &mut PgConnection,
    code: &str,
    writer: Writer,
    cards: &str,
) -> Result<Result<HouseWayOut, String>, RoundsError> {
    let table = drafts::table(conn, code)?;
    entry_shift(conn, &table, writer)?;
    Ok(form::house_way_of_text(
        cards.trim(),
        house_way_rules(&table)?,
    ))
}

/// The banking rules `table` plays under, which say the house way; a points-game table is
/// refused: its players set against each other and there is no dealer's hand to set.
fn house_way_rules(table: &PlayingTable) -> Result<&RuleProfile, RoundsError> {
    table.rules.banking().ok_or_else(|| {
        RoundsError::round(format!(
            "table {} plays the points game: there is no dealer's hand to set by the house way",
            table.table.code
        ))
    })
}

/// Confirms the table's round `key` at the revision the caller saw; the settled round's id.
pub fn confirm(
    conn: &mut PgConnection,
    code: &str,
    key: &str,
    expected: Option<i32>,
    day: NaiveDate,
    writer: Writer,
    actor: &Actor,
) -> Result<RoundId, RoundsError> {
    if key.is_empty() {
        return Err(RoundsError::round(
            "there is no round to confirm yet: enter it and preview it first",
        ));
    }
    let (settled, _, _) = drafts::confirm(conn, key, Some(code), expected, day, writer, actor)?;
    Ok(settled.round.id)
}
