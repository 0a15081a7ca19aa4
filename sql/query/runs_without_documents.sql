-- Runs whose chains are stored but whose analytics documents are not, or were built from other
-- trials: a derive stopped after committing its chains and before materializing them (its
-- chains commit batch by batch, its documents after the last). Such a run is pending, as an
-- underived trace is; the next writing command materializes it (pipeline.derive.derive_pending).
-- A run is named when it has no run summary at all (never materialized), when its summary
-- counted other trials than it holds, or when it has derived chains at an analyzer version
-- without a document at that version (unless its summary says why it gets none). Runs whose
-- traces still await derivation are left out: that state is named already, and its derive
-- writes their documents.
-- Grain: one row per run_id. Reads: core.trials, core.trial_outcome, core.run_summary,
-- core.analytics_runs, core.pending_derivations.
WITH held AS (
    SELECT run_id, count(*) AS trial_rows FROM core.trials GROUP BY run_id
), versions AS (
    SELECT DISTINCT run_id, analyzer_version FROM core.trial_outcome WHERE source = 'derived'
)
SELECT h.run_id
FROM held h
LEFT JOIN core.run_summary r USING (run_id)
WHERE (r.run_id IS NULL
       OR r.trial_rows <> h.trial_rows
       OR (r.document_blocker IS NULL AND EXISTS (
            SELECT 1 FROM versions v
            WHERE v.run_id = h.run_id AND NOT EXISTS (
                SELECT 1 FROM core.analytics_runs a
                WHERE a.run_id = v.run_id AND a.chain_source = 'derived'
                  AND a.analyzer_version = v.analyzer_version))))
  AND h.run_id NOT IN (
        SELECT t.run_id FROM core.trials t
        SEMI JOIN core.pending_derivations p ON p.trace_id = t.trace_id)
ORDER BY h.run_id;
