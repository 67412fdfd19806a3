DROP VIEW round_places;

ALTER TABLE rounds ADD CONSTRAINT rounds_id_table_day_key UNIQUE (id, table_id, gaming_day);

CREATE TABLE round_places (
    round_id        BIGINT NOT NULL,
    place           TEXT NOT NULL CHECK (place IN ('dealer', 'seat1', 'seat2', 'seat3')),
    table_id        BIGINT NOT NULL,
    gaming_day      DATE NOT NULL,
    bet             BIGINT CHECK (bet > 0),
    action          TEXT NOT NULL CHECK (action IN ('play', 'surrender', 'royalty')),
    royalty         TEXT,
    dealt           TEXT,
    back            TEXT,
    middle          TEXT,
    front           TEXT,
    back_name       TEXT,
    middle_name     TEXT,
    front_name      TEXT,
    fouled          BOOLEAN,
    foul_reason     TEXT,
    outcome         TEXT,
    hands_won       SMALLINT,
    result          BIGINT NOT NULL,
    PRIMARY KEY (round_id, place),
    CONSTRAINT round_places_round_fkey FOREIGN KEY (round_id, table_id, gaming_day)
        REFERENCES rounds (id, table_id, gaming_day)
);
INSERT INTO round_places
SELECT r.id, p.place, r.table_id, r.gaming_day, p.bet, p.action, p.royalty, p.dealt, p.back,
       p.middle, p.front, p.back_name, p.middle_name, p.front_name, p.fouled, p.foul_reason,
       p.outcome, p.hands_won, p.result
FROM rounds r
CROSS JOIN LATERAL jsonb_to_recordset(r.places) AS p (
    place TEXT, bet BIGINT, action TEXT, royalty TEXT, dealt TEXT, back TEXT, middle TEXT,
    front TEXT, back_name TEXT, middle_name TEXT, front_name TEXT, fouled BOOLEAN,
    foul_reason TEXT, outcome TEXT, hands_won SMALLINT, result BIGINT
);
CREATE TRIGGER round_places_are_immutable BEFORE UPDATE OR DELETE ON round_places
    FOR EACH ROW EXECUTE FUNCTION reject_change_to_settled_round();

ALTER TABLE rounds DROP CONSTRAINT rounds_places_check;
DROP FUNCTION round_places_fit(JSONB, BIGINT);
ALTER TABLE rounds DROP COLUMN places;
