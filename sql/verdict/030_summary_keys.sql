-- Which summaries the target runs get (CONTRACT §6.6, DESIGN.md): with $default_keys, one per
-- chain source and reader version a run has chains for — derived chains per version derived
-- at, producer chains once at $reader_version — plus the derived one at $reader_version
-- always (the same keys as the analytics documents); otherwise exactly the pairs
-- ($key_sources[i], $key_versions[i]) for every target run. A run without a non-empty run id
-- gets none (§6.6 needs one). Each key carries the run's project id as sql/verdict/012 reads it
-- (one value when the trials agree, else ''), for the evidence locators' trace paths (§6.7).
-- Kept as the temporary table v_keys that 046 and 050 read.
-- Grain: one row per (run_id, chain_source, analyzer_version).
-- Reads: core.trials, core.stage_chain.
CREATE OR REPLACE TEMP TABLE v_keys AS
WITH runs AS (
    SELECT run_id,
           coalesce(CASE WHEN count(DISTINCT project_id) = 1 THEN any_value(project_id) END, '')
               AS project_id
    FROM core.trials
    WHERE ($all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[]))))
      AND run_id <> ''
    GROUP BY run_id
), pairs AS (
    SELECT run_id, source AS chain_source,
           CASE WHEN source = 'producer' THEN $reader_version ELSE analyzer_version END
               AS analyzer_version
    FROM core.stage_chain
    WHERE $default_keys
      AND ($all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[]))))
    UNION
    SELECT run_id, 'derived', $reader_version
    FROM runs
    WHERE $default_keys
    UNION
    SELECT r.run_id, k.chain_source, k.analyzer_version
    FROM runs r
    CROSS JOIN (
        SELECT unnest(CAST($key_sources AS VARCHAR[])) AS chain_source,
               unnest(CAST($key_versions AS INTEGER[])) AS analyzer_version
    ) k
    WHERE NOT $default_keys
)
SELECT r.run_id, p.chain_source, CAST(p.analyzer_version AS INTEGER) AS analyzer_version,
       r.project_id
FROM pairs p
JOIN runs r USING (run_id);
