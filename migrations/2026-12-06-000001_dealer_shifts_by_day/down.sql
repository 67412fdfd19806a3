DROP INDEX dealer_shifts_by_day;
