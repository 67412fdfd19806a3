//! The cage (docs/accounting.md, "Fills and credits"): a fill brings chips from the cage to a
//! table, a credit takes them back. A pit manager requests one at a table (its number is the
//! next of its kind in the year, without gaps); the cashier issues it; the table receives it,
//! signed by the dealer and a pit manager; two people, one of them not from the pit, may void
//! it with a reason. Each step is a signed record of its own; nobody signs two steps of one
//! slip. Every step and every print is an audit event on the table's chain and on the
//! property-wide `cage` chain.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::chips::{self, ChipSetVersion};
use crate::accounting::signatures::{self, Capacity, Document, SecondPerson, Signature};
use crate::accounting::{save, AccountingError, Saved};
use crate::db::accounting as chip_rows;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::cage::{
    self as rows, Kind, NewSlip, NewStep, Signer, SlipRow, SlipTable, Step, StepRow,
};
use crate::db::handle::Db;
use crate::db::ids::{CageSlipId, CageSlipPrintId, ChipSetVersionId, TableId, UserId};
use crate::db::users::{self, Role};
use crate::db::{days, shifts};
use crate::password::Secrets;
use crate::rules::accounting::Inventory;

/// The property-wide chain of the cage's events (beside each table's chain).
pub const CAGE_CHAIN: &str = "cage";

/// The cashier who issues a slip: the signed-in account's act.
pub const CASHIER: Capacity = Capacity {
    name: "cashier",
    title: "the cashier",
    roles: &[Role::Cashier],
};

/// Either signer of a void: from the pit (a pit manager) or not (a cashier, an administrator);
/// one of the two must not be from the pit ([`NOT_PIT`]).
pub const VOID_SIGNER: Capacity = Capacity {
    name: "void",
    title: "a signer of the void",
    roles: &[Role::Supervisor, Role::Cashier, Role::Admin],
};

/// The roles outside the pit, one of which must sign a void.
pub const NOT_PIT: [Role; 2] = [Role::Cashier, Role::Admin];

/// The form field of a denomination's count on a request: the same as on every count grid.
pub use crate::accounting::par::count_field;

/// A slip's number as printed (also in the accounting export, which reads `db` only).
pub use crate::db::cage::number_text;

/// One signed step of a slip.
#[derive(Debug, Clone, PartialEq)]
pub struct SignedStep {
    pub step: Step,
    pub signer: Signer,
    pub second: Option<Signer>,
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

/// A slip with its table, chips and every step taken, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Slip {
    pub id: CageSlipId,
    pub kind: Kind,
    pub year: i32,
    pub number: i32,
    pub table: SlipTable,
    pub gaming_day: NaiveDate,
    pub chip_set_version: i32,
    pub inventory: Inventory,
    pub created_at: DateTime<Utc>,
    pub steps: Vec<SignedStep>,
}

impl Slip {
    pub fn number_text(&self) -> String {
        number_text(self.kind, self.year, self.number)
    }

    /// Where the slip is: its last step (a void ends it, whatever came before).
    pub fn state(&self) -> Step {
        state_of(self.steps.iter().map(|s| s.step))
    }

    /// Everyone who signed a step so far.
    pub fn signers(&self) -> Vec<UserId> {
        self.steps
            .iter()
            .flat_map(|s| std::iter::once(s.signer.id).chain(s.second.as_ref().map(|p| p.id)))
            .collect()
    }

    /// The steps taken at or before `at` (what a print made then showed).
    pub fn as_at(&self, at: DateTime<Utc>) -> Slip {
        let mut slip = self.clone();
        slip.steps.retain(|s| s.at <= at);
        slip
    }

    /// The slip's target in audit events: `slip:F-2026-00001`.
    fn target(&self) -> String {
        format!("slip:{}", self.number_text())
    }

    fn title(&self) -> String {
        format!("{} {}", self.kind.as_str(), self.number_text())
    }
}

/// The state that steps taken in this order leave a slip in.
pub fn state_of(steps: impl Iterator<Item = Step>) -> Step {
    steps.max().unwrap_or(Step::Requested)
}

