//! Rated play's use-cases (docs/players.md, issue 35): the casino's players and their
//! exclusions ([`records`]), ratings at the tables computed from the rounds ([`ratings`]), and
//! the house edge of each rule profile version that theoretical win is taken from
//! ([`edges`]), and pit managers' estimates of players not carded ([`observations`]). Web handlers and the CLI call one function each; every decision and every
//! message a person reads is made here. Failures share table accounting's use-case error.
//!
//! Who sees what of a player ([`Sight`]): hosts, compliance officers and auditors the whole
//! record, and each time they open it an event `player.read` is written; pit managers the
//! name, status and ratings; dealers, at their table, the seated player's card number and
//! first name only; other roles nothing.

pub mod comp;
pub mod compliance;
pub mod edges;
pub mod observations;
pub mod ratings;
pub mod records;
pub mod report;

use chrono::NaiveDate;
use diesel::PgConnection;

use crate::accounting::slips::Me;
use crate::accounting::AccountingError;
use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::{self, NewAuditEvent};
use crate::db::ids::{PlayerId, TableId};
use crate::db::players::StatusRow;
use crate::db::users::Role;

/// The `players` chain: every player, status, rating and refused seating, and every read of a
/// player's personal data.
pub const PLAYERS_CHAIN: &str = crate::db::players::PLAYERS_CHAIN;

/// How much of a player a role sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sight {
    /// Nothing.
    None,
    /// The seated player's card number and first name (a dealer at the table).
    Seat,
    /// Name, card number, status and ratings.
    NameAndStatus,
    /// Everything, date of birth, identity document and notes included; each read audited.
    Personal,
}

impl Sight {
    pub fn of(role: Role) -> Sight {
        match role {
            Role::Host | Role::Compliance | Role::Auditor => Sight::Personal,
            Role::Supervisor => Sight::NameAndStatus,
            Role::Dealer => Sight::Seat,
            Role::Admin | Role::Cashier | Role::Count => Sight::None,
        }
    }
}

/// Who registers players and corrects their records.
pub fn keeps_records(role: Role) -> bool {
    matches!(role, Role::Host | Role::Compliance)
}

/// Who sets a player's status (a pit manager bars on the floor).
pub fn sets_status(role: Role) -> bool {
    matches!(role, Role::Host | Role::Compliance | Role::Supervisor)
}

/// Who records, ends, voids and cards unrated observations: a pit manager.
pub fn observes(role: Role) -> bool {
    role == Role::Supervisor
}

/// A player's standing: whether they may be seated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Active,
    SelfExcluded,
    Barred,
}

impl Status {
    pub const ALL: [Status; 3] = [Status::Active, Status::SelfExcluded, Status::Barred];

    /// The stored and form value.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::SelfExcluded => "self_excluded",
            Status::Barred => "barred",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Status::Active => "Active",
            Status::SelfExcluded => "Self-excluded",
            Status::Barred => "Barred",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == text.trim())
    }

    /// Whether a player of this status is refused a seat.
    pub fn excluded(self) -> bool {
        self != Status::Active
    }
}

/// A player's current status from their latest status row (none: active).
pub(crate) fn status_of(row: Option<&StatusRow>) -> Result<Status, AccountingError> {
    match row {
        None => Ok(Status::Active),
        Some(row) => Status::parse(&row.status)
            .ok_or_else(|| AccountingError::BadStored(format!("player status {}", row.id))),
    }
}

/// A refused form: the field it is about (none: the form as a whole) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormRefusal {
    pub field: Option<&'static str>,
    pub reason: String,
}

pub(crate) fn refusal(field: &'static str, reason: impl Into<String>) -> FormRefusal {
    FormRefusal {
        field: Some(field),
        reason: reason.into(),
    }
}

/// Appends an event about a player to the `players` chain.
#[allow(clippy::too_many_arguments)]
pub(crate) fn event(
    conn: &mut PgConnection,
    me: &Me,
    action: AuditAction,
    player: PlayerId,
    day: NaiveDate,
    table: Option<TableId>,
    details: serde_json::Value,
) -> Result<(), AccountingError> {
    event_on(
        conn,
        me,
        action,
        format!("player:{player}"),
        day,
        table,
        details,
    )
}

/// Appends an event about `target` (`player:7`, `observation:3`) to the `players` chain.
pub(crate) fn event_on(
    conn: &mut PgConnection,
    me: &Me,
    action: AuditAction,
    target: String,
    day: NaiveDate,
    table: Option<TableId>,
    details: serde_json::Value,
) -> Result<(), AccountingError> {
    audit_log::append(
        conn,
        &NewAuditEvent {
            chain: PLAYERS_CHAIN,
            actor: &me.actor,
            action,
            target,
            details,
            gaming_day: Some(day),
            table_id: table,
        },
    )?;
    Ok(())
}

/// Who a table's screen shows at its seats: the rated players seated, and the unrated
/// observations running.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AtTable {
    pub seated: Vec<ratings::Seated>,
    pub observed: Vec<observations::Open>,
}

/// Who is at table `table`'s seats, in the caller's turn of the database.
pub fn at_table(conn: &mut PgConnection, table: TableId) -> Result<AtTable, AccountingError> {
    Ok(AtTable {
        seated: ratings::seated_at(conn, table)?,
        observed: observations::open_at(conn, table)?,
    })
}
