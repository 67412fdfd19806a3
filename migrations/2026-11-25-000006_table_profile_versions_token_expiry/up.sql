-- A rule profile's new version applies per table: from the table's next dealer shift, or from a
-- time the administrator sets, so a table in mid-shift keeps the version it started with.
-- `profile_version_id` is the version a table's rounds are entered under; `next_profile_version_id`
-- the one waiting, which takes over at the next sign-on (`next_profile_from` NULL) or at
-- `next_profile_from` (even in mid-shift). The version in force at time T is therefore
-- `CASE WHEN next_profile_from <= T THEN next_profile_version_id ELSE profile_version_id END`.
ALTER TABLE gaming_tables
    ADD COLUMN profile_version_id BIGINT REFERENCES rule_profile_versions (id),
    ADD COLUMN next_profile_version_id BIGINT REFERENCES rule_profile_versions (id),
    ADD COLUMN next_profile_from TIMESTAMPTZ,
    ADD CONSTRAINT gaming_tables_next_profile_from_needs_version
        CHECK (next_profile_from IS NULL OR next_profile_version_id IS NOT NULL);

UPDATE gaming_tables t SET profile_version_id = (
    SELECT v.id FROM rule_profile_versions v
    WHERE v.profile_id = t.rule_profile_id ORDER BY v.version DESC LIMIT 1);

-- A table created without naming its version starts with its profile's newest.
CREATE FUNCTION gaming_tables_start_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.profile_version_id IS NULL THEN
        SELECT v.id INTO NEW.profile_version_id FROM rule_profile_versions v
        WHERE v.profile_id = NEW.rule_profile_id ORDER BY v.version DESC LIMIT 1;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER gaming_tables_start_version BEFORE INSERT ON gaming_tables
    FOR EACH ROW EXECUTE FUNCTION gaming_tables_start_version();

ALTER TABLE gaming_tables ALTER COLUMN profile_version_id SET NOT NULL;

-- API tokens: an optional expiry (refused from then on), and the first characters of the token
-- (`ppt_` and 8 hex digits, 32 of its 256 random bits) so that two tokens named alike can be told
-- apart. Tokens issued before have no prefix recorded ('').
ALTER TABLE api_tokens
    ADD COLUMN expires_at TIMESTAMPTZ,
    ADD COLUMN prefix TEXT NOT NULL DEFAULT '',
    ADD CONSTRAINT api_tokens_expire_after_issue CHECK (expires_at IS NULL OR expires_at > created_at);