/// Whether `step` may follow a slip in `state`: each step once, in order; a void after any
/// step but a void.
pub fn may_follow(state: Step, step: Step) -> bool {
    match step {
        Step::Requested => false,
        Step::Issued => state == Step::Requested,
        Step::Received => state == Step::Issued,
        Step::Void => state != Step::Void,
    }
}

/// Why `step` cannot follow a slip in `state`, in words.
fn out_of_order(slip: &Slip, step: Step) -> AccountingError {
    let state = slip.state();
    let why = match (state, step) {
        (Step::Void, _) => "it is void".to_owned(),
        (Step::Requested, Step::Received) => "the cage has not issued it yet".to_owned(),
        (_, Step::Issued) => format!("it is {state} already"),
        (_, _) => format!("it is {state}"),
    };
    AccountingError::Refused(format!("The {} cannot be {step}: {why}.", slip.title()))
}

/// Refuses a signer who signed an earlier step of the slip (separation of duties).
fn signs_once(
    conn: &mut PgConnection,
    slip: &Slip,
    step: Step,
    signers: &[UserId],
) -> Result<(), AccountingError> {
    let before = slip.signers();
    for id in signers {
        if before.contains(id) {
            let name = users::find(conn, *id)?
                .map(|u| u.display_name)
                .unwrap_or_else(|| id.to_string());
            return Err(AccountingError::Refused(format!(
                "{name} signed an earlier step of the {} and cannot sign it as {step}: \
                 nobody signs two steps of one slip.",
                slip.title()
            )));
        }
    }
    Ok(())
}

fn signer_of(found: &HashMap<UserId, Signer>, id: UserId) -> Result<Signer, AccountingError> {
    found
        .get(&id)
        .cloned()
        .ok_or_else(|| AccountingError::BadStored(format!("signer {id}")))
}

/// The slips of `rows` with their tables, chips and steps, in the order given.
fn slips_of(conn: &mut PgConnection, rows: Vec<SlipRow>) -> Result<Vec<Slip>, AccountingError> {
    let ids: Vec<CageSlipId> = rows.iter().map(|r| r.id).collect();
    let steps = rows::steps(conn, &ids)?;
    let people: Vec<UserId> = steps
        .iter()
        .flat_map(|s| std::iter::once(s.signed_by).chain(s.second_signed_by))
        .collect();
    let found: HashMap<UserId, Signer> = rows::signers(conn, &people)?
        .into_iter()
        .map(|s| (s.id, s))
        .collect();
    let mut tables: HashMap<crate::db::ids::TableId, SlipTable> = HashMap::new();
    let mut sets: HashMap<ChipSetVersionId, ChipSetVersion> = HashMap::new();
    let mut slips = Vec::with_capacity(rows.len());
    for row in rows {
        let bad = || AccountingError::BadStored(format!("cage slip {}", row.id));
        if let Entry::Vacant(slot) = tables.entry(row.table_id) {
            slot.insert(rows::slip_table(conn, row.table_id)?.ok_or_else(bad)?);
        }
        if let Entry::Vacant(slot) = sets.entry(row.chip_set_version_id) {
            let set =
                chip_rows::chip_set_version(conn, row.chip_set_version_id)?.ok_or_else(bad)?;
            slot.insert(chips::stored(set)?);
        }
        let set = sets.get(&row.chip_set_version_id).ok_or_else(bad)?;
        let counts: Vec<i64> = row
            .counts
            .iter()
            .copied()
            .collect::<Option<Vec<i64>>>()
            .ok_or_else(bad)?;
        let inventory = Inventory::new(set.denominations.clone(), counts).map_err(|_| bad())?;
        if inventory.total() != row.total {
            return Err(bad());
        }
        let mut signed = Vec::new();
        for step in steps.iter().filter(|s| s.slip_id == row.id) {
            signed.push(SignedStep {
                step: step.step,
                signer: signer_of(&found, step.signed_by)?,
                second: step
                    .second_signed_by
                    .map(|id| signer_of(&found, id))
                    .transpose()?,
                reason: step.reason.clone(),
                at: step.at,
            });
        }
        slips.push(Slip {
            id: row.id,
            kind: row.kind,
            year: row.year,
            number: row.number,
            table: tables.get(&row.table_id).cloned().ok_or_else(bad)?,
            gaming_day: row.gaming_day,
            chip_set_version: set.version,
            inventory,
            created_at: row.created_at,
            steps: signed,
        });
    }
    Ok(slips)
}

