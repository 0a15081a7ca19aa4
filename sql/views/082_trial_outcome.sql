-- Public view of trial outcomes: where value stopped (first failed stage), the failure
-- category, and the integrity checks the funnels classify on (`measurements_agree`: valuechain's
-- own check of the measurements against the chain; the verdicts beside it are as sent).
-- Grain: one row per (trial_id, source, analyzer_version). Reads: core.trial_outcome.
CREATE OR REPLACE VIEW main.trial_outcome AS
SELECT trial_id, run_id, first_failed_stage, failure_category, source, analyzer_version,
       chain_verified, measurements_present, measurements_verified, measurements_schema_version,
       measurements_agree
FROM core.trial_outcome;
