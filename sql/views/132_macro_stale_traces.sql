-- The traces whose derived chains are stale for an analyzer version `target` (CONTRACT §7.3's
-- re-analysis job, `valuechain recompute`): their evidence changed since they were derived
-- (their spans differ from core.derived_evidence's stamp, or they were never stamped), or one
-- of their trials has derived chains only at versions older than `target`. A trial with a
-- chain at `target` or newer is not behind; one with no derived chain at all (contract
-- version ahead, never coerced) is not either.
-- Grain: one row per stale trace_id: `evidence_changed`, `trials_behind`, `run_ids` (the runs
-- its stored trials name; empty for a trace never derived).
-- Reads: core.spans, core.derived_evidence, core.trial_outcome, core.trials.
CREATE OR REPLACE MACRO core.stale_traces(target) AS TABLE
WITH current_spans AS (
    SELECT trace_id, count(*) AS span_count, max(span_row) AS last_span_row
    FROM core.spans
    GROUP BY trace_id
), changed AS (
    SELECT c.trace_id
    FROM current_spans c
    LEFT JOIN core.derived_evidence d USING (trace_id)
    WHERE d.trace_id IS NULL
       OR d.span_count <> c.span_count
       OR d.last_span_row <> c.last_span_row
), newest AS (
    SELECT trial_id, run_id, max(analyzer_version) AS newest
    FROM core.trial_outcome
    WHERE source = 'derived'
    GROUP BY trial_id, run_id
), behind AS (
    SELECT t.trace_id, count(*) AS trials_behind
    FROM newest n
    JOIN core.trials t USING (trial_id, run_id)
    WHERE n.newest < target
    GROUP BY t.trace_id
), stale AS (
    SELECT trace_id, c.trace_id IS NOT NULL AS evidence_changed,
           coalesce(b.trials_behind, 0) AS trials_behind
    FROM changed c
    FULL JOIN behind b USING (trace_id)
)
SELECT s.trace_id, s.evidence_changed, s.trials_behind,
       coalesce(list(DISTINCT t.run_id ORDER BY t.run_id) FILTER (t.run_id IS NOT NULL), [])
           AS run_ids
FROM stale s
LEFT JOIN core.trials t USING (trace_id)
GROUP BY ALL;
