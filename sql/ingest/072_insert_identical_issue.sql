-- One aggregated I_DUPLICATE_IDENTICAL issue when this source re-sent spans already stored.
-- Grain: zero or one row. Reads: dropped_spans.
INSERT INTO core.issues
SELECT $source_id, 'info', 'I_DUPLICATE_IDENTICAL', NULL, NULL, NULL, NULL, NULL,
       count(*) || ' spans identical to spans already imported were kept once', NULL, $hint,
       count(*)
FROM dropped_spans
HAVING count(*) > 0;