fn one_slip(conn: &mut PgConnection, row: SlipRow) -> Result<Slip, AccountingError> {
    slips_of(conn, vec![row])?
        .pop()
        .ok_or(AccountingError::NotFound("slip"))
}

/// Appends `action` on the slip's table chain and on the `cage` chain.
fn audit_both(
    conn: &mut PgConnection,
    slip: &Slip,
    actor: &Actor,
    action: AuditAction,
    details: serde_json::Value,
) -> Result<(), AccountingError> {
    let table_chain = audit_log::table_chain(slip.table.id);
    for event in both_chains(slip, &table_chain, actor, action, details) {
        audit_log::append(conn, &event)?;
    }
    Ok(())
}

/// The events of `action` on the slip's table chain (`table_chain`) and on the `cage` chain,
/// in that order.
fn both_chains<'a>(
    slip: &Slip,
    table_chain: &'a str,
    actor: &'a Actor,
    action: AuditAction,
    details: serde_json::Value,
) -> [NewAuditEvent<'a>; 2] {
    [table_chain, CAGE_CHAIN].map(|chain| NewAuditEvent {
        chain,
        actor,
        action,
        target: slip.target(),
        details: details.clone(),
        gaming_day: Some(slip.gaming_day),
        table_id: Some(slip.table.id),
    })
}

/// The slip's document for the signature step: its table's chain.
fn document(slip: &Slip) -> Document {
    document_of(
        slip.kind,
        slip.year,
        slip.number,
        slip.table.id,
        slip.gaming_day,
    )
}

/// The document of the slip stored as `row`, as [`document`] makes it of the slip.
fn row_document(row: &SlipRow) -> Document {
    document_of(row.kind, row.year, row.number, row.table_id, row.gaming_day)
}

fn document_of(kind: Kind, year: i32, number: i32, table: TableId, day: NaiveDate) -> Document {
    let number = number_text(kind, year, number);
    Document {
        chain: audit_log::table_chain(table),
        target: format!("slip:{number}"),
        title: format!("the {} {number}", kind.as_str()),
        table_id: Some(table),
        gaming_day: Some(day),
    }
}

/// A table's fills and credits page: the table, the chip set a request is counted against
/// (`None` while its currency has none), and the table's slips of the gaming day.
#[derive(Debug, Clone, PartialEq)]
pub struct TableCage {
    pub table: SlipTable,
    pub day: NaiveDate,
    pub chip_set: Option<ChipSetVersion>,
    pub slips: Vec<Slip>,
}

fn table_cage(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
) -> Result<TableCage, AccountingError> {
    let table = rows::slip_table_by_code(conn, code)?.ok_or(AccountingError::NotFound("table"))?;
    let chip_set = chip_rows::latest_chip_set_version_of(conn, &table.currency)?
        .map(chips::stored)
        .transpose()?;
    let rows = rows::slips_of_day(conn, day, Some(table.id))?;
    let slips = slips_of(conn, rows)?;
    Ok(TableCage {
        table,
        day,
        chip_set,
        slips,
    })
}

/// The fills and credits page of table `code` on gaming day `day`.
pub async fn table_page(
    db: &Db,
    code: String,
    day: NaiveDate,
) -> Result<TableCage, AccountingError> {
    db.run(move |conn| table_cage(conn, &code, day)).await
}

