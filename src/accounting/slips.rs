//! Table inventory slips: the opener and the closer, each a count of the table's chips by
//! denomination (against its currency's chip set in force, the par beside it), signed by the
//! dealer and a supervisor, two different people ([`signatures`]). A slip is never changed: a
//! correction is a void (a supervisor who signed none of it, with a reason) and a new slip.
//!
//! An opener is checked against the table's previous closer (its last one not void): each
//! denomination's difference is kept, and when the chips that do not match are worth more
//! than the property's limit the table takes no rounds until a supervisor explains it
//! (`db::accounting::held_opener`, which recording reads). A closer ends the table's day: it
//! is refused while a dealer is on shift there or a round is open, so the dealer signs off
//! first and signs the closer as the second person, or signs it in, from the pit's side.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::chips::{self, ChipSetVersion};
use crate::accounting::signatures::{self, Capacity, Document, SecondPerson, Signature};
use crate::accounting::{AccountingError, Saved};
use crate::db::accounting::{self as rows, NewSlip, ParTable, SlipRow};
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::handle::Db;
use crate::db::ids::{ChipSetVersionId, ShiftId, SlipId, UserId};
use crate::db::users::Role;
use crate::password::Secrets;
use crate::rules::accounting::{self as arithmetic, Difference, Inventory};
use crate::rules::money::Money;

/// An opener or a closer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Opener,
    Closer,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Opener => "opener",
            Kind::Closer => "closer",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        match text {
            "opener" => Some(Kind::Opener),
            "closer" => Some(Kind::Closer),
            _ => None,
        }
    }
}

/// Who a slip's signer was, for the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub id: UserId,
    pub name: String,
}

/// A slip as its page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Slip {
    pub id: SlipId,
    pub kind: Kind,
    pub gaming_day: NaiveDate,
    pub shift: Option<ShiftId>,
    pub chip_set_version: i32,
    pub inventory: Inventory,
    pub par_total: Option<Money>,
    pub dealer: Person,
    pub supervisor: Person,
    pub signed_at: DateTime<Utc>,
    /// An opener's check: the closer it was compared with, each denomination that differs,
    /// the value that does not match, the limit then, and whether it held the table.
    pub previous_closer: Option<SlipId>,
    pub differences: Vec<Difference>,
    pub difference: Option<Money>,
    pub limit: Option<Money>,
    pub held: bool,
    pub explanation: Option<(String, Person, DateTime<Utc>)>,
    pub void: Option<(String, Person, DateTime<Utc>)>,
}

/// A table's slips page for one gaming day, and what its count form needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SlipsPage {
    pub table: ParTable,
    pub day: NaiveDate,
    /// The chip set a new count is made against (`None`: the currency has none).
    pub chip_set: Option<ChipSetVersion>,
    /// The par in force: counts by denomination of `chip_set` (none where its chip set differs).
    pub par: Option<Inventory>,
    pub slips: Vec<Slip>,
    /// The kind of slip the table needs next: a closer after a standing opener, else an opener.
    pub next: Kind,
    /// What keeps a closer from being signed: the dealer on shift, the open round's key.
    pub dealer_on_shift: Option<String>,
    pub open_round: Option<String>,
    /// The opener holding the table, if one does.
    pub held: Option<SlipId>,
    pub limit: Money,
}

/// The count form: the kind, the chip set version it was counted against, the counts as
/// typed (`count-<minor units>`), and the second person.
#[derive(Debug)]
pub struct CountForm {
    pub kind: String,
    pub counted_against: ChipSetVersionId,
    pub typed: HashMap<String, String>,
    pub second: SecondPerson,
}

/// The signed-in account that enters a slip and signs it first.
#[derive(Debug, Clone)]
pub struct Me {
    pub id: UserId,
    pub username: String,
    pub role: Role,
    pub actor: Actor,
}

fn person(names: &HashMap<UserId, String>, id: UserId) -> Person {
    Person {
        id,
        name: names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("user {id}")),
    }
}

fn inventory_of(conn: &mut PgConnection, row: &SlipRow) -> Result<Inventory, AccountingError> {
    let bad = || AccountingError::BadStored(format!("slip {}", row.id));
    let set = rows::chip_set_version(conn, row.chip_set_version_id)?.ok_or_else(bad)?;
    let set = chips::stored(set)?;
    let counts: Vec<i64> = row
        .counts
        .iter()
        .copied()
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let inventory = Inventory::new(set.denominations, counts).map_err(|_| bad())?;
    if inventory.total() != row.total {
        return Err(bad());
    }
    Ok(inventory)
}

