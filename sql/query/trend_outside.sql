-- The runs the `trend` verb lists outside every partition: those whose parity against
-- themselves is blocked (CONTRACT §5.11: missing identity, mixed source versions,
-- provisional: `self_blockers` of core.document_parity_facts, the parity macro's) and those
-- without a document of the kind read (`blockers` NULL: unmeasured, §5.10, with the store's
-- `document_blocker` when it knows why). The same run and completion filters as
-- sql/query/trend.sql. (`parity_blockers(run, run)` per run would look both documents up and
-- parse them for every row: at 10,000 runs it exhausts a 1 GB memory limit.)
-- Inputs: $chain_source, $analyzer_version, $suite_id, $since (the last two NULL for any).
-- Grain: one row per run. Reads: core.run_summary, core.document_parity_facts.
SELECT run_id, suite_id, completed_at, blockers, document_blocker
FROM (
    SELECT
        s.run_id,
        s.suite_id,
        s.completed_at,
        p.self_blockers AS blockers,
        s.document_blocker
    FROM core.run_summary s
    LEFT JOIN core.document_parity_facts p
        ON p.run_id = s.run_id
        AND p.chain_source = $chain_source
        AND p.analyzer_version = $analyzer_version
    WHERE ($suite_id IS NULL OR s.suite_id = $suite_id)
      AND (CAST($since AS TIMESTAMPTZ) IS NULL OR s.completed_at >= CAST($since AS TIMESTAMPTZ))
)
WHERE blockers IS NULL OR len(blockers) > 0
ORDER BY completed_at NULLS LAST, run_id;
