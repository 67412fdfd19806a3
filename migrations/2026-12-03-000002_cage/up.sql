-- The cage (docs/accounting.md): two new roles, and fills and credits. A fill brings chips from
-- the cage to a table, a credit takes them back; each is a slip with a number of its own, and
-- each step of its life (requested, issued, received, void) is a signed record of its own.

-- `cashier` works the cage; `count` enters the counted drop (its pages come later).
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
    CHECK (role IN ('dealer', 'supervisor', 'auditor', 'admin', 'cashier', 'count'));

-- The last slip number given, per kind and calendar year. The requesting transaction takes the
-- next one by updating this row, which it holds locked until it commits: a request that fails
-- gives its number back, so numbers have no gaps (a sequence would leave them).
CREATE TABLE cage_slip_numbers (
    kind TEXT NOT NULL CHECK (kind IN ('fill', 'credit')),
    year INTEGER NOT NULL CHECK (year BETWEEN 2000 AND 9999),
    last_number INTEGER NOT NULL CHECK (last_number > 0),
    PRIMARY KEY (kind, year)
);

-- A slip as requested: chips of each denomination of a chip set version (in its order) and
-- their total in minor units, for a table and gaming day.
CREATE TABLE cage_slips (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('fill', 'credit')),
    year INTEGER NOT NULL CHECK (year BETWEEN 2000 AND 9999),
    number INTEGER NOT NULL CHECK (number > 0),
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day DATE NOT NULL,
    chip_set_version_id BIGINT NOT NULL REFERENCES chip_set_versions (id),
    counts BIGINT[] NOT NULL CHECK (
        array_position(counts, NULL) IS NULL AND 0 <= ALL (counts)),
    total BIGINT NOT NULL CHECK (total > 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (kind, year, number)
);
CREATE INDEX cage_slips_day_idx ON cage_slips (gaming_day, table_id);

-- Each step of a slip, signed: by the signed-in account, and for a receipt or a void by a
-- second person too. A slip has each step at most once.
CREATE TABLE cage_slip_steps (
    id BIGSERIAL PRIMARY KEY,
    slip_id BIGINT NOT NULL REFERENCES cage_slips (id),
    step TEXT NOT NULL CHECK (step IN ('requested', 'issued', 'received', 'void')),
    signed_by BIGINT NOT NULL REFERENCES users (id),
    second_signed_by BIGINT REFERENCES users (id),
    reason TEXT,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (slip_id, step),
    CHECK (second_signed_by <> signed_by),
    CHECK ((step IN ('received', 'void')) = (second_signed_by IS NOT NULL)),
    CHECK (step = 'void' OR reason IS NULL),
    CHECK (step <> 'void' OR length(btrim(reason)) > 0)
);

-- Every print of a slip: the first is the original, every later one a reprint.
CREATE TABLE cage_slip_prints (
    id BIGSERIAL PRIMARY KEY,
    slip_id BIGINT NOT NULL REFERENCES cage_slips (id),
    copy_number INTEGER NOT NULL CHECK (copy_number > 0),
    printed_by BIGINT NOT NULL REFERENCES users (id),
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (slip_id, copy_number)
);

-- The application checks the order of steps and who signs first, with the words a person reads;
-- this is the guarantee underneath: a step follows the one before it (a void follows any step
-- but a void), and nobody signs two steps of one slip.
CREATE FUNCTION cage_slip_step_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    before TEXT := CASE NEW.step
        WHEN 'issued' THEN 'requested'
        WHEN 'received' THEN 'issued'
        ELSE NULL END;
BEGIN
    IF NEW.step = 'requested' AND EXISTS (
        SELECT 1 FROM cage_slip_steps WHERE slip_id = NEW.slip_id) THEN
        RAISE EXCEPTION 'cage slip %: requested twice', NEW.slip_id;
    END IF;
    IF before IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM cage_slip_steps WHERE slip_id = NEW.slip_id AND step = before) THEN
        RAISE EXCEPTION 'cage slip %: % before %', NEW.slip_id, NEW.step, before;
    END IF;
    IF NEW.step <> 'requested' AND EXISTS (
        SELECT 1 FROM cage_slip_steps WHERE slip_id = NEW.slip_id AND step = 'void') THEN
        RAISE EXCEPTION 'cage slip %: void, % refused', NEW.slip_id, NEW.step;
    END IF;
    IF EXISTS (
        SELECT 1 FROM cage_slip_steps
        WHERE slip_id = NEW.slip_id
          AND (signed_by IN (NEW.signed_by, NEW.second_signed_by)
               OR second_signed_by IN (NEW.signed_by, NEW.second_signed_by))) THEN
        RAISE EXCEPTION 'cage slip %: a signer of an earlier step signs %', NEW.slip_id, NEW.step;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER cage_slip_steps_in_order BEFORE INSERT ON cage_slip_steps
    FOR EACH ROW EXECUTE FUNCTION cage_slip_step_in_order();

-- Slips, steps and prints are records: a correction is a void and a new slip, never an edit.
CREATE FUNCTION cage_records_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % are never changed or deleted: void the slip instead', TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER cage_slips_are_kept BEFORE UPDATE OR DELETE ON cage_slips
    FOR EACH ROW EXECUTE FUNCTION cage_records_are_kept();
CREATE TRIGGER cage_slip_steps_are_kept BEFORE UPDATE OR DELETE ON cage_slip_steps
    FOR EACH ROW EXECUTE FUNCTION cage_records_are_kept();
CREATE TRIGGER cage_slip_prints_are_kept BEFORE UPDATE OR DELETE ON cage_slip_prints
    FOR EACH ROW EXECUTE FUNCTION cage_records_are_kept();

-- Nothing is requested for a closed gaming day.
CREATE TRIGGER cage_slips_not_on_closed_day BEFORE INSERT ON cage_slips
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
