-- The counted outcome of stage index `i` of an included trial as one byte of its signature:
-- its class (macro 106) above the row's reason position (0 when the row is skipped), from
-- the trial's packed chain (`cs`, 8 bits per index) and measurement flags (`rs`, 1 bit per
-- index). Trials with equal signatures count identically in every tally, so the tallies are
-- sums over (slice, signature) groups.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.stage_byte(cs, rs, i) AS
    CASE WHEN (cs >> (8 * i)) & 255 = 0 THEN 0 ELSE
        (core.stage_class((cs >> (8 * i)) & 255, (rs >> i) & 1) << 5)
        | ((cs >> (8 * i)) & 31)
    END;
