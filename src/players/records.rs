//! Players' records (docs/players.md, "Players"): registering a player, correcting their
//! identity, setting their status (active, self-excluded, barred), finding them, and a
//! player's page with their ratings, each shown as the viewer's role may see it ([`Sight`]).
//! Every change, and every read of personal data, is an event on the `players` chain.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::{Connection, PgConnection};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::accounting::slips::{Me, Person};
use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::PlayerId;
use crate::db::players::{self as rows, Identity, NewList, NewListLine, NewStatus, PlayerRow};
use crate::players::comp;
use crate::players::observations::{observations_of, Observation};
use crate::players::ratings::{self, Rating};
use crate::players::{event, keeps_records, refusal, sets_status, status_of, Sight, PLAYERS_CHAIN};
pub use crate::players::{FormRefusal, Status};
use crate::rules::money::Total;
use crate::rules::rating::{self, CompRule, Figures};

/// A player as a list shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerLine {
    pub id: PlayerId,
    pub card_number: String,
    pub name: String,
    pub status: Status,
}

/// The record of a player as typed on the form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerForm {
    pub card_number: String,
    pub first_name: String,
    pub last_name: String,
    /// YYYY-MM-DD, or empty.
    pub date_of_birth: String,
    pub id_reference: String,
    pub notes: String,
}

impl PlayerForm {
    pub fn of(row: &PlayerRow) -> PlayerForm {
        PlayerForm {
            card_number: row.card_number.clone(),
            first_name: row.first_name.clone(),
            last_name: row.last_name.clone(),
            date_of_birth: row.date_of_birth.map(|d| d.to_string()).unwrap_or_default(),
            id_reference: row.id_reference.clone().unwrap_or_default(),
            notes: row.notes.clone(),
        }
    }
}

/// The identity a form gives, checked as the database will: a card number of 4 to 20 letters
/// and digits (spaces and dashes typed are dropped, letters made capitals), names of 1 to 80
/// characters, a date of birth in the past if given.
pub fn identity_of(form: &PlayerForm, today: NaiveDate) -> Result<Identity, FormRefusal> {
    let card: String = form
        .card_number
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_uppercase();
    if !(4..=20).contains(&card.len()) || !card.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(refusal(
            "card_number",
            "A card number is 4 to 20 letters and digits.",
        ));
    }
    let name = |text: &str, field: &'static str, what: &str| {
        let text = text.trim();
        if text.is_empty() || text.chars().count() > 80 {
            Err(refusal(
                field,
                format!("Give the {what}, at most 80 characters."),
            ))
        } else {
            Ok(text.to_owned())
        }
    };
    let first_name = name(&form.first_name, "first_name", "first name")?;
    let last_name = name(&form.last_name, "last_name", "last name")?;
    let date_of_birth = match form.date_of_birth.trim() {
        "" => None,
        text => match text.parse::<NaiveDate>() {
            Ok(day) if day < today => Some(day),
            Ok(_) => return Err(refusal("date_of_birth", "A date of birth is in the past.")),
            Err(_) => {
                return Err(refusal(
                    "date_of_birth",
                    "A date of birth is written YYYY-MM-DD.",
                ))
            }
        },
    };
    let id_reference = match form.id_reference.trim() {
        "" => None,
        text if text.chars().count() > 120 => {
            return Err(refusal(
                "id_reference",
                "An identity document reference is at most 120 characters.",
            ))
        }
        text => Some(text.to_owned()),
    };
    if form.notes.chars().count() > 2000 {
        return Err(refusal("notes", "Notes are at most 2,000 characters."));
    }
    Ok(Identity {
        card_number: card,
        first_name,
        last_name,
        date_of_birth,
        id_reference,
        notes: form.notes.trim().to_owned(),
    })
}

fn refused_role(what: &str) -> AccountingError {
    AccountingError::Refused(format!("Your role does not {what}."))
}

