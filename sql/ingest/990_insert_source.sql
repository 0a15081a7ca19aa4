-- The ledger row of the source, written last, once the counts of all its batches are final.
-- Grain: one row. Reads: parameters only.
INSERT INTO core.sources VALUES (
    $source_id, $import_id, $path, $sha256, $bytes_raw, $bytes_decoded, $compression, $framing,
    $encoding_flavor, $status, $records_read, $records_ingested, $records_other_signal,
    $records_quarantined, $spans_read, $span_rows, $spans_quarantined, $spans_deduplicated,
    $attributes_read, $attribute_rows, $attributes_quarantined, $attributes_deduplicated,
    $imported_at
);
