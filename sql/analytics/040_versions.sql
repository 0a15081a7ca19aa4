-- The chain each trial offers per chain source (CONTRACT §5.4 inputs, §7.3–§7.4): its packed
-- rows (unpacked from 030: row count, duplicate positions, `chain_sig` one byte per index,
-- `reach_sig` one bit per index, latencies) beside the integrity verdicts the derive step
-- recorded in core.trial_outcome (an absent verdict is not a verified one). Derived chains are kept at every version they were derived
-- at, each read by a reader at that version; the producer's persisted chain is kept at its
-- newest stored version and read by valuechain's current analyzer ($reader_version), which
-- excludes a version-ahead one (§5.4 step 3). Measurements are verified only when their
-- chain's verdict says so and valuechain's own check did not find them disagreeing with the
-- chain (`measurements_agree`; TRACE-FORMAT §5.2 W_CHAIN_INVALID: never trusted over it). `doc_version` is the reader version of the
-- document the chain belongs to; only documents at $versions are built unless $all_versions.
-- Grain: one row per (tkey, source, analyzer_version) kept. Reads: a_target_runs,
-- a_trial_keys, a_chain_sigs, core.trial_outcome.
CREATE OR REPLACE TEMP TABLE a_versions AS
WITH outcomes AS (
    SELECT
        k.tkey, o.source, o.analyzer_version, o.failure_category, o.chain_verified,
        o.measurements_present,
        CASE WHEN o.measurements_agree IS FALSE THEN false ELSE o.measurements_verified END
                                                                   AS measurements_verified,
        o.measurements_schema_version, o.measurements_analyzer_version
    FROM core.trial_outcome o
    JOIN a_target_runs USING (run_id)
    JOIN a_trial_keys k USING (run_id, trial_id)
    WHERE o.source IN ('derived', 'producer')
        AND ($all_versions OR list_contains(CAST($versions AS INTEGER[]),
            CASE o.source WHEN 'derived' THEN o.analyzer_version ELSE $reader_version END))
), joined AS (
    SELECT
        coalesce(c.tkey, o.tkey)                                   AS tkey,
        coalesce(c.source, o.source)                               AS source,
        coalesce(c.analyzer_version, o.analyzer_version)           AS analyzer_version,
        CAST(coalesce(c.counts & 1048575, 0) AS BIGINT)            AS chain_rows,
        coalesce((c.counts >> 20) & 1048575 > bit_count(c.positions & 63), false)
                                                                   AS chain_duplicates,
        coalesce(c.bits & 281474976710655, 0)                      AS chain_sig,
        coalesce(c.counts >> 40 > bit_count(c.positions >> 6), false)
                                                                   AS measurement_duplicates,
        coalesce(c.bits >> 48, 0)                                  AS reach_sig,
        list_max(list_transform(list_filter(c.latencies, lambda l: l.i = 2), lambda l: l.ms))
                                                                   AS latency_2,
        list_max(list_transform(list_filter(c.latencies, lambda l: l.i = 3), lambda l: l.ms))
                                                                   AS latency_3,
        list_max(list_transform(list_filter(c.latencies, lambda l: l.i = 4), lambda l: l.ms))
                                                                   AS latency_4,
        o.failure_category,
        o.chain_verified,
        coalesce(o.measurements_present, false)                    AS measurements_present,
        o.measurements_verified,
        o.measurements_schema_version,
        o.measurements_analyzer_version
    FROM a_chain_sigs c
    FULL JOIN outcomes o
        ON c.tkey = o.tkey AND c.source = o.source AND c.analyzer_version = o.analyzer_version
)
SELECT *, analyzer_version AS doc_version
FROM joined
WHERE source = 'derived'
UNION ALL
SELECT *, $reader_version AS doc_version
FROM joined
WHERE source = 'producer'
QUALIFY analyzer_version = max(analyzer_version) OVER (PARTITION BY tkey);
