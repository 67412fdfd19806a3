-- What each table's gaming day added up to, written once by the close: its documents (the
-- opener, the closer, the fills and credits received), what was bought in and taken in fees,
-- and its rounds. The accounting report reads a closed day here, one row a table-day, instead
-- of its slips, steps, buy-ins and rounds again: the year to date and the 30 days before each
-- day cost a narrow row a table-day (db::reconciliation; docs/accounting.md, "Closed days are
-- read from their sums"). The count of the drop is not here: it often comes after the close,
-- and is read as it is.
--
-- So that these rows stay true, a closed day's documents are final, as its rounds and buy-ins
-- already were: no inventory slip, slip void, opener explanation or fill or credit step is
-- written for a closed day (the application says so first), and the close holds those tables
-- too while it seals. A correction after the close is a record of the day it is made on.
CREATE TABLE closed_table_days (
    gaming_day      DATE NOT NULL REFERENCES gaming_day_closes (gaming_day),
    table_id        BIGINT NOT NULL REFERENCES gaming_tables (id),
    points_game     BOOLEAN NOT NULL,
    -- The day's first opener not void and its last closer not void (minor units), and whether
    -- an opener of the day held the table unexplained.
    opener          BIGINT,
    closer          BIGINT,
    held            BOOLEAN NOT NULL,
    -- Fills and credits received and not void; those requested or issued and never received.
    fills           BIGINT NOT NULL,
    credits         BIGINT NOT NULL,
    cage_open       BIGINT NOT NULL,
    -- Buy-ins not void, cash and non-cash; table fees not void.
    bought_cash     BIGINT NOT NULL,
    bought_non_cash BIGINT NOT NULL,
    fees            BIGINT NOT NULL,
    -- The rounds' house result (a void round out, its re-entry in), the rounds, the void ones,
    -- those that waited for an approval never given.
    house           BIGINT NOT NULL,
    rounds          BIGINT NOT NULL,
    void_rounds     BIGINT NOT NULL,
    pending         BIGINT NOT NULL,
    PRIMARY KEY (gaming_day, table_id)
);

CREATE TRIGGER closed_table_days_are_immutable
    BEFORE UPDATE OR DELETE ON closed_table_days
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER closed_table_days_no_truncate
    BEFORE TRUNCATE ON closed_table_days
    FOR EACH STATEMENT EXECUTE FUNCTION reject_change_to_settled_round();

-- The table-days of closed day `day`: every table with a round, a slip, a fill or credit, a
-- buy-in or a fee that day. Its rounds, buy-ins and fees are read from the sums the close wrote
-- just before (its triggers fire in name order: drop sums, round sums, then this one).
CREATE FUNCTION closed_table_days_of(day DATE) RETURNS void LANGUAGE sql AS $$
    INSERT INTO closed_table_days
    WITH played AS (
        SELECT table_id, sum(house) AS house, sum(rounds) AS rounds,
               sum(void_rounds) AS void_rounds, bool_or(points_game) AS points_game,
               sum(pending) AS pending
        FROM closed_day_round_sums WHERE gaming_day = day GROUP BY table_id
    ), recorded AS (
        SELECT table_id, sum(cash) AS cash, sum(non_cash) AS non_cash, sum(fees) AS fees
        FROM closed_day_drop_sums WHERE gaming_day = day GROUP BY table_id
    ), slips AS (
        SELECT s.table_id,
               (array_agg(s.total ORDER BY s.id) FILTER (WHERE s.kind = 'opener'))[1] AS opener,
               (array_agg(s.total ORDER BY s.id DESC) FILTER (WHERE s.kind = 'closer'))[1]
                   AS closer,
               bool_or(s.held AND NOT EXISTS (
                   SELECT 1 FROM opener_explanations e WHERE e.slip_id = s.id)) AS held
        FROM inventory_slips s
        WHERE s.gaming_day = day
          AND NOT EXISTS (SELECT 1 FROM inventory_slip_voids v WHERE v.slip_id = s.id)
        GROUP BY s.table_id
    ), cage AS (
        SELECT c.table_id,
               COALESCE(sum(c.total) FILTER (WHERE c.kind = 'fill' AND st.received), 0) AS fills,
               COALESCE(sum(c.total) FILTER (WHERE c.kind = 'credit' AND st.received), 0)
                   AS credits,
               count(*) FILTER (WHERE NOT st.received) AS cage_open
        FROM cage_slips c
        CROSS JOIN LATERAL (
            SELECT bool_or(step = 'received') AS received, bool_or(step = 'void') AS void
            FROM cage_slip_steps WHERE slip_id = c.id) st
        WHERE c.gaming_day = day AND NOT st.void
        GROUP BY c.table_id
    ), tables AS (
        SELECT table_id FROM played
        UNION SELECT table_id FROM inventory_slips WHERE gaming_day = day
        UNION SELECT table_id FROM cage_slips WHERE gaming_day = day
        UNION SELECT table_id FROM recorded
    )
    SELECT day, d.table_id, COALESCE(r.points_game, false),
           s.opener, s.closer, COALESCE(s.held, false),
           COALESCE(c.fills, 0), COALESCE(c.credits, 0), COALESCE(c.cage_open, 0),
           COALESCE(b.cash, 0), COALESCE(b.non_cash, 0), COALESCE(b.fees, 0),
           COALESCE(r.house, 0), COALESCE(r.rounds, 0), COALESCE(r.void_rounds, 0),
           COALESCE(r.pending, 0)
    FROM tables d
    LEFT JOIN slips s USING (table_id)
    LEFT JOIN cage c USING (table_id)
    LEFT JOIN recorded b USING (table_id)
    LEFT JOIN played r USING (table_id);
$$;

-- Written by the close, in its transaction, as the schema's owner (the app's role reads only).
CREATE FUNCTION closed_table_days_at_close() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    PERFORM closed_table_days_of(NEW.gaming_day);
    RETURN NULL;
