-- Per-stage tallies of every retained slice (CONTRACT §5.3): counts only, rates are in
-- `stage_rates`. Never sum these rows across stages or runs (seed 001 rules 6–7).
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index).
-- Reads: core.stage_funnel.
CREATE OR REPLACE VIEW main.stage_funnel AS
SELECT
    run_id, chain_source, analyzer_version, slice_dimension, intent, provider, model, host_key,
    stage_index, stage, applicable, reached, not_reached, reach_unknown, measured, passed,
    failed, not_measured, not_applicable, latency_count, latency_total_ms, latency_min_ms,
    latency_max_ms, slice_index
FROM core.stage_funnel;
