DROP FUNCTION lock_gaming_day_tables();
DROP TRIGGER table_fee_voids_not_on_closed_day ON table_fee_voids;
DROP TRIGGER buy_in_voids_not_on_closed_day ON buy_in_voids;
DROP FUNCTION refuse_void_on_closed_day();
DROP TRIGGER gaming_day_closes_drop_sums ON gaming_day_closes;
DROP FUNCTION closed_day_drop_sums_at_close();
DROP TABLE closed_day_drop_sums;
DROP FUNCTION closed_day_drop_sums_of(DATE);
