-- A table's next round number is the day's highest plus one, read from `rounds` (through the
-- unique index on table, gaming day and number) instead of a counter row that every round had to
-- lock and update. It stays gapless and in order because every round also moves its table's
-- audit chain head, which the confirming statement locks and checks unmoved since the number was
-- read: two rounds of one table cannot both be written from the same reading. The unique index
-- refuses a number taken twice in any case.
DROP TABLE round_counters;
