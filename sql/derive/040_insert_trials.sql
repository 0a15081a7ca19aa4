-- Grain: one row per rebuilt trial. Reads: staged_trials.
INSERT INTO core.trials BY NAME SELECT * EXCLUDE (trial_index) FROM staged_trials;
