DROP TABLE compliance_decisions;
DROP TABLE compliance_cases;
DROP TABLE compliance_thresholds;
DROP TABLE cage_cash_voids;
DROP TABLE cage_cash;
DROP INDEX buy_ins_of_players_by_day;
DROP INDEX buy_ins_by_player_day;
ALTER TABLE buy_ins DROP COLUMN player_id;
