-- Points rounds cannot be kept without the points game: refuse to go back while any exist.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM rounds WHERE places->0->>'place' <> 'dealer') THEN
        RAISE EXCEPTION 'points rounds are stored; the points game cannot be removed';
    END IF;
END;
$$;

DROP VIEW round_places;
CREATE VIEW round_places AS
SELECT r.id AS round_id, r.table_id, r.gaming_day, p.*
FROM rounds r
CROSS JOIN LATERAL jsonb_to_recordset(r.places) AS p (
    place TEXT, bet BIGINT, action TEXT, royalty TEXT, dealt TEXT, back TEXT, middle TEXT,
    front TEXT, back_name TEXT, middle_name TEXT, front_name TEXT, fouled BOOLEAN,
    foul_reason TEXT, outcome TEXT, hands_won SMALLINT, result BIGINT
);

CREATE OR REPLACE FUNCTION round_places_fit(places JSONB, dealer_result BIGINT) RETURNS BOOLEAN
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN jsonb_typeof(places) = 'array'
        AND jsonb_array_length(places) BETWEEN 2 AND 4
        AND jsonb_path_exists(places, '$[0] ? (@.place == "dealer" && @.result == $r)',
                              jsonb_build_object('r', dealer_result))
        AND NOT jsonb_path_exists(places, 'strict $ ? (
                   @[1 to last].place == "dealer"
                || @[1].place >= @[2].place
                || @[2].place >= @[3].place)')
        AND NOT jsonb_path_exists(places, '$[*] ? (
                   !(@.place == "dealer" || @.place == "seat1" || @.place == "seat2"
                     || @.place == "seat3")
                || !(@.action == "play" || @.action == "surrender" || @.action == "royalty")
                || !(@.result.type() == "number" && @.result == @.result.floor())
                || !(@.bet.type() == "null"
                     || (@.bet.type() == "number" && @.bet > 0 && @.bet == @.bet.floor()))
                || !(@.fouled.type() == "null" || @.fouled.type() == "boolean")
                || !(@.hands_won.type() == "null" || @.hands_won.type() == "number"))');
END;
$$;

-- The review queue's functions as they were.
CREATE OR REPLACE FUNCTION round_outcome_flags(places JSONB) RETURNS INTEGER
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
CREATE OR REPLACE FUNCTION round_largest_result(places JSONB) RETURNS BIGINT
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

ALTER TABLE gaming_tables
    DROP CONSTRAINT gaming_tables_unit_is_the_limits,
    DROP COLUMN unit;
