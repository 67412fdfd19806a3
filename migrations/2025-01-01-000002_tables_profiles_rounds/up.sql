-- Tables, versioned rule profiles, dealer shifts, round drafts and settled rounds.

CREATE TABLE rule_profiles (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE CHECK (length(trim(name)) BETWEEN 1 AND 80),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Editing a profile inserts a new version; versions are never updated, so a round that records
-- the version it was settled under keeps its meaning for ever.
CREATE TABLE rule_profile_versions (
    id          BIGSERIAL PRIMARY KEY,
    profile_id  BIGINT NOT NULL REFERENCES rule_profiles (id),
    version     INTEGER NOT NULL CHECK (version >= 1),
    options     JSONB NOT NULL,
    created_by  BIGINT REFERENCES users (id),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (profile_id, version)
);

CREATE TABLE gaming_tables (
    id              BIGSERIAL PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE CHECK (code ~ '^[A-Z0-9][A-Z0-9-]{1,19}$'),
    name            TEXT NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 80),
    currency        TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    min_bet         BIGINT NOT NULL CHECK (min_bet > 0),
    max_bet         BIGINT NOT NULL CHECK (max_bet >= min_bet),
    rule_profile_id BIGINT NOT NULL REFERENCES rule_profiles (id),
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One dealer per table at a time, and one table per dealer at a time.
CREATE TABLE dealer_shifts (
    id              BIGSERIAL PRIMARY KEY,
    table_id        BIGINT NOT NULL REFERENCES gaming_tables (id),
    dealer_id       BIGINT NOT NULL REFERENCES users (id),
    gaming_day      DATE NOT NULL,
    signed_on_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    signed_off_at   TIMESTAMPTZ
);
CREATE UNIQUE INDEX dealer_shifts_one_dealer_per_table ON dealer_shifts (table_id) WHERE signed_off_at IS NULL;
CREATE UNIQUE INDEX dealer_shifts_one_table_per_dealer ON dealer_shifts (dealer_id) WHERE signed_off_at IS NULL;

-- The round being entered at a table: at most one open draft per table, so every tab and tablet
-- at that table edits the same round, and its key makes confirmation idempotent.
CREATE TABLE round_drafts (
    id              BIGSERIAL PRIMARY KEY,
    draft_key       TEXT NOT NULL UNIQUE,
    table_id        BIGINT NOT NULL REFERENCES gaming_tables (id),
    shift_id        BIGINT REFERENCES dealer_shifts (id),
    created_by      BIGINT NOT NULL REFERENCES users (id),
    revision        INTEGER NOT NULL DEFAULT 0,
    data            JSONB NOT NULL DEFAULT '{}',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    settled_round_id BIGINT,
    abandoned_at    TIMESTAMPTZ
);
CREATE UNIQUE INDEX round_drafts_one_open_per_table ON round_drafts (table_id)
    WHERE settled_round_id IS NULL AND abandoned_at IS NULL;

-- Gapless round numbers per table and gaming day: the row is locked by the confirming
-- transaction, so only rounds of the same table and day wait on each other.
CREATE TABLE round_counters (
    table_id    BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day  DATE NOT NULL,
    last_no     INTEGER NOT NULL,
    PRIMARY KEY (table_id, gaming_day)
);

CREATE TABLE rounds (
    id                      BIGSERIAL PRIMARY KEY,
    table_id                BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day              DATE NOT NULL,
    round_no                INTEGER NOT NULL CHECK (round_no >= 1),
    draft_key               TEXT NOT NULL UNIQUE,
    shift_id                BIGINT REFERENCES dealer_shifts (id),
    dealer_id               BIGINT NOT NULL REFERENCES users (id),
    rule_profile_version_id BIGINT NOT NULL REFERENCES rule_profile_versions (id),
    currency                TEXT NOT NULL,
    dealer_result           BIGINT NOT NULL,
    settled_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (table_id, gaming_day, round_no)
);
CREATE INDEX rounds_table_recent ON rounds (table_id, id DESC);
CREATE INDEX rounds_shift ON rounds (shift_id);

ALTER TABLE round_drafts ADD CONSTRAINT round_drafts_settled_round_fk
    FOREIGN KEY (settled_round_id) REFERENCES rounds (id);

-- One row per place of a settled round: everything RULES.md section 8 asks to keep.
CREATE TABLE round_places (
    round_id        BIGINT NOT NULL REFERENCES rounds (id),
    place           TEXT NOT NULL CHECK (place IN ('dealer', 'seat1', 'seat2', 'seat3')),
    table_id        BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day      DATE NOT NULL,
    bet             BIGINT CHECK (bet > 0),
    action          TEXT NOT NULL CHECK (action IN ('play', 'surrender', 'royalty')),
    royalty         TEXT,
    dealt           TEXT,
    back            TEXT,
    middle          TEXT,
    front           TEXT,
    back_name       TEXT,
    middle_name     TEXT,
    front_name      TEXT,
    fouled          BOOLEAN,
    foul_reason     TEXT,
    outcome         TEXT,
    hands_won       SMALLINT,
    result          BIGINT NOT NULL,
    PRIMARY KEY (round_id, place)
);

-- Settled rounds are records of what happened: corrections are new records, never edits.
CREATE FUNCTION reject_change_to_settled_round() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % is not allowed: settled rounds are immutable', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER rounds_are_immutable BEFORE UPDATE OR DELETE ON rounds
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER round_places_are_immutable BEFORE UPDATE OR DELETE ON round_places
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();

CREATE TABLE api_tokens (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 80),
    user_id     BIGINT NOT NULL REFERENCES users (id),
    token_hash  BYTEA NOT NULL UNIQUE,
    created_by  BIGINT NOT NULL REFERENCES users (id),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at  TIMESTAMPTZ
);
