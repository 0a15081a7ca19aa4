-- Every chain of the target runs packed per (trial, source, analyzer version), in one pass
-- over its chain rows and its `reached` measurement rows (macro 105: the only kind that can
-- change a count). Each row contributes to four aggregates:
--   `counts`    sum of weights: chain rows (bits 0–19), chain rows at positions 0–5
--               (bits 20–39), measurement rows at positions 0–5 (bits 40–59)
--   `positions` OR of one-hot positions: chain 0–5 (bits 0–5), measurements (bits 6–11)
--   `bits`      OR of codes: one byte per chain position (macro 104; 0 when the row is not
--               STAGES[index]) in bits 0–47, one bit per position holding an agreeing
--               `reached` measurement in bits 48–53
--   `latencies` the measured latencies of selection, call, response — the only stages §4
--               lets carry one (a measurement with latency elsewhere fails the §4 validator)
-- so duplicate positions show (count > distinct positions: an array holds one row per index).
-- Only the chains of the documents asked for: every one ($all_versions), or those whose
-- document version is in $versions (a derived chain's own version; the producer's is read at
-- $reader_version, 040).
-- Grain: one row per (tkey, source, analyzer_version). Reads: a_target_runs, a_trial_keys,
-- core.stage_chain, core.stage_measurements.
CREATE OR REPLACE TEMP TABLE a_chain_sigs AS
WITH chain_rows AS (
    SELECT
        c.run_id, c.trial_id, c.source, c.analyzer_version,
        CASE WHEN c.stage_index BETWEEN 0 AND 5
             THEN 1 + (CAST(1 AS BIGINT) << 20) ELSE 1 END                   AS weight,
        CASE WHEN c.stage_index BETWEEN 0 AND 5
             THEN CAST(1 AS BIGINT) << c.stage_index ELSE 0 END              AS position,
        CASE WHEN c.stage_index BETWEEN 0 AND 5 AND c.stage = $stages[c.stage_index + 1]
             THEN CAST(core.chain_stage_code(c.state, list_position($reasons, c.reason))
                       AS BIGINT) << (8 * c.stage_index)
             ELSE 0 END                                                      AS bits,
        CAST(NULL AS STRUCT(i TINYINT, ms DOUBLE))                           AS latency
    FROM core.stage_chain c
    JOIN a_target_runs USING (run_id)
    WHERE c.source IN ('derived', 'producer')
        AND ($all_versions OR list_contains(CAST($versions AS INTEGER[]),
            CASE c.source WHEN 'derived' THEN c.analyzer_version ELSE $reader_version END))
), measurement_rows AS (
    SELECT
        m.run_id, m.trial_id, m.source, m.analyzer_version,
        CAST(1 AS BIGINT) << 40                                              AS weight,
        CAST(1 AS BIGINT) << (6 + m.stage_index)                             AS position,
        CAST(core.reach_code(m.stage, $stages[m.stage_index + 1], m.reach) AS BIGINT)
            << (48 + m.stage_index)                                          AS bits,
        CASE WHEN m.stage_index BETWEEN 2 AND 4 AND m.latency_ms IS NOT NULL
             THEN {'i': m.stage_index, 'ms': m.latency_ms} END               AS latency
    FROM core.stage_measurements m
    JOIN a_target_runs USING (run_id)
    WHERE m.source IN ('derived', 'producer') AND m.reach = 'reached'
        AND m.stage_index BETWEEN 0 AND 5
        AND ($all_versions OR list_contains(CAST($versions AS INTEGER[]),
            CASE m.source WHEN 'derived' THEN m.analyzer_version ELSE $reader_version END))
), all_rows AS (
    SELECT * FROM chain_rows
    UNION ALL
    SELECT * FROM measurement_rows
)
SELECT
    k.tkey,
    r.source,
    r.analyzer_version,
    sum(r.weight)                                       AS counts,
    bit_or(r.position)                                  AS positions,
    bit_or(r.bits)                                      AS bits,
    list(r.latency) FILTER (r.latency IS NOT NULL)      AS latencies
FROM all_rows r
JOIN a_trial_keys k USING (run_id, trial_id)
GROUP BY k.tkey, r.source, r.analyzer_version;
