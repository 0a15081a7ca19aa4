-- What `valuechain import --follow` has read of each file of a collector directory: the bytes
-- up to `committed_bytes` are in the store (committed with the source that holds them, so a
-- restart resumes there). A file is recognised by its first record (`head_sha256`: the sha256
-- of its bytes up to and including the first newline, or of its first length-prefixed record),
-- so a rotated file — renamed, same bytes — keeps its offset, and a new live file at the same
-- path starts at 0. `final` marks a rotated file read to its end.
-- Grain: one row per (directory, head_sha256). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.follow_files (
    directory       VARCHAR NOT NULL,
    head_sha256     VARCHAR NOT NULL,
    path            VARCHAR NOT NULL,
    committed_bytes UBIGINT NOT NULL,
    final           BOOLEAN NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (directory, head_sha256)
);
