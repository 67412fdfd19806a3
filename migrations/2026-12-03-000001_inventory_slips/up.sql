-- Table inventory slips (docs/accounting.md): the opener and the closer, each a count of a
-- table's chips by denomination signed by two different people, and never changed: a
-- correction is a void (with its reason) and a new slip. An opener is checked against the
-- table's previous closer; a difference above the limit holds the table until a supervisor
-- explains it.

CREATE TABLE inventory_slips (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    kind TEXT NOT NULL CHECK (kind IN ('opener', 'closer')),
    gaming_day DATE NOT NULL,
    -- The dealer shift the count belongs to: open at the table when an opener is signed, the
    -- table's last shift of the day for a closer; none when there was none.
    shift_id BIGINT REFERENCES dealer_shifts (id),
    -- Chips of each denomination of the chip set version, in its order, and their total.
    chip_set_version_id BIGINT NOT NULL REFERENCES chip_set_versions (id),
    counts BIGINT[] NOT NULL CHECK (
        array_position(counts, NULL) IS NULL AND 0 <= ALL (counts)),
    total BIGINT NOT NULL CHECK (total >= 0),
    -- The table's par in force when counted, shown beside the count.
    par_id BIGINT REFERENCES table_pars (id),
    dealer_id BIGINT NOT NULL REFERENCES users (id),
    supervisor_id BIGINT NOT NULL REFERENCES users (id),
    -- An opener's check: the closer it was compared with, the value of the chips that do not
    -- match (each denomination's difference without its sign), the limit then, and whether
    -- the difference holds the table until explained.
    previous_closer_id BIGINT REFERENCES inventory_slips (id),
    difference BIGINT CHECK (difference >= 0),
    difference_limit BIGINT CHECK (difference_limit >= 0),
    held BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (dealer_id <> supervisor_id),
    CHECK (kind = 'opener' OR (previous_closer_id IS NULL AND difference IS NULL AND NOT held)),
    CHECK (NOT held OR difference > difference_limit)
);
CREATE INDEX inventory_slips_by_table ON inventory_slips (table_id, id);

-- A slip voided: its reason and the supervisor who voided it (who signed none of the slip).
CREATE TABLE inventory_slip_voids (
    slip_id BIGINT PRIMARY KEY REFERENCES inventory_slips (id),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) > 0),
    voided_by BIGINT NOT NULL REFERENCES users (id),
    voided_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A held opener's explanation, written by a supervisor: the table takes rounds again.
CREATE TABLE opener_explanations (
    slip_id BIGINT PRIMARY KEY REFERENCES inventory_slips (id),
    explanation TEXT NOT NULL CHECK (length(btrim(explanation)) > 0),
    written_by BIGINT NOT NULL REFERENCES users (id),
    written_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE FUNCTION inventory_slips_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % are never changed or deleted: void the slip and count again',
        TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER inventory_slips_are_kept BEFORE UPDATE OR DELETE ON inventory_slips
    FOR EACH ROW EXECUTE FUNCTION inventory_slips_are_kept();
CREATE TRIGGER inventory_slip_voids_are_kept BEFORE UPDATE OR DELETE ON inventory_slip_voids
    FOR EACH ROW EXECUTE FUNCTION inventory_slips_are_kept();
CREATE TRIGGER opener_explanations_are_kept BEFORE UPDATE OR DELETE ON opener_explanations
    FOR EACH ROW EXECUTE FUNCTION inventory_slips_are_kept();
