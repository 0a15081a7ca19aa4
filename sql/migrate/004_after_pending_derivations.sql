-- To store schema version 4: core.pending_derivations records what was imported but not
-- derived. An older store could already be in that state (an import interrupted after its
-- spans committed, or run with --no-derive): every trace without a trial is recorded as
-- pending at the current analyzer, so the next writing command derives it.
-- Grain: one row per (source_id, trace_id) of a trace without trials. Reads: core.spans,
-- core.trials.
INSERT INTO core.pending_derivations
SELECT DISTINCT s.source_id, s.trace_id, $current_analyzer
FROM core.spans s
WHERE NOT EXISTS (SELECT 1 FROM core.trials t WHERE t.trace_id = s.trace_id);
