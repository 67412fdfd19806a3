-- The database role the app runs as in production: it reads and writes what the app needs, but
-- may only INSERT and SELECT on audit_events, so even a compromised app cannot rewrite history
-- (the append-only triggers remain for every other role, the owner included).
--
-- Run by the database owner after every migration (it is idempotent):
--   psql "$OWNER_URL" -v ON_ERROR_STOP=1 -v app_role=pusoy_app -v app_password="$APP_PASSWORD" \
--        -f scripts/app-role.sql
-- then run the app with DATABASE_URL=postgres://pusoy_app:$APP_PASSWORD@host/db and
-- PUSOY_MIGRATE=false (migrations need the owner: `pusoy-pit migrate` with the owner's URL).

SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'app_role', :'app_password')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_role') \gexec
SELECT format('ALTER ROLE %I LOGIN PASSWORD %L', :'app_role', :'app_password') \gexec

SELECT format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), :'app_role') \gexec
GRANT USAGE ON SCHEMA public TO :"app_role";
-- Every table: what the app does with it. Updates and deletes of settled records are refused by
-- their triggers; chain heads only move forward (trigger).
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"app_role";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"app_role";
-- The audit trail: append and read, nothing else.
REVOKE ALL ON audit_events FROM :"app_role";
GRANT SELECT, INSERT ON audit_events TO :"app_role";
-- The migrations' bookkeeping: the app reads which are applied, never changes them.
REVOKE ALL ON __diesel_schema_migrations FROM :"app_role";
GRANT SELECT ON __diesel_schema_migrations TO :"app_role";
-- Signed table-accounting documents are only ever added: a correction is a void beside them.
REVOKE UPDATE, DELETE ON inventory_slips, inventory_slip_voids, opener_explanations
    FROM :"app_role";
-- The cage's signed records (fills and credits, their steps and prints): added, never changed
-- (triggers refuse it too). The slip row itself keeps UPDATE only so that a step can lock it.
REVOKE ALL ON cage_slip_steps, cage_slip_prints FROM :"app_role";
GRANT SELECT, INSERT ON cage_slip_steps, cage_slip_prints TO :"app_role";
-- Buy-ins, table fees, drop counts and investigations, with their voids and closings: added,
-- never changed (triggers refuse it too).
REVOKE UPDATE, DELETE ON buy_ins, buy_in_voids, table_fees, table_fee_voids, drop_counts,
    drop_count_voids, investigations, investigation_closings FROM :"app_role";
-- A closed day's sums are written by the close's triggers as the owner: the app reads them.
REVOKE ALL ON closed_day_round_sums, closed_day_drop_sums FROM :"app_role";
GRANT SELECT ON closed_day_round_sums, closed_day_drop_sums TO :"app_role";
-- The close's lock of a day's tables, taken as the owner (migration 2026-12-07-000002).
GRANT EXECUTE ON FUNCTION lock_gaming_day_tables() TO :"app_role";
-- A closed day's table-days, written by the close's trigger as the owner: the app reads them.
REVOKE ALL ON closed_table_days FROM :"app_role";
GRANT SELECT ON closed_table_days TO :"app_role";
-- Rated play: statuses, ratings and their steps, refused seatings and house edges are added,
-- never changed (triggers refuse it too); a player's identity may be corrected, never deleted.
REVOKE UPDATE, DELETE ON player_statuses, ratings, rating_steps, seat_refusals,
    profile_version_edges FROM :"app_role";
REVOKE DELETE ON players FROM :"app_role";
-- Cash-transaction compliance: cage cash and its voids, thresholds, cases and decisions are
-- added, never changed (triggers refuse it too).
REVOKE UPDATE, DELETE ON cage_cash, cage_cash_voids, compliance_thresholds, compliance_cases,
    compliance_decisions FROM :"app_role";
-- Exclusion lists as imported, and their lines, are kept (triggers refuse changes too).
REVOKE UPDATE, DELETE ON exclusion_lists, exclusion_list_lines FROM :"app_role";
-- Comp rules are added, never changed.
REVOKE UPDATE, DELETE ON comp_rules FROM :"app_role";
-- Unrated observations, their ends and voids are added, never changed (triggers refuse it too).
REVOKE UPDATE, DELETE ON unrated_observations, unrated_observation_ends,
    unrated_observation_voids FROM :"app_role";
-- An observed player's carding is added, never changed (triggers refuse it too).
REVOKE UPDATE, DELETE ON observation_cardings FROM :"app_role";
-- A buy-in's attribution to a player carded after it was recorded is added, never changed
-- (triggers refuse it too).
REVOKE UPDATE, DELETE ON buy_in_attributions FROM :"app_role";
