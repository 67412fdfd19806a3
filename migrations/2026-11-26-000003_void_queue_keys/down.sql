DROP INDEX round_voids_amount_idx;
DROP INDEX round_voids_settled_idx;
DROP TRIGGER round_voids_keys ON round_voids;
DROP FUNCTION round_void_keys();
ALTER TABLE round_voids DROP COLUMN largest_result, DROP COLUMN settled_at;
