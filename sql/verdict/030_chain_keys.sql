-- Which summaries a run gets: one per chain source and reader version it has chains for —
-- derived chains per version derived at, producer chains once at $reader_version — plus the
-- derived one at $reader_version always (the same keys as the analytics documents).
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: core.stage_chain.
SELECT DISTINCT run_id, source AS chain_source,
       CASE WHEN source = 'producer' THEN $reader_version ELSE analyzer_version END
           AS analyzer_version
FROM core.stage_chain
WHERE $all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])))
ORDER BY ALL;
