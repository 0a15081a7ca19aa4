-- The traces that may belong to some runs (a superset: `trace_runs.sql` over them tells which
-- do), so a derive of a few traces widens them to whole runs without listing every stored
-- trace's run: the traces derived into those runs (core.trials, by its run_id index: a derived
-- trace's run key is the run its trial was derived into, `trace_runs.sql`), every
-- trace awaiting derivation (not in core.trials yet, or in it under an older run), and for a
-- source's run key (`source:<id>`, traces without the contract) every trace with spans in it.
-- Grain: one row per trace_id. Reads: core.trials, core.pending_derivations, core.spans.
-- Params: $run_keys (list of run keys, as `trace_runs.sql` gives them).
WITH keys AS (
    SELECT unnest($run_keys) AS run_key
)
SELECT trace_id FROM core.trials WHERE run_id IN (SELECT run_key FROM keys)
UNION
SELECT trace_id FROM core.pending_derivations
UNION
SELECT trace_id FROM core.spans
WHERE source_id IN (
    SELECT TRY_CAST(substr(run_key, 8) AS INTEGER) FROM keys WHERE starts_with(run_key, 'source:')
);
