//! Buy-ins and the points game's table fees (docs/accounting.md, "Buy-ins and table fees"): the
//! drop as it happens at the table, seat by seat, and the house's income at a points-game table.
//! The dealer on shift at the table records them (or a pit manager or an administrator at its
//! tablet), for the current gaming day and the dealer shift open there. A record is never
//! changed: a wrong one is voided with a reason by a pit manager or an administrator who did not
//! record it, stays on the lists struck through, and is recorded again. Every record and every
//! void is an audit event on the table's chain. The arithmetic is `rules::drop`'s.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use serde_json::json;

use crate::accounting::cash::{self, CashTx, Checked};
use crate::accounting::record::attempt;
pub use crate::accounting::record::Void;
pub(crate) use crate::accounting::record::{day_open, names, person, Stop};
use crate::accounting::slips::{Me, Person};
use crate::accounting::{AccountingError, Saved};
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, Actor, NewAuditEvent};
use crate::db::drop::{self as rows, BuyInRow, BuyInVoidRow, FeeRow, FeeVoidRow, NewBuyIn, NewFee};
use crate::db::handle::Db;
use crate::db::ids::{BuyInId, ShiftId, TableFeeId, TableId, UserId};
use crate::db::shifts;
use crate::db::tables::{self, TableRulesError};
use crate::db::users::Role;
use crate::rules::compliance::Direction;
use crate::rules::drop::{self as arithmetic, BuyInKind, BuyInLine, DropTotals};
use crate::rules::game::Game;
use crate::rules::money::Money;

/// The table a buy-in or fee is recorded at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropTable {
    pub id: TableId,
    pub code: String,
    pub name: String,
    pub currency: String,
    pub game: Game,
}

impl DropTable {
    /// The seats of the table's game, for the seat buttons.
    pub fn seats(&self) -> Vec<u8> {
        arithmetic::seats_of(self.game)
    }
}

/// A buy-in as the lists show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuyIn {
    pub id: BuyInId,
    pub gaming_day: NaiveDate,
    pub shift: Option<ShiftId>,
    pub seat: u8,
    pub kind: BuyInKind,
    pub amount: Money,
    pub currency: String,
    pub recorded_by: Person,
    pub at: DateTime<Utc>,
    pub void: Option<Void>,
}

/// A buy-in just recorded, and what the compliance check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedBuyIn {
    pub buy_in: BuyIn,
    pub checked: Checked,
}

/// A points-game table fee as the lists show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fee {
    pub id: TableFeeId,
    pub gaming_day: NaiveDate,
    pub shift: Option<ShiftId>,
    pub amount: Money,
    pub currency: String,
    pub recorded_by: Person,
    pub at: DateTime<Utc>,
    pub void: Option<Void>,
}

/// A table's gaming day of buy-ins and fees, with their voids, and the totals of those not
/// void: what the pages and the API render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDay {
    pub table: DropTable,
    pub day: NaiveDate,
    pub buy_ins: Vec<BuyIn>,
    pub fees: Vec<Fee>,
    pub totals: DropTotals,
}

/// What a refused form's page shows: the field the refusal is about (`seat`, `amount`, `kind`,
/// `reason`), if it is about one, and the table's day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub field: Option<&'static str>,
    pub day: TableDay,
}

/// A buy-in as typed on the table screen, the buy-ins page or sent to the API.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuyInForm {
    pub seat: String,
    pub amount: String,
    /// Empty: cash.
    pub kind: String,
}

pub(crate) fn table_of(conn: &mut PgConnection, code: &str) -> Result<DropTable, AccountingError> {
    let playing = tables::playing_by_code(conn, code).map_err(|err| match err {
        TableRulesError::Query(err) => AccountingError::from(err),
        other => AccountingError::BadStored(format!("the rules of table {code}: {other}")),
    })?;
    let playing = playing.ok_or(AccountingError::NotFound("table"))?;
    let game = playing.game();
    Ok(DropTable {
        id: playing.table.id,
        code: playing.table.code,
        name: playing.table.name,
        currency: playing.table.currency,
        game,
    })
}

