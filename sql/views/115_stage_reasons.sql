-- Reason counts per stage of every retained slice, in the 29-reason vocabulary order
-- (CONTRACT §1.3, §5.3).
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index, reason).
-- Reads: core.stage_reasons.
CREATE OR REPLACE VIEW main.stage_reasons AS
SELECT
    run_id, chain_source, analyzer_version, slice_dimension, intent, provider, model, host_key,
    stage_index, stage, reason, count, reason_index, slice_index
FROM core.stage_reasons;
