//! What reads many rows, and never writes: audit-trail verification and the event search; the
//! gaming-day report (per day, table, dealer and shift, over one day or a range of days), its
//! charts' series, and the live pit board; exports that verify offline; the recompute check of
//! settled rounds; the house way's analysis of settled sets and its surveillance report. Voided
//! rounds drop out of every total and are counted as voids; a round waiting for approval counts
//! in the totals and is counted as pending.

pub mod checks;
pub mod events;
pub mod export;
pub mod figures;
pub mod gaming_day;
pub mod house_way;
pub mod pit;
pub mod recheck;
pub mod verify;

use diesel::prelude::*;
use diesel::sql_types::Text;

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

/// The one text column, named `name`, of every row `sql` returns.
fn names(conn: &mut PgConnection, sql: &str) -> QueryResult<Vec<String>> {
    let rows: Vec<Name> = diesel::sql_query(sql).load(conn)?;
    Ok(rows.into_iter().map(|r| r.name).collect())
}
