-- Staff accounts, server-side sessions and the hash-chained audit trail.

CREATE TABLE users (
    id BIGSERIAL PRIMARY KEY,
    -- Stored lower-case so uniqueness is case-insensitive without an extension.
    username TEXT NOT NULL UNIQUE
        CHECK (username = lower(username) AND length(username) BETWEEN 1 AND 64),
    display_name TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 100),
    role TEXT NOT NULL CHECK (role IN ('dealer', 'supervisor', 'auditor', 'admin')),
    password_hash TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    locked_at TIMESTAMPTZ,
    disabled_at TIMESTAMPTZ,
    must_change_password BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The cookie carries a random session key; only its SHA-256 is stored.
CREATE TABLE sessions (
    id BIGSERIAL PRIMARY KEY,
    key_hash BYTEA NOT NULL UNIQUE,
    user_id BIGINT REFERENCES users (id) ON DELETE CASCADE,
    state JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

-- One row per chain: the lock that serialises appends to that chain and its last hash.
CREATE TABLE audit_chain_heads (
    chain TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL,
    last_hash BYTEA NOT NULL
);

-- No foreign keys: an audit row must stay valid whatever happens to the rows it names. Read
-- through (chain, seq); reports that need another order bring their own index.
CREATE TABLE audit_events (
    id BIGSERIAL PRIMARY KEY,
    chain TEXT NOT NULL,
    seq BIGINT NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    actor_user_id BIGINT,
    actor_name TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    -- A settled round's details (its cards and settlement) are about 1.5 KB: lz4 takes several
    -- times less CPU per insert than pglz.
    details JSONB COMPRESSION lz4 NOT NULL,
    client_addr TEXT,
    gaming_day DATE,
    table_id BIGINT,
    prev_hash BYTEA NOT NULL,
    hash BYTEA NOT NULL,
    UNIQUE (chain, seq)
);

CREATE FUNCTION audit_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP;
END
$$;

CREATE TRIGGER audit_events_no_update_or_delete
    BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

CREATE TRIGGER audit_events_no_truncate
    BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
