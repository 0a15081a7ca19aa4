-- One aggregated I_DUPLICATE_IDENTICAL issue when this source re-sent spans already stored
-- (counted over all its batches). Grain: zero or one row. Reads: parameters only.
INSERT INTO core.issues
SELECT $source_id, 'info', 'I_DUPLICATE_IDENTICAL', NULL, NULL, NULL, NULL, NULL,
       $spans_deduplicated || ' spans identical to spans already imported were kept once', NULL,
       $hint, $spans_deduplicated
WHERE $spans_deduplicated > 0;
