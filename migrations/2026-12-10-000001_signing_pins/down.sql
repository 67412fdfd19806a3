ALTER TABLE users DROP CONSTRAINT users_signing_pin_length;
ALTER TABLE users DROP COLUMN signing_pin;
