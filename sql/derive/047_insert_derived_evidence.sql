-- Stamp the touched traces with the spans their chains were just derived from (see 026): every
-- one when this derivation rebuilt all their versions ($replace_all_versions); otherwise only an
-- unstamped trace with no derived chain at another analyzer (this one's chains are all it has).
-- A stamped trace keeps its stamp: the other versions are as old as it says.
-- Grain: one row per stamped trace. Reads: core.spans, core.derived_evidence, core.trials,
-- core.trial_outcome, touched_traces.
INSERT INTO core.derived_evidence
SELECT s.trace_id, count(*), max(s.span_row)
FROM core.spans s
WHERE s.trace_id IN (SELECT trace_id FROM touched_traces)
  AND (
      $replace_all_versions
      OR s.trace_id NOT IN (SELECT trace_id FROM core.derived_evidence)
      AND s.trace_id NOT IN (
          SELECT t.trace_id
          FROM core.trials t
          JOIN core.trial_outcome o USING (trial_id, run_id)
          WHERE o.source = 'derived' AND o.analyzer_version <> $analyzer
      )
  )
GROUP BY s.trace_id;
