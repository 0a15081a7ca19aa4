-- Grain: one row per unknown field. Reads: staged_unknown_fields.
INSERT INTO core.unknown_fields
SELECT source_id, record_index, json_path, raw_json FROM staged_unknown_fields;