/// What a request asks for.
#[derive(Debug, Clone)]
pub struct Request {
    pub code: String,
    pub kind: Kind,
    /// The chip set version the form was counted against.
    pub counted_against: ChipSetVersionId,
    /// `count-<minor units>` per denomination; a blank is none.
    pub typed: HashMap<String, String>,
    pub day: NaiveDate,
}

/// Requests a fill or credit at a table for gaming day `request.day`, signed by the signed-in
/// pit manager: takes the kind's next number of the day's year, records the slip, its
/// `requested` step and signature, and `cage.requested` on the table's and the cage's chains.
/// Refused: a currency without a chip set, a form counted against an older chip set version, a
/// count that is not a whole number of chips, no chips at all, a closed gaming day.
pub async fn request(
    db: &Db,
    request: Request,
    signer: SignedIn,
    actor: Actor,
) -> Result<Saved<Slip, TableCage>, AccountingError> {
    let signer = Signature::signed_in(signer.id, &signer.username, Capacity::SUPERVISOR);
    db.run(move |conn| {
        let Request {
            code,
            kind,
            counted_against,
            typed,
            day,
        } = request;
        let change = |conn: &mut PgConnection| {
            let table =
                rows::slip_table_by_code(conn, &code)?.ok_or(AccountingError::NotFound("table"))?;
            if days::find_close(conn, day)?.is_some() {
                return Err(AccountingError::Refused(
                    crate::rules::gaming_day::closed_day_message(day),
                ));
            }
            let Some(set) = chip_rows::latest_chip_set_version_of(conn, &table.currency)? else {
                return Err(AccountingError::Refused(format!(
                    "{} has no chip set: an administrator adds one under Chip sets first.",
                    table.currency
                )));
            };
            let set = chips::stored(set)?;
            if set.id != counted_against {
                return Err(AccountingError::Refused(format!(
                    "The {} chip set changed to v{} while this form was open: count again.",
                    table.currency, set.version
                )));
            }
            let texts: Vec<&str> = set
                .denominations
                .as_slice()
                .iter()
                .map(|&d| typed.get(&count_field(d)).map_or("", String::as_str))
                .collect();
            let inventory = Inventory::typed(set.denominations.clone(), &texts)
                .map_err(|err| AccountingError::Refused(err.to_string()))?;
            if inventory.total().minor_units() == 0 {
                return Err(AccountingError::Refused(format!(
                    "A {} needs chips: count at least one.",
                    kind.as_str()
                )));
            }
            let year = day.year();
            let number = rows::next_number(conn, kind, year)?;
            let row = rows::insert_slip(
                conn,
                &NewSlip {
                    kind,
                    year,
                    number,
                    table_id: table.id,
                    gaming_day: day,
                    chip_set_version_id: set.id,
                    counts: inventory.counts(),
                    total: inventory.total(),
                },
            )?;
            rows::insert_step(
                conn,
                &NewStep {
                    slip: row.id,
                    step: Step::Requested,
                    signed_by: signer.user(),
                    second_signed_by: None,
                    reason: None,
                },
            )?;
            let slip = one_slip(conn, row)?;
            signatures::record(
                conn,
                &document(&slip),
                std::slice::from_ref(&signer),
                actor.client_addr.clone(),
            )?;
            let lines: Vec<serde_json::Value> = slip
                .inventory
                .lines()
                .filter(|l| l.count > 0)
                .map(|l| json!({"denomination": l.denomination, "count": l.count}))
                .collect();
            audit_both(
                conn,
                &slip,
                &actor,
                AuditAction::CageRequested,
                json!({
                    "kind": kind.as_str(),
                    "number": slip.number_text(),
                    "currency": slip.table.currency,
                    "chip_set_version": slip.chip_set_version,
                    "lines": lines,
                    "total": slip.inventory.total(),
                }),
            )?;
            Ok(slip)
        };
        let page = |conn: &mut PgConnection| table_cage(conn, &code, day);
        save(conn, change, page)
    })
    .await
}

