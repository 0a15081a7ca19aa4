-- Why a run has no default analytics document (e.g. suiteIdMissing), NULL when nothing blocks
-- it. Inputs: $run_id.
-- Grain: one row per run (none for an unknown run). Reads: main.runs.
SELECT document_blocker
FROM main.runs
WHERE run_id = $run_id;