/// Finds players by the start of their card number or of a name (at most 50), for hosts,
/// compliance officers, auditors and pit managers.
pub async fn search(db: &Db, text: String, me: Me) -> Result<Vec<PlayerLine>, AccountingError> {
    if Sight::of(me.role) < Sight::NameAndStatus {
        return Err(refused_role("look players up"));
    }
    db.run(move |conn| {
        let text = text.trim();
        let found = rows::search(conn, text, 50)?;
        found
            .into_iter()
            .map(|(p, s)| {
                Ok(PlayerLine {
                    status: status_of(s.as_ref())?,
                    id: p.id,
                    name: format!("{}, {}", p.last_name, p.first_name),
                    card_number: p.card_number,
                })
            })
            .collect()
    })
    .await
}

/// A stored exclusion list's line that named a player as they were registered or corrected:
/// they were given its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub source: String,
    pub line: i32,
    pub status: Status,
}

/// A player registered, and the exclusion list that named them, if one did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    pub id: PlayerId,
    pub listed: Option<Listed>,
}

/// Registers a player (hosts and compliance officers). `player.registered`; a player a stored
/// exclusion list names is given its status at once (`player.status_set`).
pub async fn register(
    db: &Db,
    form: PlayerForm,
    day: NaiveDate,
    me: Me,
) -> Result<Result<Registered, FormRefusal>, AccountingError> {
    if !keeps_records(me.role) {
        return Err(refused_role("register players"));
    }
    let identity = match identity_of(&form, day) {
        Ok(identity) => identity,
        Err(refused) => return Ok(Err(refused)),
    };
    db.run(move |conn| {
        conn.transaction(|conn| {
            if let Some(other) = rows::by_card(conn, &identity.card_number)? {
                return Ok(Err(refusal(
                    "card_number",
                    format!(
                        "Card {} is {} {}'s already.",
                        other.card_number, other.first_name, other.last_name
                    ),
                )));
            }
            let row = rows::insert_player(conn, &identity, me.id)?;
            event(
                conn,
                &me,
                AuditAction::PlayerRegistered,
                row.id,
                day,
                None,
                json!({ "player": row.id, "identity": identity_json(&identity) }),
            )?;
            let listed = check_listed(conn, &row, day, &me)?;
            Ok(Ok(Registered { id: row.id, listed }))
        })
    })
    .await
}

/// Gives an active player the status of the oldest stored exclusion list line that names them
/// (by identity document, or by names and date of birth): what it did.
fn check_listed(
    conn: &mut PgConnection,
    player: &PlayerRow,
    day: NaiveDate,
    me: &Me,
) -> Result<Option<Listed>, AccountingError> {
    let lines = rows::listed(
        conn,
        player.id_reference.as_deref(),
        &player.last_name,
        &player.first_name,
        player.date_of_birth,
    )?;
    let Some(line) = lines.into_iter().next() else {
        return Ok(None);
    };
    if status_of(rows::current_status(conn, player.id)?.as_ref())?.excluded() {
        return Ok(None);
    }
    let status = Status::parse(&line.status).ok_or_else(|| {
        AccountingError::BadStored(format!(
            "exclusion list {} line {}",
            line.list_id, line.line
        ))
    })?;
    add_status(conn, player, status, &line.reason, &line.source, day, me)?;
    Ok(Some(Listed {
        source: line.source,
        line: line.line,
        status,
    }))
}

fn identity_json(identity: &Identity) -> serde_json::Value {
    json!({
        "card_number": identity.card_number,
        "first_name": identity.first_name,
        "last_name": identity.last_name,
        "date_of_birth": identity.date_of_birth,
        "id_reference": identity.id_reference,
        "notes": identity.notes,
    })
}