fn buy_in_of(
    (row, void): (BuyInRow, Option<BuyInVoidRow>),
    names: &HashMap<UserId, String>,
) -> Result<BuyIn, AccountingError> {
    let seat = u8::try_from(row.seat)
        .map_err(|_| AccountingError::BadStored(format!("buy-in {}", row.id)))?;
    Ok(BuyIn {
        id: row.id,
        gaming_day: row.gaming_day,
        shift: row.shift_id,
        seat,
        kind: row.kind,
        amount: row.amount,
        currency: row.currency,
        recorded_by: person(names, row.recorded_by),
        at: row.created_at,
        void: void.map(|v| Void {
            reason: v.reason,
            by: person(names, v.voided_by),
            at: v.voided_at,
        }),
    })
}

fn fee_of((row, void): (FeeRow, Option<FeeVoidRow>), names: &HashMap<UserId, String>) -> Fee {
    Fee {
        id: row.id,
        gaming_day: row.gaming_day,
        shift: row.shift_id,
        amount: row.amount,
        currency: row.currency,
        recorded_by: person(names, row.recorded_by),
        at: row.created_at,
        void: void.map(|v| Void {
            reason: v.reason,
            by: person(names, v.voided_by),
            at: v.voided_at,
        }),
    }
}

fn day_of(
    conn: &mut PgConnection,
    table: DropTable,
    day: NaiveDate,
) -> Result<TableDay, AccountingError> {
    let buy_in_rows = rows::buy_ins_of_day(conn, table.id, day)?;
    let fee_rows = rows::fees_of_day(conn, table.id, day)?;
    let people = buy_in_rows
        .iter()
        .flat_map(|(b, v)| std::iter::once(b.recorded_by).chain(v.as_ref().map(|v| v.voided_by)))
        .chain(fee_rows.iter().flat_map(|(f, v)| {
            std::iter::once(f.recorded_by).chain(v.as_ref().map(|v| v.voided_by))
        }));
    let names = names(conn, people)?;
    let buy_ins = buy_in_rows
        .into_iter()
        .map(|row| buy_in_of(row, &names))
        .collect::<Result<Vec<_>, _>>()?;
    let fees: Vec<Fee> = fee_rows
        .into_iter()
        .map(|row| fee_of(row, &names))
        .collect();
    let lines: Vec<BuyInLine> = buy_ins
        .iter()
        .map(|b| BuyInLine {
            seat: b.seat,
            kind: b.kind,
            amount: b.amount,
            void: b.void.is_some(),
        })
        .collect();
    let fee_lines: Vec<(Money, bool)> = fees.iter().map(|f| (f.amount, f.void.is_some())).collect();
    Ok(TableDay {
        totals: arithmetic::totals(&lines, &fee_lines),
        table,
        day,
        buy_ins,
        fees,
    })
}

/// Table `code`'s buy-ins and fees of gaming day `day`, in the caller's turn of the database
/// (the table screen shows its drop so far beside the round).
pub fn table_day(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
) -> Result<TableDay, AccountingError> {
    let table = table_of(conn, code)?;
    day_of(conn, table, day)
}

/// Table `code`'s buy-ins and fees of gaming day `day`, for its page and the API.
pub async fn show(db: &Db, code: String, day: NaiveDate) -> Result<TableDay, AccountingError> {
    db.run(move |conn| table_day(conn, &code, day)).await
}

/// Whether the account `id` of `role` may void a record that `recorded_by` recorded: a pit
/// manager or an administrator who did not record it (a dealer never voids). `Err` says why
/// not, in words; the pages hide the void form from whoever gets one.
pub fn may_void(id: UserId, role: Role, recorded_by: UserId, what: &str) -> Result<(), String> {
    if !matches!(role, Role::Supervisor | Role::Admin) {
        return Err(format!(
            "Only a pit manager or an administrator voids a {what}."
        ));
    }
    if id == recorded_by {
        return Err(format!(
            "You recorded this {what}: another pit manager or an administrator voids it."
        ));
    }
    Ok(())
}