/// Issues a requested slip: the signed-in cashier's signature; `cage.issued` on both chains.
/// Refused: a slip not waiting for the cage, a cashier who signed an earlier step.
pub async fn issue(
    db: &Db,
    id: CageSlipId,
    cashier: SignedIn,
    actor: Actor,
) -> Result<Slip, AccountingError> {
    let cashier = Signature::signed_in(cashier.id, &cashier.username, CASHIER);
    db.run(move |conn| {
        conn.transaction(|conn| {
            let row = rows::lock_slip(conn, id)?.ok_or(AccountingError::NotFound("slip"))?;
            let slip = one_slip(conn, row)?;
            if !may_follow(slip.state(), Step::Issued) {
                return Err(out_of_order(&slip, Step::Issued));
            }
            signs_once(conn, &slip, Step::Issued, &[cashier.user()])?;
            rows::insert_step(
                conn,
                &NewStep {
                    slip: id,
                    step: Step::Issued,
                    signed_by: cashier.user(),
                    second_signed_by: None,
                    reason: None,
                },
            )?;
            signatures::record(conn, &document(&slip), std::slice::from_ref(&cashier), actor.client_addr.clone())?;
            audit_both(
                conn,
                &slip,
                &actor,
                AuditAction::CageIssued,
                json!({"kind": slip.kind.as_str(), "number": slip.number_text(), "total": slip.inventory.total()}),
            )?;
            reread(conn, id)
        })
    })
    .await
}

fn reread(conn: &mut PgConnection, id: CageSlipId) -> Result<Slip, AccountingError> {
    let row = rows::slip(conn, id)?.ok_or(AccountingError::NotFound("slip"))?;
    one_slip(conn, row)
}

/// The slip `id`, for its page.
pub async fn show(db: &Db, id: CageSlipId) -> Result<Slip, AccountingError> {
    db.run(move |conn| reread(conn, id)).await
}

/// The signed-in account at the tablet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    pub id: UserId,
    pub username: String,
    pub role: Role,
}

/// The capacities of a receipt's signers: the signed-in account's, and the second person's.
/// A dealer signs as the dealer beside a pit manager; a pit manager as the pit manager beside
/// the dealer.
pub fn receipt_capacities(signed_in: Role) -> (Capacity, Capacity) {
    if signed_in == Role::Dealer {
        (Capacity::DEALER, Capacity::SUPERVISOR)
    } else {
        (Capacity::SUPERVISOR, Capacity::DEALER)
    }
}

/// A step signed by the signed-in account and a second person on the same tablet: checks the
/// second person ([`signatures::second`]: a refusal is audited there and answered in words with
/// the slip's page), then runs `step` with both signatures in one transaction.
#[allow(clippy::too_many_arguments)]
async fn signed_by_two(
    db: &Db,
    secrets: Secrets,
    id: CageSlipId,
    first: Signature,
    second: SecondPerson,
    capacity: Capacity,
    actor: Actor,
    step: impl FnOnce(&mut PgConnection, Signature) -> Result<Slip, AccountingError> + Send + 'static,
) -> Result<Saved<Slip, Slip>, AccountingError> {
    // The slip's document and the second signer's account in one turn (BENCHMARKS.md, "A
    // signature step"): the document needs only the slip's row.
    let typed = second.username.clone();
    let lock_at = actor.clone();
    let (document, candidate) = db
        .run(move |conn| -> Result<_, AccountingError> {
            let row = rows::slip(conn, id)?.ok_or(AccountingError::NotFound("slip"))?;
            let candidate = signatures::candidate(conn, &typed, &lock_at)?;
            Ok((row_document(&row), candidate))
        })
        .await?;
    let second = signatures::check(
        db,
        secrets,
        candidate,
        second.password,
        first.user(),
        capacity,
        &document,
        &actor,
    )
    .await?;
    match second {
        Err(reason) => {
            let page = show(db, id).await?;
            Ok(Saved::Refused { reason, page })
        }
        Ok(second) => {
            db.run(move |conn| save(conn, |conn| step(conn, second), |conn| reread(conn, id)))
                .await
        }
    }
}

