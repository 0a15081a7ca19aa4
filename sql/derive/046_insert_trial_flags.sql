-- Grain: one row per staged trial_flags row. Reads: staged_trial_flags.
INSERT INTO core.trial_flags BY NAME SELECT * FROM staged_trial_flags;
