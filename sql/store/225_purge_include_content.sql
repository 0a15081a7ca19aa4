-- Purge, last: the export no longer includes content, and says so to any later derivation
-- (TRACE-FORMAT §3.6: absent content then reads as redacted, not as missing).
-- Grain: updates rows. Reads: core.attributes.
UPDATE core.attributes SET bool_value = false
WHERE key = 'mcp.app.export.include_content' AND bool_value;
