-- Store info: the stored tables, in name order. Grain: one row per table of schema core.
-- Reads: the catalog.
SELECT table_name FROM duckdb_tables() WHERE schema_name = 'core' AND database_name = current_database()
ORDER BY table_name;
