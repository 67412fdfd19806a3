DROP TABLE opener_explanations;
DROP TABLE inventory_slip_voids;
DROP TABLE inventory_slips;
DROP FUNCTION inventory_slips_are_kept();
