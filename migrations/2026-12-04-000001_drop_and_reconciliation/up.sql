-- Table accounting, the drop and the reconciliation (docs/accounting.md): buy-ins recorded at the
-- table, the points game's table fees, the count team's count of each table's drop box, and the
-- investigations opened when a table's win by inventory and its win by rounds disagree. Every
-- row is a record that is never changed: a correction is a void (with its reason) beside it and,
-- where it applies, a new record.

-- Cash (or a non-cash item) exchanged for chips at a seat: it goes into the drop box. The shift
-- is the dealer shift open at the table when it was recorded.
CREATE TABLE buy_ins (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day DATE NOT NULL,
    shift_id BIGINT REFERENCES dealer_shifts (id),
    seat SMALLINT NOT NULL CHECK (seat BETWEEN 1 AND 4),
    kind TEXT NOT NULL CHECK (kind IN ('cash', 'marker', 'chip_voucher')),
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    amount BIGINT NOT NULL CHECK (amount > 0),
    recorded_by BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX buy_ins_by_table_day ON buy_ins (table_id, gaming_day, id);
CREATE INDEX buy_ins_by_day ON buy_ins (gaming_day, table_id);

CREATE TABLE buy_in_voids (
    buy_in_id BIGINT PRIMARY KEY REFERENCES buy_ins (id),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) > 0),
    voided_by BIGINT NOT NULL REFERENCES users (id),
    voided_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The house's income at a points-game table: a fee taken from the players in chips, recorded by
-- the dealer when it is taken (the house takes no part in the points, docs/rules.md 8.7).
CREATE TABLE table_fees (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day DATE NOT NULL,
    shift_id BIGINT REFERENCES dealer_shifts (id),
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    amount BIGINT NOT NULL CHECK (amount > 0),
    recorded_by BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX table_fees_by_table_day ON table_fees (table_id, gaming_day, id);
CREATE INDEX table_fees_by_day ON table_fees (gaming_day, table_id);

CREATE TABLE table_fee_voids (
    fee_id BIGINT PRIMARY KEY REFERENCES table_fees (id),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) > 0),
    voided_by BIGINT NOT NULL REFERENCES users (id),
    voided_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The count team's count of one table's drop box for one gaming day: the banknotes by
-- denomination (the denominations in force for the currency, in their order) and the non-cash
-- items, signed by two counters. A count is made after the day and may come after its close.
CREATE TABLE drop_counts (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day DATE NOT NULL,
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    note_denominations BIGINT[] NOT NULL CHECK (
        array_position(note_denominations, NULL) IS NULL AND 0 < ALL (note_denominations)),
    note_counts BIGINT[] NOT NULL CHECK (
        array_position(note_counts, NULL) IS NULL AND 0 <= ALL (note_counts)),
    cash BIGINT NOT NULL CHECK (cash >= 0),
    markers BIGINT NOT NULL CHECK (markers >= 0),
    chip_vouchers BIGINT NOT NULL CHECK (chip_vouchers >= 0),
    total BIGINT NOT NULL CHECK (total = cash + markers + chip_vouchers),
    first_counter BIGINT NOT NULL REFERENCES users (id),
    second_counter BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (first_counter <> second_counter),
    CHECK (cardinality(note_denominations) = cardinality(note_counts))
);
CREATE INDEX drop_counts_by_day ON drop_counts (gaming_day, table_id, id);
CREATE INDEX drop_counts_by_table ON drop_counts (table_id, gaming_day, id);

CREATE TABLE drop_count_voids (
    count_id BIGINT PRIMARY KEY REFERENCES drop_counts (id),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) > 0),
    voided_by BIGINT NOT NULL REFERENCES users (id),
    voided_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A table's day whose win by inventory and win by rounds differ beyond the tolerance: opened by
-- the write that made the day's figures final (its closer or its count), with the figures then;
-- a pit manager writes what was found and closes it.
CREATE TABLE investigations (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day DATE NOT NULL,
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    inventory_win BIGINT NOT NULL,
    rounds_win BIGINT NOT NULL,
    variance BIGINT NOT NULL,
    tolerance BIGINT NOT NULL CHECK (tolerance >= 0),
    opened_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX investigations_by_day ON investigations (gaming_day, table_id);

CREATE TABLE investigation_closings (
    investigation_id BIGINT PRIMARY KEY REFERENCES investigations (id),
    findings TEXT NOT NULL CHECK (length(btrim(findings)) > 0),
    closed_by BIGINT NOT NULL REFERENCES users (id),
    closed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE FUNCTION accounting_records_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % are never changed or deleted: void the record instead',
        TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER buy_ins_are_kept BEFORE UPDATE OR DELETE ON buy_ins
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER buy_in_voids_are_kept BEFORE UPDATE OR DELETE ON buy_in_voids
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER table_fees_are_kept BEFORE UPDATE OR DELETE ON table_fees
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER table_fee_voids_are_kept BEFORE UPDATE OR DELETE ON table_fee_voids
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER drop_counts_are_kept BEFORE UPDATE OR DELETE ON drop_counts
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER drop_count_voids_are_kept BEFORE UPDATE OR DELETE ON drop_count_voids
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER investigations_are_kept BEFORE UPDATE OR DELETE ON investigations
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();
CREATE TRIGGER investigation_closings_are_kept BEFORE UPDATE OR DELETE ON investigation_closings
    FOR EACH ROW EXECUTE FUNCTION accounting_records_are_kept();

-- Nothing is bought in, and no fee taken, on a closed gaming day. (A count is made after the
-- day, often after its close: it is not refused.)
CREATE TRIGGER buy_ins_not_on_closed_day BEFORE INSERT ON buy_ins
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
CREATE TRIGGER table_fees_not_on_closed_day BEFORE INSERT ON table_fees
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
