-- Grain: one row per staged stage_measurements row. Reads: staged_stage_measurements.
INSERT INTO core.stage_measurements BY NAME SELECT * FROM staged_stage_measurements;
