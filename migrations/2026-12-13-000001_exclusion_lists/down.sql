DROP TABLE exclusion_list_lines;
DROP TABLE exclusion_lists;
