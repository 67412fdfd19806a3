ALTER TABLE rounds
    DROP CONSTRAINT rounds_table_id_gaming_day_round_no_key,
    ADD CONSTRAINT rounds_table_id_gaming_day_round_no_key UNIQUE (table_id, gaming_day, round_no);

CREATE TABLE round_counters (
    table_id    BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day  DATE NOT NULL,
    last_no     INTEGER NOT NULL,
    PRIMARY KEY (table_id, gaming_day)
);
INSERT INTO round_counters (table_id, gaming_day, last_no)
SELECT table_id, gaming_day, max(round_no) FROM rounds GROUP BY table_id, gaming_day;
