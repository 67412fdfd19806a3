-- Reads whose cost grew with the whole history (issue 37), each given the index that answers
-- it from where its rows are, so that a filter matching nothing is known at once:
-- * the review queue filtered by a dealer read every round of the history when the dealer
--   had few or none (966 ms p50 on the million-round history for a new dealer), walking the
--   queue's order and dropping other dealers' rounds: one index per order of the queue;
-- * each home page's "your recent activity" filtered the trail by the acting account with no
--   index, walking the trail backwards from its newest event (745 ms p50 for a new supervisor);
-- * the event search with a time range walked the trail by id from its newest event to the
--   range (754 ms p50 for the first 2 days of the million): it now reads a time range in time
--   order (`reports::events::search`), from `audit_events_at_idx` alone or, with a chain, an
--   actor or an action, from that column's index by time.
CREATE INDEX rounds_review_dealer_idx ON rounds (dealer_id, settled_at, id);
CREATE INDEX rounds_review_dealer_amount_idx ON rounds (dealer_id, largest_result, id);
CREATE INDEX audit_events_actor_user_id_idx ON audit_events (actor_user_id, id)
    WHERE actor_user_id IS NOT NULL;
CREATE INDEX audit_events_chain_at_idx ON audit_events (chain, at);
CREATE INDEX audit_events_actor_at_idx ON audit_events (actor_name, at);
CREATE INDEX audit_events_action_at_idx ON audit_events (action, at);
