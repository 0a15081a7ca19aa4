-- The documents to build (CONTRACT §5; DESIGN.md "which chains a reader sees"): one per run,
-- chain source and reader version that has chains — derived chains per version derived at,
-- producer chains once at $reader_version — plus a derived document at $reader_version for a
-- run with no derived chain at all (its trials are then classified chainless, §5.4). Asked
-- for some versions only ($versions), `offered` holds only theirs, so "no derived chain at
-- all" is read from core.trial_outcome (every derived chain has its outcome row). A run
-- without a single suite id gets no document (`suiteId` is required, §5.1).
-- Grain: one row per (run_id, chain_source, analyzer_version), numbered `doc_id`.
-- Reads: a_versions, a_trial_keys, a_run_facts, core.trial_outcome.
CREATE OR REPLACE TEMP TABLE a_docs AS
WITH offered AS (
    SELECT DISTINCT k.run_id, v.source AS chain_source, v.doc_version AS analyzer_version
    FROM a_versions v
    JOIN a_trial_keys k USING (tkey)
), wanted AS (
    SELECT * FROM offered
    UNION
    SELECT r.run_id, 'derived', $reader_version
    FROM a_run_facts r
    WHERE r.run_id NOT IN (SELECT run_id FROM offered WHERE chain_source = 'derived')
      AND ($all_versions OR list_contains(CAST($versions AS INTEGER[]), $reader_version)
           AND r.run_id NOT IN (SELECT run_id FROM core.trial_outcome WHERE source = 'derived'))
)
SELECT
    CAST(row_number() OVER (ORDER BY w.run_id, w.chain_source, w.analyzer_version) AS INTEGER)
        AS doc_id,
    w.run_id,
    w.chain_source,
    CAST(w.analyzer_version AS INTEGER) AS analyzer_version
FROM wanted w
JOIN a_run_facts r USING (run_id)
WHERE r.document_blocker IS NULL;