fn slip_of(
    conn: &mut PgConnection,
    row: SlipRow,
    names: &HashMap<UserId, String>,
    voids: &HashMap<SlipId, rows::SlipVoidRow>,
    explained: &HashMap<SlipId, rows::ExplanationRow>,
) -> Result<Slip, AccountingError> {
    let bad = || AccountingError::BadStored(format!("slip {}", row.id));
    let kind = Kind::parse(&row.kind).ok_or_else(bad)?;
    let inventory = inventory_of(conn, &row)?;
    let version = rows::chip_set_version(conn, row.chip_set_version_id)?
        .ok_or_else(bad)?
        .version;
    let par_total = match row.par_id {
        Some(par) => rows::pars(conn, row.table_id)?
            .into_iter()
            .find(|p| p.id == par)
            .map(|p| p.total),
        None => None,
    };
    let differences = match row.previous_closer_id {
        Some(closer) => {
            let closer = rows::slip(conn, closer)?.ok_or_else(bad)?;
            arithmetic::differences(&inventory_of(conn, &closer)?, &inventory).ok_or_else(bad)?
        }
        None => Vec::new(),
    };
    Ok(Slip {
        id: row.id,
        kind,
        gaming_day: row.gaming_day,
        shift: row.shift_id,
        chip_set_version: version,
        inventory,
        par_total,
        dealer: person(names, row.dealer_id),
        supervisor: person(names, row.supervisor_id),
        signed_at: row.created_at,
        previous_closer: row.previous_closer_id,
        differences,
        difference: row.difference.map(Money::from_minor_units),
        limit: row.difference_limit.map(Money::from_minor_units),
        held: row.held,
        explanation: explained.get(&row.id).map(|e| {
            (
                e.explanation.clone(),
                person(names, e.written_by),
                e.written_at,
            )
        }),
        void: voids
            .get(&row.id)
            .map(|v| (v.reason.clone(), person(names, v.voided_by), v.voided_at)),
    })
}

fn page(
    conn: &mut PgConnection,
    table: ParTable,
    day: NaiveDate,
    limit: Money,
) -> Result<SlipsPage, AccountingError> {
    let chip_set = rows::latest_chip_set_version_of(conn, &table.currency)?
        .map(chips::stored)
        .transpose()?;
    let par = match (rows::latest_par(conn, table.id)?, &chip_set) {
        (Some(par), Some(set)) if par.chip_set_version_id == set.id => {
            let counts: Option<Vec<i64>> = par.counts.iter().copied().collect();
            counts.and_then(|c| Inventory::new(set.denominations.clone(), c).ok())
        }
        _ => None,
    };
    let stored = rows::slips_of_day(conn, table.id, day)?;
    let ids: Vec<SlipId> = stored.iter().map(|s| s.id).collect();
    let voids: HashMap<_, _> = rows::voids_of(conn, &ids)?
        .into_iter()
        .map(|v| (v.slip_id, v))
        .collect();
    let explained: HashMap<_, _> = rows::explanations_of(conn, &ids)?
        .into_iter()
        .map(|e| (e.slip_id, e))
        .collect();
    let mut people: Vec<UserId> = stored
        .iter()
        .flat_map(|s| [s.dealer_id, s.supervisor_id])
        .chain(voids.values().map(|v| v.voided_by))
        .chain(explained.values().map(|e| e.written_by))
        .collect();
    people.sort();
    people.dedup();
    let names: HashMap<_, _> = rows::names_of(conn, &people)?.into_iter().collect();
    let slips = stored
        .into_iter()
        .map(|row| slip_of(conn, row, &names, &voids, &explained))
        .collect::<Result<_, _>>()?;
    let next = match rows::last_standing_slip(conn, table.id, None)? {
        Some(last) if last.kind == Kind::Opener.as_str() => Kind::Closer,
        _ => Kind::Opener,
    };
    let (shift, draft) = rows::open_at_table(conn, table.id)?;
    let held = rows::held_opener(conn, table.id)?.map(|s| s.id);
    Ok(SlipsPage {
        table,
        chip_set,
        par,
        slips,
        next,
        dealer_on_shift: shift.map(|(_, name)| name),
        open_round: draft,
        held,
        limit,
        day,
    })
}

