-- Stamp the touched traces with the spans their chains were just derived from (see 026).
-- Grain: one row per touched trace. Reads: core.spans, touched_traces.
INSERT INTO core.derived_evidence
SELECT trace_id, count(*), max(span_row)
FROM core.spans
WHERE $replace_all_versions AND trace_id IN (SELECT trace_id FROM touched_traces)
GROUP BY trace_id;
