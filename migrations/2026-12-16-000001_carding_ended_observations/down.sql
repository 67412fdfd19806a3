DROP TRIGGER observation_cardings_hold_their_kind ON observation_cardings;
DROP FUNCTION observation_carding_holds_its_kind();
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
ALTER TABLE rating_steps DROP CONSTRAINT rating_steps_walked_with_at_end;
ALTER TABLE rating_steps ADD CHECK ((kind = 'end') = (walked_with IS NOT NULL));
ALTER TABLE observation_cardings DROP COLUMN kind;
