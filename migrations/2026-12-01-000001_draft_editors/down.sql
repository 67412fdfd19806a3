DROP INDEX round_drafts_shift_idx;
ALTER TABLE round_drafts DROP COLUMN edited_by;
