-- Delete: a source that keeps spans lists the ones it still has (the ledger check compares
-- them); what it lost is in core.store_operations. Grain: updates rows. Reads: st_sources.
UPDATE core.sources l
SET span_rows = l.span_rows - d.spans
FROM st_sources d
WHERE d.source_id = l.source_id AND NOT d.emptied AND d.spans > 0;