/// Records the receipt of an issued slip at its table, signed by the signed-in dealer or pit
/// manager and a second person in the other capacity (two different people, neither of whom
/// signed an earlier step); a dealer who signs must be the one on shift at the slip's table.
/// `cage.received` on both chains.
pub async fn receive(
    db: &Db,
    secrets: Secrets,
    id: CageSlipId,
    signed_in: SignedIn,
    second: SecondPerson,
    actor: Actor,
) -> Result<Saved<Slip, Slip>, AccountingError> {
    let (mine, theirs) = receipt_capacities(signed_in.role);
    let first = Signature::signed_in(signed_in.id, &signed_in.username, mine);
    let recorded = first.clone();
    let at = actor.clone();
    signed_by_two(
        db,
        secrets,
        id,
        first,
        second,
        theirs,
        actor,
        move |conn, second| received(conn, id, recorded, second, at),
    )
    .await
}

/// Voids a slip that is not void, with a reason, signed by the signed-in account and a second
/// person, of whom one is not from the pit (a cashier or an administrator) and neither signed
/// an earlier step. The slip and every step are kept; `cage.void` on both chains.
pub async fn void(
    db: &Db,
    secrets: Secrets,
    id: CageSlipId,
    reason: String,
    signed_in: SignedIn,
    second: SecondPerson,
    actor: Actor,
) -> Result<Saved<Slip, Slip>, AccountingError> {
    let first = Signature::signed_in(signed_in.id, &signed_in.username, VOID_SIGNER);
    let recorded = first.clone();
    let at = actor.clone();
    signed_by_two(
        db,
        secrets,
        id,
        first,
        second,
        VOID_SIGNER,
        actor,
        move |conn, second| voided(conn, id, reason, recorded, second, at),
    )
    .await
}

fn received(
    conn: &mut PgConnection,
    id: CageSlipId,
    signed_in: Signature,
    second: Signature,
    actor: Actor,
) -> Result<Slip, AccountingError> {
    let row = rows::lock_slip(conn, id)?.ok_or(AccountingError::NotFound("slip"))?;
    let mut slip = one_slip(conn, row)?;
    if !may_follow(slip.state(), Step::Received) {
        return Err(out_of_order(&slip, Step::Received));
    }
    signs_once(
        conn,
        &slip,
        Step::Received,
        &[signed_in.user(), second.user()],
    )?;
    // Both signers' accounts in one read: for the dealer's check here and the signatures'.
    let accounts = users::find_all(conn, &[signed_in.user(), second.user()])?;
    let dealer = [&signed_in, &second]
        .into_iter()
        .find(|s| s.capacity() == Capacity::DEALER)
        .map(Signature::user);
    if let Some(dealer) = dealer {
        let user = accounts
            .iter()
            .find(|user| user.id == dealer)
            .ok_or(AccountingError::NotFound("dealer"))?;
        let at_table =
            shifts::dealer_table(conn, dealer)?.is_some_and(|(_, table)| table.id == slip.table.id);
        if user.role == Role::Dealer && !at_table {
            return Err(AccountingError::Refused(format!(
                "{} is not the dealer on shift at {}: the dealer of the table signs the receipt.",
                user.display_name, slip.table.code
            )));
        }
    }
    let step = rows::insert_step(
        conn,
        &NewStep {
            slip: id,
            step: Step::Received,
            signed_by: signed_in.user(),
            second_signed_by: Some(second.user()),
            reason: None,
        },
    )?;
    let details = json!({"kind": slip.kind.as_str(), "number": slip.number_text(), "total": slip.inventory.total()});
    record_step(
        conn,
        &mut slip,
        step,
        [signed_in, second],
        &accounts,
        &actor,
        AuditAction::CageReceived,
        details,
    )?;
    Ok(slip)
}

/// The slip's signer `id`, from the accounts read in its step's transaction.
fn signer_from(accounts: &[users::User], id: UserId) -> Result<Signer, AccountingError> {
    accounts
        .iter()
        .find(|user| user.id == id)
        .map(|user| Signer {
            id: user.id,
            username: user.username.clone(),
            display_name: user.display_name.clone(),
        })
        .ok_or_else(|| AccountingError::BadStored(format!("signer {id}")))
}

