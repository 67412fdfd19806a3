//! [`Db`]: the database as the use-cases reach it: the pool, and the turns in which requests
//! wait for it. A use-case runs its queries in one call of [`Db::run`], on the blocking thread
//! pool; the handlers above never hold a connection.

use std::sync::Arc;

use diesel::PgConnection;
use tokio::sync::Semaphore;

use crate::db::{drop_if_cut, DbError, PgPool};

/// An error a use-case's queries can end in, and the database's own error underneath it, if
/// any: a connection whose query found the database gone is dropped from the pool.
pub trait Failure: From<DbError> {
    fn query_error(&self) -> Option<&diesel::result::Error>;
}

impl Failure for DbError {
    fn query_error(&self) -> Option<&diesel::result::Error> {
        match self {
            DbError::Query(err) => Some(err),
            DbError::Pool(_) | DbError::Task => None,
        }
    }
}

/// The pool and its turns: cheap to clone.
#[derive(Clone)]
pub struct Db {
    pool: PgPool,
    /// One permit per connection that serves requests: requests wait for the database here,
    /// first come first served, instead of as blocked threads on the pool, which wakes them in
    /// no fixed order.
    turns: Arc<Semaphore>,
}

impl Db {
    /// `turns` of the pool's connections serve requests (the rest are the round writers').
    pub fn new(pool: PgPool, turns: usize) -> Self {
        Db {
            pool,
            turns: Arc::new(Semaphore::new(turns.max(1))),
        }
    }

    /// The pool itself, for what keeps a connection of its own (the round writers, background
    /// checks, the readiness probe).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Runs `f` with a pooled connection on the blocking thread pool, in its turn.
    pub async fn run<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut PgConnection) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: Failure + Send + 'static,
    {
        // Infallible: the semaphore is never closed.
        let _turn = self
            .turns
            .acquire()
            .await
            .expect("the database turns are never closed");
        self.run_now(f).await
    }

    /// Runs `f` as [`Db::run`] does, but without waiting for a turn: the session store's
    /// reads and writes, which every signed-in request makes around its handler.
    pub async fn run_now<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut PgConnection) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: Failure + Send + 'static,
    {
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = pool.get().map_err(DbError::from)?;
            let done = f(&mut conn);
            if let Some(err) = done.as_ref().err().and_then(Failure::query_error) {
                drop_if_cut(&mut conn, err);
            }
            done
        })
        .await
        .map_err(|_| E::from(DbError::Task))?
    }

    /// Whether the database answers (`SELECT 1`), on a connection straight from the pool, not
    /// in a turn behind other requests. After an outage the idle connections are dead and
    /// each is dropped at its first failed query: going through them here means the next
    /// requests get live ones.
    pub async fn ping(&self) -> Result<(), DbError> {
        use diesel::RunQueryDsl;
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || {
            let ping = || -> Result<(), DbError> {
                diesel::sql_query("SELECT 1").execute(&mut pool.get()?)?;
                Ok(())
            };
            let mut answer = ping();
            for _ in 0..pool.max_size() {
                match &answer {
                    Err(err @ DbError::Query(_)) if err.is_outage() => answer = ping(),
                    _ => break,
                }
            }
            answer
        })
        .await
        .map_err(|_| DbError::Task)?
    }
}
