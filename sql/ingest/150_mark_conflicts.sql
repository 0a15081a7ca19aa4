-- Give stored spans that a new source conflicts with their dup_group.
-- Grain: updates core.spans rows. Reads: conflicts.
UPDATE core.spans s
SET dup_group = c.dup_group
FROM conflicts c
WHERE s.trace_id = c.trace_id AND s.span_id = c.span_id;
