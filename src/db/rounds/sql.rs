//! The hand-written SQL of round entry, each text once with its parameters documented:
//! statements that read a table's whole state in one query, and writes that check, under lock,
//! that what they were made from has not moved (CTEs that write, and `unnest` over arrays, which
//! diesel's DSL cannot say).
//!
//! How a round is confirmed. Locks taken in a transaction that then waits on the client cost a
//! round trip each (a `BEGIN`, the locks, the writes, a `COMMIT`), so a confirmation is one read
//! and one write statement instead, each a transaction of its own:
//! 1. [`ENTRY_READ`] reads, without locks, all the round needs: the table and its profile
//!    version, the open shift, the head of the table's audit chain, the day's last round number,
//!    a fresh round id, and what the key is already used for.
//! 2. The app checks the writer against the shift, works out the round's number, its places and
//!    its `round.settled` event with that event's hash on the chain.
//! 3. [`CONFIRM_WRITE`] (a draft) or [`WRITE_WHOLE_ROUNDS`] (whole rounds) locks the shift (and
//!    the draft), then the chain head, and writes the round, the event and the moved head only
//!    if none of them moved since the read (PostgreSQL re-checks a locked row as it is after the
//!    wait); an unmoved head also means the round number read is still the next. Otherwise it
//!    writes nothing and the app starts again from the read.
//!
//! The locks are taken in the order other writers take them (a sign-off locks its shift, then
//! the chain head), and every other table has rows of its own, so tables never wait on each
//! other.

use crate::db::audit_log;

/// The columns of `rounds` every write fills, in the order its `SELECT`s give them.
macro_rules! round_columns {
    () => {
        "id, table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
         rule_profile_version_id, currency, dealer_result, settled_at, places, needs_approval"
    };
}

/// The id of the rule profile version in force now at the table `t` (the migration
/// `2026-11-25-000006` says why; `db::tables` says the same in diesel's DSL).
macro_rules! version_in_force {
    () => {
        "CASE WHEN t.next_profile_from <= now() THEN t.next_profile_version_id \
         ELSE t.profile_version_id END"
    };
}

/// [`version_in_force!`] as a constant, for the documentation.
pub const VERSION_IN_FORCE: &str = version_in_force!();

/// What a round's confirmation reads of a table's state (`$2` gaming day, `$3` the round's
/// key), from the table `t` and the draft `d` under the key (if any). The chain is the
/// table's, named as [`audit_log::table_chain`] names it. The round id is taken here, so that
/// the audit event can name the round before it is written; ids are unique, not gapless (round
/// numbers are). The table's newest slip that is not void (`o`), with whether an explanation
/// was written for it, tells whether an opener holds the table
/// ([`crate::rules::accounting::opener_holds`]): a signed slip moves the table's chain head, so
/// a write made from this read finds it.
macro_rules! entry_read {
    ($from:literal, $where:literal) => {
        concat!(
            "\
            SELECT t.id AS table_id, t.code, t.name, t.currency, t.min_bet, t.max_bet, \
                   t.rule_profile_id, t.created_at, t.updated_at, t.approval_threshold, t.unit, \
                   v.id AS profile_version_id, v.options, \
                   s.id AS shift_id, s.dealer_id, s.gaming_day AS shift_day, s.signed_on_at, \
                   h.last_seq, h.last_hash, \
                   COALESCE((SELECT max(r.round_no) FROM rounds r \
                             WHERE r.table_id = t.id AND r.gaming_day = $2), 0) AS last_no, \
                   nextval('rounds_id_seq') AS next_round_id, \
                   d.id AS draft_id, d.draft_key, d.table_id AS draft_table_id, d.revision AS draft_revision, \
                   d.edited_by AS draft_edited_by, d.shift_id AS draft_shift_id, \
                   d.created_by AS draft_created_by, d.data AS draft_data, \
                   (SELECT r.id FROM rounds r WHERE r.draft_key = $3) AS key_round_id, \
                   o.id AS slip_id, o.kind AS slip_kind, o.held AS slip_held, \
                   o.difference AS slip_difference, \
                   EXISTS (SELECT 1 FROM opener_explanations e WHERE e.slip_id = o.id) \
                       AS slip_explained \
            FROM ",
            $from,
            " LEFT JOIN rule_profile_versions v ON v.id = ",
            version_in_force!(),
            " LEFT JOIN dealer_shifts s ON s.table_id = t.id AND s.signed_off_at IS NULL \
            LEFT JOIN audit_chain_heads h ON h.chain = 'table:' || t.id \
            LEFT JOIN LATERAL ( \
                SELECT sl.id, sl.kind, sl.held, sl.difference FROM inventory_slips sl \
                WHERE sl.table_id = t.id \
                  AND NOT EXISTS (SELECT 1 FROM inventory_slip_voids sv WHERE sv.slip_id = sl.id) \
                ORDER BY sl.id DESC LIMIT 1 \
            ) o ON true ",
            $where
        )
    };
}

