-- Follow: a file of the directory is read up to $committed_bytes (written in the transaction
-- that commits those bytes' source). Grain: one row. Reads: parameters only.
INSERT OR REPLACE INTO core.follow_files
VALUES ($directory, $head_sha256, $path, $committed_bytes, $final, now());
