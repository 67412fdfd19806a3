-- The auditor's event search (`/audit/events`): newest first, paged by id, filtered by any of
-- chain, action, actor, gaming day and time. Each filter has an index that yields its events in
-- id order, so a page is an index range read backwards, not a sort of everything that matches.
-- The time filter reads `at`. Each index costs every insert (every confirmed round) a little:
-- measured in BENCHMARKS.md ("audit search indexes").
CREATE INDEX audit_events_chain_id_idx ON audit_events (chain, id);
CREATE INDEX audit_events_action_id_idx ON audit_events (action, id);
CREATE INDEX audit_events_actor_id_idx ON audit_events (actor_name, id);
CREATE INDEX audit_events_gaming_day_id_idx ON audit_events (gaming_day, id)
    WHERE gaming_day IS NOT NULL;
CREATE INDEX audit_events_at_idx ON audit_events (at);
