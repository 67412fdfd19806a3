//! The generated history's table accounting (`pusoy-pit db generate`, issue 31): for every
//! generated table and gaming day with rounds, the documents a pit would have signed that day,
//! consistent with its rounds, so that every table-day reconciles to zero but a few deliberate
//! miscounts:
//!
//! - an **opener** counting the chips the table holds (its par on its first day, then what the
//!   day before left), signed by the day's first dealer and a generated supervisor;
//! - **buy-ins** through the day: the players at the table buy chips whenever what they hold
//!   would not cover the round (cash mostly, now and then a marker or a chip voucher); the
//!   players of a shift leave with their chips when it ends;
//! - **fills** when the table's chips run low (below 40 % of par) and **credits** when they run
//!   high (above 250 %), each requested by the shift's supervisor, issued by a generated cashier
//!   and received by the dealer with a second supervisor;
//! - a **closer** counting what the rounds, buy-ins, fills and credits leave on the table, after
//!   the last dealer signs off;
//! - the **count** of the drop by two generated counters, honest: what was bought in, by kind.
//!
//! About one table-day in [`MISCOUNT_ONE_IN`] is **miscounted**: its closer is short by one chip
//! of a denomination above that day's tolerance, so that the reconciliation flags it; its
//! investigation is opened as the count is signed ([`reconcile::open_if_flagged`]), and the next
//! day's opener, which counts the chip again, is explained by a supervisor.
//!
//! Each gaming day is written in one transaction: the documents a kind to a statement, their
//! audit events sealed on each table's chain (and the fills' and credits' on the `cage` chain),
//! as the use-cases write them (signatures, `slip.opener`, `buyin.recorded`, `cage.requested`,
//! `cage.issued`, `cage.received`, `slip.closer`, `count.signed`, `slip.explained`), at the
//! times they happened. The events follow the day's rounds on each chain (a day's events stay
//! together; within the day, the rounds come first), so `audit verify` passes.
//!
//! The same code writes the accounting of a history generated before it existed
//! (`db generate --accounting-only`): every table-day with signed-off shifts and no inventory slip
//! yet; its events then come after the whole history on each chain.

use std::collections::HashMap;

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use diesel::{Connection, PgConnection};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::accounting::reconcile::{self, Settings};
use crate::accounting::AccountingError;
use crate::db::accounting as slips_db;
use crate::db::accounting_history::{
    self as rows, BuyInInsert, CageSlipInsert, CountInsert, Documents, ExplanationInsert, RoundRow,
    Sequence, ShiftRow, SlipInsert, StepInsert,
};
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, ChainHead, NewAuditEvent, SealedEvent};
use crate::db::cage::Kind as CageKind;
use crate::db::ids::{ChipSetVersionId, ParId, TableId, UserId};
use crate::db::users::Role;
use crate::rules::accounting::{self as arithmetic, banknotes, Denominations, Inventory};
use crate::rules::drop::BuyInKind;
use crate::rules::money::Money;

/// One table-day in this many is miscounted (on average).
pub const MISCOUNT_ONE_IN: u32 = 200;

/// The chip set the generator gives a currency that has none.
pub const CHIP_SET_MAJOR: [i64; 6] = [25, 100, 500, 1_000, 5_000, 10_000];
/// The par it gives each generated table that has none, chips of each denomination above:
/// PHP 291,000.00 in all.
pub const PAR_COUNTS: [i64; 6] = [40, 100, 60, 50, 20, 10];

/// Where the generator's people sign from (the generated rounds' address).
const TABLET: &str = "10.20.0.7";

/// A generated person who signs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub id: UserId,
    pub username: String,
}

impl Person {
    fn actor(&self) -> Actor {
        Actor::user(self.id, &self.username, Some(TABLET.to_owned()))
    }
}

/// The people who sign the generated documents besides the dealers: supervisors (two a
/// shift: one requests, the other witnesses), cashiers, and the two counters.
#[derive(Debug, Clone)]
pub struct Staff {
    pub supervisors: Vec<Person>,
    pub cashiers: Vec<Person>,
    pub counters: [Person; 2],
}

/// What to write the accounting of.
#[derive(Debug, Clone)]
pub struct Plan {
    pub tables: Vec<TableId>,
    pub staff: Staff,
    pub seed: u64,
    /// Table-days before this gaming day (today's is still being played).
    pub before: NaiveDate,
    pub settings: Settings,
    /// The opener's difference limit ([`crate::config::Config::opener_difference_limit`]).
    pub opener_limit: Money,
    /// One table-day in this many (on average) is miscounted: [`MISCOUNT_ONE_IN`].
    pub miscount_one_in: u32,
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    pub table_days: u64,
    pub slips: u64,
    pub buy_ins: u64,
    pub fills: u64,
    pub credits: u64,
    pub counts: u64,
    pub events: u64,
    /// The table-days whose closer is short by a chip, with the investigation opened.
    pub miscounts: Vec<(TableId, NaiveDate)>,
    pub investigations: u64,
}

/// A generated table's chips: its currency's chip set version, its par, and what it holds.
#[derive(Debug, Clone)]
struct Table {
    id: TableId,
    code: String,
    currency: String,
    chip_set: ChipSetVersionId,
    chip_set_version: i32,
    denominations: Denominations,
    par: ParId,
    par_counts: Vec<i64>,
    par_total: Money,
    /// The chips on the table (as a new count would find them).
    tray: Vec<i64>,
    /// The last closer written: its id and its counts (short by a chip when miscounted).
    closer: Option<(i64, Vec<i64>)>,
    /// The chip the last closer left out, if it was miscounted.
    missed: Option<Money>,
}

