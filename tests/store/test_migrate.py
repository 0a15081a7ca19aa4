"""Upgrading a store (issue 20): ``store migrate`` from a real older store, safely.

The fixture is a store valuechain wrote at schema version 6 (fixtures/stores). A read-only
open of it names the command; ``--dry-run`` changes nothing; the migration runs on a copy
that replaces the store only when complete (a failure leaves it byte for byte), keeps a
backup, and the migrated store holds what a fresh import of the same export holds. A
read-only open after an upgrade of valuechain never meets views of another version.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from cli_runner import red_line, run

import valuechain
from valuechain.errors import StoreError, VersionAheadError
from valuechain.pipeline.imports import import_paths
from valuechain.store import STORE_SCHEMA_VERSION, Database, migrate
from valuechain.store.maintenance import migrate_store

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "stores"


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "old.duckdb"
    path.write_bytes(gzip.decompress((FIXTURES / "schema-v6.duckdb.gz").read_bytes()))
    return path


def _version(path: Path) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return int(
            con.execute("SELECT value FROM core.meta WHERE key = 'schema_version'").fetchall()[0][0]
        )
    finally:
        con.close()


def _contents(db: Database) -> dict[str, Any]:
    """What the store holds, without wall-clock stamps and paths."""
    out: dict[str, Any] = {}
    for table in ("stage_chain", "trial_outcome", "stage_measurements", "stage_funnel"):
        out[table] = db.con.execute(f"SELECT * FROM core.{table} ORDER BY ALL").fetchall()
    out["spans"] = db.con.execute(
        "SELECT trace_id, span_id, name, content_hash FROM core.spans ORDER BY ALL"
    ).fetchall()
    docs = []
    for (text,) in db.con.execute(
        "SELECT document FROM core.analytics_documents ORDER BY run_id, chain_source"
    ).fetchall():
        doc = orjson.loads(text)
        doc.pop("createdAt", None)
        doc.pop("updatedAt", None)
        docs.append(doc)
    out["documents"] = docs
    return out


def test_the_fixture_is_an_older_store() -> None:
    assert STORE_SCHEMA_VERSION > 6


def test_a_read_only_open_of_an_older_store_names_the_command(old_store: Path) -> None:
    data = old_store.read_bytes()
    with pytest.raises(StoreError, match="schema version 6, older") as refused:
        valuechain.open(old_store, read_only=True)
    assert "run `valuechain store migrate`" in refused.value.render()
    result = run("--store", old_store, "runs")
    assert result.exit_code == 1
    assert f"valuechain --store {old_store} store migrate" in red_line(result)  # the same store
    assert old_store.read_bytes() == data


def test_migrate_dry_run_changes_nothing(old_store: Path) -> None:
    data = old_store.read_bytes()
    result = run("--store", old_store, "store", "migrate", "--dry-run")
    assert result.exit_code == 0, result.output
    assert f"would migrate the store from schema version 6 to {STORE_SCHEMA_VERSION}" in (
        result.output
    )
    assert "nothing was changed" in result.output
    assert old_store.read_bytes() == data
    assert sorted(p.name for p in old_store.parent.iterdir()) == ["old.duckdb"]


def test_migrate_upgrades_keeps_a_backup_and_holds_what_a_fresh_import_holds(
    old_store: Path, tmp_path: Path
) -> None:
    data = old_store.read_bytes()
    result = run("--store", old_store, "store", "migrate")
    assert result.exit_code == 0, result.output
    backup = tmp_path / "old.duckdb.v6.bak"
    assert f"migrated the store from schema version 6 to {STORE_SCHEMA_VERSION}" in result.output
    assert str(backup) in result.output
    assert backup.read_bytes() == data
    assert _version(old_store) == STORE_SCHEMA_VERSION
    assert not list(tmp_path.glob(".*"))  # no work file left behind
    export = tmp_path / "export.jsonl"
    export.write_bytes(gzip.decompress((FIXTURES / "schema-v6-export.jsonl.gz").read_bytes()))
    with Database(tmp_path / "fresh.duckdb") as fresh:
        assert import_paths(fresh, [export]).ok
        expected = _contents(fresh)
    with Database(old_store, read_only=True) as db:  # reading works again
        assert _contents(db) == expected
        ops = db.con.execute("SELECT operation, details FROM core.store_operations").fetchall()
        assert [(o, orjson.loads(d)) for o, d in ops] == [
            ("migrate", {"from": 6, "to": STORE_SCHEMA_VERSION})
        ]
    again = run("--store", old_store, "store", "migrate")
    assert "nothing to do" in again.output


def test_a_failing_migration_leaves_the_store_byte_for_byte(
    old_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = old_store.read_bytes()
    real = migrate.create

    def failing(con: duckdb.DuckDBPyConnection, stored: int | None) -> None:
        real(con, stored)  # every statement ran on the copy …
        raise duckdb.IOException("disk full")  # … and then the disk filled up

    monkeypatch.setattr(migrate, "create", failing)
    with pytest.raises(StoreError, match="the store was not changed"):
        migrate_store(old_store, memory_limit="1GB")
    with pytest.raises(StoreError, match="the store was not changed"):
        Database(old_store)  # a writing command's open migrates the same safe way
    assert old_store.read_bytes() == data
    assert sorted(p.name for p in old_store.parent.iterdir()) == ["old.duckdb"]


def test_a_writing_open_migrates_the_same_safe_way(old_store: Path) -> None:
    with Database(old_store) as db:
        assert db.migrated_from == 6
    assert _version(old_store) == STORE_SCHEMA_VERSION
    assert sorted(p.name for p in old_store.parent.iterdir()) == ["old.duckdb"]


def test_a_newer_store_is_refused_by_migrate(old_store: Path) -> None:
    con = duckdb.connect(str(old_store))
    con.execute("UPDATE core.meta SET value = '999' WHERE key = 'schema_version'")
    con.close()
    data = old_store.read_bytes()
    with pytest.raises(VersionAheadError, match="newer than this"):
        migrate_store(old_store, memory_limit="1GB")
    assert old_store.read_bytes() == data


def test_a_read_only_open_never_meets_views_of_another_version(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    export = tmp_path / "export.jsonl"
    export.write_bytes(gzip.decompress((FIXTURES / "schema-v6-export.jsonl.gz").read_bytes()))
    with valuechain.open(path) as store:
        assert store.import_paths([export]).ok
        expected = store.runs()
        names = [
            n
            for (n,) in store.db.con.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'"
            ).fetchall()
        ]
        rows = {
            n: store.db.con.execute(f"SELECT * FROM {n} ORDER BY ALL").fetchall() for n in names
        }
    con = duckdb.connect(str(path))  # the views an older valuechain left behind
    con.execute("CREATE OR REPLACE VIEW main.runs AS SELECT run_id FROM core.run_summary")
    con.execute("UPDATE core.meta SET value = 'older' WHERE key = 'views_digest'")
    con.close()
    data = path.read_bytes()
    with valuechain.open(path, read_only=True) as store:
        assert store.db.views_refreshed
        assert store.runs().equals(expected)
        con = store.db.con
        assert {n: con.execute(f"SELECT * FROM {n} ORDER BY ALL").fetchall() for n in names} == rows
    result = run("--store", path, "runs", "--format", "json")
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == data  # reading changed nothing
    with valuechain.open(path) as store:  # a writable open rebuilds the stored views
        pass
    with valuechain.open(path, read_only=True) as store:
        assert not store.db.views_refreshed
