//! Hand-written SQL on the round path is prepared once per connection and reused, unlike
//! diesel's `sql_query`.
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text};
use pusoy_pit::db::prepared::Sql;

use crate::helpers::spawn_app;

#[derive(QueryableByName)]
struct N {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

const ADD: &str = "SELECT $1::bigint + length($2)::bigint AS n";

fn prepared_count(conn: &mut PgConnection, like: &str) -> i64 {
    diesel::sql_query("SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE $1")
        .bind::<Text, _>(like)
        .get_result::<N>(conn)
        .unwrap()
        .n
}

#[tokio::test]
async fn hand_written_sql_is_prepared_once_and_reused_with_new_binds() {
    let app = spawn_app().await;
    let mut conn = app.conn();
    for (a, b, sum) in [(40_i64, "ab", 42), (1, "", 1), (-3, "four", 1)] {
        let got: N = Sql::new(ADD)
            .bind::<BigInt, _>(a)
            .bind::<Text, _>(b)
            .get_result(&mut conn)
            .unwrap();
        assert_eq!(got.n, sum);
    }
    assert_eq!(
        prepared_count(&mut conn, "SELECT $1::bigint + length($2)%"),
        1
    );

    // Another text is another prepared statement.
    let got: N = Sql::new("SELECT $1::bigint * 2 AS n")
        .bind::<Integer, _>(21)
        .get_result(&mut conn)
        .unwrap();
    assert_eq!(got.n, 42);
    assert_eq!(prepared_count(&mut conn, "SELECT $1::bigint%"), 2);

    // diesel's sql_query is never prepared.
    let got: N = diesel::sql_query(ADD)
        .bind::<BigInt, _>(1_i64)
        .bind::<Text, _>("x")
        .get_result(&mut conn)
        .unwrap();
    assert_eq!(got.n, 2);
    assert_eq!(
        prepared_count(&mut conn, "SELECT $1::bigint + length($2)%"),
        1
    );
}
