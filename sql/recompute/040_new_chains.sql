-- For --dry-run: staged derived chains of trials with no stored derived chain at or below
-- $target (never derived before, or their evidence was). Grain: one row. Reads:
-- core.trial_outcome, staged_chain.
SELECT count(DISTINCT trial_id) AS trials
FROM staged_chain n
WHERE n.source = 'derived'
  AND NOT EXISTS (
      SELECT 1 FROM core.trial_outcome o
      WHERE o.trial_id = n.trial_id AND o.run_id = n.run_id
        AND o.source = 'derived' AND o.analyzer_version <= $target
  );
