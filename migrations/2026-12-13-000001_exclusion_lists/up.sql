-- A regulator's exclusion list as imported, each import with its lines, kept: a player
-- registered or corrected later is checked against every list imported before, not only the
-- players there were when it came.
CREATE TABLE exclusion_lists (
    id BIGSERIAL PRIMARY KEY,
    source TEXT NOT NULL CHECK (length(btrim(source)) BETWEEN 1 AND 200),
    lines INTEGER NOT NULL CHECK (lines >= 0),
    gaming_day DATE NOT NULL,
    imported_by BIGINT NOT NULL REFERENCES users (id),
    imported_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One line of a list, as read: matched by identity document, or by last and first name with
-- date of birth (case ignored), as at the import.
CREATE TABLE exclusion_list_lines (
    id BIGSERIAL PRIMARY KEY,
    list_id BIGINT NOT NULL REFERENCES exclusion_lists (id),
    line INTEGER NOT NULL CHECK (line >= 2),
    last_name TEXT NOT NULL CHECK (length(btrim(last_name)) >= 1),
    first_name TEXT NOT NULL CHECK (length(btrim(first_name)) >= 1),
    date_of_birth DATE,
    id_reference TEXT CHECK (id_reference IS NULL OR length(btrim(id_reference)) >= 1),
    status TEXT NOT NULL CHECK (status IN ('self_excluded', 'barred')),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) BETWEEN 1 AND 500),
    CONSTRAINT exclusion_list_lines_once UNIQUE (list_id, line)
);
CREATE INDEX exclusion_list_lines_by_reference ON exclusion_list_lines (lower(id_reference))
    WHERE id_reference IS NOT NULL;
CREATE INDEX exclusion_list_lines_by_name
    ON exclusion_list_lines (lower(last_name), lower(first_name), date_of_birth)
    WHERE date_of_birth IS NOT NULL;

CREATE TRIGGER exclusion_lists_are_kept BEFORE UPDATE OR DELETE ON exclusion_lists
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER exclusion_list_lines_are_kept BEFORE UPDATE OR DELETE ON exclusion_list_lines
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
