-- Indexes for the pit board and the gaming-day reports (issue 14). Reads only: nothing here
-- changes what is stored.

-- A gaming day's rounds over all tables, for the day's report (the key on table, day and
-- number finds one table's day; a report wants every table's).
CREATE INDEX rounds_gaming_day ON rounds (gaming_day);

-- Rounds waiting for approval: few among millions, counted per table on every pit board.
CREATE INDEX rounds_needing_approval ON rounds (table_id) WHERE needs_approval;

-- The rounds whose dealer fouled, by table, day and shift (with the id, to leave out voided
-- ones): the pit board counts them without reading the rounds' wide rows.
CREATE INDEX rounds_dealer_fouled ON rounds (table_id, gaming_day, shift_id) INCLUDE (id)
    WHERE (places -> 0 ->> 'fouled')::boolean;

-- A table's voided rounds of a day, to take them out of the board's sums.
CREATE INDEX round_voids_table_day ON round_voids (table_id, gaming_day);
