-- Derived chains and documents stamped with an analyzer newer than this valuechain's
-- ($current): written by a newer valuechain, so recompute refuses the store (never coerces).
-- The producer's own chains are evidence, not ours: a version-ahead one is excluded by the
-- funnel (CONTRACT §7.3), not refused. Grain: one row per kind of row found ahead.
-- Reads: core.stage_chain, core.analytics_runs.
SELECT 'derived chains' AS what, max(analyzer_version) AS version,
       count(DISTINCT trial_id) AS count
FROM core.stage_chain
WHERE source = 'derived' AND analyzer_version > $current
HAVING count(*) > 0
UNION ALL
SELECT 'analytics documents', max(analyzer_version), count(*)
FROM core.analytics_runs
WHERE chain_source = 'derived' AND analyzer_version > $current
HAVING count(*) > 0;
