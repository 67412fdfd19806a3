DROP TABLE unrated_observation_voids;
DROP TABLE unrated_observation_ends;
DROP TABLE unrated_observations;
