-- Bytes already in the ledger: their status and first error-severity issue, which a strict
-- import judges without reading them again (a source stored as partial fails the gate).
-- Grain: at most one row. Reads: core.sources, core.issues.
SELECT
    s.status,
    i.code,
    i.message,
    count(i.code) OVER () AS errors
FROM core.sources AS s
LEFT JOIN core.issues AS i ON i.source_id = s.source_id AND i.severity = 'error'
WHERE s.sha256 = $sha256
ORDER BY i.record_index NULLS FIRST, i.byte_offset NULLS FIRST, i.code
LIMIT 1;
