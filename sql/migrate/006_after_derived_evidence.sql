-- To store schema version 4: core.derived_evidence is new. A version 3 store derived the traces
-- of every import as it committed them (unless --no-derive), so a trace with a trial row is
-- stamped with its spans as they are now; a trace without one stays unstamped and `recompute`
-- derives it. A stamp already there is kept. Grain: one row per stamped trace. Reads: core.spans, core.trials.
INSERT INTO core.derived_evidence
SELECT trace_id, count(*), max(span_row)
FROM core.spans
WHERE trace_id IN (SELECT trace_id FROM core.trials)
  AND trace_id NOT IN (SELECT trace_id FROM core.derived_evidence)
GROUP BY trace_id;
