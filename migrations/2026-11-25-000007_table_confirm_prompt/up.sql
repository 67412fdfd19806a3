-- Whether the dealer's table screen asks once before a round is confirmed ("Confirm 3 seats,
-- house +800.00?"): a table setting, off unless an administrator turns it on.
ALTER TABLE gaming_tables ADD COLUMN confirm_prompt BOOLEAN NOT NULL DEFAULT false;
