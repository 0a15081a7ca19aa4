-- Public view of the run decision summaries (CONTRACT §6.6): the verdict in words, its source,
-- what the counts count (`measurement_unit`), the reasons, and the summary document with the
-- first page of diagnostics. `notEstablished` is no decision — never a failure.
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: core.decision_summaries.
CREATE OR REPLACE VIEW main.decision_summaries AS
SELECT run_id, chain_source, analyzer_version, verdict, verdict_source, measurement_unit,
       counted_total, counted_passed, counted_failed, counted_inconclusive, undecided_reason,
       reasons, run_status, diagnostics_complete, diagnostics_items, scanned_iterations, document
FROM core.decision_summaries;
