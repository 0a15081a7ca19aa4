-- Purge: quarantined items keep their place, codes and line, not their raw JSON (it may hold
-- content). Grain: updates rows. Reads: core.quarantine.
UPDATE core.quarantine SET raw_json = 'null' WHERE raw_json <> 'null';