/// Corrects a player's identity (hosts and compliance officers): `player.corrected` with the
/// values before and after; the corrected identity is checked against the stored exclusion
/// lists as a registration is.
pub async fn correct(
    db: &Db,
    id: PlayerId,
    form: PlayerForm,
    day: NaiveDate,
    me: Me,
) -> Result<Result<Option<Listed>, FormRefusal>, AccountingError> {
    if !keeps_records(me.role) {
        return Err(refused_role("correct players' records"));
    }
    let identity = match identity_of(&form, day) {
        Ok(identity) => identity,
        Err(refused) => return Ok(Err(refused)),
    };
    db.run(move |conn| {
        conn.transaction(|conn| {
            let before = rows::lock_player(conn, id)?.ok_or(AccountingError::NotFound("player"))?;
            if let Some(other) = rows::by_card(conn, &identity.card_number)? {
                if other.id != id {
                    return Ok(Err(refusal(
                        "card_number",
                        format!("Card {} is another player's.", other.card_number),
                    )));
                }
            }
            let old = Identity {
                card_number: before.card_number,
                first_name: before.first_name,
                last_name: before.last_name,
                date_of_birth: before.date_of_birth,
                id_reference: before.id_reference,
                notes: before.notes,
            };
            if old == identity {
                return Ok(Err(FormRefusal {
                    field: None,
                    reason: "Nothing was changed.".to_owned(),
                }));
            }
            let after = rows::update_identity(conn, id, &identity)?;
            event(
                conn,
                &me,
                AuditAction::PlayerCorrected,
                id,
                day,
                None,
                json!({
                    "player": id,
                    "before": identity_json(&old),
                    "after": identity_json(&identity),
                }),
            )?;
            Ok(Ok(check_listed(conn, &after, day, &me)?))
        })
    })
    .await
}

/// Sets a player's status with its reason (hosts, compliance officers, pit managers);
/// `source` says where it came from (empty: typed). `player.status_set`. A player who is
/// seated and becomes excluded stays in their rating until it is ended: the answer says so.
pub async fn set_status(
    db: &Db,
    id: PlayerId,
    status: String,
    reason: String,
    day: NaiveDate,
    me: Me,
) -> Result<Result<String, FormRefusal>, AccountingError> {
    if !sets_status(me.role) {
        return Err(refused_role("set players' statuses"));
    }
    let Some(status) = Status::parse(&status) else {
        return Ok(Err(refusal(
            "status",
            "Choose active, self-excluded or barred.",
        )));
    };
    let reason = reason.trim().to_owned();
    if reason.is_empty() || reason.chars().count() > 500 {
        return Ok(Err(refusal(
            "reason",
            "Give the reason for the status, at most 500 characters.",
        )));
    }
    db.run(move |conn| {
        conn.transaction(|conn| {
            let player = rows::lock_player(conn, id)?.ok_or(AccountingError::NotFound("player"))?;
            let now = status_of(rows::current_status(conn, id)?.as_ref())?;
            if now == status {
                return Ok(Err(refusal(
                    "status",
                    format!("The player is {} already.", status.title().to_lowercase()),
                )));
            }
            add_status(conn, &player, status, &reason, "", day, &me)?;
            let seated = rows::open_of(conn, id)?;
            Ok(Ok(match seated {
                Some(rating) if status.excluded() => format!(
                    "{} {} is now {}. They are still rated at a table (rating {}): end that \
                     rating at the table.",
                    player.first_name,
                    player.last_name,
                    status.title().to_lowercase(),
                    rating.id
                ),
                _ => format!(
                    "{} {} is now {}.",
                    player.first_name,
                    player.last_name,
                    status.title().to_lowercase()
                ),
            }))
        })
    })
    .await
}

pub(crate) fn add_status(
    conn: &mut PgConnection,
    player: &PlayerRow,
    status: Status,
    reason: &str,
    source: &str,
    day: NaiveDate,
    me: &Me,
) -> Result<(), AccountingError> {
    let row = rows::insert_status(
        conn,
        &NewStatus {
            player_id: player.id,
            status: status.as_str(),
            reason,
            source,
            set_by: me.id,
        },
    )?;
    event(
        conn,
        me,
        AuditAction::PlayerStatusSet,
        player.id,
        day,
        None,
        json!({
            "player": player.id,
            "status_id": row.id,
            "status": status.as_str(),
            "reason": reason,
            "source": source,
        }),
    )
}

/// A status as the player's page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusLine {
    pub status: Status,
    pub reason: String,
    pub source: String,
    pub by: Person,
    pub at: DateTime<Utc>,
}

