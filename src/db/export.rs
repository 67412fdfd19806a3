//! The reads behind exports: settled rounds with their approval, void and re-entry, streamed row
//! by row (`load_iter`: libpq's single-row mode, so the process holds one row at a time however
//! long the range; audit events are copied in bulk by `db::audit_copy`), plus what an export's
//! manifest states: the chain spans and heads, the day seals and the profile versions its rows
//! name, and where a read replica stands.
//! Run them inside one `REPEATABLE READ` transaction ([`in_snapshot`]) so that the rows and the
//! manifest describe the same moment.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Bool, Bytea, Date, Int4, Jsonb, Nullable, Text, Timestamptz,
};

use crate::db::audit_actions::AuditAction;
use crate::db::audit_log::JsonText;
use crate::db::prepared::Sql;

/// Runs `f` in a read-only transaction that sees one snapshot throughout (a standby serves
/// `REPEATABLE READ` too).
pub fn in_snapshot<T, E>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(f)
}

/// One settled round as the rounds export reads it: the round, its places (a JSON array, dealer
/// first), its approval, void and re-entry, and the `round.settled` event that recorded it with
/// the events of its table's chain since the round before it.
#[derive(Debug, QueryableByName)]
pub struct RoundLine {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = BigInt)]
    pub table_id: i64,
    #[diesel(sql_type = Text)]
    pub table_code: String,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Int4)]
    pub round_no: i32,
    #[diesel(sql_type = Timestamptz)]
    pub settled_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    pub dealer: String,
    #[diesel(sql_type = BigInt)]
    pub profile_version_id: i64,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Bool)]
    pub needs_approval: bool,
    /// As the `jsonb` text PostgreSQL sends: parsed straight into the places' type, not
    /// through a `serde_json::Value` first.
    #[diesel(sql_type = Jsonb, deserialize_as = JsonText)]
    pub places: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub approved_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub approved_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    pub void_reason: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub void_note: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub voided_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub voided_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub replaces_round_id: Option<i64>,
    /// The round's `round.settled` event on its table's chain: its seq, hash and `prev_hash`
    /// (none when the trail has no such event).
    #[diesel(sql_type = Nullable<BigInt>)]
    pub event_seq: Option<i64>,
    #[diesel(sql_type = Nullable<Bytea>)]
    pub event_hash: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    pub event_prev_hash: Option<Vec<u8>>,
    /// The events of the chain after the previous round's event (of this export) up to this
    /// round's, in order: a JSON array of [`ChainEvent`]s.
    #[diesel(sql_type = Nullable<Text>)]
    pub chain_events: Option<String>,
}

/// One event as `RoundLine::chain_events` holds it: every hashed field, the details as stored.
#[derive(Debug, serde::Deserialize)]
pub struct ChainEvent<'a> {
    pub chain: String,
    pub seq: i64,
    pub at: DateTime<chrono::FixedOffset>,
    pub actor_user_id: Option<i64>,
    pub actor_name: String,
    pub action: String,
    pub target: String,
    #[serde(borrow)]
    pub details: &'a serde_json::value::RawValue,
    pub client_addr: Option<String>,
    pub gaming_day: Option<NaiveDate>,
    pub table_id: Option<i64>,
}

