-- No files, network, extensions or secrets beyond the store: valuechain hands DuckDB Arrow
-- tables, never paths, so no connection of a store ever needs them. Grain: one setting.
-- Reads: nothing.
SET enable_external_access = false;
