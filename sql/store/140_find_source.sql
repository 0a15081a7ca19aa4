-- The sources a `store delete --source` names: by path as imported, or by sha256 (a prefix of
-- at least 8 hex digits). Grain: one row per source_id. Reads: core.sources.
SELECT source_id, path, sha256
FROM core.sources
WHERE path = $source OR (length($source) >= 8 AND sha256 LIKE lower($source) || '%')
ORDER BY source_id;
