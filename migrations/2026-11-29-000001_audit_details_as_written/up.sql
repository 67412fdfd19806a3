-- An event's details are kept as the exact text that was hashed (`json`: PostgreSQL stores the
-- input text as it is), not as `jsonb` (a parsed form that PostgreSQL prints back with its own
-- spacing and key order). Every event written from now on stores its details in the canonical
-- form its hash covers (object keys sorted, no white space: `db::canonical_json`), so checking
-- the trail hashes the stored text as it comes, and PostgreSQL sends it without printing a
-- parsed value: it was the most of the work of `audit verify`, of the events export and of
-- PostgreSQL's side of both (BENCHMARKS.md, "Details stored as hashed").
--
-- Events written before this keep what `jsonb` prints (key order by length, spaced): they
-- still verify, through the canonical writer, which is slower. Nothing queries inside the
-- details, so no operator or index needs `jsonb`.
--
-- The append-only triggers are row and TRUNCATE triggers: a change of the column's type does
-- not fire them, and changes no event's content (the hash covers the canonical form, which the
-- `jsonb` text and the canonical text share).
ALTER TABLE audit_events
    ALTER COLUMN details TYPE json USING details::json,
    ALTER COLUMN details SET COMPRESSION lz4;
