-- Grain: one row per staged trial_outcome row. Reads: staged_trial_outcome.
INSERT INTO core.trial_outcome BY NAME SELECT * FROM staged_trial_outcome;