/// What a player's page shows, as the viewer may see it: personal data only for
/// [`Sight::Personal`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerPage {
    pub id: PlayerId,
    pub card_number: String,
    pub first_name: String,
    pub last_name: String,
    pub status: Status,
    /// Date of birth, identity document, notes: for [`Sight::Personal`] only.
    pub personal: Option<PlayerForm>,
    pub statuses: Vec<StatusLine>,
    pub ratings: Vec<Rating>,
    /// The unrated observations of the player before they were carded (each going on as one
    /// of their ratings), oldest first: estimates, in no total.
    pub observed: Vec<Observation>,
    /// The ratings' figures added up, per currency.
    pub totals: Vec<(String, Totals)>,
    pub registered_at: DateTime<Utc>,
    pub may_correct: bool,
    pub may_set_status: bool,
}

/// A player's figures over many ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub ratings: u32,
    pub hands: u32,
    pub total_bet: Total,
    pub actual_win: Total,
    pub theoretical_win: Total,
    pub theoretical_complete: bool,
    pub seconds_played: i64,
    /// The comp the theoretical win has earned, each rating's by the comp rule of its day
    /// (`rules::rating::comp`).
    pub comp: Total,
}

impl Totals {
    fn add(&mut self, f: &Figures) {
        self.ratings += 1;
        self.hands += f.hands;
        self.total_bet.0 += f.total_bet.0;
        self.actual_win.0 += f.actual_win.0;
        self.theoretical_win.0 += f.theoretical_win.0;
        self.theoretical_complete &= f.theoretical_complete;
        self.seconds_played += f.seconds_played;
    }

    pub fn average_bet(&self) -> Total {
        rating::average_bet(self.total_bet, self.hands)
    }
}

/// The most ratings a player's page lists (the newest).
pub const PAGE_RATINGS: i64 = 200;

/// A player's page (pit managers, hosts, compliance officers, auditors). A read that shows
/// personal data writes `player.read`.
pub async fn page(
    db: &Db,
    id: PlayerId,
    day: NaiveDate,
    now: DateTime<Utc>,
    me: Me,
) -> Result<PlayerPage, AccountingError> {
    let sight = Sight::of(me.role);
    if sight < Sight::NameAndStatus {
        return Err(refused_role("read players' records"));
    }
    db.run(move |conn| {
        let player = rows::player(conn, id)?.ok_or(AccountingError::NotFound("player"))?;
        let status_rows = rows::statuses(conn, id)?;
        let rating_rows = rows::ratings_of(conn, id, PAGE_RATINGS)?;
        let ratings = ratings::rated(conn, rating_rows, now)?;
        let carded = crate::db::observations::carded_as(conn, id)?;
        let observed = observations_of(conn, carded, now)?;
        let people: Vec<_> = status_rows.iter().map(|s| s.set_by).collect();
        let names: HashMap<_, _> = crate::accounting::drop::names(conn, people.into_iter())?;
        let mut totals: Vec<(String, Totals)> = Vec::new();
        for rating in &ratings {
            let at = match totals.iter().position(|(c, _)| *c == rating.currency) {
                Some(at) => at,
                None => {
                    totals.push((
                        rating.currency.clone(),
                        Totals {
                            theoretical_complete: true,
                            ..Totals::default()
                        },
                    ));
                    totals.len() - 1
                }
            };
            totals[at].1.add(&rating.figures);
        }
        let comp_rules = comp::rules_of(conn)?;
        for (currency, t) in &mut totals {
            t.comp = rating::comp(ratings.iter().filter(|r| r.currency == *currency).map(|r| {
                (
                    r.figures.theoretical_win,
                    CompRule::on(&comp_rules, r.gaming_day).map_or(0, |rule| rule.basis_points),
                )
            }));
        }
        let personal = (sight == Sight::Personal).then(|| PlayerForm::of(&player));
        if personal.is_some() {
            event(
                conn,
                &me,
                AuditAction::PlayerRead,
                id,
                day,
                None,
                json!({ "player": id, "card_number": player.card_number }),
            )?;
        }
        Ok(PlayerPage {
            id,
            status: status_of(status_rows.last())?,
            statuses: status_rows
                .iter()
                .map(|s| {
                    Ok(StatusLine {
                        status: status_of(Some(s))?,
                        reason: s.reason.clone(),
                        source: s.source.clone(),
                        by: crate::accounting::drop::person(&names, s.set_by),
                        at: s.set_at,
                    })
                })
                .collect::<Result<_, AccountingError>>()?,
            card_number: player.card_number,
            first_name: player.first_name,
            last_name: player.last_name,
            personal,
            ratings,
            observed,
            totals,
            registered_at: player.created_at,
            may_correct: keeps_records(me.role),
            may_set_status: sets_status(me.role),
        })
    })
    .await
}