/// The settled rounds of gaming days `$1` to `$2` (both included), of table code `$3` or of
/// every table when it is NULL, in the order of the key on (table, gaming day, number); each
/// with its `round.settled` event (`$4`, found by the partial index on round targets) and the
/// events of its table's chain from the one after the previous round's event to its own.
const ROUNDS: &str = "\
    WITH picked AS ( \
        SELECT r.*, ev.seq AS event_seq, ev.hash AS event_hash, ev.prev_hash AS event_prev_hash \
        FROM rounds r \
        JOIN gaming_tables t ON t.id = r.table_id \
        LEFT JOIN LATERAL ( \
            SELECT e.seq, e.hash, e.prev_hash FROM audit_events e \
            WHERE e.target = 'round:' || r.id AND e.target LIKE 'round:%' \
              AND e.action = $4 AND e.chain = 'table:' || r.table_id \
            ORDER BY e.seq LIMIT 1) ev ON true \
        WHERE r.gaming_day BETWEEN $1 AND $2 AND ($3::text IS NULL OR t.code = $3) \
    ), placed AS ( \
        SELECT p.*, lag(p.event_seq) OVER ( \
            PARTITION BY p.table_id ORDER BY p.gaming_day, p.round_no) AS prev_event_seq \
        FROM picked p \
    ) \
    SELECT r.id, r.table_id, t.code AS table_code, r.gaming_day, r.round_no, r.settled_at, \
           u.username AS dealer, r.rule_profile_version_id AS profile_version_id, r.currency, \
           r.needs_approval, r.places, au.username AS approved_by, a.approved_at, \
           v.reason AS void_reason, v.note AS void_note, vu.username AS voided_by, v.voided_at, \
           re.replaces_round_id, r.event_seq, r.event_hash, r.event_prev_hash, \
           (SELECT json_agg(json_build_object( \
                'chain', e.chain, 'seq', e.seq, 'at', e.at, 'actor_user_id', e.actor_user_id, \
                'actor_name', e.actor_name, 'action', e.action, 'target', e.target, \
                'details', e.details, 'client_addr', e.client_addr, \
                'gaming_day', e.gaming_day, 'table_id', e.table_id) ORDER BY e.seq)::text \
            FROM audit_events e \
            WHERE e.chain = 'table:' || r.table_id \
              AND e.seq > coalesce(r.prev_event_seq, r.event_seq - 1) \
              AND e.seq <= r.event_seq) AS chain_events \
    FROM placed r \
    JOIN gaming_tables t ON t.id = r.table_id \
    JOIN users u ON u.id = r.dealer_id \
    LEFT JOIN round_approvals a ON a.round_id = r.id \
    LEFT JOIN users au ON au.id = a.approved_by \
    LEFT JOIN round_voids v ON v.round_id = r.id \
    LEFT JOIN users vu ON vu.id = v.voided_by \
    LEFT JOIN round_reentries re ON re.round_id = r.id \
    ORDER BY r.table_id, r.gaming_day, r.round_no";

/// The rounds of the range, one at a time, to `each` (which may stop the stream with an error).
pub fn each_round<E: From<diesel::result::Error>>(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    mut each: impl FnMut(RoundLine) -> Result<(), E>,
) -> Result<(), E> {
    let query = Sql::new(ROUNDS)
        .bind::<Date, _>(from)
        .bind::<Date, _>(to)
        .bind::<Nullable<Text>, _>(table)
        .bind::<Text, _>(AuditAction::RoundSettled.as_str());
    stream(conn, query, &mut each)
}

/// Runs `query` in single-row mode and hands each row to `each`.
fn stream<T, E>(
    conn: &mut PgConnection,
    query: Sql<'_>,
    each: &mut impl FnMut(T) -> Result<(), E>,
) -> Result<(), E>
where
    T: QueryableByName<diesel::pg::Pg> + 'static,
    E: From<diesel::result::Error>,
{
    for line in query.load_iter::<T, diesel::pg::PgRowByRowLoadingMode>(conn)? {
        each(line?)?;
    }
    Ok(())
}

/// Which events of each chain an events export holds: every event from the first to the last
/// one written in `[$1, $2)` (so each chain's part is unbroken even where two writers' clocks
/// crossed at the edge), on chain `$3` or on every chain when it is NULL.
const CHAIN_SPANS: &str = "\
    SELECT chain, min(seq) AS first_seq, max(seq) AS last_seq \
    FROM audit_events WHERE at >= $1 AND at < $2 AND ($3::text IS NULL OR chain = $3) \
    GROUP BY chain ORDER BY chain";

/// The part of one chain an events export holds.
#[derive(Debug, Clone, QueryableByName)]
pub struct ChainSpan {
    #[diesel(sql_type = Text)]
    pub chain: String,
    #[diesel(sql_type = BigInt)]
    pub first_seq: i64,
    #[diesel(sql_type = BigInt)]
    pub last_seq: i64,
}

/// The chains with events written from `from` (included) to `to` (excluded), and which part of
/// each an export of that window holds.
pub fn chain_spans(
    conn: &mut PgConnection,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    chain: Option<&str>,
) -> QueryResult<Vec<ChainSpan>> {
    Sql::new(CHAIN_SPANS)
        .bind::<Timestamptz, _>(from)
        .bind::<Timestamptz, _>(to)
        .bind::<Nullable<Text>, _>(chain)
        .load(conn)
}

