-- Grain: one row per quarantined item. Reads: staged_quarantine.
INSERT INTO core.quarantine
SELECT source_id, record_index, line, byte_offset, json_path, raw_json, codes
FROM staged_quarantine;
