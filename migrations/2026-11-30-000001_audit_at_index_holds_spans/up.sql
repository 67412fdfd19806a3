-- An events export starts by finding which part of each chain its window holds: the first and
-- last sequence number, on each chain, of the events written in the window. With `at` alone in
-- the index every event of the window was fetched from the table for its chain and seq (a
-- second read of the whole window before the export's own: 208 ms of a 1.1 s export of five
-- days of the million-round history). An index holding chain and seq lets that be read from
-- the index alone (40 ms), where the table's visibility map says its pages hold only committed
-- rows: so audit events, which are only ever inserted, are vacuumed after each 1 % of new rows
-- instead of 20 %, keeping the map current (a vacuum of an insert-only table removes nothing;
-- it marks pages all-visible and freezes them).
--
-- `audit_events_at_idx` stays beside it: the event search's time filter, given only the wider
-- index, chose to read the table backwards by id for a later page (57 ms against 11 ms).
-- The confirm path's cost of one more index is measured in BENCHMARKS.md ("The events export
-- by id").
CREATE INDEX audit_events_at_chain_seq_idx ON audit_events (at) INCLUDE (chain, seq);
ALTER TABLE audit_events SET (autovacuum_vacuum_insert_scale_factor = 0.01);
