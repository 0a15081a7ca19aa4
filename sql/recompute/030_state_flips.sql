-- What re-deriving would change, for --dry-run: each staged derived stage row at $target
-- against the trial's newest stored derived row at or below $target (the chain a reader sees
-- now), counted by stage and by the state and reason before and after; rows that keep both
-- are left out. A trial with no stored derived chain is new, not a flip (040 counts those).
-- Grain: one row per (stage, from state/reason, to state/reason). Reads: core.stage_chain,
-- staged_chain.
WITH baseline AS (
    SELECT trial_id, run_id, stage_index, state, reason, analyzer_version
    FROM core.stage_chain
    WHERE source = 'derived'
      AND analyzer_version <= $target
      AND trial_id IN (SELECT trial_id FROM staged_chain)
    QUALIFY analyzer_version = max(analyzer_version) OVER (PARTITION BY trial_id, run_id)
)
SELECT n.stage_index, n.stage, b.analyzer_version AS from_analyzer,
       b.state AS from_state, b.reason AS from_reason, n.state AS to_state,
       n.reason AS to_reason, count(*) AS rows
FROM staged_chain n
JOIN baseline b USING (trial_id, run_id, stage_index)
WHERE n.source = 'derived'
  AND (b.state IS DISTINCT FROM n.state OR b.reason IS DISTINCT FROM n.reason)
GROUP BY ALL
ORDER BY n.stage_index, from_analyzer, from_state, from_reason, to_state, to_reason;
