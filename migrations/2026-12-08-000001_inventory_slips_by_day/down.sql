DROP INDEX inventory_slips_by_day;
