-- Store info: the sources, newest first (path, sha256, status, spans kept, when).
-- Grain: one row per source. Reads: core.sources.
SELECT path, sha256, status, span_rows, bytes_raw, imported_at
FROM core.sources ORDER BY source_id DESC LIMIT $limit;
