-- Rated play (docs/players.md): the casino's players, their exclusions, and ratings computed
-- from the rounds settled at a seat while a carded player sat there. Every record here is
-- audited on the `players` chain. A player's identity may be corrected (audited, with the old
-- values); a status, a rating and its steps, a refused seating and a house edge are records
-- that are never changed.

-- `host` works player development and reads players' personal data; `compliance` files the
-- casino's cash-transaction reports.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
    CHECK (role IN ('dealer', 'supervisor', 'auditor', 'admin', 'cashier', 'count', 'host',
                    'compliance'));

CREATE TABLE players (
    id BIGSERIAL PRIMARY KEY,
    -- The number on the player's card (printed and in its barcode).
    card_number TEXT NOT NULL UNIQUE CHECK (card_number ~ '^[0-9A-Z]{4,20}$'),
    first_name TEXT NOT NULL CHECK (length(btrim(first_name)) BETWEEN 1 AND 80),
    last_name TEXT NOT NULL CHECK (length(btrim(last_name)) BETWEEN 1 AND 80),
    date_of_birth DATE,
    -- The identity document seen (kind and number as written, e.g. "passport P1234567").
    id_reference TEXT CHECK (id_reference IS NULL OR length(btrim(id_reference)) BETWEEN 1 AND 120),
    notes TEXT NOT NULL DEFAULT '' CHECK (length(notes) <= 2000),
    created_by BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- The exclusion list's matches: by identity document, and by name and date of birth.
CREATE INDEX players_by_id_reference ON players (lower(id_reference)) WHERE id_reference IS NOT NULL;
CREATE INDEX players_by_name_birth ON players (lower(last_name), lower(first_name), date_of_birth);

-- A player's status from `set_at` on: the latest row is the current one (a player with none is
-- active). Self-exclusion and barring give their reason; `source` says where it came from
-- (typed by staff, or the import of a regulator's list, by its file's name).
CREATE TABLE player_statuses (
    id BIGSERIAL PRIMARY KEY,
    player_id BIGINT NOT NULL REFERENCES players (id),
    status TEXT NOT NULL CHECK (status IN ('active', 'self_excluded', 'barred')),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) BETWEEN 1 AND 500),
    source TEXT NOT NULL DEFAULT '' CHECK (length(source) <= 200),
    set_by BIGINT NOT NULL REFERENCES users (id),
    set_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX player_statuses_by_player ON player_statuses (player_id, id);

-- A rating: a carded player at a seat of a table from `started_at`, for the gaming day it began
-- in. Its pauses, resumptions and end are steps; its figures are computed from the rounds.
CREATE TABLE ratings (
    id BIGSERIAL PRIMARY KEY,
    player_id BIGINT NOT NULL REFERENCES players (id),
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    seat SMALLINT NOT NULL CHECK (seat BETWEEN 1 AND 4),
    gaming_day DATE NOT NULL,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_by BIGINT NOT NULL REFERENCES users (id)
);
-- A rating's rounds are its table's rounds settled while it ran.
CREATE INDEX rounds_by_table_time ON rounds (table_id, settled_at);
CREATE INDEX ratings_by_player ON ratings (player_id, started_at, id);
CREATE INDEX ratings_by_day ON ratings (gaming_day, table_id, id);

-- A step of a rating, in order: a pause (the player stepped away), a resumption, and its end
-- with the chips the player walked with (in the table's currency, minor units).
CREATE TABLE rating_steps (
    rating_id BIGINT NOT NULL REFERENCES ratings (id),
    seq SMALLINT NOT NULL CHECK (seq >= 1),
    kind TEXT NOT NULL CHECK (kind IN ('pause', 'resume', 'end')),
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    by_user BIGINT NOT NULL REFERENCES users (id),
    walked_with BIGINT CHECK (walked_with >= 0),
    PRIMARY KEY (rating_id, seq),
    CHECK ((kind = 'end') = (walked_with IS NOT NULL))
);

-- The ratings not ended, one per seat and one per player: what the table screens show. A row is
-- added when a rating starts and removed when it ends (the rating and its steps stay).
CREATE TABLE open_ratings (
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    seat SMALLINT NOT NULL CHECK (seat BETWEEN 1 AND 4),
    rating_id BIGINT NOT NULL UNIQUE REFERENCES ratings (id),
    player_id BIGINT NOT NULL UNIQUE REFERENCES players (id),
    PRIMARY KEY (table_id, seat)
);

-- A seating refused because the player is excluded: what the pit board alerts on.
CREATE TABLE seat_refusals (
    id BIGSERIAL PRIMARY KEY,
    player_id BIGINT NOT NULL REFERENCES players (id),
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    seat SMALLINT NOT NULL CHECK (seat BETWEEN 1 AND 4),
    gaming_day DATE NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('self_excluded', 'barred')),
    refused_by BIGINT NOT NULL REFERENCES users (id),
    refused_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX seat_refusals_by_day ON seat_refusals (gaming_day, id);

-- The house edge against a player of a rule profile version, from the engine's simulation of
-- the house way against players who set by the house way (docs/players.md): the dealer's mean
-- result per unit a seat bets, and the half width of its 95 % confidence interval, in parts
-- per million, over `deals` deals shuffled from `seed`.
CREATE TABLE profile_version_edges (
    rule_profile_version_id BIGINT PRIMARY KEY REFERENCES rule_profile_versions (id),
    edge_ppm INTEGER NOT NULL CHECK (edge_ppm BETWEEN -1000000 AND 1000000),
    half_width_ppm INTEGER NOT NULL CHECK (half_width_ppm >= 0),
    deals INTEGER NOT NULL CHECK (deals > 0),
    seed BIGINT NOT NULL,
    computed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE FUNCTION player_records_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % are never changed or deleted: add a record instead',
        TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER player_statuses_are_kept BEFORE UPDATE OR DELETE ON player_statuses
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER ratings_are_kept BEFORE UPDATE OR DELETE ON ratings
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER rating_steps_are_kept BEFORE UPDATE OR DELETE ON rating_steps
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER seat_refusals_are_kept BEFORE UPDATE OR DELETE ON seat_refusals
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER profile_version_edges_are_kept BEFORE UPDATE OR DELETE ON profile_version_edges
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER players_are_kept BEFORE DELETE ON players
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();

-- Nothing is rated on a closed gaming day.
CREATE TRIGGER ratings_not_on_closed_day BEFORE INSERT ON ratings
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
