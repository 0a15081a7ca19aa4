"""What SQL on a store may reach: the store only, and only to read it.

Every store connection starts sandboxed (``sql/connection``): no files, network, extensions or
secrets beyond the store itself (valuechain hands DuckDB Arrow tables, never paths), then the
configuration is locked so no statement can lift it. A user's SQL (``Store.sql``, ``valuechain
sql``) must also be one read — classified by DuckDB's own parser — and runs inside a transaction
that is always rolled back, so even a read with a side effect leaves the store as it was.
Changes go through the verbs (import, derive, materialize) only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from valuechain.errors import StoreError, UsageError
from valuechain.store import lock, sqlfiles
from valuechain.store.disk import cannot_open, damage
from valuechain.store.integrity import check_length
from valuechain.store.interrupt import time_limit

if TYPE_CHECKING:  # loaded where used: opening a store loads no engine but DuckDB
    import polars as pl

# A new store is written in DuckDB's v1.2.0 storage format: every DuckDB client from 1.2.0 on
# reads it (the newest format, DuckDB 2.0's default, no client before 2.0 can), for ~3 % more
# file than the newest; v1.0.0's format would reach back one more release for ~19 % more.
STORAGE_COMPATIBILITY = "v1.2.0"
# Statement types that only read. EXPLAIN is one when what it explains is (EXPLAIN ANALYZE runs it).
_READS = frozenset({duckdb.StatementType.SELECT})
_EXPLAIN = re.compile(
    r"^(\s|--[^\n]*\n|/\*.*?\*/)*EXPLAIN(\s+ANALYZE)?\s", re.IGNORECASE | re.DOTALL
)
_CHANGES_HINT = (
    "the store is opened read-only here: change it through valuechain's verbs "
    "(import, derive, materialize)"
)
_TABLE_FUNCTION_HINT = (
    "the store is opened read-only here; to read a table function use its SELECT form, e.g. "
    "SELECT * FROM pragma_table_info('spans'), or DESCRIBE spans"
)
_LIST_VIEWS = 'list the views with: valuechain sql "SHOW TABLES"'
# DuckDB's names of statement types as SQL spells them, where the two differ.
_SPELLED = {"VARIABLE_SET": "SET VARIABLE", "CREATE_FUNC": "CREATE FUNCTION"}
# Keywords spelled with a vowel but said with a "yoo": "a UNION", "a USE" (but "an UPDATE").
_SAID_YOO = frozenset({"UNION", "UNIQUE", "USE", "USING"})


def sandbox(
    con: duckdb.DuckDBPyConnection,
    where: str,
    *,
    memory_limit: str,
    allowed_directories: Sequence[Path] = (),
) -> None:
    """Apply the settings of ``sql/connection`` to a fresh connection, locking them last.

    DuckDB keeps one database instance per file and process: a second connection to a store
    already open in this process shares its (locked) settings, and may not ask for others.
    """
    allowed = [str(Path(d).resolve()) + os.sep for d in allowed_directories]
    settings = sqlfiles.statement("query/connection_settings.sql")
    locked, current = con.execute(settings.text).fetchall()[0]
    if str(locked).lower() == "true":
        missing = [d for d in allowed if d not in list(current)]
        if missing:
            raise StoreError(
                where,
                f"the store is already open in this process without access to {missing[0]}",
                "close the other handle on the store first",
            )
        return
    params = {"memory_limit": memory_limit, "allowed_directories": allowed}
    for sql in sqlfiles.folder("connection"):
        try:
            con.execute(sql.text, sql.bind(params))
        except duckdb.Error as exc:
            if "memory_limit" in sql.params:
                raise StoreError(
                    where,
                    f"memory limit {memory_limit!r} not understood ({exc})",
                    "give a size such as 512MB or 2GB (--memory-limit or $VALUECHAIN_MEMORY_LIMIT)",
                ) from exc
            raise StoreError(where, f"cannot open the store safely ({exc})") from exc


def read_only_sql(
    con: duckdb.DuckDBPyConnection,
    query: str,
    params: dict[str, object] | None = None,
    *,
    timeout: float | None = None,
) -> pl.DataFrame:
    """Run one reading statement of a user's and return its result; anything else is refused.
    Stopped after ``timeout`` seconds (`QueryTimeoutError`; None: no limit)."""
    import polars as pl

    check_reads_only(query)
    con.begin()
    try:
        with time_limit(con, timeout, "sql"):
            relation = con.sql(query, params=params or None)
            table = None if relation is None else relation.to_arrow_table()
        frame = pl.DataFrame() if table is None else pl.from_arrow(table)
    except duckdb.InterruptException:
        raise  # stopped (Ctrl-C): not the query's fault
    except duckdb.Error as exc:
        if damage(exc, "") is not None:
            raise  # the store's fault, not the query's: the damaged-store error where it is
        raise query_error(exc) from exc
    finally:
        con.rollback()  # a read leaves nothing behind, whatever it called
    assert isinstance(frame, pl.DataFrame)
    return frame


def check_reads_only(query: str) -> None:
    """Refuse, with a named reason, anything but exactly one statement that only reads."""
    statements = _statements(query)
    if not statements:
        raise UsageError("sql", "there is no statement to run", _LIST_VIEWS)
    for statement in statements:
        _check_read(statement)
    if len(statements) > 1:
        raise UsageError(
            "sql", f"{len(statements)} statements given; one at a time", "run each on its own"
        )


def _check_read(statement: duckdb.Statement) -> None:
    try:
        kind = statement.type
    except ValueError as exc:  # a statement type the Python binding has no name for
        raise UsageError("sql", "a statement of an unknown kind is refused", _CHANGES_HINT) from exc
    if kind in _READS:
        return
    if kind is duckdb.StatementType.EXPLAIN:
        inner = _EXPLAIN.sub("", statement.query, count=1)
        if inner != statement.query:
            for explained in _statements(inner):
                _check_read(explained)
            return
    if kind in (duckdb.StatementType.PRAGMA, duckdb.StatementType.CALL):
        raise UsageError("sql", f"{kind.name} statements are refused", _TABLE_FUNCTION_HINT)
    raise UsageError(
        "sql", f"{a_statement(kind.name)} is refused: SQL here only reads", _CHANGES_HINT
    )


def a_statement(kind: str) -> str:
    """``a DELETE statement``, ``an ATTACH statement``: DuckDB's statement type ``kind`` as SQL
    spells it, with the article its first keyword's sound takes."""
    words = _SPELLED.get(kind, kind.replace("_", " "))
    first = words.split()[0]
    article = "an" if first[0] in "AEIOU" and first not in _SAID_YOO else "a"
    return f"{article} {words} statement"