/// Makes sure each of `tables`' currencies has a chip set and each table a par counted against
/// its newest version (creating them as an administrator would, with `chips.create` and
/// `table.par`, by `actor`).
pub fn prepare(
    conn: &mut PgConnection,
    tables: &[TableId],
    actor: &Actor,
) -> Result<(), AccountingError> {
    conn.transaction(|conn| {
        for &id in tables {
            let table =
                slips_db::lock_par_table(conn, id)?.ok_or(AccountingError::NotFound("table"))?;
            let version = match slips_db::latest_chip_set_version_of(conn, &table.currency)? {
                Some(version) => version,
                None => {
                    let set = slips_db::insert_chip_set(conn, &table.currency)?;
                    let denominations: Vec<Money> = CHIP_SET_MAJOR
                        .iter()
                        .map(|m| Money::from_minor_units(m * 100))
                        .collect();
                    let row =
                        slips_db::insert_chip_set_version(conn, set.id, 1, &denominations, None)?;
                    audit_log::append(
                        conn,
                        &NewAuditEvent::system(
                            actor,
                            AuditAction::ChipsCreate,
                            format!("chip_set:{}", set.id),
                        )
                        .details(json!({
                            "currency": set.currency,
                            "version": 1,
                            "denominations": denominations,
                        })),
                    )?;
                    row
                }
            };
            let denominations = denominations_of(&version.denominations)?;
            let par = slips_db::latest_par(conn, id)?;
            if par.is_some_and(|p| p.chip_set_version_id == version.id) {
                continue;
            }
            let counts = par_counts(&denominations);
            let inventory = Inventory::new(denominations, counts)
                .map_err(|err| AccountingError::Refused(err.to_string()))?;
            let next = slips_db::latest_par(conn, id)?.map_or(1, |p| p.version + 1);
            slips_db::insert_par(
                conn,
                id,
                next,
                version.id,
                inventory.counts(),
                inventory.total(),
                actor.user_id,
            )?;
            audit_log::append(
                conn,
                &NewAuditEvent {
                    chain: &audit_log::table_chain(id),
                    actor,
                    action: AuditAction::TablePar,
                    target: format!("table:{}", table.code),
                    details: json!({
                        "version": next,
                        "currency": table.currency,
                        "chip_set_version": version.version,
                        "chip_set_version_id": version.id,
                        "lines": lines_json(&inventory, false),
                        "total": inventory.total(),
                        "before_total": Value::Null,
                    }),
                    gaming_day: None,
                    table_id: Some(id),
                },
            )?;
        }
        Ok(())
    })
}

/// The generator's par in the denominations of a chip set: [`PAR_COUNTS`] where the set is the
/// generator's own, otherwise 50 chips of each.
fn par_counts(denominations: &Denominations) -> Vec<i64> {
    let own: Vec<Money> = CHIP_SET_MAJOR
        .iter()
        .map(|m| Money::from_minor_units(m * 100))
        .collect();
    if denominations.as_slice() == own.as_slice() {
        PAR_COUNTS.to_vec()
    } else {
        vec![50; denominations.len()]
    }
}

fn denominations_of(stored: &[Option<i64>]) -> Result<Denominations, AccountingError> {
    Denominations::new(
        stored
            .iter()
            .map(|d| Money::from_minor_units(d.unwrap_or(0)))
            .collect(),
    )
    .map_err(|err| AccountingError::BadStored(format!("a chip set version ({err})")))
}

fn counts_of(stored: &[Option<i64>]) -> Vec<i64> {
    stored.iter().map(|c| c.unwrap_or(0)).collect()
}

/// Reads each table's chip set, par and the chips it holds now (its last closer, or its par).
fn load_tables(conn: &mut PgConnection, ids: &[TableId]) -> Result<Vec<Table>, AccountingError> {
    let mut tables = Vec::with_capacity(ids.len());
    for &id in ids {
        let table = slips_db::par_table(conn, id)?.ok_or(AccountingError::NotFound("table"))?;
        let version = slips_db::latest_chip_set_version_of(conn, &table.currency)?
            .ok_or(AccountingError::NotFound("chip set"))?;
        let par = slips_db::latest_par(conn, id)?
            .filter(|p| p.chip_set_version_id == version.id)
            .ok_or(AccountingError::NotFound("par"))?;
        let denominations = denominations_of(&version.denominations)?;
        let par_counts = counts_of(&par.counts);
        let closer = rows::last_closer(conn, id)?
            .filter(|(_, counted_against, _)| *counted_against == version.id.0);
        let tray = closer
            .as_ref()
            .map_or_else(|| par_counts.clone(), |(_, _, counts)| counts.clone());
        tables.push(Table {
            id,
            code: table.code,
            currency: table.currency,
            chip_set: version.id,
            chip_set_version: version.version,
            denominations,
            par: par.id,
            par_counts,
            par_total: par.total,
            tray,
            closer: closer.map(|(id, _, counts)| (id, counts)),
            missed: None,
        });
    }
    Ok(tables)
}

