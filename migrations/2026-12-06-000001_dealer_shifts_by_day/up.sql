-- The accounting report's shifts of a range of gaming days (db::reconciliation, DEALER_SHIFTS)
-- read the dealer shifts by gaming day: with this index, those days' shifts only, however long
-- the history.
CREATE INDEX dealer_shifts_by_day ON dealer_shifts (gaming_day, table_id);
