"""The DuckDB store: atomic per-source commits, the import ledger, schema versions, public views."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

import valuechain
from valuechain.errors import StoreError, VersionAheadError
from valuechain.pipeline.imports import ImportOptions, import_paths, ledger_of
from valuechain.store import STORE_SCHEMA_VERSION, Database, SourceWriter, open_database, sqlfiles

Write = Callable[[str, bytes | dict[str, Any]], Path]
Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]


def _rich_request(otlp: SimpleNamespace) -> dict[str, Any]:
    """One request touching every table: resource, scope, spans, attributes, events, links."""
    return otlp.request(
        otlp.span(1),
        otlp.span(
            2,
            parentSpanId=f"{1:016x}",
            spanId="AAAAAAAAAAI=",  # base64 of ...02, to exercise the hex views
            events=[
                {
                    "timeUnixNano": str(otlp.START_NS),
                    "name": "e",
                    "attributes": [{"key": "x", "value": {"boolValue": True}}],
                }
            ],
            links=[{"traceId": otlp.TRACE_ID.upper(), "spanId": f"{1:016X}"}],
            attributes=[
                {"key": "big", "value": {"stringValue": "x" * 100}},
                {"key": "odd", "value": {"weird": 1}},
            ],
        ),
        otlp.span(3, spanId="0x03"),  # quarantined
    )


def test_reimporting_the_same_bytes_changes_nothing(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    path = write("a.json", _rich_request(otlp))
    options = ImportOptions(
        decode=dataclasses.replace(ImportOptions().decode, large_value_threshold=50)
    )
    (first,) = import_paths(db, [path], options).sources
    assert first.outcome == "imported"
    before = dump(db)
    assert all(
        before[t]
        for t in (
            "spans",
            "events",
            "links",
            "attributes",
            "large_values",
            "quarantine",
            "unknown_fields",
            "issues",
        )
    )
    copy = write("copy-of-a.json", path.read_bytes())
    report = import_paths(db, [path, copy], options)
    assert [s.outcome for s in report.sources] == ["unchanged", "unchanged"]
    assert report.ok
    assert dump(db) == before


def test_store_file_persists_and_reopens(
    tmp_path: Path, otlp: SimpleNamespace, write: Write
) -> None:
    target = tmp_path / "vc.duckdb"
    with valuechain.open(target) as store:
        assert store.import_paths([write("a.json", otlp.request(otlp.span(1)))]).ok
    with valuechain.open(target, read_only=True) as store:
        assert store.sql("SELECT count(*) AS n FROM spans").item() == 1
        meta = dict(store.sql("SELECT key, value FROM core.meta").rows())
        assert meta == {
            "schema_version": str(STORE_SCHEMA_VERSION),
            "created_by": valuechain.__version__,
        }


def test_strict_rejects_a_source_with_an_error_issue(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    ok = write("ok.json", otlp.request(otlp.span(1)))
    warned = write("warned.json", otlp.request(otlp.span(2, kind=77)))  # warning only
    bad = write("bad.json", otlp.request(otlp.span(3), otlp.span(4, spanId="s01")))
    before = dump(db)
    report = import_paths(db, [bad], ImportOptions(strict=True))
    (source,) = report.sources
    assert source.outcome == "rejected"
    assert source.error is not None and source.error.code == "E_BAD_ID_ENCODING"
    assert "(--strict)" in source.error.problem
    assert "short label" in source.error.problem
    assert source.error.pointer == "line 1: resourceSpans[0].scopeSpans[0].spans[1].spanId"
    assert dump(db) == before
    report = import_paths(db, [ok, warned, bad], ImportOptions(strict=True))
    assert [s.outcome for s in report.sources] == ["imported", "imported", "rejected"]
    report = import_paths(db, [bad])  # without --strict the good span is kept
    assert [s.outcome for s in report.sources] == ["imported"]
    assert db.sql("SELECT count(*) FROM core.quarantine").item() == 1


def test_strict_rejects_a_partial_stream(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    data = otlp.ndjson(otlp.request(otlp.span(1)))[:-1] + b"\n" + b'{"resourceSpans": ['
    before = dump(db)
    (source,) = import_paths(db, [write("live.jsonl", data)], ImportOptions(strict=True)).sources
    assert source.outcome == "rejected"
    assert source.error is not None and source.error.code == "E_TRUNCATED_RECORD"
    assert source.error.pointer == "line 2"
    assert dump(db) == before


def _version_ahead_store(path: Path) -> bytes:
    with Database(path):
        pass
    con = duckdb.connect(str(path))
    con.execute("UPDATE core.meta SET value = '999' WHERE key = 'schema_version'")
    con.close()
    return path.read_bytes()


def test_a_newer_store_is_refused_and_not_modified(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    before = _version_ahead_store(path)
    for read_only in (False, True):
        with pytest.raises(VersionAheadError) as caught:
            open_database(path, read_only=read_only)
        message = str(caught.value)
        assert str(path) in message
        assert "schema version 999" in message
        assert f"understands ({STORE_SCHEMA_VERSION})" in message
        assert "upgrade valuechain" in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["future.duckdb"]  # no WAL either
    con = duckdb.connect(str(path), read_only=True)  # still an intact DuckDB file
    assert con.execute("SELECT value FROM core.meta WHERE key = 'schema_version'").fetchone() == (
        "999",
    )
    con.close()


def test_an_older_store_is_upgraded_in_place_when_opened_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with Database(path):
        pass
    con = duckdb.connect(str(path))  # a version 1 store from before trial_issues held hex text
    con.execute("DROP VIEW IF EXISTS main.trial_issues")
    con.execute("ALTER TABLE core.trial_issues ALTER COLUMN trace_id TYPE BLOB")
    con.execute(
        "INSERT INTO core.trial_issues (trace_id, severity, code, message, occurrences) "
        "VALUES ('\\xAB\\x01'::BLOB, 'warning', 'W_X', 'm', 1)"
    )
    con.execute("UPDATE core.meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(StoreError, match="schema version 1, older") as refused:
        open_database(path, read_only=True)
    assert "upgrades the store in place" in refused.value.render()
    with Database(path) as db:
        assert db.sql("SELECT trace_id FROM core.trial_issues").item() == "ab01"
        version = db.sql("SELECT value FROM core.meta WHERE key = 'schema_version'").item()
        assert version == str(STORE_SCHEMA_VERSION)
        assert db.sql("SELECT count(*) FROM trial_issues").item() == 1  # the view is back
    with Database(path, read_only=True) as db:  # and read-only opens work again
        assert db.sql("SELECT typeof(trace_id) FROM core.trial_issues").item() == "VARCHAR"


_SPAN_TABLE_KEYS = {
    "resources": "resource_row",
    "scopes": "scope_row",
    "spans": "span_row",
    "events": "event_row",
    "links": "link_row",
    "large_values": "large_value_ref",
}


def _primary_keys(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_constraints() "
        "WHERE schema_name = 'core' AND constraint_type = 'PRIMARY KEY'"
    ).fetchall()
    return {r[0] for r in rows}


def test_a_version_2_store_loses_the_span_table_keys_and_keeps_every_row(
    tmp_path: Path, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    path = tmp_path / "v2.duckdb"
    with Database(path) as db:
        assert import_paths(db, [write("a.json", _rich_request(otlp))]).ok
        assert _primary_keys(db.con) == {"meta", "sources"}
        before = dump(db)
    con = duckdb.connect(str(path))  # the keys a version 2 store had
    for table, key in _SPAN_TABLE_KEYS.items():
        con.execute(f"ALTER TABLE core.{table} ADD PRIMARY KEY ({key})")
    con.execute("UPDATE core.meta SET value = '2' WHERE key = 'schema_version'")
    assert _primary_keys(con) == {"meta", "sources", *_SPAN_TABLE_KEYS}
    con.close()
    with Database(path) as db:
        assert _primary_keys(db.con) == {"meta", "sources"}
        assert dump(db) == before  # every row, and version 3 again
        assert import_paths(db, [write("b.json", otlp.request(otlp.span(9)))]).ok


def test_open_errors_are_store_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store here yet"):
        open_database(tmp_path / "missing.duckdb", read_only=True)
    not_a_db = tmp_path / "notes.duckdb"
    not_a_db.write_text("hello")
    with pytest.raises(StoreError, match="cannot open the store"):
        open_database(not_a_db)
    assert not_a_db.read_text() == "hello"


def test_store_env_variable_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, otlp: SimpleNamespace, write: Write
) -> None:
    target = tmp_path / "from-env.duckdb"
    monkeypatch.setenv("VALUECHAIN_STORE", str(target))
    with valuechain.open() as store:
        assert store.path == str(target)
        assert store.import_paths([write("a.json", otlp.request(otlp.span(1)))]).ok
    assert target.is_file()
    monkeypatch.delenv("VALUECHAIN_STORE")
    monkeypatch.chdir(tmp_path)
    with valuechain.open() as store:
        assert store.path == "valuechain.duckdb"
    assert (tmp_path / "valuechain.duckdb").is_file()


def _memory_limit(con: duckdb.DuckDBPyConnection) -> str:
    value = con.execute("SELECT current_setting('memory_limit')").fetchone()
    assert value is not None
    return str(value[0])


def _as_duckdb_prints(limit: str) -> str:
    """How DuckDB prints a limit (rounded, e.g. 1GB → ``953.6 MiB``), from a plain connection."""
    with duckdb.connect() as con:
        con.execute("SET memory_limit = $limit", {"limit": limit})
        return _memory_limit(con)


def test_the_engine_memory_is_bounded_by_default_and_configurable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VALUECHAIN_MEMORY_LIMIT", raising=False)
    with Database(tmp_path / "a.duckdb") as db:
        assert _memory_limit(db.con) == _as_duckdb_prints("1GB")  # not 80 % of the machine
    with Database(tmp_path / "a.duckdb", memory_limit="300MB") as db:
        assert _memory_limit(db.con) == _as_duckdb_prints("300MB")
    monkeypatch.setenv("VALUECHAIN_MEMORY_LIMIT", "2GB")
    with Database(tmp_path / "a.duckdb") as db:
        assert _memory_limit(db.con) == _as_duckdb_prints("2GB")
    with pytest.raises(StoreError, match="memory limit 'lots' not understood") as bad:
        Database(tmp_path / "a.duckdb", memory_limit="lots")
    assert "512MB" in bad.value.render()
    with Database(tmp_path / "a.duckdb", memory_limit="300MB") as db:  # released after the error
        assert _memory_limit(db.con) == _as_duckdb_prints("300MB")


def test_views_expose_lowercase_hex_ids(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    assert import_paths(db, [write("a.json", _rich_request(otlp))]).ok
    hex32, hex16 = r"^[0-9a-f]{32}$", r"^[0-9a-f]{16}$"
    checks = {
        "spans": {"trace_id": hex32, "span_id": hex16, "parent_span_id": hex16},
        "events": {"trace_id": hex32, "span_id": hex16},
        "links": {
            "trace_id": hex32,
            "span_id": hex16,
            "linked_trace_id": hex32,
            "linked_span_id": hex16,
        },
        "attributes": {"trace_id": hex32, "span_id": hex16},
        "traces": {"trace_id": hex32},
    }
    for view, columns in checks.items():
        for column, pattern in columns.items():
            values = db.sql(f"SELECT DISTINCT {column} AS v FROM {view} WHERE {column} IS NOT NULL")
            assert values.height > 0, (view, column)
            assert all(values["v"].str.contains(pattern)), (view, column, values)
    assert db.sql("SELECT span_id FROM spans ORDER BY span_row").to_series().to_list() == [
        "0000000000000001",
        "0000000000000002",
    ]
    assert db.sql("SELECT linked_span_id, target_present FROM links").row(0) == (
        "0000000000000001",
        True,
    )


def test_the_ingest_views_exist(db: Database) -> None:
    views = db.sql(
        "SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal"
    )
    ingest = {"spans", "events", "links", "attributes", "imports", "issues", "traces"}
    assert ingest <= set(views.to_series())  # later stages add their own views


def test_every_sql_file_loads_and_has_a_header() -> None:
    for folder in ("schema", "views", "ingest"):
        files = sqlfiles.folder(folder)
        assert files
        for sql in files:
            assert sql.text.startswith("--"), sql.name
            assert "Grain" in sql.text, sql.name


def test_a_failed_commit_rolls_back_everything(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
    before = dump(db)
    real = sqlfiles.folder

    def broken(name: str) -> tuple[sqlfiles.SqlFile, ...]:
        files = real(name)
        if name != "ingest":
            return files
        # fail after spans, attributes, events and links were written, before the ledger row
        return tuple(
            sqlfiles.SqlFile(f.name, "SELECT error('disk on fire')")
            if f.name.endswith("_insert_issues.sql")
            else f
            for f in files
        )

    monkeypatch.setattr(sqlfiles, "folder", broken)
    path = write("second.json", _rich_request(otlp))
    with pytest.raises(duckdb.Error, match="disk on fire"):
        import_paths(db, [path])
    assert dump(db) == before
    monkeypatch.setattr(sqlfiles, "folder", real)
    (source,) = import_paths(db, [path]).sources  # not mistaken for already imported
    assert source.outcome == "imported"


def test_the_writer_refuses_a_rejected_source(db: Database, dump: Dump) -> None:
    decoded = valuechain.decode(b"not json")
    assert decoded.status == "rejected"
    before = dump(db)
    with pytest.raises(ValueError, match="never written"), SourceWriter(db, "x", 1) as writer:
        writer.finish(ledger_of(decoded), [])
    assert dump(db) == before


def test_import_ids_group_the_sources_of_one_call(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    a, b = write("a.json", otlp.request(otlp.span(1))), write("b.json", otlp.request(otlp.span(2)))
    assert import_paths(db, [a, b]).ok
    assert import_paths(db, [write("c.json", otlp.request(otlp.span(3)))]).ok
    assert db.sql("SELECT import_id FROM imports ORDER BY source_id").to_series().to_list() == [
        1,
        1,
        2,
    ]


# ------------------------------------------------------------------ paths
def test_directories_globs_and_missing_paths(
    db: Database, otlp: SimpleNamespace, write: Write, tmp_path: Path
) -> None:
    write("dir/a.json", otlp.request(otlp.span(1)))
    write("dir/sub/b.jsonl", otlp.ndjson(otlp.request(otlp.span(2))))
    write("dir/.hidden/c.json", otlp.request(otlp.span(3)))
    write("dir/notes.txt", b"not an export")
    write("glob/x.json", otlp.request(otlp.span(4)))
    write("glob/y.json", otlp.request(otlp.span(5)))
    report = import_paths(
        db, [tmp_path / "dir", str(tmp_path / "glob" / "*.json"), tmp_path / "nope.json"]
    )
    outcomes = {Path(s.path).name: s.outcome for s in report.sources}
    assert outcomes == {
        "a.json": "imported",
        "b.jsonl": "imported",
        "x.json": "imported",
        "y.json": "imported",
        "nope.json": "rejected",
    }
    missing = next(s for s in report.sources if s.outcome == "rejected")
    assert missing.error is not None and missing.error.code == "E_UNREADABLE"
    assert "no such file" in missing.error.render()
    assert report.skipped == [tmp_path / "dir" / "notes.txt"]  # said, not silently dropped


def test_a_directory_without_export_files_is_rejected_not_silently_empty(
    db: Database, write: Write, tmp_path: Path
) -> None:
    write("logs/readme.txt", b"nothing to import")
    report = import_paths(db, [tmp_path / "logs"])
    (source,) = report.sources
    assert source.outcome == "rejected" and source.error is not None
    assert "no export files in this directory" in source.error.render()
    assert ".jsonl" in source.error.render()
    assert report.skipped == [tmp_path / "logs" / "readme.txt"]


def test_rotated_collector_files_are_read_oldest_first(
    db: Database, otlp: SimpleNamespace, write: Write, tmp_path: Path
) -> None:
    write("out/data.json", otlp.ndjson(otlp.request(otlp.span(3))))
    write("out/data-2024-01-02T00-00-00.000.json", otlp.ndjson(otlp.request(otlp.span(2))))
    write("out/data-2024-01-01T00-00-00.000.json", otlp.ndjson(otlp.request(otlp.span(1))))
    assert import_paths(db, [tmp_path / "out"]).ok
    order = db.sql("SELECT path FROM imports ORDER BY source_id").to_series().to_list()
    assert [Path(p).name for p in order] == [
        "data-2024-01-01T00-00-00.000.json",
        "data-2024-01-02T00-00-00.000.json",
        "data.json",
    ]


# ---------------------------------------------------------------------------- batches commit
def _batched() -> ImportOptions:
    """Options that cut an NDJSON source into one batch per line or so (several commits)."""
    return ImportOptions(decode=dataclasses.replace(ImportOptions().decode, batch_bytes=64))


def _failing_on_batch(monkeypatch: pytest.MonkeyPatch, n: int) -> dict[str, int]:
    """The ``n``-th batch of the next import fails after the earlier ones committed; the
    returned dict tells how many spans were stored and marked conflicting at that moment."""
    real_add = SourceWriter.add
    seen = {"calls": 0}

    def add(self: SourceWriter, *args: Any) -> None:
        seen["calls"] += 1
        if seen["calls"] == n:
            counts = self.con.execute(
                "SELECT count(*), count(dup_group) FROM core.spans"
            ).fetchone()
            assert counts is not None
            seen["spans"], seen["marked"] = counts
            raise RuntimeError("disk on fire")
        real_add(self, *args)

    monkeypatch.setattr(SourceWriter, "add", add)
    return seen


def test_a_source_failing_after_committed_batches_leaves_the_store_as_it_was(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the stored span 1 and the new source's first span 1 conflict: the import marks the stored
    # one with a dup_group in its first batch, and undoing the import must clear it again
    assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
    before = dump(db)
    lines = [otlp.request(otlp.span(1, name="changed"))]
    lines += [otlp.request(otlp.span(n)) for n in range(2, 12)]
    path = write("second.jsonl", otlp.ndjson(*lines))
    seen = _failing_on_batch(monkeypatch, 4)
    with pytest.raises(RuntimeError, match="disk on fire"):
        import_paths(db, [path], _batched())
    assert seen["spans"] > 2 and seen["marked"] == 2  # earlier batches had committed
    assert dump(db) == before
    monkeypatch.undo()
    (source,) = import_paths(db, [path], _batched()).sources
    assert source.outcome == "imported"
    marked = db.sql("SELECT count(*) FROM core.spans WHERE dup_group IS NOT NULL").item()
    assert marked == 2


def test_an_import_cut_short_by_a_crash_is_undone_when_the_store_next_opens(
    tmp_path: Path, otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "crash.duckdb"
    with Database(store) as db:
        assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
        before = dump(db)
    lines = [otlp.request(otlp.span(n, trace_id=f"{n:032x}")) for n in range(2, 12)]
    path = write("second.jsonl", otlp.ndjson(*lines))
    seen = _failing_on_batch(monkeypatch, 4)
    monkeypatch.setattr(SourceWriter, "abort", lambda self: None)  # the process dies here
    with Database(store) as db, pytest.raises(RuntimeError, match="disk on fire"):
        import_paths(db, [path], _batched())
    assert seen["spans"] > 2  # batches had committed
    monkeypatch.undo()
    with pytest.raises(StoreError, match="interrupted") as refused:
        Database(store, read_only=True)
    assert "undoes the unfinished import" in refused.value.render()
    with Database(store) as db:
        assert dump(db) == before
        (source,) = import_paths(db, [path], _batched()).sources
        assert source.outcome == "imported"
        assert db.sql("SELECT count(*) FROM core.spans").item() == 11
