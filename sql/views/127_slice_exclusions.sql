-- Trials excluded from each retained slice, by class (CONTRACT §5.5): they touch no stage
-- tally. Zero counts are not listed.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, class).
-- Reads: core.analytics_slices.
CREATE OR REPLACE VIEW main.slice_exclusions AS
SELECT
    run_id, chain_source, analyzer_version, slice_dimension, intent, provider, model, host_key,
    class, count, slice_index
FROM (
    SELECT s.*, x.class, x.count
    FROM core.analytics_slices s,
    LATERAL (
        VALUES ('lifecycle', s.excluded_lifecycle),
               ('integrity', s.excluded_integrity),
               ('version', s.excluded_version)
    ) x(class, count)
    WHERE x.count > 0
);
