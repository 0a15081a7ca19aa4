-- Included trials of each RETAINED slice by signature, with their latency samples: the
-- marginal sums of the cells over each slice's attribute (CONTRACT §5.2: one trial counts once
-- in each of its slices; never a cross-product, never a sum across stages or documents).
-- Grain: one row per (doc_id, retained slice_index, signature). Reads: a_cells, a_slices.
CREATE OR REPLACE TEMP TABLE a_slice_sigs AS
WITH included AS (
    SELECT * FROM a_cells WHERE exclusion_class IS NULL
), members AS (
    SELECT 'overall' AS slice_dimension, CAST(NULL AS VARCHAR) AS slice_intent,
           CAST(NULL AS VARCHAR) AS slice_provider, CAST(NULL AS VARCHAR) AS slice_model,
           CAST(NULL AS VARCHAR) AS slice_host_key, *
    FROM included
    UNION ALL
    SELECT 'intent', intent, NULL, NULL, NULL, * FROM included
    UNION ALL
    SELECT 'model', NULL, provider, model, NULL, * FROM included
    WHERE provider IS NOT NULL AND model IS NOT NULL
    UNION ALL
    SELECT 'host', NULL, NULL, NULL, host_key, * FROM included
    WHERE host_key IS NOT NULL
)
SELECT
    s.doc_id,
    s.slice_index,
    m.signature,
    CAST(sum(m.trials) AS BIGINT)          AS trials,
    CAST(sum(m.latency_2_count) AS BIGINT) AS latency_2_count,
    sum(m.latency_2_total)                 AS latency_2_total,
    min(m.latency_2_min)                   AS latency_2_min,
    max(m.latency_2_max)                   AS latency_2_max,
    CAST(sum(m.latency_3_count) AS BIGINT) AS latency_3_count,
    sum(m.latency_3_total)                 AS latency_3_total,
    min(m.latency_3_min)                   AS latency_3_min,
    max(m.latency_3_max)                   AS latency_3_max,
    CAST(sum(m.latency_4_count) AS BIGINT) AS latency_4_count,
    sum(m.latency_4_total)                 AS latency_4_total,
    min(m.latency_4_min)                   AS latency_4_min,
    max(m.latency_4_max)                   AS latency_4_max
FROM members m
JOIN a_slices s
    ON s.doc_id = m.doc_id
    AND s.slice_dimension = m.slice_dimension
    AND s.intent IS NOT DISTINCT FROM m.slice_intent
    AND s.provider IS NOT DISTINCT FROM m.slice_provider
    AND s.model IS NOT DISTINCT FROM m.slice_model
    AND s.host_key IS NOT DISTINCT FROM m.slice_host_key
WHERE s.retained
GROUP BY s.doc_id, s.slice_index, m.signature;