/// [`entry_read!`] of the table with code `$1`, for a round under key `$3` on gaming day `$2`.
pub const ENTRY_READ: &str = entry_read!(
    "gaming_tables t LEFT JOIN round_drafts d ON d.draft_key = $3",
    "WHERE t.code = $1"
);

/// [`entry_read!`] of the table of the draft with key `$3`, for its round on gaming day `$2`;
/// no row unless the draft is at the table with code `$1` (null: at any table).
pub const DRAFT_ENTRY_READ: &str = entry_read!(
    "round_drafts d JOIN gaming_tables t ON t.id = d.table_id",
    "WHERE d.draft_key = $3 AND ($1::text IS NULL OR t.code = $1)"
);

/// Settles a draft: `$1`-`$13` its `round.settled` event ([`SealedEvent`](crate::db::audit_log::SealedEvent)), `$14` round id,
/// `$15` table, `$16` gaming day, `$17` round number, `$18` key, `$19` shift, `$20` dealer,
/// `$21` profile version, `$22` currency, `$23` the dealer's result, `$24` places (serialised
/// [`PlaceRow`](super::rows::PlaceRow)s), for the draft `$25` still at revision `$26` and unsettled, which it marks
/// settled; `$27` whether the round waits for approval. The round is settled at the event's time (`$3`). Returns how many rounds it wrote:
/// 0 when something moved since the read.
///
/// It locks the open shift `$19` (a sign-off in progress is waited for, and then the shift has
/// ended and `shift` is empty) and the draft, then the chain head (`head`). The round numbered
/// `$17` (the day's last number that was read, plus one) is written only if the table's chain
/// head has not moved since that read: every round moves its table's chain head, so an unmoved
/// head means no round was written at the table in between, and the number is still the next
/// one. A table's rounds of one day are so numbered one after another without gaps (and the
/// unique index on table, day and number refuses a number taken twice in any case).
pub const CONFIRM_WRITE: &str = concat!(
    "WITH shift AS ( \
        SELECT 1 FROM dealer_shifts WHERE id = $19 AND signed_off_at IS NULL \
        FOR NO KEY UPDATE \
    ), ready AS ( \
        SELECT 1 FROM round_drafts, shift \
        WHERE id = $25 AND revision = $26 AND settled_round_id IS NULL \
        FOR UPDATE OF round_drafts \
    ), ",
    audit_log::chain_head_unmoved!(),
    ", go AS (SELECT 1 FROM head), settled AS ( \
        INSERT INTO rounds (",
    round_columns!(),
    ") SELECT $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $3, $24::jsonb, $27 FROM go \
    ), ",
    audit_log::sealed_event_ctes!(),
    ", draft AS ( \
        UPDATE round_drafts SET settled_round_id = $14, shift_id = $19, updated_at = $3 \
        WHERE id = $25 AND EXISTS (SELECT 1 FROM go) \
    ) SELECT count(*) AS n FROM go"
);

/// Locks the open shift of table `code` until the transaction ends.
pub const LOCK_OPEN_SHIFT: &str = "\
    SELECT count(*) AS n FROM ( \
        SELECT 1 FROM dealer_shifts s JOIN gaming_tables t ON t.id = s.table_id \
        WHERE t.code = $1 AND s.signed_off_at IS NULL FOR NO KEY UPDATE OF s \
    ) locked";

