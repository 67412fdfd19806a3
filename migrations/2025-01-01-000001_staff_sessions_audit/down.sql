DROP TABLE audit_events;
DROP FUNCTION audit_events_append_only();
DROP TABLE audit_chain_heads;
DROP TABLE sessions;
DROP TABLE users;
