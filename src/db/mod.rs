//! The database: connection pool, embedded migrations, row types and the queries on them.
//! Functions take `&mut PgConnection`; a change that is recorded in the audit trail writes its
//! event in the same transaction (round drafts' saves and session bookkeeping are not
//! recorded).

pub mod api_tokens;
pub mod audit_log;
pub mod demo;
pub mod embedded;
pub mod ids;
pub mod prepared;
pub mod profiles;
pub mod rounds;
pub mod schema;
pub mod sessions;
pub mod shifts;
pub mod tables;
pub mod users;

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
}

/// Builds the connection pool; fails if no connection can be made.
pub fn pool(database_url: &str, max_size: u32) -> Result<PgPool, diesel::r2d2::PoolError> {
    Pool::builder()
        .max_size(max_size)
        // r2d2 would otherwise send a query to test every connection it hands out: a round
        // trip on every request. A connection that has failed is still dropped (diesel marks it
        // broken), and the request it failed is answered with an error the client may retry.
        .test_on_check_out(false)
        .build(ConnectionManager::<PgConnection>::new(database_url))
}

/// Runs the migrations not yet applied; returns their names.
pub fn migrate(
    conn: &mut PgConnection,
) -> Result<Vec<String>, Box<dyn std::error::Error + Send + Sync>> {
    let done = conn.run_pending_migrations(MIGRATIONS)?;
    Ok(done.iter().map(ToString::to_string).collect())
}