fn table_by_code(conn: &mut PgConnection, code: &str) -> Result<ParTable, AccountingError> {
    rows::par_table_by_code(conn, code)?.ok_or(AccountingError::NotFound("table"))
}

/// The count form of table `code`'s opener, in the caller's connection, when the table needs
/// one (its newest slip not void is not an opener: none yet, or a closer), for the table
/// screen; `None` when its opener stands (one row read), or when its currency has no chip set
/// (a casino not keeping its table accounting here is not asked).
pub fn opener_form(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    limit: Money,
) -> Result<Option<SlipsPage>, AccountingError> {
    let table = table_by_code(conn, code)?;
    let newest = rows::newest_standing_slip(conn, table.id)?;
    if newest.is_some_and(|s| s.kind == Kind::Opener.as_str()) {
        return Ok(None);
    }
    let page = page(conn, table, day, limit)?;
    Ok(page.chip_set.is_some().then_some(page))
}

/// A table's slips of one gaming day.
pub async fn show(
    db: &Db,
    code: String,
    day: NaiveDate,
    limit: Money,
) -> Result<SlipsPage, AccountingError> {
    db.run(move |conn| {
        let table = table_by_code(conn, &code)?;
        page(conn, table, day, limit)
    })
    .await
}

/// The gaming day a closer counted now belongs to: the day the table opened (its standing
/// opener's), else the latest day it settled rounds on when that day has no closer yet; either
/// only while that day is not closed; else `today`. So a table closed just after the gaming
/// day's end closes the day it played, not the next (whose close would then wait for nothing).
fn closer_day(
    conn: &mut PgConnection,
    table: &ParTable,
    today: NaiveDate,
) -> Result<NaiveDate, AccountingError> {
    let open = |conn: &mut PgConnection, day: NaiveDate| -> Result<bool, AccountingError> {
        Ok(day <= today && crate::db::days::find_close(conn, day)?.is_none())
    };
    let last = rows::last_standing_slip(conn, table.id, None)?;
    if let Some(opener) = last.as_ref().filter(|s| s.kind == Kind::Opener.as_str()) {
        if open(conn, opener.gaming_day)? {
            return Ok(opener.gaming_day);
        }
    }
    if let Some(played) = rows::latest_round_day(conn, table.id)? {
        let closed_then = last
            .as_ref()
            .is_some_and(|s| s.kind == Kind::Closer.as_str() && s.gaming_day >= played);
        if !closed_then && open(conn, played)? {
            return Ok(played);
        }
    }
    Ok(today)
}

/// Why a closer cannot be signed now, if something is open at the table.
fn closer_blocked(
    conn: &mut PgConnection,
    table: &ParTable,
) -> Result<Option<String>, AccountingError> {
    let (shift, draft) = rows::open_at_table(conn, table.id)?;
    Ok(match (shift, draft) {
        (Some((_, dealer)), _) => Some(format!(
            "{dealer} is still signed on at {}: the dealer signs off the table first, then the closer is counted.",
            table.code
        )),
        (None, Some(_)) => Some(format!(
            "{} has a round open: confirm it or discard it on the table screen before the closer.",
            table.code
        )),
        (None, None) => None,
    })
}

/// What a valid count form becomes before its signatures.
struct Counted {
    kind: Kind,
    inventory: Inventory,
    mine: Capacity,
    theirs: Capacity,
    document: Document,
}

