-- Whether a measurement row can change what its stage counts (CONTRACT §4, §5.5): only a
-- `reached` row naming the stage of its index can — it upgrades a notMeasured row to reached
-- and it is the only kind that carries a latency sample. Any other row either agrees with the
-- state's own projection or is ignored, and both give the projection. So the analytics pack
-- 1 per index holding such a row (`reach_sig`, 1 bit per index), else 0.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.reach_code(stage, expected_stage, reach) AS
    CASE WHEN stage = expected_stage AND reach = 'reached' THEN 1 ELSE 0 END;
