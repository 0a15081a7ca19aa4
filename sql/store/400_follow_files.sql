-- Follow: where each file of a followed directory was read to (resuming after a restart).
-- Grain: one row per file (by its first record). Reads: core.follow_files.
SELECT head_sha256, path, committed_bytes, final
FROM core.follow_files
WHERE directory = $directory;