fn voided(
    conn: &mut PgConnection,
    id: CageSlipId,
    reason: String,
    signed_in: Signature,
    second: Signature,
    actor: Actor,
) -> Result<Slip, AccountingError> {
    let reason = reason.trim().to_owned();
    let row = rows::lock_slip(conn, id)?.ok_or(AccountingError::NotFound("slip"))?;
    let mut slip = one_slip(conn, row)?;
    if reason.is_empty() {
        return Err(AccountingError::Refused(format!(
            "Voiding the {} needs a reason.",
            slip.title()
        )));
    }
    if !may_follow(slip.state(), Step::Void) {
        return Err(out_of_order(&slip, Step::Void));
    }
    signs_once(conn, &slip, Step::Void, &[signed_in.user(), second.user()])?;
    let accounts = users::find_all(conn, &[signed_in.user(), second.user()])?;
    let mut not_pit = false;
    for signer in [&signed_in, &second] {
        let user = accounts
            .iter()
            .find(|user| user.id == signer.user())
            .ok_or(AccountingError::NotFound("signer"))?;
        not_pit |= NOT_PIT.contains(&user.role);
    }
    if !not_pit {
        return Err(AccountingError::Refused(format!(
            "A void needs one signer from outside the pit: a cashier or an administrator \
                     signs the void of the {}.",
            slip.title()
        )));
    }
    let step = rows::insert_step(
        conn,
        &NewStep {
            slip: id,
            step: Step::Void,
            signed_by: signed_in.user(),
            second_signed_by: Some(second.user()),
            reason: Some(&reason),
        },
    )?;
    let details = json!({
        "kind": slip.kind.as_str(),
        "number": slip.number_text(),
        "was": slip.state().as_str(),
        "reason": reason,
    });
    record_step(
        conn,
        &mut slip,
        step,
        [signed_in, second],
        &accounts,
        &actor,
        AuditAction::CageVoid,
        details,
    )?;
    Ok(slip)
}

/// Records the step just written (`step`, signed by `signers`, whose `accounts` the step's
/// transaction read) on `slip`: checks and appends the signatures, then `action` on both chains,
/// all in one append at the end, so that the table's chain, which every round at the table
/// moves, stays locked for the fewest statements; and adds the step to `slip`, which is then
/// the slip as read back (it is locked: nothing else changed it).
#[allow(clippy::too_many_arguments)]
fn record_step(
    conn: &mut PgConnection,
    slip: &mut Slip,
    step: StepRow,
    signers: [Signature; 2],
    accounts: &[users::User],
    actor: &Actor,
    action: AuditAction,
    details: serde_json::Value,
) -> Result<(), AccountingError> {
    let document = document(slip);
    let signed = signatures::checked(&document, &signers, accounts, actor.client_addr.clone())?;
    let mut events = signatures::events(&document, &signed);
    let table_chain = audit_log::table_chain(slip.table.id);
    events.extend(both_chains(slip, &table_chain, actor, action, details));
    audit_log::append_all(conn, &events)?;
    slip.steps.push(SignedStep {
        step: step.step,
        signer: signer_from(accounts, step.signed_by)?,
        second: step
            .second_signed_by
            .map(|id| signer_from(accounts, id))
            .transpose()?,
        reason: step.reason,
        at: step.at,
    });
    Ok(())
}

/// Records a print of slip `id` by `printer` (the first is the original, every later one a
/// reprint) and `cage.printed` on both chains; answers the print's id, for its view.
pub async fn print(
    db: &Db,
    id: CageSlipId,
    printer: UserId,
    actor: Actor,
) -> Result<CageSlipPrintId, AccountingError> {
    db.run(move |conn| {
        conn.transaction(|conn| {
            let row = rows::lock_slip(conn, id)?.ok_or(AccountingError::NotFound("slip"))?;
            let slip = one_slip(conn, row)?;
            let copy = i32::try_from(rows::prints(conn, id)?.len())
                .map_err(|_| AccountingError::BadStored(format!("prints of slip {id}")))?
                + 1;
            let print = rows::insert_print(conn, id, copy, printer)?;
            audit_both(
                conn,
                &slip,
                &actor,
                AuditAction::CagePrinted,
                json!({
                    "number": slip.number_text(),
                    "copy": copy,
                    "reprint": copy > 1,
                    "state": slip.state().as_str(),
                }),
            )?;
            Ok(print.id)
        })
    })
    .await
}

