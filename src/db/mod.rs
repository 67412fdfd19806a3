//! The database: connection pool, embedded migrations, row types and the queries on them.
//! Functions take `&mut PgConnection`; a change that is recorded in the audit trail writes its
//! event in the same transaction (round drafts' saves and session bookkeeping are not
//! recorded).

pub mod accounting;
pub mod accounting_history;
pub mod api_tokens;
pub mod audit_actions;
pub mod audit_copy;
pub mod audit_log;
pub mod cage;
pub mod canonical_json;
pub mod checkpoints;
pub mod compliance;
pub mod counts;
pub mod days;
pub mod demo;
pub mod drop;
pub mod embedded;
pub mod export;
pub mod handle;
pub mod ids;
pub mod observations;
pub mod players;
pub mod prepared;
pub mod profiles;
pub mod reconciliation;
pub mod review;
pub mod rounds;
pub mod schema;
pub mod seal_file;
pub mod sessions;
pub mod shifts;
pub mod table_settings;
pub mod tables;
pub mod users;

use std::time::Duration;

use diesel::pg::PgConnection;
use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

pub type PgPool = Pool<ConnectionManager<PgConnection>>;
pub type PooledConn = PooledConnection<ConnectionManager<PgConnection>>;

/// A failure to reach the database or to run a query on it.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("no database connection available")]
    Pool(#[from] diesel::r2d2::PoolError),
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
    /// The blocking task that held the connection ended without an answer (it panicked).
    #[error("a database task failed")]
    Task,
}

/// How long a request waits for a pooled connection before it is answered "try again": a
/// request should fail fast while the database is away, not hang for r2d2's default 30 s.
pub const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(3);

impl DbError {
    /// Whether the database is away (no connection to be had, or the one in hand was cut) rather
    /// than refusing this query: the request may be tried again unchanged in a moment.
    pub fn is_outage(&self) -> bool {
        match self {
            DbError::Pool(_) => true,
            DbError::Query(err) => is_outage(err),
            DbError::Task => false,
        }
    }
}

/// Whether a query failed because the database went away under it (its connection closed or
/// cut, or its server no longer takes writes) rather than because it was refused: see
/// [`DbError::is_outage`].
pub fn is_outage(err: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    match err {
        // A command that could not be sent: the connection is gone ("no connection to the
        // server" once libpq has seen it go).
        Error::DatabaseError(
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
            _,
        ) => true,
        // A server that no longer accepts writes (SQLSTATE 25006): a primary demoted to a
        // standby, or made read-only for a switchover. Its connection is dropped, and the next
        // one goes to whichever host accepts writes (`target_session_attrs=read-write`).
        Error::DatabaseError(DatabaseErrorKind::ReadOnlyTransaction, _) => true,
        // A backend ended by the server (shut down, or pg_terminate_backend): SQLSTATE 57P01 to
        // 57P03, which diesel does not name.
        Error::DatabaseError(_, info) => {
            let message = info.message();
            message.starts_with("terminating connection")
                || message.contains("the database system is")
                || message.contains("server closed the connection")
        }
        _ => false,
    }
}

/// Marks `conn` broken when `err` says the database went away under it, so that the pool drops
/// it instead of handing it out again. (Diesel marks a connection broken only when the failure
/// is seen inside a transaction or in an answer; a command that could not be sent at all leaves
/// it looking healthy, and every later request on it would fail.)
pub fn drop_if_cut(conn: &mut PgConnection, err: &diesel::result::Error) {
    use diesel::connection::{Connection, TransactionManager};
    if is_outage(err) {
        <PgConnection as Connection>::TransactionManager::transaction_manager_status_mut(conn)
            .set_in_error();
    }
}

/// Takes the session-level advisory lock `key` if no other session holds it (`true`); several
/// app instances on one database use it so that a background job runs in one of them at a
/// time. Released by [`advisory_unlock`], or when the connection ends.
pub fn try_advisory_lock(conn: &mut PgConnection, key: i64) -> diesel::QueryResult<bool> {
    use diesel::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Locked {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        locked: bool,
    }
    let Locked { locked } = diesel::sql_query("SELECT pg_try_advisory_lock($1) AS locked")
        .bind::<diesel::sql_types::BigInt, _>(key)
        .get_result(conn)?;
    Ok(locked)
}

/// Releases the advisory lock `key` taken by [`try_advisory_lock`].
pub fn advisory_unlock(conn: &mut PgConnection, key: i64) -> diesel::QueryResult<()> {
    use diesel::RunQueryDsl;
    diesel::sql_query("SELECT pg_advisory_unlock($1)")
        .bind::<diesel::sql_types::BigInt, _>(key)
        .execute(conn)?;
    Ok(())
}

/// What each of the app's connections sets when it is made: no JIT compilation. PostgreSQL
/// compiles a statement whose estimated cost passes `jit_above_cost`, and the estimates of the
/// pit board and the gaming-day report (lateral reads per table, a day's rounds) pass it: on
/// the million-round history compiling took 2.5 s of the board's 2.7 s and 250 ms of the day
/// report's 980 ms, for statements that run in tens of milliseconds without it (BENCHMARKS.md,
/// "Pit, review and audit on a million rounds"). Nothing the app runs is long enough to win it
/// back.
pub const SESSION_SETTINGS: &str = "SET jit = off";

