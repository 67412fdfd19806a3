DROP TRIGGER rounds_figures ON rounds;
DROP FUNCTION round_figures_of_new_rounds();
DROP TABLE round_figures;
DROP FUNCTION round_place_figures(JSONB);
