ALTER TABLE gaming_tables DROP COLUMN confirm_prompt;
