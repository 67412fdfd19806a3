-- Buy-ins before carding (docs/players.md, docs/compliance.md): a buy-in recorded at an
-- observed seat has no player (the player was not carded yet). When the observation is carded,
-- each such buy-in (at its table and seat, from its start to its end, not voided) is
-- attributed to the carded player by a record of its own, never changed: the buy-in itself is
-- a document and is never edited. A rating's slip and the player's cash of the gaming day
-- (the compliance check) count the buy-ins attributed to them as their own.
CREATE TABLE buy_in_attributions (
    buy_in_id BIGINT PRIMARY KEY REFERENCES buy_ins (id),
    player_id BIGINT NOT NULL REFERENCES players (id),
    rating_id BIGINT NOT NULL REFERENCES ratings (id),
    observation_id BIGINT NOT NULL REFERENCES observation_cardings (observation_id),
    -- The buy-in's gaming day (a closed day takes none).
    gaming_day DATE NOT NULL,
    attributed_by BIGINT NOT NULL REFERENCES users (id),
    attributed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX buy_in_attributions_by_player_day ON buy_in_attributions (player_id, gaming_day);
CREATE INDEX buy_in_attributions_by_day ON buy_in_attributions (gaming_day, player_id);
CREATE INDEX buy_in_attributions_by_rating ON buy_in_attributions (rating_id);

-- An attribution holds what it says: the buy-in has no player of its own, is of its gaming
-- day, at the carded observation's table and seat, recorded from the observation's start to
-- its end; the carding links that observation to this player and rating.
CREATE FUNCTION buy_in_attribution_holds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM buy_ins b
        JOIN observation_cardings c ON c.observation_id = NEW.observation_id
        JOIN unrated_observations o ON o.id = c.observation_id
        JOIN unrated_observation_ends e ON e.observation_id = o.id
        WHERE b.id = NEW.buy_in_id
          AND b.player_id IS NULL
          AND b.gaming_day = NEW.gaming_day
          AND b.table_id = o.table_id
          AND b.seat = o.seat
          AND b.created_at >= o.started_at
          AND b.created_at < e.ended_at
          AND c.player_id = NEW.player_id
          AND c.rating_id = NEW.rating_id
    ) THEN
        RAISE EXCEPTION 'buy-in % attributed to player %: it must be a buy-in with no player at the seat of observation %, while it ran, carded as that player''s rating %',
            NEW.buy_in_id, NEW.player_id, NEW.observation_id, NEW.rating_id;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER buy_in_attributions_hold BEFORE INSERT ON buy_in_attributions
    FOR EACH ROW EXECUTE FUNCTION buy_in_attribution_holds();
CREATE TRIGGER buy_in_attributions_are_kept BEFORE UPDATE OR DELETE ON buy_in_attributions
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER buy_in_attributions_not_on_closed_day BEFORE INSERT ON buy_in_attributions
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
