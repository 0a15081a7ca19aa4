-- The run listing: each run of the view `runs`, with the analyzer versions it has documents of
-- derived chains for and whether it is stale for the current analyzer (a trial behind it, or
-- evidence changed since derivation: what `valuechain recompute` would re-derive;
-- core.stale_traces, sql/views/130). Oldest completion first (runs without one last), then by
-- run id.
-- Grain: one row per run_id. Reads: main.runs, core.analytics_runs, core.stale_traces.
WITH documents AS (
    SELECT run_id, list(DISTINCT analyzer_version ORDER BY analyzer_version) AS versions
    FROM core.analytics_runs
    WHERE chain_source = 'derived'
    GROUP BY run_id
), stale AS (
    SELECT DISTINCT unnest(run_ids) AS run_id
    FROM core.stale_traces(core.current_stage_analyzer_version())
)
SELECT r.*,
       coalesce(d.versions, CAST([] AS INTEGER[])) AS document_analyzer_versions,
       r.run_id IN (SELECT run_id FROM stale) AS stale
FROM main.runs r
LEFT JOIN documents d USING (run_id)
ORDER BY r.completed_at ASC NULLS LAST, r.run_id;
