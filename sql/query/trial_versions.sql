-- Which chains a trial has: (source, analyzer_version) pairs, newest first.
-- Grain: one row per chain. Reads: core.trial_outcome.
SELECT source, analyzer_version, first_failed_stage, failure_category, chain_verified,
       measurements_verified
FROM core.trial_outcome
WHERE trial_id = $trial_id
ORDER BY source, analyzer_version DESC;
