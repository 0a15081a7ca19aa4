-- Undoing an unfinished import, last data step: an older span whose key is no longer in
-- conflict once this import's spans are gone loses the dup_group the import gave it (a group
-- keeps its dup_group otherwise: it is the smallest span_row, older than any this import
-- wrote). Grain: updates core.spans rows. Reads: undo_conflict_keys, core.spans.
UPDATE core.spans s
SET dup_group = NULL
FROM (
    SELECT s2.trace_id, s2.span_id
    FROM core.spans s2
    SEMI JOIN undo_conflict_keys k ON k.trace_id = s2.trace_id AND k.span_id = s2.span_id
    GROUP BY ALL
    HAVING count(DISTINCT s2.content_hash) = 1
) settled
WHERE s.trace_id = settled.trace_id AND s.span_id = settled.span_id;
