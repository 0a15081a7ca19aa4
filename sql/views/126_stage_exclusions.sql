-- Per-stage exclusions (a tally's `excluded`, CONTRACT §5.3): observations of included trials
-- left out of a stage's denominators, by class; zero counts are not listed. Trial-level
-- classes (lifecycle, integrity, version) are per slice: see `slice_exclusions`.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index, class).
-- Reads: core.stage_funnel.
CREATE OR REPLACE VIEW main.stage_exclusions AS
SELECT
    run_id, chain_source, analyzer_version, slice_dimension, intent, provider, model, host_key,
    stage_index, stage, class, count, slice_index
FROM (
    SELECT f.*, x.class, x.count
    FROM core.stage_funnel f,
    LATERAL (
        VALUES ('notApplicable', f.not_applicable),
               ('reachUnknown', f.reach_unknown),
               ('notMeasured', f.not_measured)
    ) x(class, count)
    WHERE x.count > 0
);
