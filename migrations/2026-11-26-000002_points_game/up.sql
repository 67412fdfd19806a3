-- The points game (RULES.md section 7): a rule profile says its game in its options
-- (`{"game": "points", ...}`; without `game` it is the banking game, as every profile before),
-- and a table whose profile plays the points game has a `unit`: what one point is worth, in minor
-- units. A points table's bet limits are its unit (each player stakes one unit per point), so the
-- limits' checks, and a round's check that its table's limits did not move, cover the unit too.
ALTER TABLE gaming_tables
    ADD COLUMN unit BIGINT CONSTRAINT gaming_tables_unit_positive CHECK (unit > 0),
    ADD CONSTRAINT gaming_tables_unit_is_the_limits
        CHECK (unit IS NULL OR (min_bet = unit AND max_bet = unit));

-- The places of a settled round. A banking round is checked as before (its dealer first). A
-- points round has no dealer: two to four seats `seat1`..`seat4` in order, each with the points
-- it scored (whole numbers summing to zero over the round), its result, no bet, an action of the
-- points game, and the house's result 0 (the house takes no part in the points).
CREATE OR REPLACE FUNCTION round_places_fit(places JSONB, dealer_result BIGINT) RETURNS BOOLEAN
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF jsonb_typeof(places) <> 'array' THEN
        RETURN false;
    END IF;
    IF places->0->>'place' = 'dealer' THEN
        RETURN jsonb_array_length(places) BETWEEN 2 AND 4
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
    END IF;
    RETURN dealer_result = 0
        AND jsonb_array_length(places) BETWEEN 2 AND 4
        AND NOT jsonb_path_exists(places, 'strict $ ? (
                   @[0].place >= @[1].place
                || @[1].place >= @[2].place
                || @[2].place >= @[3].place)')
        AND NOT jsonb_path_exists(places, '$[*] ? (
                   !(@.place == "seat1" || @.place == "seat2" || @.place == "seat3"
                     || @.place == "seat4")
                || !(@.action == "play" || @.action == "natural" || @.action == "surrender")
                || !(@.points.type() == "number" && @.points == @.points.floor())
                || !(@.result.type() == "number" && @.result == @.result.floor())
                || !(@.bet.type() == "null")
                || !(@.fouled.type() == "null" || @.fouled.type() == "boolean"))')
        AND (SELECT sum((p->>'points')::numeric) FROM jsonb_array_elements(places) p) = 0;
END;
$$;

-- A points round's places in the review queue's bits: a mis-set is a seat's foul (1), a pusoy
-- a sweep (4), a natural shown counts with the royalties (8: what a player declared from the
-- 13 cards dealt), a surrender as a surrender (16).
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
        IF p->'hands_won' = '0'::jsonb OR p->'hands_won' = '3'::jsonb
                OR p->'pusoy' = 'true'::jsonb THEN
            flags := flags | 4;
        END IF;
        IF p->>'action' = 'royalty' OR p->>'action' = 'natural' THEN
            flags := flags | 8;
        ELSIF p->>'action' = 'surrender' THEN
            flags := flags | 16;
        END IF;
    END LOOP;
    RETURN flags;
END;
$$;

-- The largest single player result of a round, win or loss: the dealer's place (a banking
-- round's first) is left out; a points round has none, so every seat counts.
CREATE OR REPLACE FUNCTION round_largest_result(places JSONB) RETURNS BIGINT
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    p JSONB;
    largest BIGINT := 0;
BEGIN
    IF jsonb_typeof(places) <> 'array' THEN
        RETURN 0;
    END IF;
    FOR p IN SELECT jsonb_array_elements(places) LOOP
        -- Whole results within BIGINT only (the CHECK on `places` refuses the rest).
        IF p->>'place' IS DISTINCT FROM 'dealer' AND jsonb_typeof(p->'result') = 'number'
                AND abs((p->>'result')::NUMERIC) < 1e18 THEN
            largest := greatest(largest, trunc(abs((p->>'result')::NUMERIC))::BIGINT);
        END IF;
    END LOOP;
    RETURN largest;
END;
$$;

-- One row per place, the points game's columns added at the end.
CREATE OR REPLACE VIEW round_places AS
SELECT r.id AS round_id, r.table_id, r.gaming_day, p.*
FROM rounds r
CROSS JOIN LATERAL jsonb_to_recordset(r.places) AS p (
    place TEXT, bet BIGINT, action TEXT, royalty TEXT, dealt TEXT, back TEXT, middle TEXT,
    front TEXT, back_name TEXT, middle_name TEXT, front_name TEXT, fouled BOOLEAN,
    foul_reason TEXT, outcome TEXT, hands_won SMALLINT, result BIGINT, "natural" TEXT,
    points BIGINT, against JSONB, pusoy BOOLEAN
);
