DROP TABLE comp_rules;