/// The sequence number, id and hash of the events `seqs` of `chain` there are, in order: where an
/// export's part of the chain starts and ends.
pub fn event_ids_and_hashes(
    conn: &mut PgConnection,
    chain: &str,
    seqs: &[i64],
) -> QueryResult<Vec<(i64, i64, Vec<u8>)>> {
    use crate::db::schema::audit_events;
    audit_events::table
        .filter(audit_events::chain.eq(chain))
        .filter(audit_events::seq.eq_any(seqs))
        .order(audit_events::seq.asc())
        .select((audit_events::seq, audit_events::id, audit_events::hash))
        .load(conn)
}

/// Every chain's head (`chain`, last seq, last hash), in chain order.
pub fn chain_heads(conn: &mut PgConnection) -> QueryResult<Vec<(String, i64, Vec<u8>)>> {
    use crate::db::schema::audit_chain_heads as heads;
    heads::table
        .order(heads::chain.asc())
        .select((heads::chain, heads::last_seq, heads::last_hash))
        .load(conn)
}

/// The tables (id, code) whose rounds a rounds export of table `table` (or all) may hold.
pub fn tables(conn: &mut PgConnection, table: Option<&str>) -> QueryResult<Vec<(i64, String)>> {
    use crate::db::schema::gaming_tables as t;
    let mut query = t::table
        .select((t::id, t::code))
        .order(t::id.asc())
        .into_boxed();
    if let Some(code) = table {
        query = query.filter(t::code.eq(code.to_owned()));
    }
    query.load(conn)
}

/// The closes of gaming days `from` to `to`.
pub fn day_seals(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
) -> QueryResult<Vec<crate::db::days::DayClose>> {
    use crate::db::schema::gaming_day_closes as c;
    c::table
        .filter(c::gaming_day.between(from, to))
        .order(c::gaming_day.asc())
        .select(crate::db::days::DayClose::as_select())
        .load(conn)
}

/// The chain heads the `day.closed` events `seqs` on the `day` chain sealed (their details'
/// `heads`, as text), by seq.
pub fn seal_heads(conn: &mut PgConnection, seqs: &[i64]) -> QueryResult<Vec<(i64, String)>> {
    use crate::db::schema::audit_events;
    audit_events::table
        .filter(audit_events::chain.eq(crate::db::days::DAY_CHAIN))
        .filter(audit_events::seq.eq_any(seqs))
        .order(audit_events::seq.asc())
        .select((audit_events::seq, diesel::dsl::sql::<Text>("details::text")))
        .load(conn)
}

/// Every profile version: (id, profile name, version number, options).
pub fn profile_versions(
    conn: &mut PgConnection,
) -> QueryResult<Vec<(i64, String, i32, serde_json::Value)>> {
    use crate::db::schema::{rule_profile_versions as v, rule_profiles as p};
    v::table
        .inner_join(p::table)
        .order(v::id.asc())
        .select((v::id, p::name, v::version, v::options))
        .load(conn)
}

/// Where a standby stands: the WAL it has replayed, and when the last transaction it replayed
/// was committed on the primary.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct Replay {
    #[diesel(sql_type = Text)]
    pub lsn: String,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_commit_at: Option<DateTime<Utc>>,
    /// `lsn` as a number, to compare positions.
    #[diesel(sql_type = BigInt)]
    pub lsn_bytes: i64,
}

/// The replay position, when `conn` is to a standby (None on a primary).
pub fn replay_position(conn: &mut PgConnection) -> QueryResult<Option<Replay>> {
    diesel::sql_query(
        "SELECT pg_last_wal_replay_lsn()::text AS lsn, \
                pg_last_xact_replay_timestamp() AS last_commit_at, \
                (pg_last_wal_replay_lsn() - '0/0')::bigint AS lsn_bytes \
         WHERE pg_is_in_recovery()",
    )
    .get_result(conn)
    .optional()
}

/// The primary's current WAL insert position, as text and as a number: the end of everything
/// committed so far, including commits not yet written out (with `synchronous_commit = off` the
/// write position can stand before a transaction other sessions already see).
pub fn primary_position(conn: &mut PgConnection) -> QueryResult<(String, i64)> {
    #[derive(QueryableByName)]
    struct Position {
        #[diesel(sql_type = Text)]
        lsn: String,
        #[diesel(sql_type = BigInt)]
        lsn_bytes: i64,
    }
    let p: Position = diesel::sql_query(
        "SELECT pg_current_wal_insert_lsn()::text AS lsn, \
                (pg_current_wal_insert_lsn() - '0/0')::bigint AS lsn_bytes",
    )
    .get_result(conn)?;
    Ok((p.lsn, p.lsn_bytes))
}

