-- A latency sample for stage index `i` (CONTRACT §5.5): only when the stage was reached
-- (classes 4–6), its measurement agrees (an agreeing `reached` row, macro 105), and the value
-- is finite and ≥ 0. Otherwise NULL: no sample, never 0.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.latency_sample(cs, rs, i, latency) AS
    CASE WHEN core.stage_class((cs >> (8 * i)) & 255, (rs >> i) & 1) >= 4
          AND (rs >> i) & 1 = 1
          AND isfinite(latency) AND latency >= 0
         THEN latency END;
