-- No implicit scans of Python variables by name: tables are registered explicitly.
-- Grain: one setting. Reads: nothing.
SET python_enable_replacements = false;