/// Who may record at the table, and the shift the record belongs to: the dealer on shift
/// there, or a pit manager or an administrator (with the shift open there, if one is).
pub(crate) fn recording_shift(
    conn: &mut PgConnection,
    table: &DropTable,
    me: &Me,
    what: &str,
) -> Result<Option<ShiftId>, Stop> {
    let shift = shifts::current_shift(conn, table.id)?;
    match me.role {
        Role::Supervisor | Role::Admin => Ok(shift.map(|s| s.shift.id)),
        Role::Dealer => match shift {
            Some(s) if s.shift.dealer_id == me.id => Ok(Some(s.shift.id)),
            Some(s) => Err(Stop::Refused(format!(
                "{} is the dealer on shift at {}: you record a {what} only at the table you \
                 are signed on at.",
                s.dealer_name, table.code
            ))),
            None => Err(Stop::Refused(format!(
                "You are not signed on at {}: sign on at the table first, then record the {what}.",
                table.code
            ))),
        },
        Role::Auditor | Role::Cashier | Role::Count | Role::Host | Role::Compliance => {
            Err(Stop::Refused(format!(
                "A {what} is recorded by the dealer on shift, a pit manager or an administrator, \
             not by the {} role.",
                me.role.as_str()
            )))
        }
    }
}

/// The table `code`, locked against sign-ons and sign-offs until the transaction ends, so the
/// shift a record names is the one open there when it is written.
pub(crate) fn locked_table(conn: &mut PgConnection, code: &str) -> Result<DropTable, Stop> {
    let table = table_of(conn, code)?;
    tables::lock(conn, table.id)?.ok_or(AccountingError::NotFound("table"))?;
    Ok(table)
}

/// Runs `change` in a transaction and answers it: done, refused with the page of table `code`'s
/// day `day` (read after the refusal), or failed.
fn answer<T>(
    conn: &mut PgConnection,
    code: &str,
    day: NaiveDate,
    change: impl FnOnce(&mut PgConnection) -> Result<T, Stop>,
) -> Result<Saved<T, Page>, AccountingError> {
    let (field, reason) = match attempt(conn, change)? {
        Ok(done) => return Ok(Saved::Done(done)),
        Err(refusal) => refusal,
    };
    Ok(Saved::Refused {
        reason,
        page: Page {
            field,
            day: table_day(conn, code, day)?,
        },
    })
}

fn event(
    conn: &mut PgConnection,
    table: TableId,
    day: NaiveDate,
    actor: &Actor,
    action: AuditAction,
    target: String,
    details: serde_json::Value,
) -> Result<(), Stop> {
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: &audit_log::table_chain(table),
            actor,
            action,
            target,
            details,
            gaming_day: Some(day),
            table_id: Some(table),
        },
    )?;
    Ok(())
}

fn reread_buy_in(conn: &mut PgConnection, id: BuyInId) -> Result<BuyIn, AccountingError> {
    let row = rows::buy_in(conn, id)?.ok_or(AccountingError::NotFound("buy-in"))?;
    let names = names(
        conn,
        std::iter::once(row.0.recorded_by).chain(row.1.as_ref().map(|v| v.voided_by)),
    )?;
    buy_in_of(row, &names)
}

fn reread_fee(conn: &mut PgConnection, id: TableFeeId) -> Result<Fee, AccountingError> {
    let row = rows::fee(conn, id)?.ok_or(AccountingError::NotFound("table fee"))?;
    let names = names(
        conn,
        std::iter::once(row.0.recorded_by).chain(row.1.as_ref().map(|v| v.voided_by)),
    )?;
    Ok(fee_of(row, &names))
}

