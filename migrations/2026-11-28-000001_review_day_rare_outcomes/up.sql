-- The review queue filtered by a gaming day and an outcome that few rounds have (a dealer's
-- foul: about 0.7 % of rounds; a departure from the house way) read the day's rounds in order
-- and dropped all but those: on the million-round history a later page of "one day, dealer
-- fouls" read every one of the day's 16,680 rounds to find none more (p99 56 ms against the
-- 50 ms the pit asks). These partial indexes hold only those rounds, by day and in the queue's
-- order, so a page reads its 51 rows and no others. Written exactly as the queue's filter
-- (`db::review::OutcomeFilter::condition`, `house_way_departure`) so the planner uses them;
-- a round is added to one only when it has the outcome.
CREATE INDEX rounds_review_day_dealer_foul_idx ON rounds (gaming_day, settled_at, id)
    WHERE (outcome_flags & 2) <> 0;
CREATE INDEX rounds_review_day_house_way_idx ON rounds (gaming_day, settled_at, id)
    WHERE house_way_departure;
