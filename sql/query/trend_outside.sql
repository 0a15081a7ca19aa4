-- The runs the `trend` verb lists outside every partition: those whose parity against
-- themselves is blocked (CONTRACT §5.11, the `parity_blockers` macro: missing identity,
-- mixed source versions, provisional) and those without a document of the kind read
-- (`blockers` NULL: unmeasured, §5.10, with the store's `document_blocker` when it knows why).
-- The same run and completion filters as sql/query/trend.sql.
-- Inputs: $chain_source, $analyzer_version, $suite_id, $since (the last two NULL for any).
-- Grain: one row per run. Reads: core.run_summary, main.parity_blockers.
SELECT run_id, suite_id, completed_at, blockers, document_blocker
FROM (
    SELECT
        s.run_id,
        s.suite_id,
        s.completed_at,
        main.parity_blockers(
            s.run_id, s.run_id, chains := $chain_source, analyzer := $analyzer_version
        ) AS blockers,
        s.document_blocker
    FROM core.run_summary s
    WHERE ($suite_id IS NULL OR s.suite_id = $suite_id)
      AND (CAST($since AS TIMESTAMPTZ) IS NULL OR s.completed_at >= CAST($since AS TIMESTAMPTZ))
)
WHERE blockers IS NULL OR len(blockers) > 0
ORDER BY completed_at NULLS LAST, run_id;
