-- Replace, step 1: drop the target runs' rows of core.analytics_documents (every chain source; every
-- version, or those in $versions).
-- Grain: none. Reads: a_target_runs.
DELETE FROM core.analytics_documents WHERE run_id IN (SELECT run_id FROM a_target_runs)
  AND ($all_versions OR list_contains(CAST($versions AS INTEGER[]), analyzer_version));
