-- Carding an observed player (docs/players.md, "Carding an observed player"): a player watched
-- in an unrated observation is given a card, or recognised as a carded player, mid-session. A
-- pit manager links the running observation to the player: the observation ends at that moment
-- and a rating of the player starts at the same table, seat and time, so no round is counted
-- both as an estimate and as rated, and none is lost between them. The link is a record of its
-- own, never changed, audited on the `players` chain (`observation.carded`).
CREATE TABLE observation_cardings (
    observation_id BIGINT PRIMARY KEY REFERENCES unrated_observations (id),
    -- The rating the observation goes on as: one observation at most per rating.
    rating_id BIGINT NOT NULL UNIQUE REFERENCES ratings (id),
    player_id BIGINT NOT NULL REFERENCES players (id),
    -- The gaming day the player was carded in (the rating's).
    gaming_day DATE NOT NULL,
    carded_by BIGINT NOT NULL REFERENCES users (id),
    -- The observation's end and the rating's start.
    carded_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX observation_cardings_by_player ON observation_cardings (player_id, observation_id);

-- The link holds what it says: the observation ended at `carded_at`, and the rating is the
-- player's, at the observation's table and seat, begun then, on the link's gaming day.
CREATE FUNCTION observation_carding_is_seamless() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (
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
    RETURN NEW;
END;
$$;
CREATE TRIGGER observation_cardings_are_seamless BEFORE INSERT ON observation_cardings
    FOR EACH ROW EXECUTE FUNCTION observation_carding_is_seamless();

CREATE TRIGGER observation_cardings_are_kept BEFORE UPDATE OR DELETE ON observation_cardings
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();

-- Nothing is carded on a closed gaming day.
CREATE TRIGGER observation_cardings_not_on_closed_day BEFORE INSERT ON observation_cardings
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
