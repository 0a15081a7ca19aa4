-- Grain: one row per staged stage_chain row. Reads: staged_stage_chain.
INSERT INTO core.stage_chain BY NAME SELECT * FROM staged_stage_chain;