/// Writes whole rounds, one row per round of `$1`..`$29` (arrays of equal length, one per
/// column). A round is written only if, under lock, its shift is still open (the shift is
/// locked, so a sign-off or other change to it in progress is waited for), its table still has
/// the currency, limits, approval threshold and rule profile it was validated under and the
/// profile version in force is still the one it was settled under,
/// its key is used by no draft and no round, the caller's token (if one is to be checked) is
/// still good and its account still has the role, and its table's audit chain is still where
/// its event was sealed (number and hash: after a failover that lost the last events, a number
/// comes again with another hash). An unmoved chain also means the round number is still the next one:
/// every round moves its table's chain. Each table's shift is locked before its chain head, as
/// every other writer takes them (shifts in order of table id; no two batches being written have
/// a table in common). Returns the ids of the rounds written.
///
/// Columns: event `$1` chain, `$2` seq, `$3` at (also the round's settled_at), `$4` actor id,
/// `$5` actor name, `$6` action, `$7` target, `$8` details, `$9` client address, `$10` gaming
/// day and `$11` table (also the round's), `$12` previous hash, `$13` hash; round `$14` id,
/// `$15` number, `$16` key, `$17` shift, `$18` dealer, `$19` profile version, `$20` currency,
/// `$21` dealer's result, `$22` places; checks `$23` and `$24` the bet limits, `$25` the rule
/// profile, `$26` the token's hash (null: nothing to check) and `$27` the writer's role; `$28`
/// whether the round waits for approval, decided under `$29` the table's approval threshold
/// (null: none), checked unchanged. The token is looked up by its hash in a lateral join: as
/// `OR EXISTS (...)` PostgreSQL planned it as a hash of every live token joined to every
/// account, built at each statement.
pub const WRITE_WHOLE_ROUNDS: &str = concat!(
    "\
    WITH i AS ( \
        SELECT * FROM unnest($1::text[], $2::int8[], $3::timestamptz[], $4::int8[], $5::text[], \
            $6::text[], $7::text[], $8::json[], $9::text[], $10::date[], $11::int8[], \
            $12::bytea[], $13::bytea[], $14::int8[], $15::int4[], $16::text[], $17::int8[], \
            $18::int8[], $19::int8[], $20::text[], $21::int8[], $22::jsonb[], $23::int8[], \
            $24::int8[], $25::int8[], $26::bytea[], $27::text[], $28::bool[], $29::int8[]) \
        AS i(chain, seq, at, actor_user_id, actor_name, action, target, details, client_addr, \
             gaming_day, table_id, prev_hash, hash, round_id, round_no, draft_key, shift_id, \
             dealer_id, profile_version_id, currency, dealer_result, places, min_bet, max_bet, \
             rule_profile_id, token_hash, writer_role, needs_approval, approval_threshold) \
    ), ready AS ( \
        SELECT i.* FROM i \
        JOIN dealer_shifts s ON s.id = i.shift_id AND s.signed_off_at IS NULL \
        JOIN gaming_tables t ON t.id = i.table_id AND t.currency = i.currency \
            AND t.min_bet = i.min_bet AND t.max_bet = i.max_bet \
            AND t.rule_profile_id = i.rule_profile_id \
            AND t.approval_threshold IS NOT DISTINCT FROM i.approval_threshold \
        LEFT JOIN LATERAL ( \
            SELECT true AS good FROM api_tokens k JOIN users u ON u.id = k.user_id \
            WHERE k.token_hash = i.token_hash AND k.revoked_at IS NULL \
              AND (k.expires_at IS NULL OR k.expires_at > now()) \
              AND u.disabled_at IS NULL AND u.id = i.actor_user_id AND u.role = i.writer_role \
        ) token ON true \
        WHERE i.profile_version_id = ",
    version_in_force!(),
    " AND NOT EXISTS (SELECT 1 FROM round_drafts d WHERE d.draft_key = i.draft_key) \
          AND NOT EXISTS (SELECT 1 FROM rounds r WHERE r.draft_key = i.draft_key) \
          AND (i.token_hash IS NULL OR token.good) \
        ORDER BY i.table_id \
        FOR NO KEY UPDATE OF s \
    ), go AS ( \
        UPDATE audit_chain_heads h SET last_seq = r.seq, last_hash = r.hash \
        FROM ready r \
        WHERE h.chain = r.chain AND h.last_seq = r.seq - 1 AND h.last_hash = r.prev_hash \
        RETURNING r.* \
    ), settled AS ( \
        INSERT INTO rounds (",
    round_columns!(),
    ") SELECT round_id, table_id, gaming_day, round_no, draft_key, shift_id, dealer_id, \
               profile_version_id, currency, dealer_result, at, places, needs_approval FROM go \
    ), event AS ( \
        INSERT INTO audit_events (",
    audit_log::audit_event_columns!(),
    ") SELECT ",
    audit_log::audit_event_columns!(),
    " FROM go \
    ) SELECT round_id AS id FROM go"
);

/// Round ids taken from the sequence ahead of use (`$1` how many).
pub const NEXT_ROUND_IDS: &str =
    "SELECT nextval('rounds_id_seq') AS id FROM generate_series(1, $1)";

/// A table's house results (`$1` table): the sum of its dealer results on gaming day `$2`, and
/// of the rounds of shift `$3`, whose gaming day is `$4` (a shift's rounds are on its own
/// gaming day or later), voided rounds left out. Read from the unique index on (table, day,
/// number), which carries both, with an anti-join on the (few) voids of the table on those
/// days. The sums are PostgreSQL's exact `numeric`, passed as text: no sum of `bigint`s
/// overflows it.
pub const HOUSE_RESULTS: &str = "\
    SELECT COALESCE(SUM(r.dealer_result) FILTER (WHERE r.gaming_day = $2), 0)::text AS day, \
           COALESCE(SUM(r.dealer_result) FILTER (WHERE r.shift_id = $3), 0)::text AS shift \
    FROM rounds r WHERE r.table_id = $1 AND r.gaming_day >= LEAST($2, $4) \
      AND NOT EXISTS (SELECT 1 FROM round_voids v WHERE v.round_id = r.id \
                      AND v.table_id = $1 AND v.gaming_day >= LEAST($2, $4))";

/// Inserts rounds of the past, one per row of the arrays `$1` to `$13` (the columns of
/// `round_columns!`, in order): history written after the fact, by the same columns as every
/// other write. Their events are appended with [`audit_log::append_sealed`] in the same
/// transaction.
pub const INSERT_HISTORY: &str = concat!(
    "INSERT INTO rounds (",
    round_columns!(),
    ") SELECT * FROM unnest($1::int8[], $2::int8[], $3::date[], $4::int4[], $5::text[], \
        $6::int8[], $7::int8[], $8::int8[], $9::text[], $10::int8[], $11::timestamptz[], \
        $12::jsonb[], $13::bool[])"
);
