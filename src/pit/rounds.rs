//! Round entry through the API, each request in one turn of the database: the caller (a
//! signed-in account, or an API token checked on the same turn) and then the use-case of
//! [`crate::recording`]: open the table's draft, save it, preview it, confirm it, show it, or
//! record a whole round.

use std::sync::Arc;

use chrono::NaiveDate;
use diesel::PgConnection;
use serde_json::Value;

use crate::db::audit_log::Actor;
use crate::db::handle::Db;
use crate::db::ids::UserId;
use crate::db::rounds::drafts::Draft;
use crate::db::rounds::rows::SettledRound;
use crate::db::tables::PlayingTable;
use crate::db::users::{Role, User};
use crate::pit::access::{check_token, Refused};
use crate::pit::PitError;
use crate::recording::drafts::{self, Shown};
use crate::recording::memory::TableMemos;
use crate::recording::whole::{self, Entry};
use crate::recording::{RoundsError, Writer};

/// An account a request acts for.
#[derive(Debug, Clone)]
pub struct Account {
    pub id: UserId,
    pub username: String,
    pub role: Role,
}

impl Account {
    fn writer(&self) -> Writer {
        Writer {
            user: self.id,
            role: self.role,
        }
    }
}

/// Who a round request comes from: a signed-in account, or an API token not checked yet, on a
/// route that allows these roles.
#[derive(Debug, Clone)]
pub enum Caller {
    SignedIn(Account),
    Token {
        token: String,
        roles: &'static [Role],
    },
}

/// Runs `work` for `caller` (from `addr`), once it is known, on the same turn; `checked` hears
/// of a token's account found good before the work runs.
async fn as_caller<T, F>(
    db: &Db,
    caller: Caller,
    addr: Option<String>,
    checked: impl FnOnce(&User) + Send + 'static,
    work: F,
) -> Result<Result<T, Refused>, PitError>
where
    F: FnOnce(&mut PgConnection, Writer, Actor) -> Result<T, PitError> + Send + 'static,
    T: Send + 'static,
{
    db.run(move |conn| {
        let account = match caller {
            Caller::SignedIn(account) => account,
            Caller::Token { token, roles } => match check_token(conn, &token, roles)? {
                Ok(user) => {
                    checked(&user);
                    Account {
                        id: user.id,
                        username: user.username,
                        role: user.role,
                    }
                }
                Err(refused) => return Ok(Err(refused)),
            },
        };
        let actor = Actor::user(account.id, &account.username, addr);
        work(conn, account.writer(), actor).map(Ok)
    })
    .await
}

fn nothing(_: &User) {}

/// The table's open draft (opened if there is none).
pub async fn open(
    db: &Db,
    caller: Caller,
    addr: Option<String>,
    code: String,
    day: NaiveDate,
) -> Result<Result<(Draft, PlayingTable), Refused>, PitError> {
    as_caller(db, caller, addr, nothing, move |conn, writer, actor| {
        let table = drafts::table(conn, &code)?;
        let (draft, _) = drafts::open(conn, &table, writer, &actor, day)?;
        Ok((draft, table))
    })
    .await
}

/// Saves draft `key` as `round` (read from the request, which is refused only once the caller
/// is known) at the revision the caller saw.
pub async fn save(
    db: &Db,
    caller: Caller,
    addr: Option<String>,
    key: String,
    round: Result<(Value, Option<i32>), RoundsError>,
) -> Result<Result<Draft, Refused>, PitError> {
    as_caller(db, caller, addr, nothing, move |conn, writer, actor| {
        let (round, revision) = round?;
        Ok(drafts::save(conn, &key, writer, &actor, revision, round)?)
    })
    .await
}

/// The settlement draft `key` would get: the draft, its table and the settlement as JSON.
pub async fn preview(
    db: &Db,
    caller: Caller,
    addr: Option<String>,
    key: String,
) -> Result<Result<(Draft, PlayingTable, Value), Refused>, PitError> {
    as_caller(db, caller, addr, nothing, move |conn, writer, _| {
        let (draft, table, settled) = drafts::check(conn, &key, writer)?;
        Ok((draft, table, settled.settlement_json()?))
    })
    .await
}

/// Settles draft `key` (at the revision the caller saw, if sent): the round, its table, and
/// whether this request settled it.
pub async fn confirm(
    db: &Db,
    caller: Caller,
    addr: Option<String>,
    key: String,
    revision: Result<Option<i32>, RoundsError>,
    day: NaiveDate,
) -> Result<Result<(SettledRound, PlayingTable, bool), Refused>, PitError> {
    as_caller(db, caller, addr, nothing, move |conn, writer, actor| {
        let revision = revision?;
        Ok(drafts::confirm(
            conn, &key, None, revision, day, writer, &actor,
        )?)
    })
    .await
}

/// What is stored under `key`, for `reader` if they may read it.
pub async fn show(db: &Db, key: String, reader: Writer) -> Result<Shown, PitError> {
    db.run(move |conn| Ok(drafts::show(conn, &key, reader.user, reader.role)?))
        .await
}

/// A whole round to record: its table, the caller's one-time key, the request's body, and the
/// table memory the next round there is made from.
pub struct Whole<B> {
    pub code: String,
    pub key: String,
    pub body: B,
    pub day: NaiveDate,
    pub memos: Arc<TableMemos>,
}

/// Records and settles a whole round the long way (reading the table's state): the round, its
/// table, and whether this request settled it. `checked` hears of a token found good.
pub async fn record<B: AsRef<[u8]> + Send + 'static>(
    db: &Db,
    caller: Caller,
    addr: Option<String>,
    round: Whole<B>,
    checked: impl FnOnce(&User) + Send + 'static,
) -> Result<Result<(SettledRound, PlayingTable, bool), Refused>, PitError> {
    as_caller(db, caller, addr, checked, move |conn, writer, actor| {
        let Whole {
            code,
            key,
            body,
            day,
            memos,
        } = round;
        // Read once the caller is known: a bad token hears 401, not what is wrong with its round.
        whole::check_key(&key)?;
        // Not JSON at all is the round's error wherever it was sent; what the JSON must hold
        // depends on the table's game, read with the table.
        let body = body.as_ref();
        serde_json::from_slice::<serde::de::IgnoredAny>(body)
            .map_err(|err| RoundsError::round(format!("the round could not be read: {err}")))?;
        let entry = Entry {
            key: &key,
            gaming_day: day,
            writer,
            actor: &actor,
        };
        Ok(whole::record(conn, &memos, &code, &entry, body)?)
    })
    .await
}
