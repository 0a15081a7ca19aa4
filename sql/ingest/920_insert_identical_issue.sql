-- One aggregated I_DUPLICATE_IDENTICAL issue per source that re-sent spans already stored
-- (counted over all its batches). Grain: zero or one row per source. Reads: staged_sources.
INSERT INTO core.issues
SELECT source_id, 'info', 'I_DUPLICATE_IDENTICAL', NULL, NULL, NULL, NULL, NULL,
       spans_deduplicated || ' spans identical to spans already imported were kept once', NULL,
       $hint, spans_deduplicated
FROM staged_sources
WHERE spans_deduplicated > 0
ORDER BY source_id;