/// The count form's checks that need no password: the kind, the chip set (still the newest),
/// each count, who may sign it first, and for a closer nothing open at the table.
fn check_form(
    conn: &mut PgConnection,
    table: &ParTable,
    day: NaiveDate,
    form: &CountForm,
    me: &Me,
) -> Result<Result<Counted, String>, AccountingError> {
    let Some(kind) = Kind::parse(&form.kind) else {
        return Ok(Err("Choose an opener or a closer.".to_owned()));
    };
    let Some(set) = rows::latest_chip_set_version_of(conn, &table.currency)? else {
        return Ok(Err(format!(
            "{} has no chip set: an administrator adds one under Chip sets first.",
            table.currency
        )));
    };
    let set = chips::stored(set)?;
    if set.id != form.counted_against {
        return Ok(Err(format!(
            "The {} chip set changed to v{} while this form was open: count again.",
            table.currency, set.version
        )));
    }
    let texts: Vec<&str> = set
        .denominations
        .as_slice()
        .iter()
        .map(|&d| {
            form.typed
                .get(&crate::accounting::par::count_field(d))
                .map_or("", String::as_str)
        })
        .collect();
    let inventory = match Inventory::typed(set.denominations.clone(), &texts) {
        Ok(inventory) => inventory,
        Err(err) => return Ok(Err(err.to_string())),
    };
    let (mine, theirs) = match me.role {
        Role::Dealer => (Capacity::DEALER, Capacity::SUPERVISOR),
        Role::Supervisor | Role::Admin => (Capacity::SUPERVISOR, Capacity::DEALER),
        Role::Auditor | Role::Cashier | Role::Count | Role::Host | Role::Compliance => {
            return Ok(Err(format!(
                "A table's slips are signed by its dealer and a pit manager, not by the {} role.",
                me.role.as_str()
            )))
        }
    };
    if kind == Kind::Closer {
        if let Some(blocked) = closer_blocked(conn, table)? {
            return Ok(Err(blocked));
        }
    }
    let document = Document {
        chain: audit_log::table_chain(table.id),
        target: format!("table:{}/{}", table.code, kind.as_str()),
        title: format!("the {} of {}", kind.as_str(), table.code),
        table_id: Some(table.id),
        gaming_day: Some(day),
    };
    Ok(Ok(Counted {
        kind,
        inventory,
        mine,
        theirs,
        document,
    }))
}

/// Signs a new opener or closer of table `code` for gaming day `day`: the count as typed, the
/// signed-in account `me` first (as the dealer if a dealer, else as the supervisor) and the
/// second person in the other capacity, by their own password. An opener is checked against
/// the table's previous closer; above `limit` it holds the table. Records the slip, both
/// signatures and `slip.opener` / `slip.closer` on the table's chain, in one transaction.
/// Answers the new slip's id, or the refusal in words with the page.
#[allow(clippy::too_many_arguments)]
pub async fn sign(
    db: &Db,
    secrets: Secrets,
    code: String,
    day: NaiveDate,
    limit: Money,
    settings: crate::accounting::reconcile::Settings,
    form: CountForm,
    me: Me,
) -> Result<Saved<SlipId, SlipsPage>, AccountingError> {
    let today = day;
    let refuse = |reason: String| {
        let code = code.clone();
        async move {
            let page = show(db, code, today, limit).await?;
            Ok::<_, AccountingError>(Saved::Refused { reason, page })
        }
    };
    let (checked, form, me_again, day) = {
        let code = code.clone();
        let me = me.clone();
        db.run(move |conn| -> Result<_, AccountingError> {
            let table = table_by_code(conn, &code)?;
            let day = match Kind::parse(&form.kind) {
                Some(Kind::Closer) => closer_day(conn, &table, today)?,
                _ => today,
            };
            let checked = check_form(conn, &table, day, &form, &me)?;
            Ok((checked, form, me, day))
        })
        .await?
    };
    let counted = match checked {
        Ok(counted) => counted,
        Err(reason) => return refuse(reason).await,
    };
    let second = signatures::second(
        db,
        secrets,
        form.second,
        me_again.id,
        counted.theirs,
        &counted.document,
        &me.actor,
    )
    .await?;
    let second = match second {
        Ok(second) => second,
        Err(reason) => return refuse(reason).await,
    };
    let first = Signature::signed_in(me.id, &me.username, counted.mine);
    let counted_against = form.counted_against;
    let saved = db
        .run(move |conn| {
            let change = |conn: &mut PgConnection| {
                record(
                    conn,
                    &code,
                    day,
                    (limit, settings),
                    counted_against,
                    counted,
                    [first, second],
                    &me,
                )
            };
            let page = |conn: &mut PgConnection| {
                let table = table_by_code(conn, &code)?;
                page(conn, table, today, limit)
            };
            crate::accounting::save(conn, change, page)
        })
        .await?;
    Ok(saved)
}

