DROP TABLE profile_version_edges, seat_refusals, open_ratings, rating_steps, ratings,
    player_statuses, players;
DROP FUNCTION player_records_are_kept();
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
    CHECK (role IN ('dealer', 'supervisor', 'auditor', 'admin', 'cashier', 'count'));
