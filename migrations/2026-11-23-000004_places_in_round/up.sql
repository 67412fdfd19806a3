-- A settled round's places (the dealer and each seat: bet, action, cards, hand names, foul,
-- outcome, result) are kept in the round's own row, as a JSON array, instead of one row each in
-- `round_places`. Four more rows per round, each with its index entry and its foreign-key check,
-- were about a quarter of the work of a confirmation's write when run on PostgreSQL alone
-- (BENCHMARKS.md). Written in the round's row,
-- the places are as immutable as the round (one trigger) and cannot belong to another round.
-- The view `round_places` below still shows one row per place, with the same columns as before.

ALTER TABLE rounds ADD COLUMN places JSONB;

ALTER TABLE rounds DISABLE TRIGGER rounds_are_immutable;
UPDATE rounds r SET places = (
    SELECT jsonb_agg(to_jsonb(p) - 'round_id' - 'table_id' - 'gaming_day' ORDER BY p.place)
    FROM round_places p WHERE p.round_id = r.id
);
ALTER TABLE rounds ENABLE TRIGGER rounds_are_immutable;

-- What the table's columns and checks said of each place, now said of the array: the dealer
-- first, with the round's dealer result; then the seats, each once, in order; known places and
-- actions; whole-number results, and bets that are absent (the dealer) or positive whole numbers.
-- A PL/pgSQL function, so that its JSON paths are parsed once per connection: written straight
-- into the CHECK they were read back from the catalogue on every insert.
CREATE FUNCTION round_places_fit(places JSONB, dealer_result BIGINT) RETURNS BOOLEAN
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

ALTER TABLE rounds
    ALTER COLUMN places SET NOT NULL,
    ADD CONSTRAINT rounds_places_check CHECK (round_places_fit(places, dealer_result));

DROP TABLE round_places;
-- It served only the places' foreign key; one index fewer to update in every confirmation.
ALTER TABLE rounds DROP CONSTRAINT rounds_id_table_day_key;

-- One row per place, for reports and for anyone reading the database with SQL.
CREATE VIEW round_places AS
SELECT r.id AS round_id, r.table_id, r.gaming_day, p.*
FROM rounds r
CROSS JOIN LATERAL jsonb_to_recordset(r.places) AS p (
    place TEXT, bet BIGINT, action TEXT, royalty TEXT, dealt TEXT, back TEXT, middle TEXT,
    front TEXT, back_name TEXT, middle_name TEXT, front_name TEXT, fouled BOOLEAN,
    foul_reason TEXT, outcome TEXT, hands_won SMALLINT, result BIGINT
);
