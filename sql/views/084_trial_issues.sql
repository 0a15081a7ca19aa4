-- Public view of trial-level issues (TRACE-FORMAT §5.2), ids as lower-case hex.
-- Grain: one row per issue. Reads: core.trial_issues.
CREATE OR REPLACE VIEW main.trial_issues AS
SELECT * REPLACE (lower(hex(trace_id)) AS trace_id)
FROM core.trial_issues;
