DROP INDEX round_voids_table_day;
DROP INDEX rounds_dealer_fouled;
DROP INDEX rounds_needing_approval;
DROP INDEX rounds_gaming_day;
