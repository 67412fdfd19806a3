//! The table screen's round entry (the dealer's or pit manager's form), each request in one
//! turn of the database: [`crate::recording::screen`]'s use-cases.

use chrono::NaiveDate;

use crate::accounting::drop::{self, TableDay};
use crate::accounting::slips::{self, SlipsPage};
use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::ids::RoundId;
use crate::pit::PitError;
use crate::players::{self, AtTable};
use crate::recording::form::Fields;
use crate::recording::screen::{self, Save, Screen, Stored};
use crate::recording::Writer;
use crate::rules::houseway::HouseWayOut;
use crate::rules::money::Money;

/// The table's screen: its open round and what is beside it, with the table's buy-ins and
/// fees of gaming day `day` (its drop so far), the rated players seated there and the unrated
/// observations running, and the opener's count form while the table
/// has no opener standing (`limit`: the opener's difference that holds the table).
pub async fn show(
    db: &Db,
    code: String,
    writer: Writer,
    day: NaiveDate,
    limit: Money,
) -> Result<(Screen, TableDay, Option<SlipsPage>, AtTable), PitError> {
    db.run(move |conn| {
        let screen = screen::show(conn, &code, writer, day)?;
        let drop = drop::table_day(conn, &code, day)?;
        let opener = slips::opener_form(conn, &code, day, limit)?;
        let seated = players::at_table(conn, drop.table.id)?;
        Ok((screen, drop, opener, seated))
    })
    .await
}

/// Settles the round of draft `key` at table `code`: its id.
pub async fn confirm(
    db: &Db,
    code: String,
    key: String,
    expected: Option<i32>,
    day: NaiveDate,
    writer: Writer,
    actor: Actor,
) -> Result<RoundId, PitError> {
    db.run(move |conn| {
        Ok(screen::confirm(
            conn, &code, &key, expected, day, writer, &actor,
        )?)
    })
    .await
}

/// A form as typed, to save at table `code` (at the revision the writer saw).
pub struct Typed {
    pub code: String,
    pub writer: Writer,
    pub actor: Actor,
    pub day: NaiveDate,
    pub fields: Fields,
    pub expected: Option<i32>,
}

impl Typed {
    fn save(&self) -> Save<'_> {
        Save {
            code: &self.code,
            writer: self.writer,
            actor: &self.actor,
            day: self.day,
            typed: &self.fields,
            expected: self.expected,
        }
    }
}

/// Saves the form and checks it: what is stored, its problems and its settlement.
pub async fn save(db: &Db, typed: Typed) -> Result<Stored, PitError> {
    db.run(move |conn| Ok(screen::save(conn, typed.save())?))
        .await
}

/// Saves the form (with the dealer's hands set by the house way first, if `by_house_way`) and
/// gives the screen again, with the drop so far as [`show`] does.
pub async fn preview(
    db: &Db,
    typed: Typed,
    by_house_way: bool,
) -> Result<(Screen, TableDay, AtTable), PitError> {
    db.run(move |conn| {
        let screen = if by_house_way {
            screen::set_by_house_way(conn, typed.save())?
        } else {
            screen::preview(conn, typed.save())?
        };
        let drop = drop::table_day(conn, &typed.code, typed.day)?;
        let seated = players::at_table(conn, drop.table.id)?;
        Ok((screen, drop, seated))
    })
    .await
}

/// The house way's set of `cards` at table `code`, or what is wrong with the cards.
pub async fn house_way(
    db: &Db,
    code: String,
    writer: Writer,
    cards: String,
) -> Result<Result<HouseWayOut, String>, PitError> {
    db.run(move |conn| Ok(screen::house_way_at(conn, &code, writer, &cards)?))
        .await
}
