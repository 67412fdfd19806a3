DROP TABLE table_pars;
DROP TABLE chip_set_versions;
DROP TABLE chip_sets;
DROP FUNCTION accounting_versions_are_kept();
