-- The most memory the engine may use; it spills to the store's own .tmp folder beyond it.
-- Grain: one setting. Reads: nothing.
SET memory_limit = $memory_limit;
