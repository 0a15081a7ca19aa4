-- The producer's chains that carry measurements, as stored, for the check of its measurements
-- against its chain that a store written before schema version 12 never ran (CONTRACT §4,
-- §7.4; store/backfill.py runs it while migrating): per outcome row its chain rows and its
-- measurement rows in index order (NULL: none stored).
-- Grain: one row per producer core.trial_outcome row with measurements and a chain.
-- Reads: core.trial_outcome, core.stage_chain, core.stage_measurements.
WITH chains AS (
    SELECT trial_id, run_id, analyzer_version,
           list({'stage': stage, 'state': state, 'reason': reason, 'evidence': evidence}
                ORDER BY stage_index) AS stage_rows
    FROM core.stage_chain
    WHERE source = 'producer'
    GROUP BY trial_id, run_id, analyzer_version
), measured AS (
    SELECT trial_id, run_id, analyzer_version,
           list({'idx': stage_index, 'reach': reach, 'latency_ms': latency_ms}
                ORDER BY stage_index) AS measured
    FROM core.stage_measurements
    WHERE source = 'producer'
    GROUP BY trial_id, run_id, analyzer_version
)
SELECT o.trial_id, o.run_id, o.analyzer_version, o.first_failed_stage, o.failure_category,
       o.measurements_schema_version, c.stage_rows, m.measured
FROM core.trial_outcome o
JOIN chains c USING (trial_id, run_id, analyzer_version)
LEFT JOIN measured m USING (trial_id, run_id, analyzer_version)
WHERE o.source = 'producer' AND o.measurements_present
ORDER BY o.run_id, o.trial_id, o.analyzer_version
