//! Hand-written SQL that diesel prepares once per connection and then reuses.
//!
//! Diesel's `sql_query` is never prepared: PostgreSQL parses and plans it on every call. The
//! statements on the round-confirmation path are long (CTEs that lock, number, insert and audit
//! in one go) and run on every round, so [`Sql`] keeps them in the connection's statement cache,
//! keyed by their text, like diesel's own DSL queries.

use std::marker::PhantomData;

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{HasSqlType, Untyped};
use diesel::{QueryResult, RunQueryDsl};

/// A fixed SQL text with `$1`, `$2`... placeholders written in it, and its bind values in
/// placeholder order. Load results with `QueryableByName` types, as with `sql_query`.
pub struct Sql<'a> {
    text: &'static str,
    binds: Vec<Box<dyn QueryFragment<Pg> + Send + 'a>>,
}

impl<'a> Sql<'a> {
    pub fn new(text: &'static str) -> Self {
        Sql {
            text,
            binds: Vec::new(),
        }
    }

    /// Binds the next placeholder (`$1` first) to `value` as SQL type `ST`.
    pub fn bind<ST, U>(mut self, value: U) -> Self
    where
        Pg: HasSqlType<ST>,
        U: ToSql<ST, Pg> + Send + 'a,
        ST: 'a,
    {
        self.binds.push(Box::new(Bind::<ST, U> {
            value,
            sql_type: PhantomData,
        }));
        self
    }
}

/// One column of an `unnest` bind: `of` applied to each row, in order.
pub fn column<'r, R, T>(rows: &'r [R], of: impl Fn(&'r R) -> T) -> Vec<T> {
    rows.iter().map(of).collect()
}

struct Bind<ST, U> {
    value: U,
    sql_type: PhantomData<fn() -> ST>,
}

impl<ST, U> QueryFragment<Pg> for Bind<ST, U>
where
    Pg: HasSqlType<ST>,
    U: ToSql<ST, Pg>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_bind_param::<ST, U>(&self.value)
    }
}

impl QueryFragment<Pg> for Sql<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(self.text);
        // Pushing a bind also writes its placeholder (`$n`, numbered in push order) into the
        // text. The text already has its placeholders, so these go into a closing comment.
        // (Diesel's own way to push a bind without its placeholder is private to diesel.)
        if !self.binds.is_empty() {
            out.push_sql(" /* binds:");
            for bind in &self.binds {
                out.push_sql(" ");
                bind.walk_ast(out.reborrow())?;
            }
            out.push_sql(" */");
        }
        Ok(())
    }
}

/// No static query id: diesel caches the prepared statement under its SQL text (and bind
/// types) instead.
impl QueryId for Sql<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Sql<'_> {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for Sql<'_> {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use diesel::sql_types::{BigInt, Text};

    use super::*;

    #[test]
    fn placeholders_stay_where_written_and_binds_follow_in_a_comment() {
        let query = Sql::new("SELECT $2::text || $1::bigint")
            .bind::<BigInt, _>(7_i64)
            .bind::<Text, _>("a");
        let sql = diesel::debug_query::<Pg, _>(&query).to_string();
        assert!(
            sql.starts_with("SELECT $2::text || $1::bigint /* binds: $1 $2 */"),
            "{sql}"
        );
        assert!(sql.contains("binds: [7, \"a\"]"), "{sql}");
    }
}
