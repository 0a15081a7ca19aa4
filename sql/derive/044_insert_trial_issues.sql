-- Grain: one row per staged trial_issues row. Reads: staged_trial_issues.
INSERT INTO core.trial_issues BY NAME SELECT * FROM staged_trial_issues;
