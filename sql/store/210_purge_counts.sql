-- Purge, step 2: what the purge changes (what --dry-run reports), each a count of rows it
-- deletes or rewrites. Grain: one row.
-- Reads: st_gated, core.quarantine, core.unknown_fields, core.attributes.
SELECT
    (SELECT count(*) FROM st_gated WHERE action = 'drop')                  AS dropped,
    (SELECT count(*) FROM st_gated WHERE action = 'cut')                   AS rewritten,
    (SELECT count(DISTINCT large_value_ref) FROM st_gated
     WHERE large_value_ref IS NOT NULL)                                    AS large_values,
    (SELECT count(*) FROM core.quarantine WHERE raw_json <> 'null')        AS quarantined,
    (SELECT count(*) FROM core.unknown_fields WHERE raw_json <> 'null')    AS unknown_fields,
    (SELECT count(*) FROM core.attributes
     WHERE key = 'mcp.app.export.include_content' AND bool_value)          AS include_content;
