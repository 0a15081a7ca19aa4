-- Store info: what the store holds at a glance. Grain: one row.
-- Reads: core.sources, core.spans, core.trials, core.follow_files, core.store_operations.
SELECT
    (SELECT count(*) FROM core.sources)                  AS sources,
    (SELECT min(imported_at) FROM core.sources)          AS first_import,
    (SELECT max(imported_at) FROM core.sources)          AS last_import,
    (SELECT count(DISTINCT trace_id) FROM core.spans)    AS traces,
    (SELECT count(DISTINCT run_id) FROM core.trials)     AS runs,
    (SELECT count(*) FROM core.trials)                   AS trials,
    (SELECT count(*) FROM core.follow_files)             AS followed_files,
    (SELECT count(*) FROM core.store_operations)         AS operations;
