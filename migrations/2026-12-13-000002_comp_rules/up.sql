-- The comp a player earns: a share of their theoretical win, in hundredths of a percent, from a
-- gaming day on. A rating earns by the rule of its gaming day (the latest rule whose `from_day`
-- is on or before it), so a change never re-rates days already played. Set by an
-- administrator, never changed; the first rule (10 %) is installed here (no one set it).
CREATE TABLE comp_rules (
    id BIGSERIAL PRIMARY KEY,
    basis_points INTEGER NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
    from_day DATE NOT NULL,
    set_by BIGINT REFERENCES users (id),
    set_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO comp_rules (basis_points, from_day) VALUES (1000, DATE '2000-01-01');
CREATE TRIGGER comp_rules_are_kept BEFORE UPDATE OR DELETE ON comp_rules
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
