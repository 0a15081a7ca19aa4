-- Stamp the touched traces with the spans their chains were just derived from (see 026): every
-- one when this derivation rebuilt all their versions ($replace_all_versions); otherwise only an
-- unstamped trace with no derived chain at another analyzer (this one's chains are all it has).
-- A stamped trace keeps its stamp: the other versions are as old as it says.
-- The stamps (span count, last span row per trace) come staged with the batch: its rows were
-- every stored span of its traces, and the touched traces' trials are staged_trials now (040),
-- so nothing here reads more of the store than the batch's own rows. The stamps already stored
-- are looked up for the batch's traces first (`stamped`: a semi join built on the batch), not
-- probed per staged row against a hash of every stamp in the store, which grew with the store.
-- Grain: one row per stamped trace. Reads: staged_derived_evidence, staged_trials,
-- core.derived_evidence, core.trial_outcome.
WITH stamped AS (
    SELECT d.trace_id
    FROM core.derived_evidence d
    WHERE d.trace_id IN (SELECT trace_id FROM staged_derived_evidence)
)
INSERT INTO core.derived_evidence
SELECT e.trace_id, e.span_count, e.last_span_row
FROM staged_derived_evidence e
WHERE $replace_all_versions
   OR NOT EXISTS (SELECT 1 FROM stamped d WHERE d.trace_id = e.trace_id)
  AND NOT EXISTS (
      SELECT 1
      FROM staged_trials t
      JOIN core.trial_outcome o ON o.trial_id = t.trial_id AND o.run_id = t.run_id
      WHERE t.trace_id = e.trace_id
        AND o.source = 'derived'
        AND o.analyzer_version <> $analyzer
  );
