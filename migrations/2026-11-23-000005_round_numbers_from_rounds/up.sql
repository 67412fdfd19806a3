-- A table's next round number is the day's highest plus one, read from `rounds` (through the
-- unique index on table, gaming day and number) instead of a counter row that every round had to
-- lock and update. It stays gapless and in order because every round also moves its table's
-- audit chain head, which the confirming statement locks and checks unmoved since the number was
-- read: two rounds of one table cannot both be written from the same reading. The unique index
-- refuses a number taken twice in any case.
DROP TABLE round_counters;

-- The same index carries each round's shift and dealer result, so that a table's house results
-- (the table screen sums them for the day and for the dealer's shift) are read from the index
-- alone, without visiting each round's row (which carries its places, about 1.5 KB).
ALTER TABLE rounds
    DROP CONSTRAINT rounds_table_id_gaming_day_round_no_key,
    ADD CONSTRAINT rounds_table_id_gaming_day_round_no_key
        UNIQUE (table_id, gaming_day, round_no) INCLUDE (shift_id, dealer_result);
