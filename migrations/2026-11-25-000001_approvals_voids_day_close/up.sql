-- Foundations of the pit manager's and the auditor's sides: approvals, voids, re-entries and the
-- gaming-day close. Each is a new record beside the round it concerns (a settled round is never
-- edited), carries its table and gaming day, and is itself never edited or deleted.

-- A table's approval threshold, in the table's currency's minor units: a round whose largest
-- single seat result (win or loss) is at or above it waits for a supervisor's approval. NULL: the
-- table's rounds need no approval.
ALTER TABLE gaming_tables ADD COLUMN approval_threshold BIGINT
    CONSTRAINT gaming_tables_approval_threshold_positive
    CHECK (approval_threshold IS NULL OR approval_threshold > 0);

-- Whether the round needed approval when it was settled (decided once, against the threshold in
-- force then, so a later change of the threshold does not change which rounds waited).
ALTER TABLE rounds ADD COLUMN needs_approval BOOLEAN NOT NULL DEFAULT false;

-- A supervisor's approval of a round that needed one: at most one per round.
CREATE TABLE round_approvals (
    round_id    BIGINT PRIMARY KEY REFERENCES rounds (id),
    table_id    BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day  DATE NOT NULL,
    approved_by BIGINT NOT NULL REFERENCES users (id),
    approved_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A supervisor's void of a round: one per round (a void cannot be voided or undone). The round
-- stays, marked void wherever it appears, and drops out of totals.
CREATE TABLE round_voids (
    round_id    BIGINT PRIMARY KEY REFERENCES rounds (id),
    table_id    BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day  DATE NOT NULL,
    reason      TEXT NOT NULL CONSTRAINT round_voids_reason_known
        CHECK (reason IN ('misdeal', 'wrong_cards', 'wrong_bet', 'dispute', 'other')),
    note        TEXT NOT NULL DEFAULT '',
    voided_by   BIGINT NOT NULL REFERENCES users (id),
    voided_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT round_voids_other_explained CHECK (reason <> 'other' OR btrim(note) <> '')
);

-- A round entered again in place of a voided one: the new round names the one it replaces, and a
-- voided round is replaced at most once.
CREATE TABLE round_reentries (
    round_id          BIGINT PRIMARY KEY REFERENCES rounds (id),
    replaces_round_id BIGINT NOT NULL UNIQUE REFERENCES round_voids (round_id),
    table_id          BIGINT NOT NULL REFERENCES gaming_tables (id),
    gaming_day        DATE NOT NULL,
    CONSTRAINT round_reentries_not_itself CHECK (round_id <> replaces_round_id)
);

-- A closed gaming day: its seal is the `day.closed` event (chain 'day', seq) whose details carry
-- every chain's head at the moment of closing, so the whole day is fixed by that event's hash.
CREATE TABLE gaming_day_closes (
    gaming_day DATE PRIMARY KEY,
    closed_by  BIGINT NOT NULL REFERENCES users (id),
    closed_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    seal_seq   BIGINT NOT NULL,
    seal_hash  BYTEA NOT NULL
);

CREATE TRIGGER round_approvals_are_immutable BEFORE UPDATE OR DELETE ON round_approvals
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER round_voids_are_immutable BEFORE UPDATE OR DELETE ON round_voids
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER round_reentries_are_immutable BEFORE UPDATE OR DELETE ON round_reentries
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();
CREATE TRIGGER gaming_day_closes_are_immutable BEFORE UPDATE OR DELETE ON gaming_day_closes
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();

-- Nothing more is recorded for a closed gaming day. The application refuses first, with a clear
-- message; this is the guarantee underneath it (the message starts 'gaming day closed:').
CREATE FUNCTION refuse_closed_gaming_day() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM gaming_day_closes WHERE gaming_day = NEW.gaming_day) THEN
        RAISE EXCEPTION 'gaming day closed: % is closed, % refused', NEW.gaming_day, TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER rounds_not_on_closed_day BEFORE INSERT ON rounds
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
CREATE TRIGGER round_approvals_not_on_closed_day BEFORE INSERT ON round_approvals
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
CREATE TRIGGER round_voids_not_on_closed_day BEFORE INSERT ON round_voids
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
CREATE TRIGGER round_reentries_not_on_closed_day BEFORE INSERT ON round_reentries
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
CREATE TRIGGER dealer_shifts_not_on_closed_day BEFORE INSERT ON dealer_shifts
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
