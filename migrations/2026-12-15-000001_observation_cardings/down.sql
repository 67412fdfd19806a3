DROP TABLE observation_cardings;
DROP FUNCTION observation_carding_is_seamless();
