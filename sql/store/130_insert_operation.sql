-- Every store operation that changed the store is logged with what it changed.
-- Grain: one row. Reads: core.store_operations.
INSERT INTO core.store_operations
SELECT coalesce(max(operation_id), 0) + 1, $operation, $target, $details, $valuechain, now()
FROM core.store_operations;
