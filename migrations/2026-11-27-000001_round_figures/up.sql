-- The gaming-day report summed every place of every round of its range from the rounds' JSON
-- (`jsonb_to_recordset` over `places`, about 0.02 ms a round: 300 ms for a day of 16,680
-- rounds on a quiet machine, a week's range several seconds). Each round now has its figures
-- worked out once, when it is written, in a narrow row of its own: the report and the chart by
-- hour sum those rows, found through the gaming day, and never read a round's places.
--
-- The rows are written by a trigger on `rounds`, whatever the writer (the app's round writers,
-- the history generator, anything else), from the places the round was written with; like the
-- round they are never changed or deleted.

-- A round's figures from its places (the dealer's place is the one named 'dealer'): the seats
-- played, the handle (the sum of the bets), the sets and fouls of players and of the dealer,
-- surrenders, royalties, sweeps (a player winning all three hands, or none), and for the points
-- game whether it is one (its places have points), its naturals and pusoys, and what its
-- winning players won.
CREATE FUNCTION round_place_figures(places JSONB)
RETURNS TABLE (
    handle BIGINT, players_won BIGINT,
    seats SMALLINT, player_sets SMALLINT, player_fouls SMALLINT, dealer_sets SMALLINT,
    dealer_fouls SMALLINT, surrenders SMALLINT, royalties SMALLINT, player_sweeps SMALLINT,
    dealer_sweeps SMALLINT, naturals SMALLINT, pusoys SMALLINT, points_game BOOLEAN
)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT COALESCE(sum(x.bet), 0)::bigint,
           COALESCE(sum(x.result) FILTER (WHERE x.points > 0), 0)::bigint,
           count(*) FILTER (WHERE x.place <> 'dealer')::smallint,
           count(*) FILTER (WHERE x.place <> 'dealer' AND x.fouled IS NOT NULL)::smallint,
           count(*) FILTER (WHERE x.place <> 'dealer' AND x.fouled)::smallint,
           count(*) FILTER (WHERE x.place = 'dealer' AND x.fouled IS NOT NULL)::smallint,
           count(*) FILTER (WHERE x.place = 'dealer' AND x.fouled)::smallint,
           count(*) FILTER (WHERE x.action = 'surrender')::smallint,
           count(*) FILTER (WHERE x.action = 'royalty')::smallint,
           count(*) FILTER (WHERE x.hands_won = 3)::smallint,
           count(*) FILTER (WHERE x.hands_won = 0)::smallint,
           count(*) FILTER (WHERE x.action = 'natural')::smallint,
           count(*) FILTER (WHERE x.pusoy)::smallint,
           count(*) FILTER (WHERE x.points IS NOT NULL) > 0
    FROM jsonb_to_recordset(places)
        AS x(place TEXT, bet BIGINT, action TEXT, fouled BOOLEAN, hands_won SMALLINT,
             points BIGINT, pusoy BOOLEAN, result BIGINT)
$$;

-- One row per round: its keys as the report groups them, then its figures.
CREATE TABLE round_figures (
    round_id       BIGINT PRIMARY KEY REFERENCES rounds (id),
    table_id       BIGINT NOT NULL,
    dealer_id      BIGINT NOT NULL,
    shift_id       BIGINT NOT NULL,
    settled_at     TIMESTAMPTZ NOT NULL,
    dealer_result  BIGINT NOT NULL,
    handle         BIGINT NOT NULL,
    players_won    BIGINT NOT NULL,
    gaming_day     DATE NOT NULL,
    seats          SMALLINT NOT NULL,
    player_sets    SMALLINT NOT NULL,
    player_fouls   SMALLINT NOT NULL,
    dealer_sets    SMALLINT NOT NULL,
    dealer_fouls   SMALLINT NOT NULL,
    surrenders     SMALLINT NOT NULL,
    royalties      SMALLINT NOT NULL,
    player_sweeps  SMALLINT NOT NULL,
    dealer_sweeps  SMALLINT NOT NULL,
    naturals       SMALLINT NOT NULL,
    pusoys         SMALLINT NOT NULL,
    points_game    BOOLEAN NOT NULL,
    needs_approval BOOLEAN NOT NULL,
    currency       TEXT NOT NULL
);

-- The rounds written before: their figures, from their places.
INSERT INTO round_figures
SELECT r.id, r.table_id, r.dealer_id, r.shift_id, r.settled_at, r.dealer_result, f.handle,
       f.players_won, r.gaming_day, f.seats, f.player_sets, f.player_fouls, f.dealer_sets,
       f.dealer_fouls, f.surrenders, f.royalties, f.player_sweeps, f.dealer_sweeps, f.naturals,
       f.pusoys, f.points_game, r.needs_approval, r.currency
FROM rounds r CROSS JOIN LATERAL round_place_figures(r.places) f;

-- The report's ranges: a day (or days), of every table or of one.
CREATE INDEX round_figures_day_table_idx ON round_figures (gaming_day, table_id);

-- Every round written from now on: its figures in the same statement (one statement-level
-- trigger, so a batch of rounds costs one more INSERT, not one per round).
CREATE FUNCTION round_figures_of_new_rounds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO round_figures
    SELECT r.id, r.table_id, r.dealer_id, r.shift_id, r.settled_at, r.dealer_result, f.handle,
           f.players_won, r.gaming_day, f.seats, f.player_sets, f.player_fouls, f.dealer_sets,
           f.dealer_fouls, f.surrenders, f.royalties, f.player_sweeps, f.dealer_sweeps,
           f.naturals, f.pusoys, f.points_game, r.needs_approval, r.currency
    FROM new_rounds r CROSS JOIN LATERAL round_place_figures(r.places) f;
    RETURN NULL;
END;
$$;
CREATE TRIGGER rounds_figures AFTER INSERT ON rounds
    REFERENCING NEW TABLE AS new_rounds
    FOR EACH STATEMENT EXECUTE FUNCTION round_figures_of_new_rounds();

-- Like the round, its figures are never changed or deleted.
CREATE TRIGGER round_figures_are_immutable BEFORE UPDATE OR DELETE ON round_figures
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
