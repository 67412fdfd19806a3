ALTER TABLE audit_events ALTER COLUMN details SET COMPRESSION pglz;

CREATE INDEX audit_events_action_idx ON audit_events (action);
CREATE INDEX audit_events_at_idx ON audit_events (at);
CREATE INDEX rounds_shift ON rounds (shift_id);
CREATE INDEX rounds_table_recent ON rounds (table_id, id DESC);

ALTER TABLE round_places
    DROP CONSTRAINT round_places_round_fkey,
    ADD CONSTRAINT round_places_round_id_fkey FOREIGN KEY (round_id) REFERENCES rounds (id),
    ADD CONSTRAINT round_places_table_id_fkey FOREIGN KEY (table_id) REFERENCES gaming_tables (id);
ALTER TABLE rounds DROP CONSTRAINT rounds_id_table_day_key;

ALTER TABLE rounds
    DROP CONSTRAINT rounds_shift_fkey,
    ADD CONSTRAINT rounds_table_id_fkey FOREIGN KEY (table_id) REFERENCES gaming_tables (id),
    ADD CONSTRAINT rounds_shift_id_fkey FOREIGN KEY (shift_id) REFERENCES dealer_shifts (id),
    ADD CONSTRAINT rounds_dealer_id_fkey FOREIGN KEY (dealer_id) REFERENCES users (id);
ALTER TABLE dealer_shifts DROP CONSTRAINT dealer_shifts_id_table_dealer_key;

ALTER TABLE rounds ALTER COLUMN shift_id DROP NOT NULL;
