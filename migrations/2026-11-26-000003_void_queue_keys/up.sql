-- The review queue's "voided" filter: voided rounds are few (one in hundreds), and reading them
-- newest first through the rounds' own order index walked every round between two voids (on a
-- million rounds, 72,580 wide rows for a page of 51 voids: about 400 ms). Each void now carries
-- copies of its round's order keys, filled from the round when the void is written (whatever the
-- writer sends), with an index in each of the queue's orders, so a page of voids reads its voids
-- in order and joins their rounds.
ALTER TABLE round_voids
    ADD COLUMN settled_at TIMESTAMPTZ,
    ADD COLUMN largest_result BIGINT;

-- The voids written before: their keys from their rounds (the rows are otherwise unchanged; the
-- trigger that refuses changes to a void is lifted for this one statement).
ALTER TABLE round_voids DISABLE TRIGGER round_voids_are_immutable;
UPDATE round_voids v
SET settled_at = r.settled_at, largest_result = r.largest_result
FROM rounds r
WHERE r.id = v.round_id;
ALTER TABLE round_voids ENABLE TRIGGER round_voids_are_immutable;

ALTER TABLE round_voids
    ALTER COLUMN settled_at SET NOT NULL,
    ALTER COLUMN largest_result SET NOT NULL;

CREATE FUNCTION round_void_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT r.settled_at, r.largest_result INTO NEW.settled_at, NEW.largest_result
    FROM rounds r WHERE r.id = NEW.round_id;
    RETURN NEW;
END;
$$;
CREATE TRIGGER round_voids_keys BEFORE INSERT ON round_voids
    FOR EACH ROW EXECUTE FUNCTION round_void_keys();

CREATE INDEX round_voids_settled_idx ON round_voids (settled_at, round_id);
CREATE INDEX round_voids_amount_idx ON round_voids (largest_result, round_id);
