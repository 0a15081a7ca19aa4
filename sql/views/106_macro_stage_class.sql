-- The class one stage row of an included trial counts as (CONTRACT §5.5), from its chain byte
-- `b` (macro 104) and measurement flag `m` (macro 105: 1 = an agreeing `reached` row):
--   0 no row at the index (skipped)   1 notApplicable    2 notReached (position)
--   3 reachUnknown (excluded from the reach denominator)
--   4 passed   5 failed   6 notMeasured (reached, undecided)
-- passed/failed project `reached` whatever the measurement says; notReached and
-- notApplicable project themselves; notMeasured is reached only with an agreeing reached
-- measurement (§4 upgrade), else unknown; any other state projects unknown.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.stage_class(b, m) AS
    CASE b >> 5
        WHEN 0 THEN 0
        WHEN 5 THEN 1
        WHEN 3 THEN 2
        WHEN 1 THEN 4
        WHEN 2 THEN 5
        WHEN 4 THEN CASE WHEN m = 1 THEN 6 ELSE 3 END
        ELSE 3
    END;
