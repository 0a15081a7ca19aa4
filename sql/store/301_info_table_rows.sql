-- Store info: the rows of one stored table ($table, a name from 300). Grain: one row.
-- Reads: the named table.
SELECT count(*) FROM query_table($table);