/// Writes the accounting of every table-day of `plan` still without it, day by day;
/// `progress` hears after each day.
pub fn generate(
    conn: &mut PgConnection,
    plan: &Plan,
    mut progress: impl FnMut(NaiveDate, &Written),
) -> Result<Written, AccountingError> {
    if plan.staff.supervisors.len() < 2 || plan.staff.cashiers.is_empty() {
        return Err(AccountingError::Refused(
            "the generated accounting needs two supervisors and a cashier".to_owned(),
        ));
    }
    let mut tables = load_tables(conn, &plan.tables)?;
    let pending = rows::pending_days(conn, &plan.tables, plan.before)?;
    let mut days: Vec<(NaiveDate, Vec<TableId>)> = Vec::new();
    for found in pending {
        match days.last_mut() {
            Some((day, ids)) if *day == found.gaming_day => ids.push(found.table_id),
            _ => days.push((found.gaming_day, vec![found.table_id])),
        }
    }
    let mut written = Written::default();
    for (day, ids) in days {
        conn.transaction(|conn| write_day(conn, plan, &mut tables, day, &ids, &mut written))?;
        progress(day, &written);
    }
    Ok(written)
}

/// An event waiting for its place on its chain.
struct Pending {
    chain: String,
    at: DateTime<Utc>,
    actor: Actor,
    action: AuditAction,
    target: String,
    details: Value,
    table: TableId,
    day: NaiveDate,
}

/// One gaming day's documents and events, being made.
struct Day<'a> {
    day: NaiveDate,
    documents: Documents,
    events: Vec<Pending>,
    staff: &'a Staff,
}

