"""Ctrl-C, the same for every command: the work stops at once (a runaway query too), one line
on standard error says what was kept and what was undone, the exit code is 130, and the store
is consistent and free again. ``sql --timeout`` and ``Store.sql(timeout=)`` stop a query the
same way, as an error. What an export killed midway leaves the next export and ``store
vacuum`` remove.

A runaway query is interrupted from outside, once the process holds the store; the other
interruptions are real signals the process sends itself at one exact point
(``interrupt_harness.py``), to itself or, as a terminal does, to its whole process group.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from interrupted import SRC, Dump, alive, cli, comparable, harness, wait_until

import valuechain
from valuechain.errors import QueryTimeoutError
from valuechain.store import Database
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export

RUNAWAY = "SELECT count(*) FROM range(10000000000) a, range(1000) b"  # hours of work


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("exports")
    first, second = folder / "first.jsonl", folder / "second.jsonl"
    write_export(first, SynthConfig(runs=2, cases=2, models=2, reps=2, seed=3), ndjson=True)
    write_export(second, SynthConfig(runs=1, cases=3, models=1, reps=2, seed=4), ndjson=True)
    return first, second


@pytest.fixture(scope="module")
def imported(exports: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding both exports, derived (tests read it, or copy it to change it)."""
    store = tmp_path_factory.mktemp("store") / "s.duckdb"
    assert cli("--store", store, "import", "--workers", "0", *exports).exit_code == 0
    return store


@pytest.fixture(scope="module")
def uninterrupted(imported: Path) -> Dump:
    return comparable(imported)


def _one_line(stderr: str) -> str:
    """The only line of ``stderr``, which says the command was interrupted and nothing else."""
    assert "Traceback" not in stderr and "Aborted!" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), stderr
    return lines[0]


def _holds(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open (Linux /proc)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if Path(os.readlink(fd)) == path:
                return True
        except OSError:
            continue
    return False


def test_ctrl_c_stops_a_runaway_query_and_frees_the_store(imported: Path) -> None:
    command = [sys.executable, "-m", "valuechain", "--store", str(imported), "sql", RUNAWAY]
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    child = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, which Ctrl-C reaches as a terminal's does
    )
    try:
        deadline = time.monotonic() + 120
        while not _holds(child.pid, imported.resolve()) and time.monotonic() < deadline:
            assert child.poll() is None, child.communicate()
            time.sleep(0.02)
        os.killpg(child.pid, signal.SIGINT)
        stdout, stderr = child.communicate(timeout=60)  # before: ran on, ignoring it
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert child.returncode == 130, stderr
    assert _one_line(stderr) == "interrupted: nothing was changed"
    assert stdout == ""
    with Database(imported):  # free: a writer may open it
        pass


def test_sql_timeout_stops_the_query_with_an_error(imported: Path) -> None:
    result = cli("--store", imported, "sql", "--timeout", "0.5", RUNAWAY)
    assert result.exit_code == 1
    assert "sql: the query ran longer than 0.5 s and was stopped" in result.stderr
    assert "--timeout" in result.stderr  # the hint
    assert cli("--store", imported, "sql", "--timeout", "60", "SELECT 1 AS one").exit_code == 0
    with Database(imported):  # released
        pass


def test_store_sql_timeout_stops_the_query_and_the_store_stays_usable(imported: Path) -> None:
    with valuechain.open(imported, read_only=True) as store:
        with pytest.raises(QueryTimeoutError, match=r"ran longer than 0\.5 s"):
            store.sql(RUNAWAY, timeout=0.5)
        assert store.sql("SELECT count(*) AS n FROM spans", timeout=60).item() > 0


