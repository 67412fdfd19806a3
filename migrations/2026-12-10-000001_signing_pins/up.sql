-- A person's signing PIN: an HMAC-SHA256 of the account's id and the PIN under a key kept
-- outside the database (src/password/pin.rs), so that reading this column tells nothing of the
-- PIN. NULL: no PIN (the person signs with their password). Written only by its owner's own
-- authenticated act, or cleared by an administrator; audited (user.pin_set, user.pin_removed,
-- user.pin_cleared).
ALTER TABLE users ADD COLUMN signing_pin bytea;
ALTER TABLE users ADD CONSTRAINT users_signing_pin_length
    CHECK (signing_pin IS NULL OR octet_length(signing_pin) = 32);
