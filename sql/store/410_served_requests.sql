-- Serve: which of the spooled request bodies are in the store already.
-- Grain: one row per stored body among $shas. Reads: core.served_requests.
SELECT sha256
FROM core.served_requests
WHERE sha256 IN (SELECT unnest($shas::VARCHAR[]));
