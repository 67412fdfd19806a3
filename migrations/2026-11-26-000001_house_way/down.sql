DROP INDEX rounds_review_house_way_idx;
ALTER TABLE rounds DROP COLUMN house_way_departure;
