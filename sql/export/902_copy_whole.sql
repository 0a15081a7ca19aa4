-- One table's rows as one Parquet file: the tables of no run (import sources and their
-- issues), and the schema-only file of a table without rows (partitioned copies write no file
-- then). Grain: one file. Reads: export_rows. Params: $path (the file).
COPY (SELECT * FROM export_rows) TO $path (FORMAT parquet)
