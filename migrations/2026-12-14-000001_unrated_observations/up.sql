-- Unrated observations (docs/players.md): a pit manager's note of a player who is not carded,
-- seen at a seat of a table, with the average bet the pit manager estimates, as the casino's
-- older systems keep them. An observation is never changed: its end, and its void (with the
-- reason, by someone other than whoever recorded it), are records of their own; a correction is
-- a void and a new observation. Every record here is audited on the `players` chain.
CREATE TABLE unrated_observations (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    seat SMALLINT NOT NULL CHECK (seat BETWEEN 1 AND 4),
    gaming_day DATE NOT NULL,
    -- Who the player looks like ("man, 50s, red shirt"): no name, nothing from a document.
    description TEXT NOT NULL CHECK (length(btrim(description)) BETWEEN 1 AND 120),
    -- The table's currency when recorded, and the estimated average bet in its minor units.
    currency TEXT NOT NULL,
    average_bet BIGINT NOT NULL CHECK (average_bet > 0),
    -- When the player sat down, as the pit manager says (now, unless typed).
    started_at TIMESTAMPTZ NOT NULL,
    recorded_by BIGINT NOT NULL REFERENCES users (id),
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX unrated_observations_by_day ON unrated_observations (gaming_day, table_id, id);

-- The end of an observation (the player left): one at most, with the chips walked with when
-- the pit manager saw them (in the observation's currency, minor units).
CREATE TABLE unrated_observation_ends (
    observation_id BIGINT PRIMARY KEY REFERENCES unrated_observations (id),
    ended_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    walked_with BIGINT CHECK (walked_with >= 0),
    ended_by BIGINT NOT NULL REFERENCES users (id)
);

-- A void of an observation: it stays, shown struck, out of the day's figures.
CREATE TABLE unrated_observation_voids (
    observation_id BIGINT PRIMARY KEY REFERENCES unrated_observations (id),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) BETWEEN 1 AND 500),
    voided_by BIGINT NOT NULL REFERENCES users (id),
    voided_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TRIGGER unrated_observations_are_kept BEFORE UPDATE OR DELETE ON unrated_observations
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER unrated_observation_ends_are_kept BEFORE UPDATE OR DELETE
    ON unrated_observation_ends FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER unrated_observation_voids_are_kept BEFORE UPDATE OR DELETE
    ON unrated_observation_voids FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();

-- Nothing is observed on a closed gaming day.
CREATE TRIGGER unrated_observations_not_on_closed_day BEFORE INSERT ON unrated_observations
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
