-- Trials per document and slice attributes (intent, provider, model, host), by exclusion class
-- (NULL = included) and, for included trials, failure category and signature — the unit every
-- slice count is a sum of (CONTRACT §5.5: an excluded trial only adds to its class; included
-- trials with one signature count identically). Latency samples summed exactly (DECIMAL), so
-- totals do not depend on input order.
-- Grain: one row per (doc_id, intent, provider, model, host_key, class, category, signature).
-- Reads: a_records.
CREATE OR REPLACE TEMP TABLE a_cells AS
SELECT
    doc_id, intent, provider, model, host_key, exclusion_class, failure_category, signature,
    count(*)                                    AS trials,
    count(latency_2)                            AS latency_2_count,
    sum(CAST(latency_2 AS DECIMAL(38, 9)))      AS latency_2_total,
    min(latency_2)                              AS latency_2_min,
    max(latency_2)                              AS latency_2_max,
    count(latency_3)                            AS latency_3_count,
    sum(CAST(latency_3 AS DECIMAL(38, 9)))      AS latency_3_total,
    min(latency_3)                              AS latency_3_min,
    max(latency_3)                              AS latency_3_max,
    count(latency_4)                            AS latency_4_count,
    sum(CAST(latency_4 AS DECIMAL(38, 9)))      AS latency_4_total,
    min(latency_4)                              AS latency_4_min,
    max(latency_4)                              AS latency_4_max
FROM a_records
GROUP BY doc_id, intent, provider, model, host_key, exclusion_class, failure_category, signature;
