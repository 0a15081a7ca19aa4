-- Where the producer's chain and valuechain's derived one disagree, stage by stage (the
-- `verify` command). Inputs: $run, a run id or NULL for every run.
-- Grain: one row per (trial_id, derived analyzer_version, stage_index) that differs.
-- Reads: main.chain_disagreements.
SELECT *
FROM main.chain_disagreements
WHERE $run IS NULL OR run_id = $run
ORDER BY run_id, trial_id, derived_analyzer_version, stage_index;