END;
$$;
CREATE TRIGGER gaming_day_closes_table_days AFTER INSERT ON gaming_day_closes
    FOR EACH ROW EXECUTE FUNCTION closed_table_days_at_close();

-- A closed day's documents are final: no slip is signed for it (as no fill or credit is
-- requested for it, 2026-12-03-000002), and no slip of it is voided or explained, no fill or
-- credit of it issued, received or voided. The message starts 'gaming day closed:', as
-- refuse_closed_gaming_day's.
CREATE FUNCTION refuse_document_on_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    day DATE;
BEGIN
    IF TG_TABLE_NAME = 'cage_slip_steps' THEN
        SELECT gaming_day INTO day FROM cage_slips WHERE id = NEW.slip_id;
    ELSE
        SELECT gaming_day INTO day FROM inventory_slips WHERE id = NEW.slip_id;
    END IF;
    IF EXISTS (SELECT 1 FROM gaming_day_closes WHERE gaming_day = day) THEN
        RAISE EXCEPTION 'gaming day closed: % is closed, % refused', day, TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER inventory_slips_not_on_closed_day BEFORE INSERT ON inventory_slips
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
CREATE TRIGGER inventory_slip_voids_not_on_closed_day BEFORE INSERT ON inventory_slip_voids
    FOR EACH ROW EXECUTE FUNCTION refuse_document_on_closed_day();
CREATE TRIGGER opener_explanations_not_on_closed_day BEFORE INSERT ON opener_explanations
    FOR EACH ROW EXECUTE FUNCTION refuse_document_on_closed_day();
CREATE TRIGGER cage_slip_steps_not_on_closed_day BEFORE INSERT ON cage_slip_steps
    FOR EACH ROW EXECUTE FUNCTION refuse_document_on_closed_day();

-- The close holds the documents' tables too while it checks and seals (db::days), after the
-- tables of the day's play: a slip, void, explanation or step begun meanwhile waits for the
-- close and then meets the triggers above.
CREATE OR REPLACE FUNCTION lock_gaming_day_tables() RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    LOCK TABLE dealer_shifts, round_drafts, rounds, round_approvals, round_voids,
        round_reentries, buy_ins, buy_in_voids, table_fees, table_fee_voids,
        inventory_slips, inventory_slip_voids, opener_explanations, cage_slips,
        cage_slip_steps IN SHARE MODE;
END;
$$;

-- The days closed before this migration.
SELECT closed_table_days_of(gaming_day) FROM gaming_day_closes;
