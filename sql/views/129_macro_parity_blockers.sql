-- Public: `parity_blockers(run_a, run_b)` — CONTRACT §5.11 over two run ids, the ordered list
-- of blocker strings of macro 109 (empty = comparable). Which document of each run is compared
-- (DESIGN.md): derived chains at the current analyzer by default; `chains := 'producer'` and
-- `analyzer := N` pick another, the same for both runs. NULL — never an empty list — when
-- either run has no such document (unknown run, or a run UNMEASURED there, §5.10): nothing
-- was measured to compare.
--   SELECT parity_blockers('run-a', 'run-b');
--   SELECT parity_blockers('run-a', 'run-b', chains := 'producer');
-- Grain: none. Reads: core.analytics_documents.
CREATE OR REPLACE MACRO main.parity_blockers(
    run_a, run_b, chains := 'derived', analyzer := core.current_stage_analyzer_version()
) AS (
    SELECT core.document_parity_blockers(l.document, r.document)
    FROM core.analytics_documents l, core.analytics_documents r
    WHERE l.run_id = run_a AND l.chain_source = chains AND l.analyzer_version = analyzer
      AND r.run_id = run_b AND r.chain_source = chains AND r.analyzer_version = analyzer
);