/// Every inventory slip (opener, closer) of the range, with its denominations (of the chip set
/// version it was counted against) and counts, its signers, its explanation and its void, and
/// for an opener the previous closer it was checked against (its denominations and counts) and
/// the limit it was held above; in order of gaming day, table and id.
const INVENTORY_SLIPS: &str = "\
    SELECT s.id, s.kind, s.gaming_day, t.code AS table_code, cs.currency, s.shift_id, \
           v.denominations, s.counts, s.total, d.username AS dealer, \
           su.username AS supervisor, s.created_at, \
           e.explanation, eu.username AS explained_by, e.written_at AS explained_at, \
           sv.reason AS void_reason, vu.username AS voided_by, sv.voided_at, \
           s.previous_closer_id, pv.denominations AS previous_denominations, \
           pc.counts AS previous_counts, s.difference_limit, s.held \
    FROM inventory_slips s \
    LEFT JOIN inventory_slips pc ON pc.id = s.previous_closer_id \
    LEFT JOIN chip_set_versions pv ON pv.id = pc.chip_set_version_id \
    JOIN gaming_tables t ON t.id = s.table_id \
    JOIN chip_set_versions v ON v.id = s.chip_set_version_id \
    JOIN chip_sets cs ON cs.id = v.chip_set_id \
    JOIN users d ON d.id = s.dealer_id \
    JOIN users su ON su.id = s.supervisor_id \
    LEFT JOIN opener_explanations e ON e.slip_id = s.id \
    LEFT JOIN users eu ON eu.id = e.written_by \
    LEFT JOIN inventory_slip_voids sv ON sv.slip_id = s.id \
    LEFT JOIN users vu ON vu.id = sv.voided_by \
    WHERE s.gaming_day BETWEEN $1 AND $2 AND ($3::text IS NULL OR t.code = $3) \
    ORDER BY s.gaming_day, t.code, s.id";

/// An opener or closer as the accounting export reads it (`denominations` and `counts` in
/// the same order).
#[derive(Debug, QueryableByName)]
pub struct InventorySlipLine {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub table_code: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub shift_id: Option<i64>,
    #[diesel(sql_type = Array<Nullable<BigInt>>)]
    pub denominations: Vec<Option<i64>>,
    #[diesel(sql_type = Array<Nullable<BigInt>>)]
    pub counts: Vec<Option<i64>>,
    #[diesel(sql_type = BigInt)]
    pub total: i64,
    #[diesel(sql_type = Text)]
    pub dealer: String,
    #[diesel(sql_type = Text)]
    pub supervisor: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    pub explanation: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub explained_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub explained_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    pub void_reason: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub voided_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub voided_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub previous_closer_id: Option<i64>,
    #[diesel(sql_type = Nullable<Array<Nullable<BigInt>>>)]
    pub previous_denominations: Option<Vec<Option<i64>>>,
    #[diesel(sql_type = Nullable<Array<Nullable<BigInt>>>)]
    pub previous_counts: Option<Vec<Option<i64>>>,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub difference_limit: Option<i64>,
    #[diesel(sql_type = Bool)]
    pub held: bool,
}

/// Every fill and credit of the range with its denominations and counts, its steps (a JSON
/// array of [`CageStep`]s in the order they were signed) and its prints (of [`CagePrint`]s,
/// the first the original, each later one a reprint); in order of gaming day, table, kind and
/// number.
const CAGE_SLIPS: &str = "\
    SELECT c.id, c.kind, c.year, c.number, c.gaming_day, t.code AS table_code, cs.currency, \
           v.denominations, c.counts, c.total, c.created_at, \
           COALESCE((SELECT json_agg(json_build_object( \
                'step', st.step, 'signed_by', u.username, 'second_signed_by', u2.username, \
                'reason', st.reason, 'at', st.at) ORDER BY st.id) \
            FROM cage_slip_steps st \
            JOIN users u ON u.id = st.signed_by \
            LEFT JOIN users u2 ON u2.id = st.second_signed_by \
            WHERE st.slip_id = c.id), '[]')::text AS steps, \
           COALESCE((SELECT json_agg(json_build_object( \
                'copy', p.copy_number, 'printed_by', u.username, 'at', p.at) ORDER BY p.id) \
            FROM cage_slip_prints p JOIN users u ON u.id = p.printed_by \
            WHERE p.slip_id = c.id), '[]')::text AS prints \
    FROM cage_slips c \
    JOIN gaming_tables t ON t.id = c.table_id \
    JOIN chip_set_versions v ON v.id = c.chip_set_version_id \
    JOIN chip_sets cs ON cs.id = v.chip_set_id \
    WHERE c.gaming_day BETWEEN $1 AND $2 AND ($3::text IS NULL OR t.code = $3) \
    ORDER BY c.gaming_day, t.code, c.kind, c.year, c.number";

