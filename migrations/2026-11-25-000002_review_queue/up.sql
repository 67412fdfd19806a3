-- The review queue (issue 14): what a settled round's places say about its outcome and its
-- largest seat result, kept beside the round as generated columns (computed by PostgreSQL as the
-- round is written, so no writer can get them wrong and the confirming statements stay as they
-- are), and the indexes the queue's filters and orders need to page by keyset over millions of
-- rounds.

-- The outcome of a round as bits: 1 a seat fouled, 2 the dealer fouled, 4 a sweep (one side
-- won all three hands against a seat), 8 a royalty declared (by a seat or the dealer), 16 a
-- surrender (by a seat or the dealer). PL/pgSQL over the (at most four) places: one pass.
CREATE FUNCTION round_outcome_flags(places JSONB) RETURNS INTEGER
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    p JSONB;
    flags INTEGER := 0;
BEGIN
    -- Computed before the CHECK on `places` runs: anything else it refuses gives 0 here.
    IF jsonb_typeof(places) <> 'array' THEN
        RETURN 0;
    END IF;
    FOR p IN SELECT jsonb_array_elements(places) LOOP
        IF p->'fouled' = 'true'::jsonb THEN
            flags := flags | CASE WHEN p->>'place' = 'dealer' THEN 2 ELSE 1 END;
        END IF;
        IF p->'hands_won' = '0'::jsonb OR p->'hands_won' = '3'::jsonb THEN
            flags := flags | 4;
        END IF;
        IF p->>'action' = 'royalty' THEN
            flags := flags | 8;
        ELSIF p->>'action' = 'surrender' THEN
            flags := flags | 16;
        END IF;
    END LOOP;
    RETURN flags;
END;
$$;

-- The largest single seat result of a round, win or loss (the dealer, first, is left out): what
-- a table's approval threshold is compared with, and the queue's amount.
CREATE FUNCTION round_largest_result(places JSONB) RETURNS BIGINT
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    p JSONB;
    largest BIGINT := 0;
    first BOOLEAN := true;
BEGIN
    IF jsonb_typeof(places) <> 'array' THEN
        RETURN 0;
    END IF;
    FOR p IN SELECT jsonb_array_elements(places) LOOP
        -- Whole results within BIGINT only (the CHECK on `places` refuses the rest).
        IF NOT first AND jsonb_typeof(p->'result') = 'number'
                AND abs((p->>'result')::NUMERIC) < 1e18 THEN
            largest := greatest(largest, trunc(abs((p->>'result')::NUMERIC))::BIGINT);
        END IF;
        first := false;
    END LOOP;
    RETURN largest;
END;
$$;

ALTER TABLE rounds
    ADD COLUMN outcome_flags INTEGER NOT NULL GENERATED ALWAYS AS (round_outcome_flags(places)) STORED,
    ADD COLUMN largest_result BIGINT NOT NULL GENERATED ALWAYS AS (round_largest_result(places)) STORED;

-- Rounds in the order they were settled (ids are not: a process takes them ahead, in batches),
-- for the queue newest or oldest first, and a gaming day's rounds in that order.
CREATE INDEX rounds_review_settled_idx ON rounds (settled_at, id);
CREATE INDEX rounds_review_day_idx ON rounds (gaming_day, settled_at, id);
-- Rounds by their largest seat result (the queue sorted by amount, or from an amount up).
CREATE INDEX rounds_review_amount_idx ON rounds (largest_result, id);
-- The rounds that needed approval, and the rare outcomes, in order: small partial indexes, so
-- that a filter on them does not walk every round.
CREATE INDEX rounds_review_needs_approval_idx ON rounds (settled_at, id) WHERE needs_approval;
CREATE INDEX rounds_review_dealer_foul_idx ON rounds (settled_at, id) WHERE (outcome_flags & 2) <> 0;
CREATE INDEX rounds_review_royalty_idx ON rounds (settled_at, id) WHERE (outcome_flags & 8) <> 0;

-- A round's audit events (settled, approved, voided, re-entered, refusals) for its page.
CREATE INDEX audit_events_round_target_idx ON audit_events (target) WHERE target LIKE 'round:%';
