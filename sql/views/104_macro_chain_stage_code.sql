-- The per-stage code a chain row packs into one byte (analytics `chain_sig`, 8 bits per stage
-- index): state (3 bits: 1 passed, 2 failed, 3 notReached, 4 notMeasured, 5 notApplicable,
-- 6 any other state) above the reason's 1-based position in the 29-reason vocabulary
-- (5 bits; 0 = absent or unknown). A row that is not the stage of its index packs 0 (CONTRACT
-- §5.5: "skip the stage if row.stage ≠ stage i").
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.chain_stage_code(state, reason_position) AS
    (CASE state
        WHEN 'passed' THEN 1 WHEN 'failed' THEN 2 WHEN 'notReached' THEN 3
        WHEN 'notMeasured' THEN 4 WHEN 'notApplicable' THEN 5 ELSE 6
     END << 5) | coalesce(reason_position, 0);