/// What an exclusion list's import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imported {
    /// The list's lines (its header not counted).
    pub lines: usize,
    /// Active players the list matched: now excluded.
    pub excluded: Vec<PlayerLine>,
    /// Players it matched who were excluded already (left as they were).
    pub already: usize,
    /// Lines that matched no player.
    pub unmatched: usize,
}

/// The most lines an exclusion list may have at once (a form of 256 KiB holds about that).
pub const LIST_MOST_LINES: usize = 5_000;

/// Imports a regulator's exclusion list (CSV with a header: `last_name`, `first_name`,
/// `date_of_birth` (YYYY-MM-DD, may be empty), `id_reference` (may be empty), and optionally
/// `status` (`self_excluded`, the default, or `barred`) and `reason`): each line is matched
/// against the players by identity document, and by last and first name with date of birth
/// (case ignored); an active player matched is given the line's status with the list's name as
/// its source (`player.status_set`); one already excluded is left. The list and its lines are
/// kept, so a player registered or corrected later is checked against it too
/// (`exclusion_list.imported`, with the pasted text's SHA-256). A line that does not read
/// refuses the whole list, naming the line, and nothing is written (hosts and compliance
/// officers).
pub async fn import_exclusions(
    db: &Db,
    source: String,
    text: String,
    day: NaiveDate,
    me: Me,
) -> Result<Result<Imported, FormRefusal>, AccountingError> {
    if !keeps_records(me.role) {
        return Err(refused_role("import exclusion lists"));
    }
    let source = source.trim().to_owned();
    if source.is_empty() || source.chars().count() > 200 {
        return Ok(Err(refusal(
            "source",
            "Name the list (e.g. \"PAGCOR NCRPS 2026-11\"), at most 200 characters.",
        )));
    }
    let lines = match exclusion_lines(&text) {
        Ok(lines) => lines,
        Err(reason) => return Ok(Err(refusal("list", reason))),
    };
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    db.run(move |conn| {
        conn.transaction(|conn| {
            let list = rows::insert_list(
                conn,
                &NewList {
                    source: &source,
                    lines: i32::try_from(lines.len()).unwrap_or(i32::MAX),
                    gaming_day: day,
                    imported_by: me.id,
                },
            )?;
            let kept: Vec<NewListLine> = lines
                .iter()
                .map(|line| NewListLine {
                    list_id: list,
                    line: line.number,
                    last_name: line.last_name.clone(),
                    first_name: line.first_name.clone(),
                    date_of_birth: line.date_of_birth,
                    id_reference: line.id_reference.clone(),
                    status: line.status.as_str().to_owned(),
                    reason: line.reason.clone(),
                })
                .collect();
            rows::insert_list_lines(conn, &kept)?;
            let mut done = Imported {
                lines: lines.len(),
                ..Imported::default()
            };
            for line in &lines {
                let found = rows::matching(
                    conn,
                    line.id_reference.as_deref(),
                    &line.last_name,
                    &line.first_name,
                    line.date_of_birth,
                )?;
                if found.is_empty() {
                    done.unmatched += 1;
                }
                for player in found {
                    let player = rows::lock_player(conn, player.id)?
                        .ok_or(AccountingError::NotFound("player"))?;
                    let now = status_of(rows::current_status(conn, player.id)?.as_ref())?;
                    if now.excluded() || done.excluded.iter().any(|p| p.id == player.id) {
                        done.already += 1;
                        continue;
                    }
                    add_status(conn, &player, line.status, &line.reason, &source, day, &me)?;
                    done.excluded.push(PlayerLine {
                        id: player.id,
                        name: format!("{}, {}", player.last_name, player.first_name),
                        card_number: player.card_number,
                        status: line.status,
                    });
                }
            }
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: PLAYERS_CHAIN,
                    actor: &me.actor,
                    action: AuditAction::ExclusionListImported,
                    target: format!("exclusion_list:{list}"),
                    details: json!({
                        "list": list,
                        "source": source,
                        "lines": done.lines,
                        "sha256": digest,
                        "excluded": done.excluded.iter().map(|p| p.id).collect::<Vec<_>>(),
                        "already": done.already,
                        "unmatched": done.unmatched,
                    }),
                    gaming_day: Some(day),
                    table_id: None,
                },
            )?;
            Ok(Ok(done))
        })
    })
    .await
}

