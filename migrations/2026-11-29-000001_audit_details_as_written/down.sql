ALTER TABLE audit_events
    ALTER COLUMN details TYPE jsonb USING details::jsonb,
    ALTER COLUMN details SET COMPRESSION lz4;