/// Runs `run` in a transaction that first makes the `SET LOCAL` statement `set`.
fn with_local<T>(
    conn: &mut PgConnection,
    set: &str,
    run: impl FnOnce(&mut PgConnection) -> diesel::QueryResult<T>,
) -> diesel::QueryResult<T> {
    use diesel::connection::{Connection, SimpleConnection};
    conn.transaction(|conn| {
        conn.batch_execute(set)?;
        run(conn)
    })
}

/// Runs `read` with plans made for its own values. diesel keeps each statement it has run
/// prepared, by its text, and after five executions PostgreSQL may switch a prepared statement
/// to a generic plan, made without the values: for a search whose filters can match a handful
/// of rows or millions (an actor with no events over 60 days took about 100 ms instead of
/// 0.05 ms), which plan a request got then depended on what its connection ran before
/// (issue 37). Planning each time costs well under a millisecond.
pub fn with_custom_plans<T>(
    conn: &mut PgConnection,
    read: impl FnOnce(&mut PgConnection) -> diesel::QueryResult<T>,
) -> diesel::QueryResult<T> {
    with_local(conn, "SET LOCAL plan_cache_mode = force_custom_plan", read)
}

/// Runs `write` with plans made once, without its values. A statement diesel keeps prepared
/// is planned again at every execution while PostgreSQL expects a plan for its values to beat
/// the generic one; for the round writer's statement, whose `unnest` of arrays it can size only
/// from the values, it always does, and planning took longer (about 1.1 ms) than writing a
/// round (BENCHMARKS.md, "Planned once"). For writes whose every lookup is by key, where the
/// plan does not depend on the values.
pub fn with_generic_plans<T>(
    conn: &mut PgConnection,
    write: impl FnOnce(&mut PgConnection) -> diesel::QueryResult<T>,
) -> diesel::QueryResult<T> {
    with_local(
        conn,
        "SET LOCAL plan_cache_mode = force_generic_plan",
        write,
    )
}

/// Runs `write` in a transaction whose commit does not wait for the disk (nor a synchronous
/// standby): for state whose loss in a crash loses nothing anyone was told was kept, such as a
/// session's notice for its next page. PostgreSQL keeps the order of commits: a later commit
/// that waits for the disk takes this one's with it, and a crash loses at most the last few
/// hundred milliseconds of such commits, never a durable one after them.
pub fn without_waiting_for_the_disk<T>(
    conn: &mut PgConnection,
    write: impl FnOnce(&mut PgConnection) -> diesel::QueryResult<T>,
) -> diesel::QueryResult<T> {
    with_local(conn, "SET LOCAL synchronous_commit = off", write)
}

/// One connection, set as the app's pooled connections are (for the benchmarks, which time
/// what the app's queries cost).
pub fn connect(database_url: &str) -> diesel::ConnectionResult<PgConnection> {
    use diesel::connection::{Connection, SimpleConnection};
    let mut conn = PgConnection::establish(database_url)?;
    conn.batch_execute(SESSION_SETTINGS)
        .map_err(|e| diesel::ConnectionError::BadConnection(e.to_string()))?;
    Ok(conn)
}

#[derive(Debug, Clone, Copy)]
struct SessionSettings;

impl diesel::r2d2::CustomizeConnection<PgConnection, diesel::r2d2::Error> for SessionSettings {
    fn on_acquire(&self, conn: &mut PgConnection) -> Result<(), diesel::r2d2::Error> {
        use diesel::connection::SimpleConnection;
        conn.batch_execute(SESSION_SETTINGS)
            .map_err(diesel::r2d2::Error::QueryError)
    }
}

/// Builds the connection pool; fails if no connection can be made.
pub fn pool(database_url: &str, max_size: u32) -> Result<PgPool, diesel::r2d2::PoolError> {
    Pool::builder()
        .max_size(max_size)
        .connection_customizer(Box::new(SessionSettings))
        .connection_timeout(CHECKOUT_TIMEOUT)
        // r2d2 would otherwise send a query to test every connection it hands out: a round
        // trip on every request. A connection that has failed is still dropped (diesel marks it
        // broken), and the request it failed is answered with an error the client may retry.
        .test_on_check_out(false)
        .build(ConnectionManager::<PgConnection>::new(database_url))
}

/// The embedded migrations not applied to the database, read without creating or changing
/// anything (for a role that may not: `PUSOY_MIGRATE=false`).
pub fn pending_migrations(conn: &mut PgConnection) -> Result<Vec<String>, DbError> {
    use diesel::migration::MigrationSource;
    use diesel::RunQueryDsl;

    #[derive(diesel::QueryableByName)]
    struct Applied {
        #[diesel(sql_type = diesel::sql_types::Text)]
        version: String,
    }
    let applied: Vec<Applied> =
        diesel::sql_query("SELECT version FROM __diesel_schema_migrations").load(conn)?;
    let applied: std::collections::BTreeSet<String> =
        applied.into_iter().map(|a| a.version).collect();
    let embedded = MigrationSource::<diesel::pg::Pg>::migrations(&MIGRATIONS)
        .map_err(|e| DbError::Query(diesel::result::Error::QueryBuilderError(e)))?;
    Ok(embedded
        .iter()
        .filter(|m| !applied.contains(&m.name().version().to_string()))
        .map(|m| m.name().to_string())
        .collect())
}

/// Runs the migrations not yet applied; returns their names.
pub fn migrate(
    conn: &mut PgConnection,
) -> Result<Vec<String>, Box<dyn std::error::Error + Send + Sync>> {
    let done = conn.run_pending_migrations(MIGRATIONS)?;
    Ok(done.iter().map(ToString::to_string).collect())
}
