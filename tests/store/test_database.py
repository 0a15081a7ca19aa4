"""The store's file: schema versions and migrations, opening errors, memory bound, public views."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import orjson
import pytest
from evidence_builders import FIRST_TRACE, contract, request, resource, trial_spans

import valuechain
from valuechain.errors import StoreError, UsageError, VersionAheadError
from valuechain.pipeline.derive import load_trials
from valuechain.pipeline.imports import ImportOptions, import_file, import_paths
from valuechain.store import STORE_SCHEMA_VERSION, Database, open_database
from valuechain.store.migrate import setup_digest, views_digest

Write = Callable[[str, bytes | dict[str, Any]], Path]


Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]


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
            "views_digest": views_digest(),
            "setup_digest": setup_digest(),
        }


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
    assert "run `valuechain store migrate`" in refused.value.render()
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
        assert import_paths(db, [write("a.json", otlp.rich_request())]).ok
        assert _primary_keys(db.con) == {"meta", "sources", "follow_files", "served_requests"}
        before = dump(db)
    con = duckdb.connect(str(path))  # the keys a version 2 store had
    for table, key in _SPAN_TABLE_KEYS.items():
        con.execute(f"ALTER TABLE core.{table} ADD PRIMARY KEY ({key})")
    con.execute("UPDATE core.meta SET value = '2' WHERE key = 'schema_version'")
    assert _primary_keys(con) == {
        "meta",
        "sources",
        "follow_files",
        "served_requests",
        *_SPAN_TABLE_KEYS,
    }
    con.close()
    with Database(path) as db:
        assert _primary_keys(db.con) == {"meta", "sources", "follow_files", "served_requests"}
        assert dump(db) == before  # every row, and version 3 again
        assert import_paths(db, [write("b.json", otlp.request(otlp.span(9)))]).ok


def test_a_version_3_store_gains_resource_identities_and_keeps_every_row(
    tmp_path: Path, otlp: SimpleNamespace, write: Write
) -> None:
    path = tmp_path / "v3.duckdb"
    with Database(path) as db:
        assert import_paths(db, [write("a.json", otlp.request(otlp.span(1)))]).ok
    con = duckdb.connect(str(path))  # the resources and scopes a version 3 store had
    for table in ("resources", "scopes"):
        con.execute(f"ALTER TABLE core.{table} DROP COLUMN content_hash")
    con.execute("UPDATE core.meta SET value = '3' WHERE key = 'schema_version'")
    con.close()
    with Database(path) as db:
        assert db.sql("SELECT count(*) FROM core.resources WHERE content_hash IS NULL").item() == 1
        # the same resource from new bytes: the old row has no identity to match, so it is
        # stored again (once), and from then on matched
        for name in ("b.json", "c.jsonl"):
            data = otlp.request(otlp.span(2))
            assert import_paths(
                db, [write(name, data if name == "b.json" else otlp.ndjson(data))]
            ).ok
        assert db.sql("SELECT count(*) FROM core.resources").item() == 2
        version = db.sql("SELECT value FROM core.meta WHERE key = 'schema_version'").item()
        assert version == str(STORE_SCHEMA_VERSION)


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
        assert _memory_limit(db.con) == _as_duckdb_prints("512MB")  # not 80 % of the machine
    with Database(tmp_path / "a.duckdb", memory_limit="300MB") as db:
        assert _memory_limit(db.con) == _as_duckdb_prints("300MB")
    monkeypatch.setenv("VALUECHAIN_MEMORY_LIMIT", "2GB")
    with Database(tmp_path / "a.duckdb") as db:
        assert _memory_limit(db.con) == _as_duckdb_prints("2GB")
    with pytest.raises(UsageError, match="memory limit 'lots' is not a size") as bad:
        Database(tmp_path / "a.duckdb", memory_limit="lots")  # checked before DuckDB sees it
    assert "512MB" in bad.value.render()
    with Database(tmp_path / "a.duckdb", memory_limit="300MB") as db:  # released after the error
        assert _memory_limit(db.con) == _as_duckdb_prints("300MB")


def test_views_expose_lowercase_hex_ids(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    assert import_paths(db, [write("a.json", otlp.rich_request())]).ok
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


def test_a_trace_split_over_two_imports_is_read_whole(shared: Path, tmp_path: Path) -> None:
    spans = trial_spans(shared)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(orjson.dumps(request(spans[:4], resource(shared))))
    second.write_bytes(orjson.dumps(request(spans[4:], resource(shared))))
    whole = contract(shared, spans)
    with Database(":memory:") as db:
        import_file(db, first, 1, ImportOptions())
        import_file(db, second, 2, ImportOptions())
        rows, attributes = db.trial_rows([bytes.fromhex(FIRST_TRACE)])
        assert rows.num_rows == len(spans)
        assert set(attributes.column("owner_type").to_pylist()) == {"span", "resource"}
        assert sorted(db.trial_sources(rows)) == [1, 2]
        stored = load_trials(db, [FIRST_TRACE.upper()])
        assert load_trials(db, ["ff" * 16]).trials.num_rows == 0
    assert stored.inputs == whole.inputs
    assert stored.producer_chain.equals(whole.producer_chain)
