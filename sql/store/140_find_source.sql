-- The sources a `store delete --source` may name (matched by path or sha256 prefix by the
-- caller). Grain: one row per source_id. Reads: core.sources.
SELECT source_id, path, sha256 FROM core.sources ORDER BY source_id;