impl Day<'_> {
    #[allow(clippy::too_many_arguments)]
    fn event(
        &mut self,
        chain: String,
        table: TableId,
        at: DateTime<Utc>,
        actor: Actor,
        action: AuditAction,
        target: String,
        details: Value,
    ) {
        self.events.push(Pending {
            chain,
            at,
            actor,
            action,
            target,
            details,
            table,
            day: self.day,
        });
    }

    /// The `signature` events of a document, one per signer, as `signatures::record` writes
    /// them: the first signed in on the tablet, the second by password.
    fn signatures(
        &mut self,
        table: TableId,
        at: DateTime<Utc>,
        target: &str,
        signers: &[(&Person, &'static str, Role)],
    ) {
        for (i, (person, capacity, role)) in signers.iter().enumerate() {
            self.event(
                audit_log::table_chain(table),
                table,
                at,
                person.actor(),
                AuditAction::Signature,
                target.to_owned(),
                json!({
                    "capacity": capacity,
                    "role": role.as_str(),
                    "by": if i == 0 { "session" } else { "password" },
                }),
            );
        }
    }
}

fn write_day(
    conn: &mut PgConnection,
    plan: &Plan,
    tables: &mut [Table],
    day: NaiveDate,
    ids: &[TableId],
    written: &mut Written,
) -> Result<(), AccountingError> {
    let shifts = rows::shifts_of_day(conn, ids, day)?;
    let rounds = rows::rounds_of_day(conn, ids, day)?;
    let mut shifts_of: HashMap<TableId, Vec<ShiftRow>> = HashMap::new();
    for shift in shifts {
        shifts_of.entry(shift.table_id).or_default().push(shift);
    }
    let mut rounds_of: HashMap<TableId, Vec<RoundRow>> = HashMap::new();
    for round in rounds {
        rounds_of.entry(round.table_id).or_default().push(round);
    }
    let mut sheet = Day {
        day,
        documents: Documents::default(),
        events: Vec::new(),
        staff: &plan.staff,
    };
    let mut miscounted = Vec::new();
    // Ids first, so that the events can name the documents they are about.
    let mut simulated = Vec::new();
    for table in tables.iter_mut().filter(|t| ids.contains(&t.id)) {
        let shifts = shifts_of.remove(&table.id).unwrap_or_default();
        let rounds = rounds_of.remove(&table.id).unwrap_or_default();
        if shifts.is_empty() {
            continue;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(
            plan.seed ^ (table.id.0 as u64).rotate_left(32) ^ day.num_days_from_ce() as u64,
        );
        let simulation = simulate(&mut rng, table, &shifts, &rounds, plan)?;
        simulated.push((table.id, shifts, simulation));
    }
    let buy_in_ids = rows::next_ids(
        conn,
        Sequence::BuyIns,
        simulated.iter().map(|(_, _, s)| s.buy_ins.len()).sum(),
    )?;
    let slip_ids = rows::next_ids(conn, Sequence::InventorySlips, simulated.len() * 2)?;
    let cage_ids = rows::next_ids(
        conn,
        Sequence::CageSlips,
        simulated.iter().map(|(_, _, s)| s.cage.len()).sum(),
    )?;
    let count_ids = rows::next_ids(conn, Sequence::DropCounts, simulated.len())?;
    let year = day.year();
    let mut numbers = HashMap::new();
    for kind in [CageKind::Fill, CageKind::Credit] {
        let wanted = simulated
            .iter()
            .flat_map(|(_, _, s)| &s.cage)
            .filter(|c| c.kind == kind)
            .count();
        if wanted > 0 {
            let first = rows::take_numbers(conn, kind.as_str(), year, wanted as i32)?;
            numbers.insert(kind.as_str(), first);
        }
    }
    let (mut buy_in_ids, mut slip_ids, mut cage_ids, mut count_ids) = (
        buy_in_ids.into_iter(),
        slip_ids.into_iter(),
        cage_ids.into_iter(),
        count_ids.into_iter(),
    );
    for (table_id, shifts, simulation) in simulated {
        let table = tables
            .iter_mut()
            .find(|t| t.id == table_id)
            .ok_or(AccountingError::NotFound("table"))?;
        let ids = Ids {
            opener: slip_ids
                .next()
                .ok_or(AccountingError::NotFound("slip id"))?,
            closer: slip_ids
                .next()
                .ok_or(AccountingError::NotFound("slip id"))?,
            count: count_ids
                .next()
                .ok_or(AccountingError::NotFound("count id"))?,
        };
        let mut buy_ins = Vec::new();
        for _ in &simulation.buy_ins {
            buy_ins.push(
                buy_in_ids
                    .next()
                    .ok_or(AccountingError::NotFound("buy-in id"))?,
            );
        }
        let mut cage = Vec::new();
        for slip in &simulation.cage {
            let id = cage_ids
                .next()
                .ok_or(AccountingError::NotFound("slip id"))?;
            let number = numbers
                .get_mut(slip.kind.as_str())
                .ok_or(AccountingError::NotFound("slip number"))?;
            cage.push((id, *number));
            *number += 1;
        }
        if simulation.missed.is_some() {
            miscounted.push(table.id);
        }
        record(
            &mut sheet, plan, table, &shifts, simulation, &ids, &buy_ins, &cage,
        )?;
    }
    rows::insert_documents(conn, &sheet.documents)?;
    let events = seal_and_append(conn, sheet.events)?;
    written.table_days += (sheet.documents.counts.len()) as u64;
    written.slips += sheet.documents.slips.len() as u64;
    written.buy_ins += sheet.documents.buy_ins.len() as u64;
    written.fills += sheet
        .documents
        .cage_slips
        .iter()
        .filter(|c| c.kind == CageKind::Fill.as_str())
        .count() as u64;
    written.credits += sheet
        .documents
        .cage_slips
        .iter()
        .filter(|c| c.kind == CageKind::Credit.as_str())
        .count() as u64;
    written.counts += sheet.documents.counts.len() as u64;
    written.events += events;
    // The count made the miscounted days final: the reconciliation opens their investigations,
    // as the count's own transaction does at the count team's desk.
    let counter = plan.staff.counters[0].actor();
    for table in miscounted {
        if reconcile::open_if_flagged(conn, table, day, plan.settings, &counter)?.is_some() {
            written.investigations += 1;
            written.events += 1;
        }
        written.miscounts.push((table, day));
    }
    Ok(())
}

/// Seals the day's events on their chains, each chain's in the order they happened, after its
/// head (locked until the day's transaction ends), and appends them; answers how many.
fn seal_and_append(
    conn: &mut PgConnection,
    mut events: Vec<Pending>,
) -> Result<u64, AccountingError> {
    // Stable: events at the same moment keep the order they were made in.
    events.sort_by(|a, b| a.chain.cmp(&b.chain).then(a.at.cmp(&b.at)));
    let mut count = 0;
    let mut start = 0;
    while start < events.len() {
        let chain = events[start].chain.clone();
        let end = events[start..]
            .iter()
            .position(|e| e.chain != chain)
            .map_or(events.len(), |n| start + n);
        let head = audit_log::lock_chain(conn, &chain)?;
        let mut after: ChainHead = head.clone();
        let mut sealed = Vec::with_capacity(end - start);
        for event in &events[start..end] {
            let next = SealedEvent::after_at(
                after,
                NewAuditEvent {
                    chain: &event.chain,
                    actor: &event.actor,
                    action: event.action,
                    target: event.target.clone(),
                    details: event.details.clone(),
                    gaming_day: Some(event.day),
                    table_id: Some(event.table),
                },
                event.at,
            );
            after = next.head_after();
            sealed.push(next);
        }
        audit_log::append_sealed(conn, &chain, &head, &sealed)?;
        count += sealed.len() as u64;
        start = end;
    }
    Ok(count)
}

/// The ids taken for a table-day's documents.
struct Ids {
    opener: i64,
    closer: i64,
    count: i64,
}

/// A buy-in as simulated.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BuyIn {
    at: DateTime<Utc>,
    shift: usize,
    seat: u8,
    kind: BuyInKind,
    amount: Money,
}

/// A fill or a credit as simulated, with the times of its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CageSlip {
    kind: CageKind,
    shift: usize,
    counts: Vec<i64>,
    total: Money,
    requested: DateTime<Utc>,
    issued: DateTime<Utc>,
    received: DateTime<Utc>,
}

/// A table-day as it went: what the opener found, the buy-ins, fills and credits, the chips
/// left on the table, and the chip the closer missed (when miscounted).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Simulation {
    opener: Vec<i64>,
    buy_ins: Vec<BuyIn>,
    cage: Vec<CageSlip>,
    closer: Vec<i64>,
    missed: Option<Money>,
}

/// Below this share of par the table asks for a fill (in percent), above this one it sends a
/// credit.
const FILL_BELOW: i64 = 40;
const CREDIT_ABOVE: i64 = 250;
/// Players buy in when what they hold is less than this many times the round's bets.
const COVER_BETS: i64 = 4;
/// Buy-ins are whole thousands (major units) above what is needed, and this many at most above.
const BUY_IN_STEP_MAJOR: i64 = 1_000;
const BUY_IN_EXTRA_STEPS: i64 = 5;

