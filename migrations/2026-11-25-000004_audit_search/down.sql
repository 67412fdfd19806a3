DROP INDEX audit_events_at_idx;
DROP INDEX audit_events_gaming_day_id_idx;
DROP INDEX audit_events_actor_id_idx;
DROP INDEX audit_events_action_id_idx;
DROP INDEX audit_events_chain_id_idx;
