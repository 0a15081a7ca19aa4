"""SQL a user might send to escape the store or change it, shared by the CLI and API tests.

Each escape names the files beside the store it tries to reach (``{secret}`` and friends, made
by `outside_files`); every one must fail and leave those files and the store as they were.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

# (name, SQL, a fragment of the error): reaching past the store.
ESCAPES: tuple[tuple[str, str, str], ...] = (
    ("copy onto another store", "COPY (SELECT 1 AS a) TO '{other}' (FORMAT csv)", "COPY"),
    ("read_csv", "SELECT * FROM read_csv('{secret_csv}')", "disabled by configuration"),
    ("read_csv_auto", "SELECT * FROM read_csv_auto('/etc/passwd')", "disabled by configuration"),
    ("a file by name", "SELECT * FROM '{secret_csv}'", "disabled by configuration"),
    ("read_text", "SELECT * FROM read_text('{secret_csv}')", "disabled by configuration"),
    ("read_blob", "SELECT * FROM read_blob('{other}')", "disabled by configuration"),
    ("glob", "SELECT * FROM glob('{outside}/*')", "disabled by configuration"),
    ("glob /root", "SELECT * FROM glob('/root/*')", "disabled by configuration"),
    ("read_parquet", "SELECT * FROM read_parquet('{secret_parquet}')", "disabled by config"),
    ("read_json", "SELECT * FROM read_json('{secret_json}')", "disabled by configuration"),
    ("sniff_csv", "SELECT * FROM sniff_csv('{secret_csv}')", "disabled by configuration"),
    ("http", "SELECT * FROM read_csv('https://example.com/a.csv')", "disabled by configuration"),
    ("attach", "ATTACH '{other}' AS other", "ATTACH"),
    ("detach", "DETACH other", "DETACH"),
    ("install", "INSTALL httpfs", "LOAD"),
    ("load", "LOAD httpfs", "LOAD"),
    ("export database", "EXPORT DATABASE '{outside}/dump'", "EXPORT"),
    ("set", "SET enable_external_access = true", "SET"),
    ("reset", "RESET lock_configuration", "SET"),
    ("pragma", "PRAGMA enable_profiling", "PRAGMA"),
    ("call", "CALL pragma_table_info('spans')", "CALL"),
    ("secrets", "SELECT * FROM duckdb_secrets()", "disabled by configuration"),
    ("create secret", "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')", "CREATE"),
    ("a statement inside query()", "SELECT * FROM query('DELETE FROM core.spans')", "SELECT"),
    ("a Python variable", "SELECT * FROM secret_frame", "secret_frame"),
    ("a COPY after a read", "SELECT 1; COPY (SELECT 1) TO '{outside}/x.csv'", "COPY"),
)

# (SQL, a fragment of the error): changing the store.
CHANGES: tuple[tuple[str, str], ...] = (
    ("DELETE FROM core.spans WHERE true", "DELETE"),
    ("DELETE FROM core.sources", "DELETE"),
    ("DROP TABLE core.spans", "DROP"),
    ("DROP VIEW spans", "DROP"),
    ("UPDATE core.spans SET name = 'x'", "UPDATE"),
    ("INSERT INTO core.meta VALUES ('k', 'v')", "INSERT"),
    ("CREATE TABLE t AS SELECT 1", "CREATE"),
    ("CREATE OR REPLACE VIEW spans AS SELECT 1 AS x", "CREATE"),
    ("CREATE MACRO m() AS 1", "CREATE"),
    ("ALTER TABLE core.spans ADD COLUMN x INTEGER", "ALTER"),
    ("MERGE INTO core.meta USING core.meta AS m ON true WHEN MATCHED THEN DELETE", "MERGE"),
    ("TRUNCATE core.spans", "DELETE"),
    ("BEGIN", "TRANSACTION"),
    ("CHECKPOINT", "CALL"),
    ("VACUUM", "VACUUM"),
    ("USE core", "SET"),
    ("PREPARE p AS DELETE FROM core.spans", "PREPARE"),
    ("EXPLAIN ANALYZE DELETE FROM core.spans", "DELETE"),  # ANALYZE runs it
    ("SELECT 1; DELETE FROM core.spans", "DELETE"),
    ("UPDATE EXTENSIONS", "unknown kind"),
)

# Reads that must keep working.
READS: tuple[str, ...] = (
    "SELECT count(*) AS n FROM spans",
    "WITH s AS (SELECT * FROM spans) SELECT count(*) FROM s",
    "FROM spans SELECT name",
    "VALUES (1, 'a')",
    "SHOW TABLES",
    "DESCRIBE spans",
    "SUMMARIZE spans",
    "EXPLAIN SELECT * FROM spans",
    "EXPLAIN ANALYZE SELECT * FROM spans",
    "-- a comment first\nSELECT 1 AS one;",
    "SELECT * FROM pragma_table_info('spans')",
    "SELECT count(*) FROM core.spans",
)


def outside_files(folder: Path) -> dict[str, str]:
    """Files beside the store a query must not reach, as the ``{names}`` of the cases."""
    folder.mkdir(parents=True, exist_ok=True)
    secret_csv = folder / "secret.csv"
    secret_csv.write_text("user,password\nroot,hunter2\n")
    (folder / "secret.json").write_text('{"password": "hunter2"}')
    pl.DataFrame({"password": ["hunter2"]}).write_parquet(folder / "secret.parquet")
    other = folder / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE kept AS SELECT 42 AS answer")
    return {
        "outside": str(folder),
        "secret_csv": str(secret_csv),
        "secret_json": str(folder / "secret.json"),
        "secret_parquet": str(folder / "secret.parquet"),
        "other": str(other),
    }


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its bytes, to show nothing was written there."""
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
