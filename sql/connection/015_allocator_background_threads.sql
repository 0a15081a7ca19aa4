-- Memory DuckDB's queries freed goes back to the system within moments, not when the process
-- ends: its allocator otherwise keeps it (reading every trace's run over a 1M-trial store left
-- ~200 MB held; with its background thread, none). Grain: one setting. Reads: nothing.
SET allocator_background_threads = true;
