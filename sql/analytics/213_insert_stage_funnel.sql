-- Replace, step 2: each retained slice's six stage tallies.
-- Grain: one row per (document, retained slice, stage). Reads: a_slice_stages, a_docs.
INSERT INTO core.stage_funnel BY NAME
SELECT
    d.run_id, d.chain_source, d.analyzer_version, t.slice_index, t.slice_dimension, t.intent,
    t.provider, t.model, t.host_key, t.stage_index, t.stage, t.applicable, t.reached,
    t.not_reached, t.reach_unknown, t.measured, t.passed, t.failed, t.not_measured,
    t.not_applicable,
    list_transform(t.reasons, lambda r: {'reason_index': CAST(r.reason_index AS TINYINT),
        'reason': $reasons[r.reason_index + 1], 'count': CAST(r.count AS BIGINT)}) AS reasons,
    t.latency_count, t.latency_total_ms, t.latency_min_ms, t.latency_max_ms
FROM a_slice_stages t
JOIN a_docs d USING (doc_id);
