-- The three stage rates of CONTRACT §5.8, derived on read from `stage_funnel` (never stored):
-- for each rate its value, its state, and the envelope's numerator and denominator. A rate is
-- `measured` only when 0 ≤ numerator ≤ denominator and denominator ≥ 1; otherwise it is
-- `notMeasured` with a NULL value and 0/0 (0/0 is never a number, §5.8). Its exclusions are
-- the row's `not_applicable`, `reach_unknown` and `not_measured` counts.
--   measured_pass_rate        = passed / measured
--   reach_rate                = reached / (reached + not_reached)   (reach_unknown excluded)
--   measurement_coverage_rate = measured / reached
-- `latency_mean_ms` is NULL without samples (§5.7), never 0.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index).
-- Reads: core.stage_funnel.
CREATE OR REPLACE VIEW main.stage_rates AS
WITH envelope AS (
    SELECT
        *,
        measured >= 1 AND passed BETWEEN 0 AND measured                       AS pass_ok,
        reached + not_reached >= 1 AND reached BETWEEN 0 AND reached + not_reached AS reach_ok,
        reached >= 1 AND measured BETWEEN 0 AND reached                       AS coverage_ok
    FROM core.stage_funnel
)
SELECT
    run_id, chain_source, analyzer_version, slice_dimension, intent, provider, model, host_key,
    stage_index, stage, applicable, reached, not_reached, reach_unknown, measured, passed,
    failed, not_measured, not_applicable, latency_count, latency_total_ms, latency_min_ms,
    latency_max_ms,
    CASE WHEN pass_ok THEN passed / measured END                        AS measured_pass_rate,
    CASE WHEN pass_ok THEN 'measured' ELSE 'notMeasured' END            AS measured_pass_rate_state,
    CASE WHEN pass_ok THEN passed ELSE 0 END                            AS measured_pass_rate_numerator,
    CASE WHEN pass_ok THEN measured ELSE 0 END                          AS measured_pass_rate_denominator,
    CASE WHEN reach_ok THEN reached / (reached + not_reached) END       AS reach_rate,
    CASE WHEN reach_ok THEN 'measured' ELSE 'notMeasured' END           AS reach_rate_state,
    CASE WHEN reach_ok THEN reached ELSE 0 END                          AS reach_rate_numerator,
    CASE WHEN reach_ok THEN reached + not_reached ELSE 0 END            AS reach_rate_denominator,
    CASE WHEN coverage_ok THEN measured / reached END                   AS measurement_coverage_rate,
    CASE WHEN coverage_ok THEN 'measured' ELSE 'notMeasured' END        AS measurement_coverage_rate_state,
    CASE WHEN coverage_ok THEN measured ELSE 0 END                      AS measurement_coverage_rate_numerator,
    CASE WHEN coverage_ok THEN reached ELSE 0 END                       AS measurement_coverage_rate_denominator,
    CASE WHEN latency_count >= 1 THEN latency_total_ms / latency_count END AS latency_mean_ms,
    slice_index
FROM envelope;