/// One line of an exclusion list, read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ListLine {
    /// Its line number in the list as pasted (the header is line 1).
    number: i32,
    last_name: String,
    first_name: String,
    date_of_birth: Option<NaiveDate>,
    id_reference: Option<String>,
    status: Status,
    reason: String,
}

/// The lines of an exclusion list as pasted, or what is wrong with it (the first line that
/// does not read, by its number).
fn exclusion_lines(text: &str) -> Result<Vec<ListLine>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|err| format!("The list's header does not read: {err}."))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let (Some(last), Some(first), Some(born), Some(reference)) = (
        column("last_name"),
        column("first_name"),
        column("date_of_birth"),
        column("id_reference"),
    ) else {
        return Err(
            "The list's first line names its columns: last_name, first_name, \
                    date_of_birth, id_reference (and status, reason if given)."
                .to_owned(),
        );
    };
    let (status_at, reason_at) = (column("status"), column("reason"));
    let mut lines = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let number = n + 2;
        let record = record.map_err(|err| format!("Line {number} does not read: {err}."))?;
        if lines.len() == LIST_MOST_LINES {
            return Err(format!(
                "A list has at most {LIST_MOST_LINES} lines: import it in parts."
            ));
        }
        let field = |at: usize| record.get(at).unwrap_or("").to_owned();
        let (last_name, first_name) = (field(last), field(first));
        if last_name.is_empty() || first_name.is_empty() {
            return Err(format!("Line {number} has no last or first name."));
        }
        let date_of_birth = match field(born).as_str() {
            "" => None,
            text => Some(text.parse::<NaiveDate>().map_err(|_| {
                format!("Line {number}: the date of birth {text:?} is not YYYY-MM-DD.")
            })?),
        };
        let status = match status_at.map(field).unwrap_or_default().as_str() {
            "" => Status::SelfExcluded,
            text => match Status::parse(text) {
                Some(status) if status.excluded() => status,
                _ => {
                    return Err(format!(
                        "Line {number}: the status {text:?} is neither self_excluded nor barred."
                    ))
                }
            },
        };
        let reason = match reason_at.map(field).unwrap_or_default() {
            reason if reason.is_empty() => "on the exclusion list".to_owned(),
            reason => reason.chars().take(500).collect(),
        };
        lines.push(ListLine {
            number: i32::try_from(number).unwrap_or(i32::MAX),
            last_name,
            first_name,
            date_of_birth,
            id_reference: Some(field(reference)).filter(|r| !r.is_empty()),
            status,
            reason,
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exclusion_list_reads_its_columns_in_any_order_and_names_a_bad_line() {
        let lines = exclusion_lines(
            "first_name,last_name,id_reference,date_of_birth,status\n\
             Maria, Santos ,passport P1,1980-04-02,barred\n\
             Jose,Reyes,,,\n",
        );
        let lines = lines.unwrap_or_default();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].last_name, "Santos");
        assert_eq!(lines[0].status, Status::Barred);
        assert_eq!(lines[0].id_reference.as_deref(), Some("passport P1"));
        assert_eq!(lines[1].status, Status::SelfExcluded);
        assert_eq!(lines[1].date_of_birth, None);
        let bad =
            exclusion_lines("last_name,first_name,date_of_birth,id_reference\nA,B,1980-13-01,\n");
        assert_eq!(
            bad,
            Err("Line 2: the date of birth \"1980-13-01\" is not YYYY-MM-DD.".to_owned())
        );
        assert!(exclusion_lines("name\nx\n").is_err());
        let active = exclusion_lines(
            "last_name,first_name,date_of_birth,id_reference,status\nA,B,,,active\n",
        );
        assert!(active.is_err_and(|e| e.contains("neither")));
    }
}
