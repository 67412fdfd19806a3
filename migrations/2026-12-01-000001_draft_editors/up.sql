-- Separation of duties: who entered or changed a round before it was confirmed.
-- Every account that saved a draft, in the order of their first save; the confirmation copies
-- the list into the round's `round.settled` event, and no one on it approves, voids or enters
-- the round again. Drafts saved before this migration keep the account that opened them.
ALTER TABLE round_drafts ADD COLUMN edited_by bigint[] NOT NULL DEFAULT '{}';
UPDATE round_drafts SET edited_by = ARRAY[created_by];
-- "Did this person work the round's shift?": the drafts of a shift.
CREATE INDEX round_drafts_shift_idx ON round_drafts (shift_id);