def query_error(exc: duckdb.Error) -> UsageError:
    """DuckDB's own error, as the user's to fix, with the hint that applies to it."""
    first, _, rest = str(exc).partition("\n")
    problem = first.rstrip(".!") if first else type(exc).__name__
    # DuckDB's own help stays: "Did you mean …?", the candidates, the query and its caret
    detail = "\n".join(line.rstrip() for line in rest.strip("\n").splitlines()) or None
    if isinstance(exc, duckdb.PermissionException):
        hint = (
            "SQL here reads the store only; valuechain sql --allow-files DIR (or "
            "valuechain.open(..., allow_files=DIR)) opens one folder for reading"
        )
    elif isinstance(exc, duckdb.ParserException):
        hint = "the SQL is DuckDB's dialect; " + _LIST_VIEWS
    elif isinstance(exc, duckdb.InvalidInputException) and "locked" in problem:
        hint = "settings are fixed by valuechain (--memory-limit sets the memory limit)"
    else:
        hint = _LIST_VIEWS
    return UsageError("sql", problem, hint, detail=detail)


def _statements(query: str) -> list[duckdb.Statement]:
    try:
        return list(duckdb.extract_statements(query))
    except duckdb.Error as exc:
        raise query_error(exc) from exc


def connect(
    path: Path,
    *,
    read_only: bool,
    memory_limit: str,
    allowed: Sequence[Path] = (),
    wait: float = 0.0,
) -> duckdb.DuckDBPyConnection:
    """A sandboxed connection to the DuckDB file at ``path`` (``sql/connection``); while
    another process holds the file, wait up to ``wait`` seconds (then `StoreBusyError`). A
    file cut short is refused before DuckDB opens it (a writable open would write to it)."""
    check_length(path)
    try:
        con = lock.connect(
            str(path),
            read_only=read_only,
            wait=wait,
            config={"storage_compatibility_version": STORAGE_COMPATIBILITY},
        )
    except duckdb.Error as exc:
        raise cannot_open(str(path), exc) from exc
    try:
        sandbox(con, str(path), memory_limit=memory_limit, allowed_directories=allowed)
    except StoreError:
        con.close()
        raise
    return con
