"""``valuechain store …`` and ``import --follow`` on the command line: what each prints."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson
import pytest
from cli_runner import run

from valuechain.store import STORE_SCHEMA_VERSION, Database


def test_store_info_reports_versions_sizes_tables_runs_and_sources(example_store: str) -> None:
    result = run("--store", example_store, "store", "info", "--format", "json")
    assert result.exit_code == 0, result.output
    info = orjson.loads(result.stdout)
    assert info["schemaVersion"] == STORE_SCHEMA_VERSION
    assert info["fileBytes"] == Path(example_store).stat().st_size
    assert info["runs"] == 1 and info["sources"] == 1 and info["trials"] == 8
    assert info["tables"]["spans"] > 0 and info["tables"]["store_operations"] == 0
    assert {(a["kind"], a["source"], a["analyzerVersion"]) for a in info["analyzers"]} >= {
        ("chains", "derived", 12),
        ("chains", "producer", 12),
        ("documents", "derived", 12),
    }
    assert info["runsListed"][0]["trials"] == 8
    assert info["sourcesListed"][0]["importedAt"].endswith("Z")
    table = run("--store", example_store, "store", "info")
    assert table.exit_code == 0 and f"schema version {STORE_SCHEMA_VERSION}" in table.output


def test_store_delete_prints_what_it_removed_and_its_dry_run_changes_nothing(
    example_store: str,
) -> None:
    run_id = "run_8d2e1f0a9b"
    data = Path(example_store).read_bytes()
    dry = run("--store", example_store, "store", "delete", "--run", run_id, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.output.startswith(f"run {run_id}: would remove ")
    assert "8 trials" in dry.output
    assert Path(example_store).read_bytes() == data
    done = run("--store", example_store, "store", "delete", "--run", run_id)
    assert done.exit_code == 0 and done.output.startswith(f"run {run_id}: removed ")
    after = run("--store", example_store, "runs")
    assert run_id not in after.output


def test_store_delete_needs_exactly_one_target(example_store: str) -> None:
    assert run("--store", example_store, "store", "delete").exit_code == 2
    both = run("--store", example_store, "store", "delete", "--run", "r", "--source", "s")
    assert both.exit_code == 2


def test_purge_content_and_vacuum_print_what_they_changed(example_store: str) -> None:
    data = Path(example_store).read_bytes()
    dry = run("--store", example_store, "store", "purge-content", "--dry-run")
    assert dry.exit_code == 0 and dry.output.startswith("would drop ")
    assert ", clear the raw JSON of " in " ".join(dry.output.split())  # would … clear
    assert Path(example_store).read_bytes() == data
    done = run("--store", example_store, "store", "purge-content")
    assert done.exit_code == 0 and done.output.startswith("dropped ")
    assert ", cleared the raw JSON of " in " ".join(done.output.split())
    vacuum = run("--store", example_store, "store", "vacuum")
    assert vacuum.exit_code == 0 and "bytes before" in vacuum.output


def test_import_takes_paths_or_follow_not_both(example_store: str, tmp_path: Path) -> None:
    assert run("--store", example_store, "import").exit_code == 2
    both = run("--store", example_store, "import", "x.json", "--follow", tmp_path)
    assert both.exit_code == 2


@pytest.mark.parametrize(
    ("command", "view"), [("coverage", "suite_coverage"), ("trend", "stage_trend")]
)
def test_a_store_whose_views_predate_a_command_reads_with_this_valuechains_views(
    tmp_path: Path, command: str, view: str
) -> None:
    path = tmp_path / "older.duckdb"
    Database(path).close()
    with duckdb.connect(str(path)) as con:  # as a store last written before the command, whose
        con.execute(f"DROP VIEW main.{view}")  # valuechain recorded its own views' digest
        con.execute("UPDATE core.meta SET value = 'older' WHERE key = 'views_digest'")
        con.execute("DELETE FROM core.meta WHERE key = 'setup_digest'")
    # a reading command's open creates this valuechain's views for itself, writing nothing
    before = path.read_bytes()
    assert run("--store", path, command).exit_code == 0
    assert path.read_bytes() == before
    assert run("--store", path, "materialize").exit_code == 0  # a writing one stores them
    with duckdb.connect(str(path), read_only=True) as con:
        stored = "SELECT count(*) FROM duckdb_views() WHERE view_name = $view"
        assert con.execute(stored, {"view": view}).fetchone() == (1,)
    assert run("--store", path, command).exit_code == 0
