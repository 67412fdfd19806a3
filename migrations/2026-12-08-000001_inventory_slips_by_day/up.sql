-- The reconciliation reads a range's inventory slips by gaming day (`TABLE_DAYS`, and the pit
-- board's `DOCUMENT_DAYS` for the day being played), as it reads every other document: with
-- only the key by table, each read went through every slip ever signed.
CREATE INDEX inventory_slips_by_day ON inventory_slips (gaming_day, table_id);
