-- Public view of trial-level issues (TRACE-FORMAT §5.2); ids are lower-case hex already.
-- Grain: one row per issue. Reads: core.trial_issues.
CREATE OR REPLACE VIEW main.trial_issues AS
SELECT * FROM core.trial_issues;
