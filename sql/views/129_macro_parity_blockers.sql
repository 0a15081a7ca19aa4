-- Public: `parity_blockers(run_a, run_b)` — CONTRACT §5.11 over two run ids, the ordered list
-- of blocker strings of macro 110 (empty = comparable). Which document of each run is compared
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
    -- The arguments are bound in a FROM-less projection first: passed a column of the
    -- calling query (`parity_blockers(run_id, …)`), they must not resolve to l.run_id. Each
    -- side's document is reduced to its parity identity (macro 109) before the join.
    SELECT core.identity_parity_blockers(l.identity, r.identity)
    FROM (SELECT run_a AS parity_run_a, run_b AS parity_run_b, chains AS parity_chains,
                 analyzer AS parity_analyzer) k
    JOIN (SELECT run_id, chain_source, analyzer_version,
                 core.parity_identity(document) AS identity
          FROM core.analytics_documents) l
      ON l.run_id = k.parity_run_a AND l.chain_source = k.parity_chains
     AND l.analyzer_version = k.parity_analyzer
    JOIN (SELECT run_id, chain_source, analyzer_version,
                 core.parity_identity(document) AS identity
          FROM core.analytics_documents) r
      ON r.run_id = k.parity_run_b AND r.chain_source = k.parity_chains
     AND r.analyzer_version = k.parity_analyzer
);