/// Plays the table's day through its rounds in order: the players' chips and the table's, the
/// buy-ins they need, the fills and credits the table's chips call for.
fn simulate(
    rng: &mut impl Rng,
    table: &Table,
    shifts: &[ShiftRow],
    rounds: &[RoundRow],
    plan: &Plan,
) -> Result<Simulation, AccountingError> {
    let unsound = |what: &str| AccountingError::BadStored(format!("{} on {}", what, table.code));
    let mut tray = table.tray_value().ok_or_else(|| unsound("the chips"))?;
    let par = table.par_total.minor_units();
    let step = BUY_IN_STEP_MAJOR * 100;
    let mut players = 0_i64;
    let mut shift_of_round = None;
    let mut buy_ins = Vec::new();
    let mut cage = Vec::new();
    let mut busy_until: Option<DateTime<Utc>> = None;
    for round in rounds {
        let shift = shifts
            .iter()
            .position(|s| s.id == round.shift_id)
            .ok_or_else(|| unsound("a round outside the day's shifts"))?;
        if shift_of_round != Some(shift) {
            // The players of the shift before left with their chips.
            players = 0;
            shift_of_round = Some(shift);
        }
        let need = (round.handle * COVER_BETS).max(round.dealer_result);
        while players < need {
            let short = need - players;
            let amount =
                (short + step - 1) / step * step + step * rng.random_range(0..=BUY_IN_EXTRA_STEPS);
            let amount = amount.min(crate::rules::drop::LARGEST.minor_units());
            let kind = match rng.random_range(0..100) {
                0..=3 => BuyInKind::Marker,
                4..=5 => BuyInKind::ChipVoucher,
                _ => BuyInKind::Cash,
            };
            buy_ins.push(BuyIn {
                at: round.settled_at - Duration::seconds(40),
                shift,
                seat: rng.random_range(1..=round.seats.clamp(1, 3)) as u8,
                kind,
                amount: Money::from_minor_units(amount),
            });
            players += amount;
            tray -= amount;
        }
        players -= round.dealer_result;
        tray += round.dealer_result;
        let last = std::ptr::eq(round, &rounds[rounds.len() - 1]);
        // A fill in flight is awaited, but the day never ends with the chips below none.
        if busy_until.is_some_and(|until| until > round.settled_at) && !(last && tray < 0) {
            continue;
        }
        let off = shifts[shift]
            .signed_off_at
            .ok_or_else(|| unsound("an open shift"))?;
        let (kind, amount) = if tray * 100 < par * FILL_BELOW {
            (CageKind::Fill, par - tray)
        } else if tray * 100 > par * CREDIT_ABOVE {
            (CageKind::Credit, tray - par)
        } else {
            continue;
        };
        let Some(counts) = in_chips(&table.denominations, amount, kind == CageKind::Fill) else {
            continue;
        };
        let total = value_of(&table.denominations, &counts).ok_or_else(|| unsound("a fill"))?;
        // Its steps a few minutes apart, all before the dealer signs off.
        let gap = (off - round.settled_at).min(Duration::seconds(160));
        let requested = round.settled_at + gap / 4;
        let (issued, received) = (round.settled_at + gap / 2, round.settled_at + gap * 3 / 4);
        match kind {
            CageKind::Fill => tray += total,
            CageKind::Credit => tray -= total,
        }
        busy_until = Some(received);
        cage.push(CageSlip {
            kind,
            shift,
            counts,
            total: Money::from_minor_units(total),
            requested,
            issued,
            received,
        });
    }
    if tray < 0 {
        return Err(unsound("chips below none"));
    }
    let closer = like_par(&table.denominations, &table.par_counts, tray)
        .ok_or_else(|| unsound("the closer's chips"))?;
    let drop: i64 = buy_ins.iter().map(|b| b.amount.minor_units()).sum();
    let tolerance = plan
        .settings
        .tolerance
        .for_drop(Money::from_minor_units(drop));
    let missed = if rng.random_range(0..plan.miscount_one_in.max(1)) == 0 {
        // The smallest chip whose absence the reconciliation cannot let pass.
        table
            .denominations
            .as_slice()
            .iter()
            .zip(&closer)
            .find(|(d, &n)| **d > tolerance && n > 0)
            .map(|(d, _)| *d)
    } else {
        None
    };
    Ok(Simulation {
        opener: table.tray.clone(),
        buy_ins,
        cage,
        closer,
        missed,
    })
}

impl Table {
    fn tray_value(&self) -> Option<i64> {
        value_of(&self.denominations, &self.tray)
    }
}

fn value_of(denominations: &Denominations, counts: &[i64]) -> Option<i64> {
    denominations
        .as_slice()
        .iter()
        .zip(counts)
        .try_fold(0_i64, |sum, (d, &n)| {
            sum.checked_add(d.minor_units().checked_mul(n)?)
        })
}

/// `amount` in chips, largest first: rounded up to what the smallest chip allows for a fill
/// (`up`), down for a credit; `None` when that is no chip at all.
fn in_chips(denominations: &Denominations, amount: i64, up: bool) -> Option<Vec<i64>> {
    let smallest = denominations.as_slice().first()?.minor_units();
    let amount = if up {
        (amount + smallest - 1) / smallest * smallest
    } else {
        amount / smallest * smallest
    };
    let mut left = amount;
    let mut counts = vec![0; denominations.len()];
    for (i, d) in denominations.as_slice().iter().enumerate().rev() {
        counts[i] = left / d.minor_units();
        left -= counts[i] * d.minor_units();
    }
    (left == 0 && amount > 0).then_some(counts)
}