/// A fill or credit as the accounting export reads it.
#[derive(Debug, QueryableByName)]
pub struct CageSlipLine {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = Int4)]
    pub year: i32,
    #[diesel(sql_type = Int4)]
    pub number: i32,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub table_code: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Array<Nullable<BigInt>>)]
    pub denominations: Vec<Option<i64>>,
    #[diesel(sql_type = Array<Nullable<BigInt>>)]
    pub counts: Vec<Option<i64>>,
    #[diesel(sql_type = BigInt)]
    pub total: i64,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    /// A JSON array of [`CageStep`]s.
    #[diesel(sql_type = Text)]
    pub steps: String,
    /// A JSON array of [`CagePrint`]s.
    #[diesel(sql_type = Text)]
    pub prints: String,
}

/// One print of a fill or credit, as [`CageSlipLine::prints`] holds it.
#[derive(Debug, serde::Deserialize)]
pub struct CagePrint {
    pub copy: i32,
    pub printed_by: String,
    pub at: DateTime<chrono::FixedOffset>,
}

/// One signed step of a fill or credit, as [`CageSlipLine::steps`] holds it.
#[derive(Debug, serde::Deserialize)]
pub struct CageStep {
    pub step: String,
    pub signed_by: String,
    pub second_signed_by: Option<String>,
    pub reason: Option<String>,
    pub at: DateTime<chrono::FixedOffset>,
}

/// Every buy-in of the range with its void; in order of gaming day, table and id.
const BUY_INS: &str = "\
    SELECT b.id, b.gaming_day, t.code AS table_code, b.currency, b.shift_id, \
           b.seat::bigint AS seat, b.kind, b.amount, u.username AS recorded_by, b.created_at, \
           v.reason AS void_reason, vu.username AS voided_by, v.voided_at \
    FROM buy_ins b \
    JOIN gaming_tables t ON t.id = b.table_id \
    JOIN users u ON u.id = b.recorded_by \
    LEFT JOIN buy_in_voids v ON v.buy_in_id = b.id \
    LEFT JOIN users vu ON vu.id = v.voided_by \
    WHERE b.gaming_day BETWEEN $1 AND $2 AND ($3::text IS NULL OR t.code = $3) \
    ORDER BY b.gaming_day, t.code, b.id";

/// Every points-game table fee of the range with its void (no seat, kind `fee`); in order of
/// gaming day, table and id.
const TABLE_FEES: &str = "\
    SELECT f.id, f.gaming_day, t.code AS table_code, f.currency, f.shift_id, \
           NULL::bigint AS seat, 'fee' AS kind, f.amount, u.username AS recorded_by, \
           f.created_at, v.reason AS void_reason, vu.username AS voided_by, v.voided_at \
    FROM table_fees f \
    JOIN gaming_tables t ON t.id = f.table_id \
    JOIN users u ON u.id = f.recorded_by \
    LEFT JOIN table_fee_voids v ON v.fee_id = f.id \
    LEFT JOIN users vu ON vu.id = v.voided_by \
    WHERE f.gaming_day BETWEEN $1 AND $2 AND ($3::text IS NULL OR t.code = $3) \
    ORDER BY f.gaming_day, t.code, f.id";

/// A buy-in or a table fee as the accounting export reads it.
#[derive(Debug, QueryableByName)]
pub struct DropLine {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub table_code: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub shift_id: Option<i64>,
    /// A buy-in's seat; none for a fee.
    #[diesel(sql_type = Nullable<BigInt>)]
    pub seat: Option<i64>,
    /// A buy-in's kind (`cash`, `marker`, `chip_voucher`), or `fee`.
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = BigInt)]
    pub amount: i64,
    #[diesel(sql_type = Text)]
    pub recorded_by: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    pub void_reason: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub voided_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub voided_at: Option<DateTime<Utc>>,
}

