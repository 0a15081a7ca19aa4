-- What `valuechain serve` took in: the sha256 of every acknowledged request body imported, in
-- the transaction that committed it (its `source`: the batch it was imported with), so a body
-- whose spool file outlived a crash between that commit and the file's removal is not
-- imported twice, and a client's retry of a request already in is recognised.
-- Grain: one row per request body (sha256). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.served_requests (
    sha256      VARCHAR NOT NULL PRIMARY KEY,
    kind        VARCHAR NOT NULL,
    received_at TIMESTAMPTZ NOT NULL,
    source      VARCHAR NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL
);
