-- Last: no statement may undo the settings above (SET, RESET, PRAGMA).
-- Grain: one setting. Reads: nothing.
SET lock_configuration = true;
