-- What the store recorded about the sources just written, by issue code: the decoder's issues
-- that were kept, the conflicts and identical duplicates the batches found, the closing notes —
-- the figures of the import summary (a summary never counts an issue the store does not hold,
-- nor misses one). The sources of one writer are the newest: ids from its first on.
-- Grain: one row per (source, issue code). Reads: core.issues.
SELECT source_id, code, CAST(sum(occurrences) AS BIGINT) AS occurrences
FROM core.issues
WHERE source_id >= $source_id
GROUP BY source_id, code
ORDER BY source_id, code;