/// Records a buy-in at table `code` on gaming day `day` (the current one): the seat must be one
/// of the table's game, the amount above zero and at most [`arithmetic::LARGEST`], the kind cash
/// (when none is given), a marker or a chip voucher; the currency is the table's, the shift the
/// one open there. By the dealer on shift at the table, a pit manager or an administrator; not
/// on a closed day. `buyin.recorded` on the table's chain. Its player is the rated player
/// seated there; a buy-in in cash is checked against the compliance thresholds
/// ([`cash::check`]).
pub async fn record_buy_in(
    db: &Db,
    code: String,
    day: NaiveDate,
    form: BuyInForm,
    me: Me,
) -> Result<Saved<RecordedBuyIn, Page>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let table = locked_table(conn, &code)?;
            day_open(conn, day)?;
            let shift = recording_shift(conn, &table, &me, "buy-in")?;
            let seat = arithmetic::seat(table.game, &form.seat)
                .map_err(|err| Stop::Field("seat", err.to_string()))?;
            let amount = arithmetic::amount(&form.amount)
                .map_err(|err| Stop::Field("amount", err.to_string()))?;
            let kind = match form.kind.trim() {
                "" => BuyInKind::Cash,
                typed => typed
                    .parse::<BuyInKind>()
                    .map_err(|err| Stop::Field("kind", format!("{err}.")))?,
            };
            // The rated player seated there, if any, is the buy-in's player.
            let player = crate::db::players::open_at(conn, table.id, i16::from(seat))?
                .map(|rating| rating.player_id);
            let row = rows::insert_buy_in(
                conn,
                &NewBuyIn {
                    table_id: table.id,
                    gaming_day: day,
                    shift_id: shift,
                    seat: i16::from(seat),
                    kind,
                    currency: &table.currency,
                    amount,
                    player_id: player,
                    recorded_by: me.id,
                },
            )?;
            event(
                conn,
                table.id,
                day,
                &me.actor,
                AuditAction::BuyinRecorded,
                format!("buy_in:{}", row.id),
                json!({
                    "buy_in": row.id,
                    "table": table.code,
                    "seat": seat,
                    "kind": kind.as_str(),
                    "amount": amount,
                    "currency": table.currency,
                    "shift_id": shift,
                }),
            )?;
            let checked = if kind == BuyInKind::Cash {
                cash::check(
                    conn,
                    &me.actor,
                    &CashTx {
                        source: "buy_in",
                        id: row.id.0,
                        at: row.created_at,
                        table_code: Some(&table.code),
                        seat: Some(row.seat),
                        target: format!("buy_in:{}", row.id),
                        day,
                        direction: Direction::In,
                        currency: &table.currency,
                        amount,
                        player,
                        table: Some(table.id),
                    },
                )?
            } else {
                Checked::default()
            };
            Ok(RecordedBuyIn {
                buy_in: reread_buy_in(conn, row.id)?,
                checked,
            })
        };
        answer(conn, &code, day, change)
    })
    .await
}

/// Records a table fee at the points-game table `code` on gaming day `day`: the amount as typed
/// (above zero, at most [`arithmetic::LARGEST`]). Refused at a banking table, where the house
/// plays and takes no fee. Who and when as [`record_buy_in`]. `fee.recorded` on the table's
/// chain.
pub async fn record_fee(
    db: &Db,
    code: String,
    day: NaiveDate,
    typed_amount: String,
    me: Me,
) -> Result<Saved<Fee, Page>, AccountingError> {
    db.run(move |conn| {
        let change = |conn: &mut PgConnection| {
            let table = locked_table(conn, &code)?;
            if table.game != Game::Points {
                return Err(Stop::Refused(format!(
                    "{} plays the banking game: the house plays there and takes no table fee \
                     (a fee is the points game's).",
                    table.code
                )));
            }
            day_open(conn, day)?;
            let shift = recording_shift(conn, &table, &me, "table fee")?;
            let amount = arithmetic::amount(&typed_amount)
                .map_err(|err| Stop::Field("amount", err.to_string()))?;
            let row = rows::insert_fee(
                conn,
                &NewFee {
                    table_id: table.id,
                    gaming_day: day,
                    shift_id: shift,
                    currency: &table.currency,
                    amount,
                    recorded_by: me.id,
                },
            )?;
            event(
                conn,
                table.id,
                day,
                &me.actor,
                AuditAction::FeeRecorded,
                format!("table_fee:{}", row.id),
                json!({
                    "fee": row.id,
                    "table": table.code,
                    "amount": amount,
                    "currency": table.currency,
                    "shift_id": shift,
                }),
            )?;
            Ok(reread_fee(conn, row.id)?)
        };
        answer(conn, &code, day, change)
    })
    .await
}

