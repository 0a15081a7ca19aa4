-- As 900_copy_by_run, with a folder per analyzer version below each run's (chains and
-- documents). Grain: one file per partition. Reads: export_rows. Params: $path.
COPY (SELECT * FROM export_rows) TO $path
    (FORMAT parquet, PARTITION_BY (suite_id, run_id, analyzer_version), APPEND)