def test_ctrl_c_in_an_import_keeps_the_committed_sources_and_says_so(
    exports: tuple[Path, Path], uninterrupted: Dump, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    # the first source committed, the second being read
    done = harness("read", "SIGINT", "--store", store, "import", "--workers", "0", *exports)
    assert done.returncode == 130, done.stderr
    assert _one_line(done.stderr) == (
        "interrupted: 1 of 2 files imported and kept; second.jsonl undone (nothing of it was "
        "written); the next writing command (import, derive) derives what is not derived yet"
    )
    with Database(store, read_only=True) as db:
        assert db.sql("SELECT path FROM core.sources").to_series().to_list() == [str(exports[0])]
    again = cli("--store", store, "import", "--workers", "0", *exports)
    assert again.exit_code == 0, again.output
    assert comparable(store) == {
        **uninterrupted,
        "sources": comparable(store)["sources"],  # the second came with another import id
    }


@pytest.mark.parametrize("command", ["import", "derive"])
def test_ctrl_c_at_the_terminal_stops_the_workers_too_and_leaves_nothing_behind(
    command: str, exports: tuple[Path, Path], imported: Path, tmp_path: Path
) -> None:
    """The whole process group gets SIGINT while staging workers run (a derive in batches of
    one run, each committed): no worker's traceback, no worker left, no temporary folder."""
    store = tmp_path / "s.duckdb"
    if command == "derive":
        store.write_bytes(imported.read_bytes())
        args: tuple[str | Path, ...] = ("derive",)
    else:
        args = ("import", "--workers", "0", *exports)
    # short, under /tmp: the fork server's socket lives in TMPDIR, and an AF_UNIX path may not
    # exceed ~107 bytes (pytest's own tmp_path under a CI runner's TMPDIR can be longer)
    temp = Path(tempfile.mkdtemp(prefix="vc-", dir="/tmp"))
    pids = tmp_path / "pids"
    env = {"INTERRUPT_GROUP": "1", "TMPDIR": str(temp), "INTERRUPT_PIDS": str(pids)}
    done = harness("derive-batch", "SIGINT", "--store", store, *args, **env)
    assert done.returncode == 130, done.stderr
    line = _one_line(done.stderr)
    if command == "derive":
        assert line.startswith("interrupted: the chains of ")
        assert line.endswith(
            "the rest keep the ones they had; valuechain derive derives them all again"
        )
    else:
        assert line == (
            "interrupted: 2 of 2 files imported and kept; the next writing command (import, "
            "derive) derives what is not derived yet"
        )
    workers = [int(pid) for pid in pids.read_text().split()]
    assert workers  # the staging workers (and the fork server) ran
    try:
        assert wait_until(lambda: not any(alive(pid) for pid in workers), 30)
    finally:  # never leave them behind, even when the test fails
        for pid in filter(alive, workers):
            os.kill(pid, signal.SIGKILL)
    assert list(temp.iterdir()) == []  # the staging workers' hand-over folder is gone
    temp.rmdir()
    assert cli("--store", store, "runs").exit_code == 0


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _work_folders(folder: Path) -> list[str]:
    """What exports left beside their folders (staging, a replaced export)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_ctrl_c_in_an_export_removes_the_partial_one_and_keeps_the_previous(
    imported: Path, tmp_path: Path
) -> None:
    lake = tmp_path / "exports" / "lake"
    assert cli("--store", imported, "export", "--parquet", lake).exit_code == 0
    previous = _tree(lake)
    args = ("--store", imported, "export", "--parquet", lake, "--overwrite")
    done = harness("export-table", "SIGINT", *args)
    assert done.returncode == 130, done.stderr
    assert _one_line(done.stderr) == (
        f"interrupted: the partial export was removed; {lake.resolve()} is as it was"
    )
    assert _tree(lake) == previous
    assert _work_folders(lake.parent) == []


def test_an_export_killed_midway_leaves_a_folder_the_next_export_or_vacuum_removes(
    imported: Path, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    store.write_bytes(imported.read_bytes())
    lake = tmp_path / "exports" / "lake"
    args = ("--store", store, "export", "--parquet", lake)
    assert harness("export-table", "SIGKILL", *args).returncode == -signal.SIGKILL
    assert [name.split("-")[0] for name in _work_folders(lake.parent)] == [".lake.export"]
    assert cli(*args).exit_code == 0  # the next export
    assert _work_folders(lake.parent) == []
    assert harness("export-table", "SIGKILL", *args, "--overwrite").returncode == -signal.SIGKILL
    assert len(_work_folders(lake.parent)) == 1
    vacuum = cli("--store", store, "store", "vacuum")
    assert vacuum.exit_code == 0, vacuum.output
    assert "removed 1 folder an interrupted export left behind" in vacuum.stdout
    assert _work_folders(lake.parent) == []
    assert _tree(lake)  # the finished export stays
