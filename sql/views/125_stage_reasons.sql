-- Reason counts per stage of every retained slice, in the 29-reason vocabulary order
-- (CONTRACT §1.3, §5.3): every included trial's row reason, notApplicable rows included.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index, reason).
-- Reads: core.stage_funnel.
CREATE OR REPLACE VIEW main.stage_reasons AS
SELECT
    run_id, chain_source, analyzer_version, slice_dimension, intent, provider, model, host_key,
    stage_index, stage, r.reason AS reason, r.count AS count, r.reason_index AS reason_index,
    slice_index
FROM (SELECT *, unnest(reasons) AS r FROM core.stage_funnel);
