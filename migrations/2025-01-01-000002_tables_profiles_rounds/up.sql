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

-- One dealer per table at a time, and one table per dealer at a time. The key on (id, table_id,
-- dealer_id) lets a round name its shift, table and dealer with one foreign key.
CREATE TABLE dealer_shifts (
    id              BIGSERIAL PRIMARY KEY,
    table_id        BIGINT NOT NULL REFERENCES gaming_tables (id),
    dealer_id       BIGINT NOT NULL REFERENCES users (id),
    gaming_day      DATE NOT NULL,
    signed_on_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    signed_off_at   TIMESTAMPTZ,
    CONSTRAINT dealer_shifts_id_table_dealer_key UNIQUE (id, table_id, dealer_id)
);
CREATE UNIQUE INDEX dealer_shifts_one_dealer_per_table ON dealer_shifts (table_id) WHERE signed_off_at IS NULL;
CREATE UNIQUE INDEX dealer_shifts_one_table_per_dealer ON dealer_shifts (dealer_id) WHERE signed_off_at IS NULL;

-- What the places of a settled round must be (see `rounds.places`): the dealer first, with the
-- round's dealer result; then the seats, each once, in order; known places and actions;
-- whole-number results, and bets that are absent (the dealer) or positive whole numbers.
-- PL/pgSQL, so that its JSON paths are parsed once per connection: written straight into the
-- CHECK they would be read back from the catalogue on every insert.
CREATE FUNCTION round_places_fit(places JSONB, dealer_result BIGINT) RETURNS BOOLEAN
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN jsonb_typeof(places) = 'array'
        AND jsonb_array_length(places) BETWEEN 2 AND 4
        AND jsonb_path_exists(places, '$[0] ? (@.place == "dealer" && @.result == $r)',
                              jsonb_build_object('r', dealer_result))
        AND NOT jsonb_path_exists(places, 'strict $ ? (
                   @[1 to last].place == "dealer"
                || @[1].place >= @[2].place
                || @[2].place >= @[3].place)')
        AND NOT jsonb_path_exists(places, '$[*] ? (
                   !(@.place == "dealer" || @.place == "seat1" || @.place == "seat2"
                     || @.place == "seat3")
                || !(@.action == "play" || @.action == "surrender" || @.action == "royalty")
                || !(@.result.type() == "number" && @.result == @.result.floor())
                || !(@.bet.type() == "null"
                     || (@.bet.type() == "number" && @.bet > 0 && @.bet == @.bet.floor()))
                || !(@.fouled.type() == "null" || @.fouled.type() == "boolean")
                || !(@.hands_won.type() == "null" || @.hands_won.type() == "number"))');
END;
$$;

-- A settled round. Its table and dealer are those of its shift (one composite foreign key: the
-- checks run inside every confirmation, so fewer of them make it cheaper).
--
-- A table's next round number is the day's highest plus one, read through the unique key on
-- (table, gaming day, number). It stays gapless and in order because every round also moves its
-- table's audit chain head, which the confirming statement locks and checks unmoved since the
-- number was read; the unique key refuses a number taken twice in any case. The key carries each
-- round's shift and dealer result, so that a table's house results (the table screen sums them
-- for the day and for the dealer's shift) are read from the index alone.
--
-- `places` holds the dealer and each seat (bet, action, cards, hand names, foul, outcome,
-- result) as a JSON array in the round's own row: one row per place, each with its index entry
-- and foreign-key check, was about a quarter of the work of a confirmation's write
-- (BENCHMARKS.md). The view `round_places` shows one row per place.
--
-- No other index: nothing reads rounds in another order (reports that need one bring their own).
CREATE TABLE rounds (
    id                      BIGSERIAL PRIMARY KEY,
    table_id                BIGINT NOT NULL,
    gaming_day              DATE NOT NULL,
    round_no                INTEGER NOT NULL CHECK (round_no >= 1),
    draft_key               TEXT NOT NULL UNIQUE,
    shift_id                BIGINT NOT NULL,
    dealer_id               BIGINT NOT NULL,
    rule_profile_version_id BIGINT NOT NULL REFERENCES rule_profile_versions (id),
    currency                TEXT NOT NULL,
    dealer_result           BIGINT NOT NULL,
    settled_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    places                  JSONB NOT NULL,
    CONSTRAINT rounds_table_id_gaming_day_round_no_key
        UNIQUE (table_id, gaming_day, round_no) INCLUDE (shift_id, dealer_result),
    CONSTRAINT rounds_shift_fkey FOREIGN KEY (shift_id, table_id, dealer_id)
        REFERENCES dealer_shifts (id, table_id, dealer_id),
    CONSTRAINT rounds_places_check CHECK (round_places_fit(places, dealer_result))
);

-- One row per place, for reports and for anyone reading the database with SQL.
CREATE VIEW round_places AS
SELECT r.id AS round_id, r.table_id, r.gaming_day, p.*
FROM rounds r
CROSS JOIN LATERAL jsonb_to_recordset(r.places) AS p (
    place TEXT, bet BIGINT, action TEXT, royalty TEXT, dealt TEXT, back TEXT, middle TEXT,
    front TEXT, back_name TEXT, middle_name TEXT, front_name TEXT, fouled BOOLEAN,
    foul_reason TEXT, outcome TEXT, hands_won SMALLINT, result BIGINT
);

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
    settled_round_id BIGINT CONSTRAINT round_drafts_settled_round_fk REFERENCES rounds (id),
    abandoned_at    TIMESTAMPTZ
);
CREATE UNIQUE INDEX round_drafts_one_open_per_table ON round_drafts (table_id)
    WHERE settled_round_id IS NULL AND abandoned_at IS NULL;

-- Settled rounds are records of what happened: corrections are new records, never edits.
CREATE FUNCTION reject_change_to_settled_round() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % is not allowed: settled rounds are immutable', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER rounds_are_immutable BEFORE UPDATE OR DELETE ON rounds
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
