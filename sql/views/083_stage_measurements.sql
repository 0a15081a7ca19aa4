-- Public view of per-stage reach and latency (CONTRACT §4).
-- Grain: one row per (trial_id, source, analyzer_version, stage_index).
-- Reads: core.stage_measurements.
CREATE OR REPLACE VIEW main.stage_measurements AS
SELECT trial_id, run_id, stage_index, stage, reach, latency_ms, source, analyzer_version
FROM core.stage_measurements;
