-- One trial's chain as the reader chose it (derived at an analyzer version, or the producer's).
-- Grain: one row per stage (six). Reads: core.stage_chain.
SELECT stage_index, stage, state, reason, evidence
FROM core.stage_chain
WHERE trial_id = $trial_id AND source = $source AND analyzer_version = $analyzer
ORDER BY stage_index;
