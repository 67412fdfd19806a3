-- Table accounting's foundation (docs/accounting.md): the chip sets in play, per currency, and
-- each table's par (imprest) inventory. Both are kept in numbered versions that are only ever
-- inserted, so a slip that names the version it was counted against keeps its meaning.

CREATE TABLE chip_sets (
    id BIGSERIAL PRIMARY KEY,
    currency TEXT NOT NULL UNIQUE CHECK (currency ~ '^[A-Z]{3}$'),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The denominations in minor units, ascending, each above zero.
CREATE TABLE chip_set_versions (
    id BIGSERIAL PRIMARY KEY,
    chip_set_id BIGINT NOT NULL REFERENCES chip_sets (id),
    version INTEGER NOT NULL CHECK (version > 0),
    denominations BIGINT[] NOT NULL CHECK (
        cardinality(denominations) BETWEEN 1 AND 20
        AND array_position(denominations, NULL) IS NULL
        AND 0 < ALL (denominations)),
    created_by BIGINT REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (chip_set_id, version)
);

-- A table's par: how many chips of each denomination of a chip set version (in its order) the
-- table holds when it opens, and their total in minor units.
CREATE TABLE table_pars (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    version INTEGER NOT NULL CHECK (version > 0),
    chip_set_version_id BIGINT NOT NULL REFERENCES chip_set_versions (id),
    counts BIGINT[] NOT NULL CHECK (
        array_position(counts, NULL) IS NULL AND 0 <= ALL (counts)),
    total BIGINT NOT NULL CHECK (total >= 0),
    created_by BIGINT REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (table_id, version)
);

-- A version is a record: a change is a new version, never an edit or a deletion.
CREATE FUNCTION accounting_versions_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % are never changed or deleted: add a new version', TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER chip_set_versions_are_kept BEFORE UPDATE OR DELETE ON chip_set_versions
    FOR EACH ROW EXECUTE FUNCTION accounting_versions_are_kept();
CREATE TRIGGER table_pars_are_kept BEFORE UPDATE OR DELETE ON table_pars
    FOR EACH ROW EXECUTE FUNCTION accounting_versions_are_kept();
