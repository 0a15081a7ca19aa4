-- One run's stored decision summary for a chain source and reader analyzer version
-- (CONTRACT §6.6), first page of diagnostics included.
-- Grain: at most one row. Reads: core.decision_summaries.
SELECT document
FROM core.decision_summaries
WHERE run_id = $run_id AND chain_source = $source AND analyzer_version = $analyzer;
