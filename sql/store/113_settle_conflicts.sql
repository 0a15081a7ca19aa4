-- Delete: a remaining span whose key no longer conflicts (one content left) loses its
-- dup_group. Grain: updates core.spans rows. Reads: st_conflict_keys, core.spans.
UPDATE core.spans s
SET dup_group = NULL
FROM (
    SELECT s2.trace_id, s2.span_id
    FROM core.spans s2
    SEMI JOIN st_conflict_keys k ON k.trace_id = s2.trace_id AND k.span_id = s2.span_id
    GROUP BY ALL
    HAVING count(DISTINCT s2.content_hash) = 1
) settled
WHERE s.trace_id = settled.trace_id AND s.span_id = settled.span_id;
