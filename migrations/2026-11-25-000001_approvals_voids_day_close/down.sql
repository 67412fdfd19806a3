DROP TRIGGER dealer_shifts_not_on_closed_day ON dealer_shifts;
DROP TRIGGER rounds_not_on_closed_day ON rounds;
DROP TABLE gaming_day_closes;
DROP TABLE round_reentries;
DROP TABLE round_voids;
DROP TABLE round_approvals;
DROP FUNCTION refuse_closed_gaming_day();
ALTER TABLE rounds DROP COLUMN needs_approval;
ALTER TABLE gaming_tables DROP COLUMN approval_threshold;
