-- The cheap half of the open-time ledger check: spans stored against spans the import ledger
-- lists (both counts come from table statistics and the small ledger). Grain: one row.
-- Reads: core.spans, core.sources.
SELECT
    (SELECT count(*) FROM core.spans) AS stored,
    (SELECT coalesce(sum(span_rows), 0) FROM core.sources) AS listed;
