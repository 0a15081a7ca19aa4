-- How many trials carry a producer chain, i.e. how many `verify` compares. Inputs: $run, a
-- run id or NULL for every run.
-- Grain: one row. Reads: main.stage_chain.
SELECT count(DISTINCT trial_id) AS n
FROM main.stage_chain
WHERE source = 'producer' AND ($run IS NULL OR run_id = $run);
