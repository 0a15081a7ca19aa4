-- Per run: the analyzer versions it has documents of derived chains for, and whether it is stale
-- for the current analyzer (a trial behind it, or evidence changed since derivation: what
-- `valuechain recompute` would re-derive; core.stale_traces, sql/views/130).
-- Grain: one row per run_id. Reads: core.run_summary, core.analytics_runs, core.stale_traces.
WITH documents AS (
    SELECT run_id, list(DISTINCT analyzer_version ORDER BY analyzer_version) AS versions
    FROM core.analytics_runs
    WHERE chain_source = 'derived'
    GROUP BY run_id
), stale AS (
    SELECT DISTINCT unnest(run_ids) AS run_id
    FROM core.stale_traces(core.current_stage_analyzer_version())
)
SELECT s.run_id,
       coalesce(d.versions, CAST([] AS INTEGER[])) AS document_analyzer_versions,
       s.run_id IN (SELECT run_id FROM stale) AS stale
FROM core.run_summary s
LEFT JOIN documents d USING (run_id);
