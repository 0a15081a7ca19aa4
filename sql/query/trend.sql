-- The trend series the `trend` verb shows: `stage_trend` rows of one document kind (chain
-- source and reader analyzer version, never a mix), one slice dimension, optionally one stage,
-- one suite and runs completed since a moment. Partitions in key order; within a partition,
-- runs by completion time (a run without one last, then by run id); slices in emission order;
-- stages in stage order (never sorted by name).
-- Inputs: $chain_source, $analyzer_version, $slice_dimension, $stage, $suite_id, $since (each
-- of the last three NULL for any).
-- Grain: one row per (run_id, slice_index, stage_index). Reads: main.stage_trend.
SELECT *
FROM main.stage_trend
WHERE chain_source = $chain_source
  AND analyzer_version = $analyzer_version
  AND slice_dimension = $slice_dimension
  AND ($stage IS NULL OR stage = $stage)
  AND ($suite_id IS NULL OR suite_id = $suite_id)
  AND (CAST($since AS TIMESTAMPTZ) IS NULL OR completed_at >= CAST($since AS TIMESTAMPTZ))
ORDER BY trend_order, slice_index, stage_index;
