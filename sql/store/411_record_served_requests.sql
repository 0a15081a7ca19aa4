-- Serve: the request bodies imported as $source (written in the transaction that commits it).
-- Grain: one row per body. Reads: parameters only.
INSERT OR IGNORE INTO core.served_requests
SELECT
    r.sha256,
    r.kind,
    make_timestamptz(r.received_ns // 1000),
    $source,
    now()
FROM (
    SELECT unnest($shas::VARCHAR[]) AS sha256,
           unnest($kinds::VARCHAR[]) AS kind,
           unnest($received_ns::BIGINT[]) AS received_ns
) AS r;
