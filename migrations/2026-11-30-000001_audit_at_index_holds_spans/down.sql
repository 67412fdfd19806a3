ALTER TABLE audit_events RESET (autovacuum_vacuum_insert_scale_factor);
CREATE INDEX audit_events_at_idx ON audit_events (at);
DROP INDEX audit_events_at_chain_seq_idx;
