CREATE OR REPLACE FUNCTION lock_gaming_day_tables() RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    LOCK TABLE dealer_shifts, round_drafts, rounds, round_approvals, round_voids,
        round_reentries, buy_ins, buy_in_voids, table_fees, table_fee_voids IN SHARE MODE;
END;
$$;
DROP TRIGGER cage_slip_steps_not_on_closed_day ON cage_slip_steps;
DROP TRIGGER opener_explanations_not_on_closed_day ON opener_explanations;
DROP TRIGGER inventory_slip_voids_not_on_closed_day ON inventory_slip_voids;
DROP TRIGGER inventory_slips_not_on_closed_day ON inventory_slips;
DROP FUNCTION refuse_document_on_closed_day();
DROP TRIGGER gaming_day_closes_table_days ON gaming_day_closes;
DROP FUNCTION closed_table_days_at_close();
DROP FUNCTION closed_table_days_of(DATE);
DROP TABLE closed_table_days;