/// `value` in chips the way a table holds them: up to three times its par of each chip, largest
/// first, the rest in the smallest. `None` when the smallest chip cannot make it up.
fn like_par(denominations: &Denominations, par: &[i64], value: i64) -> Option<Vec<i64>> {
    let mut left = value;
    let mut counts = vec![0; denominations.len()];
    for (i, d) in denominations.as_slice().iter().enumerate().skip(1).rev() {
        let d = d.minor_units();
        counts[i] = (left / d).min(par.get(i).copied().unwrap_or(0).saturating_mul(3));
        left -= counts[i] * d;
    }
    let smallest = denominations.as_slice().first()?.minor_units();
    if left % smallest != 0 {
        return None;
    }
    counts[0] = left / smallest;
    Some(counts)
}

/// The cash in banknotes of `currency`, largest first, when the count team counts it by note.
fn in_notes(currency: &str, cash: i64) -> Option<(Vec<i64>, Vec<i64>)> {
    let notes = banknotes(currency)?;
    let mut left = cash;
    let mut counts = vec![0; notes.len()];
    for (i, d) in notes.as_slice().iter().enumerate().rev() {
        counts[i] = left / d.minor_units();
        left -= counts[i] * d.minor_units();
    }
    (left == 0).then(|| {
        (
            notes.as_slice().iter().map(|d| d.minor_units()).collect(),
            counts,
        )
    })
}

fn lines_json(inventory: &Inventory, only_chips: bool) -> Vec<Value> {
    inventory
        .lines()
        .filter(|l| !only_chips || l.count > 0)
        .map(|l| json!({"denomination": l.denomination, "count": l.count}))
        .collect()
}

