-- One table's rows as Hive-partitioned Parquet, a folder per suite and run (the partition
-- columns live in the folder names, not in the files); APPEND names every file afresh, so
-- several writers (the scale-out path's workers) may add runs to one table's folder. Runs in
-- the writer's own connection, which reaches only the export's temporary folder.
-- Grain: one file per partition. Reads: export_rows (the store's rows, as Arrow).
-- Params: $path (the table's folder).
COPY (SELECT * FROM export_rows) TO $path
    (FORMAT parquet, PARTITION_BY (suite_id, run_id), APPEND)