/// One print of a slip, as it was printed: the slip with the steps taken by then.
#[derive(Debug, Clone, PartialEq)]
pub struct Printed {
    pub slip: Slip,
    pub copy_number: i32,
    pub printed_by: Signer,
    pub at: DateTime<Utc>,
}

impl Printed {
    pub fn is_reprint(&self) -> bool {
        self.copy_number > 1
    }
}

/// The print `id` (reads only).
pub async fn printed(db: &Db, id: CageSlipPrintId) -> Result<Printed, AccountingError> {
    db.run(move |conn| {
        let print = rows::print(conn, id)?.ok_or(AccountingError::NotFound("print"))?;
        let slip = reread(conn, print.slip_id)?;
        let printed_by = rows::signers(conn, &[print.printed_by])?
            .pop()
            .ok_or_else(|| AccountingError::BadStored(format!("print {id}")))?;
        Ok(Printed {
            slip: slip.as_at(print.at),
            copy_number: print.copy_number,
            printed_by,
            at: print.at,
        })
    })
    .await
}

/// The cage's page: slips waiting to be issued, and slips issued but not yet received.
#[derive(Debug, Clone, PartialEq)]
pub struct CageDesk {
    pub pending: Vec<Slip>,
    pub in_transit: Vec<Slip>,
}

pub async fn desk(db: &Db) -> Result<CageDesk, AccountingError> {
    db.run(|conn| {
        let pending = rows::pending(conn)?;
        let in_transit = rows::in_transit(conn)?;
        Ok(CageDesk {
            pending: slips_of(conn, pending)?,
            in_transit: slips_of(conn, in_transit)?,
        })
    })
    .await
}

/// Every slip of a gaming day, by kind and number.
pub async fn day_list(db: &Db, day: NaiveDate) -> Result<Vec<Slip>, AccountingError> {
    db.run(move |conn| {
        let rows = rows::slips_of_day(conn, day, None)?;
        slips_of(conn, rows)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_follows_the_one_before_and_a_void_ends_the_slip() {
        use Step::{Issued, Received, Requested, Void};
        // (state, step, allowed)
        let cases = [
            (Requested, Issued, true),
            (Requested, Received, false),
            (Requested, Void, true),
            (Issued, Issued, false),
            (Issued, Received, true),
            (Issued, Void, true),
            (Received, Received, false),
            (Received, Void, true),
            (Void, Issued, false),
            (Void, Received, false),
            (Void, Void, false),
            (Requested, Requested, false),
        ];
        for (state, step, allowed) in cases {
            assert_eq!(may_follow(state, step), allowed, "{step} after {state}");
        }
    }

    #[test]
    fn a_slip_is_in_its_last_state_and_void_whatever_came_before() {
        use Step::{Issued, Received, Requested, Void};
        assert_eq!(state_of([Requested].into_iter()), Requested);
        assert_eq!(state_of([Requested, Issued].into_iter()), Issued);
        assert_eq!(
            state_of([Requested, Issued, Received].into_iter()),
            Received
        );
        assert_eq!(state_of([Requested, Void].into_iter()), Void);
        assert_eq!(
            state_of([Requested, Issued, Received, Void].into_iter()),
            Void
        );
    }

    #[test]
    fn numbers_read_with_their_kind_and_year() {
        assert_eq!(number_text(Kind::Fill, 2026, 7), "F-2026-00007");
        assert_eq!(number_text(Kind::Credit, 2027, 12345), "C-2027-12345");
    }
}
