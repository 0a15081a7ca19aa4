-- What the store recorded about one source, by issue code: the decoder's issues that were kept,
-- the conflicts and identical duplicates the batches found, the closing notes — the figures of
-- the import summary (a summary never counts an issue the store does not hold, nor misses one).
-- Grain: one row per issue code of the source. Reads: core.issues.
SELECT code, CAST(sum(occurrences) AS BIGINT) AS occurrences
FROM core.issues
WHERE source_id = $source_id
GROUP BY code
ORDER BY code;