/// The slip's transaction: the table locked, the form's checks again under the lock, the
/// opener's check against the previous closer, the slip, its signatures and its event; after a
/// closer, the day's reconciliation (an investigation opened if it is final and flagged).
#[allow(clippy::too_many_arguments)]
fn record(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    (limit, settings): (Money, crate::accounting::reconcile::Settings),
    counted_against: ChipSetVersionId,
    counted: Counted,
    signed: [Signature; 2],
    me: &Me,
) -> Result<SlipId, AccountingError> {
    let table = rows::lock_table_by_code(conn, code)?.ok_or(AccountingError::NotFound("table"))?;
    let Counted {
        kind,
        inventory,
        document,
        ..
    } = counted;
    let current = rows::latest_chip_set_version_of(conn, &table.currency)?.map(|s| s.id);
    if current != Some(counted_against) {
        return Err(AccountingError::Refused(format!(
            "The {} chip set changed while this form was open: count again.",
            table.currency
        )));
    }
    if kind == Kind::Closer {
        if let Some(blocked) = closer_blocked(conn, &table)? {
            return Err(AccountingError::Refused(blocked));
        }
    }
    let (dealer, supervisor) = if signed[0].capacity() == Capacity::DEALER {
        (signed[0].user(), signed[1].user())
    } else {
        (signed[1].user(), signed[0].user())
    };
    let shift = match kind {
        Kind::Opener => rows::open_at_table(conn, table.id)?.0.map(|(id, _)| id),
        Kind::Closer => rows::last_shift_of_day(conn, table.id, day)?.map(|(id, _)| id),
    };
    let previous = match kind {
        Kind::Opener => rows::last_standing_slip(conn, table.id, Some("closer"))?,
        Kind::Closer => None,
    };
    let differences = match &previous {
        Some(closer) => arithmetic::differences(&inventory_of(conn, closer)?, &inventory),
        None => Some(Vec::new()),
    }
    .ok_or_else(|| AccountingError::Refused("The count is too large to hold.".to_owned()))?;
    let difference = match &previous {
        Some(_) => Some(arithmetic::gross(&differences).ok_or_else(|| {
            AccountingError::Refused("The count is too large to hold.".to_owned())
        })?),
        None => None,
    };
    let held = difference.is_some_and(|d| d > limit);
    let par = rows::latest_par(conn, table.id)?;
    let row = rows::insert_slip(
        conn,
        &NewSlip {
            table_id: table.id,
            kind: kind.as_str(),
            gaming_day: day,
            shift_id: shift,
            chip_set_version_id: counted_against,
            counts: inventory.counts(),
            total: inventory.total().minor_units(),
            par_id: par.as_ref().map(|p| p.id),
            dealer_id: dealer,
            supervisor_id: supervisor,
            previous_closer_id: previous.as_ref().map(|p| p.id),
            difference: difference.map(Money::minor_units),
            difference_limit: difference.map(|_| limit.minor_units()),
            held,
        },
    )?;
    let document = Document {
        target: format!("slip:{}", row.id),
        ..document
    };
    signatures::record(conn, &document, &signed, me.actor.client_addr.clone())?;
    let lines: Vec<serde_json::Value> = inventory
        .lines()
        .map(|l| json!({"denomination": l.denomination, "count": l.count}))
        .collect();
    let differences: Vec<serde_json::Value> = differences
        .iter()
        .map(|d| {
            json!({
                "denomination": d.denomination,
                "before": d.before,
                "after": d.after,
                "amount": d.amount,
            })
        })
        .collect();
    let action = match kind {
        Kind::Opener => AuditAction::SlipOpener,
        Kind::Closer => AuditAction::SlipCloser,
    };
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: &document.chain,
            actor: &me.actor,
            action,
            target: document.target.clone(),
            details: json!({
                "slip": row.id,
                "table": table.code,
                "chip_set_version_id": counted_against,
                "lines": lines,
                "total": inventory.total(),
                "par_total": par.map(|p| p.total),
                "dealer_id": dealer,
                "supervisor_id": supervisor,
                "shift_id": shift,
                "previous_closer": previous.map(|p| p.id),
                "differences": differences,
                "difference": difference,
                "limit": difference.map(|_| limit),
                "held": held,
            }),
            gaming_day: Some(day),
            table_id: Some(table.id),
        },
    )?;
    if kind == Kind::Closer {
        crate::accounting::reconcile::open_if_flagged(conn, table.id, day, settings, &me.actor)?;
    }
    Ok(row.id)
}

