-- What was bought in (cash and non-cash) and taken in table fees at each dealer shift of a closed
-- gaming day, written once by the close, beside its round sums (2026-12-07-000001): the
-- accounting report reads a closed day's drop recorded at the table and its fees here, one row a
-- shift, instead of every buy-in again (about 25 a table-day), so its year to date costs the
-- shifts of the year, not their buy-ins (db::reconciliation; docs/accounting.md).
--
-- So that these sums stay true, nothing is bought in, taken or voided on a closed day: buy-ins
-- and fees were refused there already (2026-12-04-000001); their voids are now refused too, and
-- the close holds the four tables while it seals (db::days, LOCK_DAY_TABLES).
CREATE TABLE closed_day_drop_sums (
    id         BIGSERIAL PRIMARY KEY,
    gaming_day DATE NOT NULL REFERENCES gaming_day_closes (gaming_day),
    table_id   BIGINT NOT NULL REFERENCES gaming_tables (id),
    -- The shift open when they were recorded; none when no dealer was on shift.
    shift_id   BIGINT REFERENCES dealer_shifts (id),
    -- Buy-ins not void, in cash and in markers and chip vouchers; fees not void (minor units).
    cash       BIGINT NOT NULL,
    non_cash   BIGINT NOT NULL,
    fees       BIGINT NOT NULL
);
CREATE INDEX closed_day_drop_sums_by_day ON closed_day_drop_sums (gaming_day, table_id);

CREATE TRIGGER closed_day_drop_sums_are_immutable
    BEFORE UPDATE OR DELETE ON closed_day_drop_sums
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER closed_day_drop_sums_no_truncate
    BEFORE TRUNCATE ON closed_day_drop_sums
    FOR EACH STATEMENT EXECUTE FUNCTION reject_change_to_settled_round();

-- The sums of one gaming day's buy-ins and fees, by table and shift: a row for every table and
-- shift with any (void ones too, counting for nothing), as the report lists a table-day with
-- any record.
CREATE FUNCTION closed_day_drop_sums_of(day DATE) RETURNS void LANGUAGE sql AS $$
    INSERT INTO closed_day_drop_sums (gaming_day, table_id, shift_id, cash, non_cash, fees)
    SELECT day, table_id, shift_id, sum(cash), sum(non_cash), sum(fees)
    FROM (
        SELECT b.table_id, b.shift_id,
               CASE WHEN b.kind = 'cash' AND v.buy_in_id IS NULL THEN b.amount ELSE 0 END AS cash,
               CASE WHEN b.kind <> 'cash' AND v.buy_in_id IS NULL THEN b.amount ELSE 0 END
                   AS non_cash,
               0::bigint AS fees
        FROM buy_ins b LEFT JOIN buy_in_voids v ON v.buy_in_id = b.id
        WHERE b.gaming_day = day
        UNION ALL
        SELECT f.table_id, f.shift_id, 0, 0, CASE WHEN v.fee_id IS NULL THEN f.amount ELSE 0 END
        FROM table_fees f LEFT JOIN table_fee_voids v ON v.fee_id = f.id
        WHERE f.gaming_day = day
    ) recorded
    GROUP BY table_id, shift_id;
$$;

-- Written by the close, in its transaction, as the schema's owner (the app's role reads only).
CREATE FUNCTION closed_day_drop_sums_at_close() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    PERFORM closed_day_drop_sums_of(NEW.gaming_day);
    RETURN NULL;
END;
$$;
CREATE TRIGGER gaming_day_closes_drop_sums AFTER INSERT ON gaming_day_closes
    FOR EACH ROW EXECUTE FUNCTION closed_day_drop_sums_at_close();

-- A buy-in or fee of a closed gaming day is not voided (the application refuses first; the
-- message starts 'gaming day closed:', as refuse_closed_gaming_day's).
CREATE FUNCTION refuse_void_on_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    day DATE;
BEGIN
    IF TG_TABLE_NAME = 'buy_in_voids' THEN
        SELECT gaming_day INTO day FROM buy_ins WHERE id = NEW.buy_in_id;
    ELSE
        SELECT gaming_day INTO day FROM table_fees WHERE id = NEW.fee_id;
    END IF;
    IF EXISTS (SELECT 1 FROM gaming_day_closes WHERE gaming_day = day) THEN
        RAISE EXCEPTION 'gaming day closed: % is closed, % refused', day, TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER buy_in_voids_not_on_closed_day BEFORE INSERT ON buy_in_voids
    FOR EACH ROW EXECUTE FUNCTION refuse_void_on_closed_day();
CREATE TRIGGER table_fee_voids_not_on_closed_day BEFORE INSERT ON table_fee_voids
    FOR EACH ROW EXECUTE FUNCTION refuse_void_on_closed_day();

-- The close holds the tables of a day's work in SHARE mode while it checks and seals (db::days).
-- The app's role may not take that mode on the drop's tables itself (it needs UPDATE, DELETE or
-- TRUNCATE there, which scripts/app-role.sql refuses it), so the lock is taken here, as the
-- owner, for the caller's transaction. Only the app's role is given it (scripts/app-role.sql).
CREATE FUNCTION lock_gaming_day_tables() RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    LOCK TABLE dealer_shifts, round_drafts, rounds, round_approvals, round_voids,
        round_reentries, buy_ins, buy_in_voids, table_fees, table_fee_voids IN SHARE MODE;
END;
$$;
REVOKE ALL ON FUNCTION lock_gaming_day_tables() FROM PUBLIC;

-- The days closed before this migration.
SELECT closed_day_drop_sums_of(gaming_day) FROM gaming_day_closes;