/// The reason of a void as typed, refused when there is none.
fn reason_of(typed: &str, what: &str) -> Result<String, Stop> {
    match typed.trim() {
        "" => Err(Stop::Field(
            "reason",
            format!("Say why the {what} is void."),
        )),
        reason => Ok(reason.to_owned()),
    }
}

/// Voids buy-in `id` of table `code` with a reason: by a pit manager or an administrator who
/// did not record it ([`may_void`]), not on a closed gaming day, not twice. The buy-in is kept
/// (shown struck, out of the totals); `buyin.void` on the table's chain. A refusal's page is
/// the buy-in's day.
pub async fn void_buy_in(
    db: &Db,
    code: String,
    id: BuyInId,
    reason: String,
    me: Me,
) -> Result<Saved<BuyIn, Page>, AccountingError> {
    db.run(move |conn| {
        let table = table_of(conn, &code)?;
        let (row, _) = rows::buy_in(conn, id)?
            .filter(|(b, _)| b.table_id == table.id)
            .ok_or(AccountingError::NotFound("buy-in"))?;
        let day = row.gaming_day;
        let change = |conn: &mut PgConnection| {
            let table = locked_table(conn, &code)?;
            may_void(me.id, me.role, row.recorded_by, "buy-in").map_err(Stop::Refused)?;
            day_open(conn, day)?;
            let reason = reason_of(&reason, "buy-in")?;
            if rows::insert_buy_in_void(conn, id, &reason, me.id)?.is_none() {
                return Err(Stop::Refused(format!("Buy-in {id} is void already.")));
            }
            event(
                conn,
                table.id,
                day,
                &me.actor,
                AuditAction::BuyinVoid,
                format!("buy_in:{id}"),
                json!({
                    "buy_in": id,
                    "table": table.code,
                    "seat": row.seat,
                    "kind": row.kind.as_str(),
                    "amount": row.amount,
                    "currency": row.currency,
                    "recorded_by": row.recorded_by,
                    "reason": reason,
                }),
            )?;
            Ok(reread_buy_in(conn, id)?)
        };
        answer(conn, &code, day, change)
    })
    .await
}

/// Voids table fee `id` of table `code` with a reason, as [`void_buy_in`] voids a buy-in;
/// `fee.void` on the table's chain.
pub async fn void_fee(
    db: &Db,
    code: String,
    id: TableFeeId,
    reason: String,
    me: Me,
) -> Result<Saved<Fee, Page>, AccountingError> {
    db.run(move |conn| {
        let table = table_of(conn, &code)?;
        let (row, _) = rows::fee(conn, id)?
            .filter(|(f, _)| f.table_id == table.id)
            .ok_or(AccountingError::NotFound("table fee"))?;
        let day = row.gaming_day;
        let change = |conn: &mut PgConnection| {
            let table = locked_table(conn, &code)?;
            may_void(me.id, me.role, row.recorded_by, "table fee").map_err(Stop::Refused)?;
            day_open(conn, day)?;
            let reason = reason_of(&reason, "table fee")?;
            if rows::insert_fee_void(conn, id, &reason, me.id)?.is_none() {
                return Err(Stop::Refused(format!("Table fee {id} is void already.")));
            }
            event(
                conn,
                table.id,
                day,
                &me.actor,
                AuditAction::FeeVoid,
                format!("table_fee:{id}"),
                json!({
                    "fee": id,
                    "table": table.code,
                    "amount": row.amount,
                    "currency": row.currency,
                    "recorded_by": row.recorded_by,
                    "reason": reason,
                }),
            )?;
            Ok(reread_fee(conn, id)?)
        };
        answer(conn, &code, day, change)
    })
    .await
}
