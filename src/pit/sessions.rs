//! Signed-in sessions as the session store keeps them: a live session's state (after its idle
//! and absolute time-outs, and only for an account still enabled), a new one, a changed one, an
//! ended one. Run without waiting for a turn ([`Db::run_now`]): every signed-in request reads its
//! session before its handler runs.

use chrono::Utc;

use crate::config::Timeouts;
use crate::db::handle::Db;
use crate::db::sessions::{self, State};
use crate::db::without_waiting_for_the_disk;
use crate::pit::PitError;

/// The state of live session `key`, if it is live (its last use is moved to now).
pub async fn load(db: &Db, key: String, timeouts: Timeouts) -> Result<Option<State>, PitError> {
    db.run_now(move |conn| Ok(sessions::load_live(conn, &key, &timeouts, Utc::now())?))
        .await
}

/// Stores a new session under `key`.
pub async fn insert(
    db: &Db,
    key: String,
    state: State,
    timeouts: Timeouts,
) -> Result<(), PitError> {
    db.run_now(move |conn| Ok(sessions::insert(conn, &key, &state, &timeouts)?))
        .await
}

/// Changes session `key`'s state: whether it still existed. Not waited on to the disk: the
/// state holds who is signed in (written when they sign in, durably), the form token and the
/// notices for the next page (a flash, an issued token's one showing), whose records were
/// committed durably before; a crash of PostgreSQL may lose a notice, or show one again.
pub async fn update(db: &Db, key: String, state: State) -> Result<bool, PitError> {
    db.run_now(move |conn| {
        Ok(without_waiting_for_the_disk(conn, |conn| {
            sessions::update_state(conn, &key, &state)
        })?)
    })
    .await
}

/// Ends session `key`.
pub async fn delete(db: &Db, key: String) -> Result<(), PitError> {
    db.run_now(move |conn| Ok(sessions::delete(conn, &key)?))
        .await
}