/// Turns a simulated table-day into its rows and events.
#[allow(clippy::too_many_arguments)]
fn record(
    sheet: &mut Day<'_>,
    plan: &Plan,
    table: &mut Table,
    shifts: &[ShiftRow],
    simulation: Simulation,
    ids: &Ids,
    buy_in_ids: &[i64],
    cage_ids: &[(i64, i32)],
) -> Result<(), AccountingError> {
    let day = sheet.day;
    let staff = sheet.staff;
    let chain = audit_log::table_chain(table.id);
    let dealer_of = |shift: &ShiftRow| Person {
        id: shift.dealer_id,
        username: shift.username.clone(),
    };
    let supervisors = &staff.supervisors;
    // Two supervisors a shift: the first requests and witnesses the opener, the second witnesses
    // receipts and the closer.
    let supervisor = |shift: usize, second: bool| {
        &supervisors[(shift * 2 + usize::from(second)) % supervisors.len()]
    };
    let (first, last) = match (shifts.first(), shifts.last()) {
        (Some(first), Some(last)) => (first, last),
        _ => return Ok(()),
    };
    let last_index = shifts.len() - 1;
    let inventory = |counts: Vec<i64>| {
        Inventory::new(table.denominations.clone(), counts)
            .map_err(|err| AccountingError::BadStored(err.to_string()))
    };

    // The opener, against the last closer.
    let opener = inventory(simulation.opener.clone())?;
    let opened_at = first.signed_on_at + Duration::seconds(30);
    let previous = match &table.closer {
        Some((id, counts)) => Some((*id, inventory(counts.clone())?)),
        None => None,
    };
    let differences = match &previous {
        Some((_, closer)) => arithmetic::differences(closer, &opener)
            .ok_or_else(|| AccountingError::BadStored("an opener".to_owned()))?,
        None => Vec::new(),
    };
    let difference = match &previous {
        Some(_) => Some(
            arithmetic::gross(&differences)
                .ok_or_else(|| AccountingError::BadStored("an opener".to_owned()))?,
        ),
        None => None,
    };
    let held = difference.is_some_and(|d| d > plan.opener_limit);
    let dealer = dealer_of(first);
    let witness = supervisor(0, false);
    sheet.documents.slips.push(SlipInsert {
        id: ids.opener,
        table_id: table.id,
        kind: "opener",
        gaming_day: day,
        shift_id: Some(first.id),
        chip_set_version_id: table.chip_set.0,
        counts: opener.counts().to_vec(),
        total: opener.total().minor_units(),
        par_id: Some(table.par.0),
        dealer_id: dealer.id,
        supervisor_id: witness.id,
        previous_closer_id: previous.as_ref().map(|p| p.0),
        difference: difference.map(Money::minor_units),
        difference_limit: difference.map(|_| plan.opener_limit.minor_units()),
        held,
        created_at: opened_at,
    });
    let target = format!("slip:{}", ids.opener);
    sheet.signatures(
        table.id,
        opened_at,
        &target,
        &[
            (&dealer, "dealer", Role::Dealer),
            (witness, "supervisor", Role::Supervisor),
        ],
    );
    sheet.event(
        chain.clone(),
        table.id,
        opened_at,
        dealer.actor(),
        AuditAction::SlipOpener,
        target.clone(),
        json!({
            "slip": ids.opener,
            "table": table.code,
            "chip_set_version_id": table.chip_set,
            "lines": lines_json(&opener, false),
            "total": opener.total(),
            "par_total": table.par_total,
            "dealer_id": dealer.id,
            "supervisor_id": witness.id,
            "shift_id": first.id,
            "previous_closer": previous.as_ref().map(|p| p.0),
            "differences": differences.iter().map(|d| json!({
                "denomination": d.denomination,
                "before": d.before,
                "after": d.after,
                "amount": d.amount,
            })).collect::<Vec<_>>(),
            "difference": difference,
            "limit": difference.map(|_| plan.opener_limit),
            "held": held,
        }),
    );
    if held {
        // The chip the closer missed is on the table: a supervisor says so, and the table plays.
        let explained_at = opened_at + Duration::seconds(90);
        let explanation = match table.missed {
            Some(chip) => format!(
                "Counted again: one {} {} chip was left out of the last closer.",
                table.currency,
                chip.major_text()
            ),
            None => "Counted again: the last closer was wrong.".to_owned(),
        };
        sheet.documents.explanations.push(ExplanationInsert {
            slip_id: ids.opener,
            explanation: explanation.clone(),
            written_by: witness.id,
            written_at: explained_at,
        });
        sheet.event(
            chain.clone(),
            table.id,
            explained_at,
            witness.actor(),
            AuditAction::SlipExplained,
            target,
            json!({"slip": ids.opener, "explanation": explanation, "difference": difference}),
        );
    }

    // The buy-ins, recorded by the dealer on shift.
    let mut recorded = [0_i64; 3];
    for (buy_in, &id) in simulation.buy_ins.iter().zip(buy_in_ids) {
        let shift = &shifts[buy_in.shift];
        let dealer = dealer_of(shift);
        recorded[match buy_in.kind {
            BuyInKind::Cash => 0,
            BuyInKind::Marker => 1,
            BuyInKind::ChipVoucher => 2,
        }] += buy_in.amount.minor_units();
        sheet.documents.buy_ins.push(BuyInInsert {
            id,
            table_id: table.id,
            gaming_day: day,
            shift_id: Some(shift.id),
            seat: i16::from(buy_in.seat),
            kind: buy_in.kind.as_str(),
            currency: table.currency.clone(),
            amount: buy_in.amount.minor_units(),
            recorded_by: dealer.id,
            created_at: buy_in.at,
        });
        sheet.event(
            chain.clone(),
            table.id,
            buy_in.at,
            dealer.actor(),
            AuditAction::BuyinRecorded,
            format!("buy_in:{id}"),
            json!({
                "buy_in": id,
                "table": table.code,
                "seat": buy_in.seat,
                "kind": buy_in.kind.as_str(),
                "amount": buy_in.amount,
                "currency": table.currency,
                "shift_id": shift.id,
            }),
        );
    }

    // Fills and credits, step by step.
    for (slip, &(id, number)) in simulation.cage.iter().zip(cage_ids) {
        let shift = &shifts[slip.shift];
        let dealer = dealer_of(shift);
        let (requester, witness) = (supervisor(slip.shift, false), supervisor(slip.shift, true));
        let cashier = &staff.cashiers[(number as usize) % staff.cashiers.len()];
        let number_text = crate::accounting::cage::number_text(slip.kind, day.year(), number);
        let target = format!("slip:{number_text}");
        let chips = inventory(slip.counts.clone())?;
        sheet.documents.cage_slips.push(CageSlipInsert {
            id,
            kind: slip.kind.as_str(),
            year: day.year(),
            number,
            table_id: table.id,
            gaming_day: day,
            chip_set_version_id: table.chip_set.0,
            counts: slip.counts.clone(),
            total: slip.total.minor_units(),
            created_at: slip.requested,
        });
        let steps = [
            (slip.requested, requester.id, None),
            (slip.issued, cashier.id, None),
            (slip.received, dealer.id, Some(witness.id)),
        ];
        for (n, (at, by, second)) in steps.into_iter().enumerate() {
            sheet.documents.steps[n].push(StepInsert {
                slip_id: id,
                step: ["requested", "issued", "received"][n],
                signed_by: by,
                second_signed_by: second,
                at,
            });
        }
        let both = |sheet: &mut Day<'_>, at, actor: Actor, action, details: Value| {
            for chain in [
                audit_log::table_chain(table.id),
                crate::accounting::cage::CAGE_CHAIN.to_owned(),
            ] {
                sheet.event(
                    chain,
                    table.id,
                    at,
                    actor.clone(),
                    action,
                    target.clone(),
                    details.clone(),
                );
            }
        };
        sheet.signatures(
            table.id,
            slip.requested,
            &target,
            &[(requester, "supervisor", Role::Supervisor)],
        );
        both(
            sheet,
            slip.requested,
            requester.actor(),
            AuditAction::CageRequested,
            json!({
                "kind": slip.kind.as_str(),
                "number": number_text,
                "currency": table.currency,
                "chip_set_version": table.chip_set_version,
                "lines": lines_json(&chips, true),
                "total": slip.total,
            }),
        );
        let brief = json!({"kind": slip.kind.as_str(), "number": number_text, "total": slip.total});
        sheet.signatures(
            table.id,
            slip.issued,
            &target,
            &[(cashier, "cashier", Role::Cashier)],
        );
        both(
            sheet,
            slip.issued,
            cashier.actor(),
            AuditAction::CageIssued,
            brief.clone(),
        );
        sheet.signatures(
            table.id,
            slip.received,
            &target,
            &[
                (&dealer, "dealer", Role::Dealer),
                (witness, "supervisor", Role::Supervisor),
            ],
        );
        both(
            sheet,
            slip.received,
            dealer.actor(),
            AuditAction::CageReceived,
            brief,
        );
    }

    // The closer, once the last dealer has signed off: short by a chip when miscounted.
    let off = last
        .signed_off_at
        .ok_or_else(|| AccountingError::BadStored("an open shift".to_owned()))?;
    let mut counted = simulation.closer.clone();
    if let Some(chip) = simulation.missed {
        if let Some(i) = table
            .denominations
            .as_slice()
            .iter()
            .position(|&d| d == chip)
        {
            counted[i] -= 1;
        }
    }
    let closer = inventory(counted.clone())?;
    let closed_at = off + Duration::seconds(20);
    let dealer = dealer_of(last);
    let witness = supervisor(last_index, true);
    sheet.documents.slips.push(SlipInsert {
        id: ids.closer,
        table_id: table.id,
        kind: "closer",
        gaming_day: day,
        shift_id: Some(last.id),
        chip_set_version_id: table.chip_set.0,
        counts: counted.clone(),
        total: closer.total().minor_units(),
        par_id: Some(table.par.0),
        dealer_id: dealer.id,
        supervisor_id: witness.id,
        previous_closer_id: None,
        difference: None,
        difference_limit: None,
        held: false,
        created_at: closed_at,
    });
    let target = format!("slip:{}", ids.closer);
    sheet.signatures(
        table.id,
        closed_at,
        &target,
        &[
            (&dealer, "dealer", Role::Dealer),
            (witness, "supervisor", Role::Supervisor),
        ],
    );
    sheet.event(
        chain.clone(),
        table.id,
        closed_at,
        dealer.actor(),
        AuditAction::SlipCloser,
        target,
        json!({
            "slip": ids.closer,
            "table": table.code,
            "chip_set_version_id": table.chip_set,
            "lines": lines_json(&closer, false),
            "total": closer.total(),
            "par_total": table.par_total,
            "dealer_id": dealer.id,
            "supervisor_id": witness.id,
            "shift_id": last.id,
            "previous_closer": Value::Null,
            "differences": Vec::<Value>::new(),
            "difference": Value::Null,
            "limit": Value::Null,
            "held": false,
        }),
    );

    // The count: what was bought in, by kind, the cash by banknote.
    let [cash, markers, chip_vouchers] = recorded;
    let total = cash + markers + chip_vouchers;
    let (note_denominations, note_counts) = match banknotes(&table.currency) {
        Some(_) => in_notes(&table.currency, cash)
            .ok_or_else(|| AccountingError::BadStored("the cash in notes".to_owned()))?,
        None => (Vec::new(), Vec::new()),
    };
    let counted_at = off + Duration::seconds(50);
    let [first_counter, second_counter] = &staff.counters;
    sheet.documents.counts.push(CountInsert {
        id: ids.count,
        table_id: table.id,
        gaming_day: day,
        currency: table.currency.clone(),
        note_denominations: note_denominations.clone(),
        note_counts: note_counts.clone(),
        cash,
        markers,
        chip_vouchers,
        total,
        first_counter: first_counter.id,
        second_counter: second_counter.id,
        created_at: counted_at,
    });
    let target = format!("count:{}", ids.count);
    sheet.signatures(
        table.id,
        counted_at,
        &target,
        &[
            (first_counter, "counter", Role::Count),
            (second_counter, "counter", Role::Count),
        ],
    );
    let lines: Vec<Value> = note_denominations
        .iter()
        .zip(&note_counts)
        .map(|(d, n)| json!({"denomination": d, "count": n}))
        .collect();
    sheet.event(
        chain,
        table.id,
        counted_at,
        first_counter.actor(),
        AuditAction::CountSigned,
        target,
        json!({
            "count": ids.count,
            "table": table.code,
            "currency": table.currency,
            "lines": lines,
            "cash": cash,
            "markers": markers,
            "chip_vouchers": chip_vouchers,
            "total": total,
            "first_counter": first_counter.id,
            "second_counter": second_counter.id,
            "recorded": {
                "cash": cash,
                "markers": markers,
                "chip_vouchers": chip_vouchers,
                "total": total,
            },
            "difference": {"cash": 0, "markers": 0, "chip_vouchers": 0, "total": 0},
            "flagged": false,
        }),
    );

    table.tray = simulation.closer;
    table.closer = Some((ids.closer, counted));
    table.missed = simulation.missed;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn php() -> Denominations {
        Denominations::new(
            CHIP_SET_MAJOR
                .iter()
                .map(|m| Money::from_minor_units(m * 100))
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn a_fill_is_whole_chips_largest_first() {
        let counts = in_chips(&php(), 1_234_500, true).unwrap();
        assert_eq!(value_of(&php(), &counts), Some(1_235_000));
        assert_eq!(counts, vec![2, 3, 0, 2, 0, 1]);
        assert_eq!(in_chips(&php(), 1_000, false), None);
    }

    #[test]
    fn the_chips_on_a_table_add_up_to_their_value() {
        for value in [0, 2_500, 29_100_000, 70_000_000, 123_457_500] {
            let counts = like_par(&php(), &PAR_COUNTS, value).unwrap();
            assert_eq!(value_of(&php(), &counts), Some(value));
        }
        assert_eq!(like_par(&php(), &PAR_COUNTS, 2_501), None);
    }

    #[test]
    fn the_cash_is_counted_in_notes() {
        let (notes, counts) = in_notes("PHP", 1_237_000).unwrap();
        assert_eq!(notes.len(), counts.len());
        let value: i64 = notes.iter().zip(&counts).map(|(d, n)| d * n).sum();
        assert_eq!(value, 1_237_000);
        assert_eq!(in_notes("EUR", 100), None);
    }
}
