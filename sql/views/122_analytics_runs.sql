-- Run-level figures of every analytics document, whatever its chain source and version.
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: core.analytics_runs.
CREATE OR REPLACE VIEW main.analytics_runs AS
SELECT * FROM core.analytics_runs;
