-- What the rounds of each dealer shift added up to on a closed gaming day, written once by the
-- close.
-- Nothing more is recorded for a closed day (no round, approval, void or re-entry: the
-- `*_not_on_closed_day` triggers, and the close holds those tables while it seals), so these
-- sums are final when written and stay true. The accounting report reads a closed day's rounds
-- here, one row a shift, instead of summing every round again: its month and year to date, the
-- 30 days before each day and its shifts cost the shifts of the days asked for, not the rounds
-- played (db::reconciliation, TABLE_DAYS and DEALER_SHIFTS; docs/accounting.md).
CREATE TABLE closed_day_round_sums (
    gaming_day  DATE NOT NULL REFERENCES gaming_day_closes (gaming_day),
    table_id    BIGINT NOT NULL REFERENCES gaming_tables (id),
    shift_id    BIGINT NOT NULL REFERENCES dealer_shifts (id),
    -- The house result of the day's rounds, a void round out and its re-entry in (minor units).
    house       BIGINT NOT NULL,
    -- The rounds not void, and the void ones.
    rounds      BIGINT NOT NULL,
    void_rounds BIGINT NOT NULL,
    -- Rounds that waited for an approval they never had (none can be given once closed).
    pending     BIGINT NOT NULL,
    points_game BOOLEAN NOT NULL,
    PRIMARY KEY (gaming_day, table_id, shift_id)
);

CREATE TRIGGER closed_day_round_sums_are_immutable
    BEFORE UPDATE OR DELETE ON closed_day_round_sums
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER closed_day_round_sums_no_truncate
    BEFORE TRUNCATE ON closed_day_round_sums
    FOR EACH STATEMENT EXECUTE FUNCTION reject_change_to_settled_round();

-- The sums of one gaming day's rounds, by table and shift.
CREATE FUNCTION closed_day_round_sums_of(day DATE) RETURNS void LANGUAGE sql AS $$
    INSERT INTO closed_day_round_sums
    SELECT f.gaming_day, f.table_id, f.shift_id,
           COALESCE(sum(f.dealer_result) FILTER (WHERE v.round_id IS NULL), 0),
           count(*) FILTER (WHERE v.round_id IS NULL),
           count(*) FILTER (WHERE v.round_id IS NOT NULL),
           count(*) FILTER (WHERE f.needs_approval AND a.round_id IS NULL
                              AND v.round_id IS NULL),
           bool_or(f.points_game)
    FROM round_figures f
    LEFT JOIN round_voids v ON v.round_id = f.round_id
    LEFT JOIN round_approvals a ON a.round_id = f.round_id
    WHERE f.gaming_day = day
    GROUP BY f.gaming_day, f.table_id, f.shift_id;
$$;

-- Written by the close itself, in its transaction, after its row; as the owner of the schema
-- (SECURITY DEFINER), so that the app's own role needs no right to write the sums
-- (scripts/app-role.sql gives it SELECT only).
CREATE FUNCTION closed_day_round_sums_at_close() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    PERFORM closed_day_round_sums_of(NEW.gaming_day);
    RETURN NULL;
END;
$$;
CREATE TRIGGER gaming_day_closes_round_sums AFTER INSERT ON gaming_day_closes
    FOR EACH ROW EXECUTE FUNCTION closed_day_round_sums_at_close();

-- The days closed before this migration.
SELECT closed_day_round_sums_of(gaming_day) FROM gaming_day_closes;
