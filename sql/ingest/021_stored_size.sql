-- Whether the ledger holds a source of this many bytes: only then can a file be bytes already
-- imported, and only then does the import hash it before decoding (pipeline/imports.py), so
-- that new bytes are read once.
-- Grain: one row. Reads: core.sources.
SELECT count(*) > 0
FROM core.sources
WHERE bytes_raw = $bytes_raw;
