-- A chain's head is protected like its events: it is never deleted, never renamed, and only moves
-- forward (an update that does not raise last_seq is refused), so a chain cannot be rewound or
-- dropped to hide events. Depends only on the table audit_chain_heads (chain, last_seq).

CREATE FUNCTION audit_chain_heads_forward_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.chain = OLD.chain AND NEW.last_seq > OLD.last_seq THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'audit_chain_heads only move forward: % from % to % refused',
            OLD.chain, OLD.last_seq, NEW.last_seq;
    END IF;
    RAISE EXCEPTION 'audit_chain_heads are kept: % refused', TG_OP;
END
$$;

CREATE TRIGGER audit_chain_heads_forward_only
    BEFORE UPDATE OR DELETE ON audit_chain_heads
    FOR EACH ROW EXECUTE FUNCTION audit_chain_heads_forward_only();

CREATE TRIGGER audit_chain_heads_no_truncate
    BEFORE TRUNCATE ON audit_chain_heads
    FOR EACH STATEMENT EXECUTE FUNCTION audit_chain_heads_forward_only();
