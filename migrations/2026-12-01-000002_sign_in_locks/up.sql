-- Sign-in lockout per account and client address: wrong passwords from one address lock the
-- account at that address only, for a few minutes, so that a flood from anywhere else (or from
-- the internet behind a trusted proxy) never locks staff out at their own tablets.
CREATE TABLE sign_in_locks (
    user_id bigint NOT NULL REFERENCES users (id),
    client_addr text NOT NULL,
    -- Wrong passwords from this address since the last lock or success.
    failures integer NOT NULL DEFAULT 0,
    locked_until timestamptz,
    PRIMARY KEY (user_id, client_addr)
);
