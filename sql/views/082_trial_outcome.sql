-- Public view of trial outcomes: where value stopped (first failed stage), the failure
-- category, and the integrity checks the funnels classify on.
-- Grain: one row per (trial_id, source, analyzer_version). Reads: core.trial_outcome.
CREATE OR REPLACE VIEW main.trial_outcome AS
SELECT trial_id, run_id, first_failed_stage, failure_category, source, analyzer_version,
       chain_verified, measurements_present, measurements_verified, measurements_schema_version
FROM core.trial_outcome;
