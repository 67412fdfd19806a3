ALTER TABLE audit_events RESET (autovacuum_vacuum_insert_scale_factor);
DROP INDEX audit_events_at_chain_seq_idx;
