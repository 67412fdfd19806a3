-- The house way at the tables (issue 16). When a table's rule profile requires its dealers to
-- set by the house way and the dealer's recorded set differs, the round is confirmed with the
-- house way's set kept in the dealer's place (`places[0].house_way`: back, middle, front and
-- the expected result given up), written with the round in the same statement. The flag is a
-- generated column, computed by PostgreSQL as the round is written (the confirming statements
-- stay as they are, and no writer can get it wrong), with a small partial index in the review
-- queue's order so that the queue's filter does not walk every round.
ALTER TABLE rounds
    ADD COLUMN house_way_departure BOOLEAN NOT NULL GENERATED ALWAYS AS
        (jsonb_typeof(places -> 0 -> 'house_way') IS NOT DISTINCT FROM 'object') STORED;

CREATE INDEX rounds_review_house_way_idx ON rounds (settled_at, id) WHERE house_way_departure;
