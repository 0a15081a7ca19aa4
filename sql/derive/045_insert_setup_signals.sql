-- Grain: one row per staged setup_signals row. Reads: staged_setup_signals.
INSERT INTO core.setup_signals BY NAME SELECT * FROM staged_setup_signals;
