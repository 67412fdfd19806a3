-- The reads that once grew with the history (BENCHMARKS.md, "Reads that must not grow with
-- the history"): each statement as the app sends it, with what PostgreSQL reads for it.
--   psql "$OWNER_URL" -f benches/growing_reads.sql
-- Dealer 999999 and actor 'supervisor' stand for an account with nothing in the history.
\pset pager off
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT r.id FROM rounds r JOIN gaming_tables t ON t.id = r.table_id JOIN users u ON u.id = r.dealer_id
LEFT JOIN round_approvals a ON a.round_id = r.id LEFT JOIN round_voids v ON v.round_id = r.id
WHERE r.dealer_id = 999999 ORDER BY r.settled_at DESC, r.id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT r.id FROM rounds r JOIN gaming_tables t ON t.id = r.table_id JOIN users u ON u.id = r.dealer_id
LEFT JOIN round_approvals a ON a.round_id = r.id LEFT JOIN round_voids v ON v.round_id = r.id
WHERE r.dealer_id = 5 ORDER BY r.largest_result DESC, r.id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT id FROM audit_events WHERE actor_user_id = 999999 ORDER BY id DESC LIMIT 10;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT id FROM audit_events WHERE at >= '2026-11-15' AND at < '2026-11-17' ORDER BY id DESC LIMIT 51; -- the search by id, as before
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT id FROM audit_events WHERE at >= '2026-11-15' AND at < '2026-11-17' ORDER BY at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT id FROM audit_events WHERE chain = 'table:7' AND at >= '2026-11-15' AND at < '2026-11-17' ORDER BY at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT id FROM audit_events WHERE actor_name = 'supervisor' AND at >= '2026-11-15' AND at < '2026-11-17' ORDER BY at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT id FROM audit_events WHERE action = 'day.close' AND at >= '2026-11-15' AND at < '2026-11-17' ORDER BY at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT r.id FROM rounds r JOIN gaming_tables t ON t.id = r.table_id JOIN users u ON u.id = r.dealer_id
LEFT JOIN round_approvals a ON a.round_id = r.id LEFT JOIN round_voids v ON v.round_id = r.id
WHERE r.dealer_id = 999999 ORDER BY r.largest_result DESC, r.id DESC LIMIT 51;
