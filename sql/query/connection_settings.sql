-- The sandbox settings of this connection's database instance (one per file and process).
-- Grain: one row. Reads: duckdb settings.
SELECT
    current_setting('lock_configuration') AS locked,
    current_setting('allowed_directories') AS allowed_directories;