/// The slip `id` of table `code`, and that table, in the caller's transaction (locked).
fn slip_at(
    conn: &mut PgConnection,
    code: &str,
    id: SlipId,
) -> Result<(ParTable, SlipRow), AccountingError> {
    let table = rows::lock_table_by_code(conn, code)?.ok_or(AccountingError::NotFound("table"))?;
    let slip = rows::slip(conn, id)?
        .filter(|s| s.table_id == table.id)
        .ok_or(AccountingError::NotFound("slip"))?;
    Ok((table, slip))
}

/// Voids slip `id` of table `code` with `reason`: by a supervisor or administrator who signed
/// none of it (a signer never voids their own count); records `slip.void`. A void slip stays
/// on its page; the count is made again as a new slip.
pub async fn void(
    db: &Db,
    code: String,
    id: SlipId,
    reason: String,
    day: NaiveDate,
    limit: Money,
    me: Me,
) -> Result<Saved<SlipId, SlipsPage>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let (table, slip) = slip_at(conn, &code, id)?;
            let reason = reason.trim();
            if !matches!(me.role, Role::Supervisor | Role::Admin) {
                return Err(AccountingError::Refused(
                    "Only a pit manager or an administrator voids a slip.".to_owned(),
                ));
            }
            if me.id == slip.dealer_id || me.id == slip.supervisor_id {
                return Err(AccountingError::Refused(format!(
                    "You signed slip {id}: another pit manager voids it."
                )));
            }
            if reason.is_empty() {
                return Err(AccountingError::Refused(
                    "Say why the slip is void.".to_owned(),
                ));
            }
            if !rows::voids_of(conn, &[id])?.is_empty() {
                return Err(AccountingError::Refused(format!(
                    "Slip {id} is void already."
                )));
            }
            rows::insert_void(conn, id, reason, me.id)?;
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &audit_log::table_chain(table.id),
                    actor: &me.actor,
                    action: AuditAction::SlipVoid,
                    target: format!("slip:{id}"),
                    details: json!({ "slip": id, "kind": slip.kind, "reason": reason }),
                    gaming_day: Some(slip.gaming_day),
                    table_id: Some(table.id),
                },
            )?;
            Ok(id)
        };
        let page = |conn: &mut PgConnection| {
            let table = table_by_code(conn, &code)?;
            page(conn, table, day, limit)
        };
        crate::accounting::save(conn, change, page)
    })
    .await
}

/// Records a supervisor's written explanation of the held opener `id` of table `code`
/// (`slip.explained`): the table takes rounds again.
pub async fn explain(
    db: &Db,
    code: String,
    id: SlipId,
    explanation: String,
    day: NaiveDate,
    limit: Money,
    me: Me,
) -> Result<Saved<SlipId, SlipsPage>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let (table, slip) = slip_at(conn, &code, id)?;
            let explanation = explanation.trim();
            if !matches!(me.role, Role::Supervisor | Role::Admin) {
                return Err(AccountingError::Refused(
                    "Only a pit manager or an administrator explains a difference.".to_owned(),
                ));
            }
            if !slip.held {
                return Err(AccountingError::Refused(format!(
                    "Slip {id} holds nothing: it needs no explanation."
                )));
            }
            if !rows::voids_of(conn, &[id])?.is_empty() {
                return Err(AccountingError::Refused(format!("Slip {id} is void.")));
            }
            if !rows::explanations_of(conn, &[id])?.is_empty() {
                return Err(AccountingError::Refused(format!(
                    "Slip {id} is explained already."
                )));
            }
            if explanation.is_empty() {
                return Err(AccountingError::Refused(
                    "Write what explains the difference.".to_owned(),
                ));
            }
            rows::insert_explanation(conn, id, explanation, me.id)?;
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &audit_log::table_chain(table.id),
                    actor: &me.actor,
                    action: AuditAction::SlipExplained,
                    target: format!("slip:{id}"),
                    details: json!({
                        "slip": id,
                        "explanation": explanation,
                        "difference": slip.difference,
                    }),
                    gaming_day: Some(slip.gaming_day),
                    table_id: Some(table.id),
                },
            )?;
            Ok(id)
        };
        let page = |conn: &mut PgConnection| {
            let table = table_by_code(conn, &code)?;
            page(conn, table, day, limit)
        };
        crate::accounting::save(conn, change, page)
    })
    .await
}
