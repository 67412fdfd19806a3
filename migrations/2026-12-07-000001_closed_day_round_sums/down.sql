DROP TRIGGER gaming_day_closes_round_sums ON gaming_day_closes;
DROP FUNCTION closed_day_round_sums_at_close();
DROP TABLE closed_day_round_sums;
DROP FUNCTION closed_day_round_sums_of(DATE);
