-- The review queue's voided filter, before (the rounds' own order keys) and after (the keys each
-- void carries), EXPLAIN (ANALYZE, BUFFERS) of a first and a later page. BENCHMARKS.md:
--   psql "$DATABASE_URL" -f benches/void_queue.sql
\timing off
\set sel 'SELECT rounds.id, gaming_tables.code, rounds.gaming_day, rounds.round_no, users.username, rounds.settled_at, rounds.currency, rounds.dealer_result, rounds.largest_result, rounds.outcome_flags, rounds.needs_approval, round_approvals.round_id IS NOT NULL, round_voids.round_id IS NOT NULL, rounds.house_way_departure FROM rounds JOIN gaming_tables ON gaming_tables.id = rounds.table_id JOIN users ON users.id = rounds.dealer_id LEFT JOIN round_approvals ON round_approvals.round_id = rounds.id LEFT JOIN round_voids ON round_voids.round_id = rounds.id WHERE round_voids.round_id IS NOT NULL'
-- cursor: the 51st void newest first
SELECT settled_at AS cur_at, round_id AS cur_id FROM round_voids ORDER BY settled_at DESC, round_id DESC OFFSET 50 LIMIT 1 \gset
SELECT largest_result AS cur_amt, round_id AS cur_aid FROM round_voids ORDER BY largest_result DESC, round_id DESC OFFSET 50 LIMIT 1 \gset
\echo before, newest, first page
EXPLAIN (ANALYZE, BUFFERS, SUMMARY, COSTS OFF, TIMING OFF) :sel ORDER BY rounds.settled_at DESC, rounds.id DESC LIMIT 51;
\echo before, newest, later page
EXPLAIN (ANALYZE, BUFFERS, SUMMARY, COSTS OFF, TIMING OFF) :sel AND (rounds.settled_at, rounds.id) < (:'cur_at', :cur_id) ORDER BY rounds.settled_at DESC, rounds.id DESC LIMIT 51;
\echo before, largest, later page
EXPLAIN (ANALYZE, BUFFERS, SUMMARY, COSTS OFF, TIMING OFF) :sel AND (rounds.largest_result, rounds.id) < (:cur_amt, :cur_aid) ORDER BY rounds.largest_result DESC, rounds.id DESC LIMIT 51;
\echo after, newest, first page
EXPLAIN (ANALYZE, BUFFERS, SUMMARY, COSTS OFF, TIMING OFF) :sel ORDER BY round_voids.settled_at DESC, round_voids.round_id DESC LIMIT 51;
\echo after, newest, later page
EXPLAIN (ANALYZE, BUFFERS, SUMMARY, COSTS OFF, TIMING OFF) :sel AND (round_voids.settled_at, round_voids.round_id) < (:'cur_at', :cur_id) ORDER BY round_voids.settled_at DESC, round_voids.round_id DESC LIMIT 51;
\echo after, largest, later page
EXPLAIN (ANALYZE, BUFFERS, SUMMARY, COSTS OFF, TIMING OFF) :sel AND (round_voids.largest_result, round_voids.round_id) < (:cur_amt, :cur_aid) ORDER BY round_voids.largest_result DESC, round_voids.round_id DESC LIMIT 51;
