-- Cash-transaction compliance (docs/compliance.md, issue 35): every cash transaction with a
-- player is kept with the player when known, each player's cash in and cash out are added up
-- per gaming day, and a day's total above the covered-transaction threshold raises a report
-- record, as a sum of transactions each under it does a structuring candidate; the compliance
-- officer records a decision on each. Every row here is a record that is never changed.

-- The player of a buy-in: the rated player seated at its seat when it was recorded.
ALTER TABLE buy_ins ADD COLUMN player_id BIGINT REFERENCES players (id);
CREATE INDEX buy_ins_by_player_day ON buy_ins (player_id, gaming_day) WHERE player_id IS NOT NULL;
CREATE INDEX buy_ins_of_players_by_day ON buy_ins (gaming_day, player_id)
    WHERE player_id IS NOT NULL;

-- Cash over the cage's counter: `in` is cash the cage took from a player (chips bought at the
-- cage), `out` cash it paid a player (chips cashed). Entered by a cashier.
CREATE TABLE cage_cash (
    id BIGSERIAL PRIMARY KEY,
    gaming_day DATE NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    amount BIGINT NOT NULL CHECK (amount > 0),
    player_id BIGINT REFERENCES players (id),
    note TEXT NOT NULL DEFAULT '' CHECK (length(note) <= 500),
    recorded_by BIGINT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX cage_cash_by_day ON cage_cash (gaming_day, id);
CREATE INDEX cage_cash_by_player_day ON cage_cash (player_id, gaming_day)
    WHERE player_id IS NOT NULL;

CREATE TABLE cage_cash_voids (
    cage_cash_id BIGINT PRIMARY KEY REFERENCES cage_cash (id),
    reason TEXT NOT NULL CHECK (length(btrim(reason)) BETWEEN 1 AND 500),
    voided_by BIGINT NOT NULL REFERENCES users (id),
    voided_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The thresholds of a currency from `set_at` on (the latest row is the one in force): a
-- player's cash in, or cash out, of a gaming day above `threshold` is a covered transaction;
-- at `warn_percent` of it the pit is warned; `window_days` gaming days (0: none) are the span
-- over which a sum above the threshold, of days each under it, is a structuring candidate.
CREATE TABLE compliance_thresholds (
    id BIGSERIAL PRIMARY KEY,
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    threshold BIGINT NOT NULL CHECK (threshold > 0),
    warn_percent SMALLINT NOT NULL CHECK (warn_percent BETWEEN 1 AND 99),
    window_days SMALLINT NOT NULL CHECK (window_days BETWEEN 0 AND 31),
    -- NULL: the defaults this migration sets.
    set_by BIGINT REFERENCES users (id),
    set_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX compliance_thresholds_by_currency ON compliance_thresholds (currency, id);
-- The Philippine anti-money-laundering threshold for casinos (PHP 5,000,000) and the US one
-- (USD 10,000), in minor units.
INSERT INTO compliance_thresholds (currency, threshold, warn_percent, window_days)
VALUES ('PHP', 500000000, 80, 7), ('USD', 1000000, 80, 7);

-- What the compliance officer looks at: a covered transaction (a day's total above the
-- threshold, or one transaction above it when no player is known), or a structuring candidate
-- (transactions each under the threshold whose sum of the day crosses it, or days each under it
-- whose sum over the window does). `transactions` lists them as they were when it was raised;
-- `identification` is the player's card, names, date of birth and identity document then.
CREATE TABLE compliance_cases (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('covered', 'structuring_day', 'structuring_days')),
    gaming_day DATE NOT NULL,
    first_day DATE NOT NULL CHECK (first_day <= gaming_day),
    player_id BIGINT REFERENCES players (id),
    direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
    currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total BIGINT NOT NULL CHECK (total > 0),
    threshold BIGINT NOT NULL CHECK (threshold > 0),
    transactions JSONB NOT NULL,
    identification JSONB NOT NULL,
    -- The table of the transaction that raised it; NULL at the cage.
    table_id BIGINT REFERENCES gaming_tables (id),
    raised_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (player_id IS NOT NULL OR kind = 'covered')
);
-- One of a kind a player, day, direction and currency.
CREATE UNIQUE INDEX compliance_cases_once ON compliance_cases
    (player_id, gaming_day, kind, direction, currency) WHERE player_id IS NOT NULL;
CREATE INDEX compliance_cases_by_day ON compliance_cases (gaming_day, id);

-- The compliance officer's decision on a case: filed (with the filing's reference, if any) or
-- dismissed with the reason. One a case.
CREATE TABLE compliance_decisions (
    case_id BIGINT PRIMARY KEY REFERENCES compliance_cases (id),
    decision TEXT NOT NULL CHECK (decision IN ('filed', 'dismissed')),
    reference TEXT NOT NULL DEFAULT '' CHECK (length(reference) <= 120),
    reason TEXT NOT NULL DEFAULT '' CHECK (length(reason) <= 1000),
    decided_by BIGINT NOT NULL REFERENCES users (id),
    decided_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (decision = 'filed' OR length(btrim(reason)) > 0)
);

CREATE TRIGGER cage_cash_is_kept BEFORE UPDATE OR DELETE ON cage_cash
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER cage_cash_voids_are_kept BEFORE UPDATE OR DELETE ON cage_cash_voids
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER compliance_thresholds_are_kept BEFORE UPDATE OR DELETE ON compliance_thresholds
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER compliance_cases_are_kept BEFORE UPDATE OR DELETE ON compliance_cases
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();
CREATE TRIGGER compliance_decisions_are_kept BEFORE UPDATE OR DELETE ON compliance_decisions
    FOR EACH ROW EXECUTE FUNCTION player_records_are_kept();

-- Nothing is taken at the cage on a closed gaming day.
CREATE TRIGGER cage_cash_not_on_closed_day BEFORE INSERT ON cage_cash
    FOR EACH ROW EXECUTE FUNCTION refuse_closed_gaming_day();