/// Every count of the drop of the range with its banknote lines, its counters and its void; in
/// order of gaming day, table and id.
const DROP_COUNTS: &str = "\
    SELECT c.id, c.gaming_day, t.code AS table_code, c.currency, c.note_denominations, \
           c.note_counts, c.cash, c.markers, c.chip_vouchers, c.total, \
           u1.username AS first_counter, u2.username AS second_counter, c.created_at, \
           v.reason AS void_reason, vu.username AS voided_by, v.voided_at \
    FROM drop_counts c \
    JOIN gaming_tables t ON t.id = c.table_id \
    JOIN users u1 ON u1.id = c.first_counter \
    JOIN users u2 ON u2.id = c.second_counter \
    LEFT JOIN drop_count_voids v ON v.count_id = c.id \
    LEFT JOIN users vu ON vu.id = v.voided_by \
    WHERE c.gaming_day BETWEEN $1 AND $2 AND ($3::text IS NULL OR t.code = $3) \
    ORDER BY c.gaming_day, t.code, c.id";

/// A count of the drop as the accounting export reads it (`note_denominations` and
/// `note_counts` in the same order; none where the currency has no banknotes listed).
#[derive(Debug, QueryableByName)]
pub struct CountLine {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Date)]
    pub gaming_day: NaiveDate,
    #[diesel(sql_type = Text)]
    pub table_code: String,
    #[diesel(sql_type = Text)]
    pub currency: String,
    #[diesel(sql_type = Array<Nullable<BigInt>>)]
    pub note_denominations: Vec<Option<i64>>,
    #[diesel(sql_type = Array<Nullable<BigInt>>)]
    pub note_counts: Vec<Option<i64>>,
    #[diesel(sql_type = BigInt)]
    pub cash: i64,
    #[diesel(sql_type = BigInt)]
    pub markers: i64,
    #[diesel(sql_type = BigInt)]
    pub chip_vouchers: i64,
    #[diesel(sql_type = BigInt)]
    pub total: i64,
    #[diesel(sql_type = Text)]
    pub first_counter: String,
    #[diesel(sql_type = Text)]
    pub second_counter: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    pub void_reason: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub voided_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub voided_at: Option<DateTime<Utc>>,
}

/// Streams the rows of `text` (one of the accounting export's reads) for gaming days `from`
/// to `to` of table code `table` (or every table) to `each`.
fn each_in_range<T, E>(
    conn: &mut PgConnection,
    text: &'static str,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    mut each: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E>
where
    T: QueryableByName<diesel::pg::Pg> + 'static,
    E: From<diesel::result::Error>,
{
    let query = Sql::new(text)
        .bind::<Date, _>(from)
        .bind::<Date, _>(to)
        .bind::<Nullable<Text>, _>(table);
    stream(conn, query, &mut each)
}

/// The openers and closers of the range, one at a time, to `each`.
pub fn each_inventory_slip<E: From<diesel::result::Error>>(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    each: impl FnMut(InventorySlipLine) -> Result<(), E>,
) -> Result<(), E> {
    each_in_range(conn, INVENTORY_SLIPS, from, to, table, each)
}

/// The fills and credits of the range, one at a time, to `each`.
pub fn each_cage_slip<E: From<diesel::result::Error>>(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    each: impl FnMut(CageSlipLine) -> Result<(), E>,
) -> Result<(), E> {
    each_in_range(conn, CAGE_SLIPS, from, to, table, each)
}

/// The buy-ins of the range, one at a time, to `each`.
pub fn each_buy_in<E: From<diesel::result::Error>>(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    each: impl FnMut(DropLine) -> Result<(), E>,
) -> Result<(), E> {
    each_in_range(conn, BUY_INS, from, to, table, each)
}

/// The table fees of the range, one at a time, to `each`.
pub fn each_table_fee<E: From<diesel::result::Error>>(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    each: impl FnMut(DropLine) -> Result<(), E>,
) -> Result<(), E> {
    each_in_range(conn, TABLE_FEES, from, to, table, each)
}

/// The counts of the drop of the range, one at a time, to `each`.
pub fn each_drop_count<E: From<diesel::result::Error>>(
    conn: &mut PgConnection,
    from: NaiveDate,
    to: NaiveDate,
    table: Option<&str>,
    each: impl FnMut(CountLine) -> Result<(), E>,
) -> Result<(), E> {
    each_in_range(conn, DROP_COUNTS, from, to, table, each)
}
