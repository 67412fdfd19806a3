-- Carding after the fact (docs/players.md, "Carding an observed player"): a player often shows
-- the card only when leaving. A pit manager then cards an observation that has ended: a rating
-- of the player is made for the observation's own span (its table, seat, start and end, no
-- pauses), rated from the rounds as any rating. The link says which kind it is, and each kind
-- is held to its own shape: a `running` carding ends the observation where and when the
-- rating starts (as before); an `ended` one makes a rating that starts and ends as the
-- observation did, on its gaming day.
ALTER TABLE observation_cardings ADD COLUMN kind TEXT NOT NULL DEFAULT 'running'
    CHECK (kind IN ('running', 'ended'));
-- Every link written from now on says its kind itself.
ALTER TABLE observation_cardings ALTER COLUMN kind DROP DEFAULT;

-- A rating made from an ended observation whose chips walked with were not seen ends with
-- none known: an end step may leave them empty; any other step has none.
ALTER TABLE rating_steps DROP CONSTRAINT rating_steps_check;
ALTER TABLE rating_steps ADD CONSTRAINT rating_steps_walked_with_at_end
    CHECK (kind = 'end' OR walked_with IS NULL);

DROP TRIGGER observation_cardings_are_seamless ON observation_cardings;
DROP FUNCTION observation_carding_is_seamless();

-- The link holds what its kind says. `running`: the observation ended at `carded_at`, and the
-- rating is the player's, at the observation's table and seat, begun then, on the link's
-- gaming day. `ended`: the observation (of the link's gaming day) had ended by `carded_at`, and
-- the rating is the player's, at its table and seat, begun when it began, with one step, its
-- end, when the observation ended and with the chips it saw walked with (none: not seen),
-- and it is not open.
CREATE FUNCTION observation_carding_holds_its_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'running' AND NOT EXISTS (
        SELECT 1 FROM unrated_observations o
        JOIN unrated_observation_ends e ON e.observation_id = o.id
        JOIN ratings r ON r.id = NEW.rating_id
        WHERE o.id = NEW.observation_id
          AND e.ended_at = NEW.carded_at
          AND r.started_at = NEW.carded_at
          AND r.player_id = NEW.player_id
          AND r.table_id = o.table_id
          AND r.seat = o.seat
          AND r.gaming_day = NEW.gaming_day
    ) THEN
        RAISE EXCEPTION 'observation % carded as rating %: the observation must end where and when the rating starts',
            NEW.observation_id, NEW.rating_id;
    END IF;
    IF NEW.kind = 'ended' AND NOT EXISTS (
        SELECT 1 FROM unrated_observations o
        JOIN unrated_observation_ends e ON e.observation_id = o.id
        JOIN ratings r ON r.id = NEW.rating_id
        JOIN rating_steps s ON s.rating_id = r.id AND s.seq = 1 AND s.kind = 'end'
        WHERE o.id = NEW.observation_id
          AND o.gaming_day = NEW.gaming_day
          AND e.ended_at <= NEW.carded_at
          AND r.started_at = o.started_at
          AND s.at = e.ended_at
          AND s.walked_with IS NOT DISTINCT FROM e.walked_with
          AND r.player_id = NEW.player_id
          AND r.table_id = o.table_id
          AND r.seat = o.seat
          AND r.gaming_day = NEW.gaming_day
          AND NOT EXISTS (SELECT 1 FROM rating_steps x WHERE x.rating_id = r.id AND x.seq > 1)
          AND NOT EXISTS (SELECT 1 FROM open_ratings x WHERE x.rating_id = r.id)
    ) THEN
        RAISE EXCEPTION 'observation % carded after it ended as rating %: the rating must start and end as the observation did, at its table and seat, with no pause',
            NEW.observation_id, NEW.rating_id;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER observation_cardings_hold_their_kind BEFORE INSERT ON observation_cardings
    FOR EACH ROW EXECUTE FUNCTION observation_carding_holds_its_kind();
