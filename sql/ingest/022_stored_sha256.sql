-- Whether the ledger holds these bytes already (a re-import of them is `unchanged`).
-- Grain: one row. Reads: core.sources.
SELECT count(*) > 0
FROM core.sources
WHERE sha256 = $sha256;
