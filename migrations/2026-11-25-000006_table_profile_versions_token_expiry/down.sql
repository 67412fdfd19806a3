ALTER TABLE api_tokens DROP COLUMN prefix, DROP COLUMN expires_at;
DROP TRIGGER gaming_tables_start_version ON gaming_tables;
DROP FUNCTION gaming_tables_start_version();
ALTER TABLE gaming_tables
    DROP COLUMN next_profile_from,
    DROP COLUMN next_profile_version_id,
    DROP COLUMN profile_version_id;
