"""Two processes, one store: a second writer, or a reader while an import runs, is told the
store is busy and by whom — or waits when asked (``--wait``) — and nothing is lost, doubled or
seen half-written.

DuckDB's file lock is the mechanism (one writer, or many readers); `store.lock` names it.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from processes import contents, holding, release, spawn, valuechain, wait_until

from valuechain import api
from valuechain.cli import main
from valuechain.errors import StoreBusyError
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export

BUSY = re.compile(r"store is busy \(pid (\d+)[:)].*; retry or use `--wait SECONDS`")


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("exports")
    paths = []
    for seed in range(4):
        path = folder / f"run{seed}.jsonl"
        write_export(path, SynthConfig(runs=1, cases=3, models=2, reps=2, seed=seed), ndjson=True)
        paths.append(path)
    return paths


@pytest.fixture
def store(tmp_path: Path, exports: list[Path]) -> Path:
    path = tmp_path / "s.duckdb"
    assert cli("--store", path, "import", "--workers", "0", exports[0]).exit_code == 0
    return path


# Every command that opens the store, as a writer (w) or a reader (r).
COMMANDS = [
    (("import", "--workers", "0", "{export}"), "w"),
    (("derive",), "w"),
    (("materialize",), "w"),
    (("recompute",), "w"),
    (("recompute", "--dry-run"), "r"),
    (("runs",), "r"),
    (("issues",), "r"),
    (("sql", "SELECT count(*) FROM spans"), "r"),
    (("trend",), "r"),
    (("verify",), "r"),
]


def _args(command: tuple[str, ...], export: Path) -> list[str]:
    return [a.format(export=export) for a in command]


@pytest.mark.parametrize(("command", "kind"), COMMANDS, ids=" ".join)
@pytest.mark.parametrize("holder", ["write", "read"])
def test_a_held_store_says_who_holds_it_and_changes_nothing(
    command: tuple[str, ...], kind: str, holder: str, store: Path, exports: list[Path]
) -> None:
    before = contents(store)
    with holding(store, holder) as child:
        result = cli("--store", store, *_args(command, exports[1]))
        if holder == "read" and kind == "r":  # readers share the store
            assert result.exit_code == 0, result.output
            return
        assert result.exit_code == 1, result.output
        line = " ".join(result.stderr.split())  # the red line and its hint, unwrapped
        assert line.count("error: ") == 1 and line.count(" hint: ") == 1, result.stderr
        found = BUSY.search(line)
        assert found and int(found[1]) == child.pid, line
        assert line.startswith(f"error: {store}: ")
        assert "Traceback" not in result.output
    assert contents(store) == before


def test_the_message_names_the_holding_command(store: Path) -> None:
    with holding(store) as child:
        line = " ".join(cli("--store", store, "runs").stderr.split())  # unwrapped
    assert f"pid {child.pid}: python" in line  # what it runs, from its command line, shortened
    assert "…" in line


def test_wait_waits_for_the_holder_then_runs(store: Path, exports: list[Path]) -> None:
    child_done = threading.Event()
    with holding(store) as child:
        # Release the holder a moment after the waiting command starts; it must then run.
        timer = threading.Timer(1.0, lambda: (release(child), child_done.set()))
        timer.start()
        result = cli("--store", store, "import", "--wait", "120", "--workers", "0", exports[1])
        timer.join()
    assert child_done.is_set()
    assert result.exit_code == 0, result.output
    assert "imported" in result.stdout


@pytest.mark.parametrize("where", ["global", "command"])
def test_wait_gives_up_with_the_same_message_after_its_time(where: str, store: Path) -> None:
    args = ["--wait", "0.3"]
    line = (
        ["--store", str(store), *args, "runs"]
        if where == "global"
        else ["--store", str(store), "runs", *args]
    )
    with holding(store) as child:
        result = cli(*line)
    assert result.exit_code == 1
    said = " ".join(result.stderr.split())  # the red line and its hint, unwrapped
    assert f"store is still busy after waiting 0.3 s (pid {child.pid}" in said
    assert "use a longer `--wait SECONDS`" in said


def test_the_environment_sets_the_wait(store: Path) -> None:
    with holding(store) as child:
        env = {**os.environ, "VALUECHAIN_WAIT": "0.2"}
        result = CliRunner(env=env).invoke(main, ["--store", str(store), "runs"])
    assert f"still busy after waiting 0.2 s (pid {child.pid}" in " ".join(result.stderr.split())


def test_the_library_raises_a_typed_error_and_waits_when_asked(store: Path) -> None:
    with holding(store) as child:
        with pytest.raises(StoreBusyError, match=rf"store is busy \(pid {child.pid}"):
            api.open(store)
        with pytest.raises(StoreBusyError, match=r"still busy after waiting 0\.1 s"):
            api.open(store, read_only=True, wait=0.1)
    with holding(store, "read"):
        api.open(store, read_only=True).close()  # readers share it


def test_concurrent_imports_lose_and_double_nothing(tmp_path: Path, exports: list[Path]) -> None:
    """Four importers at once (two of the same file), each waiting its turn: the store holds
    what one sequential import of the three files holds."""
    reference = tmp_path / "reference.duckdb"
    assert cli("--store", reference, "import", "--workers", "0", *exports[:3]).exit_code == 0
    store = tmp_path / "s.duckdb"
    runs = [exports[0], exports[1], exports[2], exports[1]]
    children = [
        spawn(
            "--store",
            store,
            "import",
            "--wait",
            "300",
            "--workers",
            "0",
            path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for path in runs
    ]
    errors = [child.communicate(timeout=600)[1].decode() for child in children]
    assert [c.returncode for c in children] == [0] * 4, errors
    assert contents(store) == contents(reference)


def test_a_reader_during_an_import_sees_all_of_it_or_none(
    tmp_path: Path, exports: list[Path]
) -> None:
    """Readers polling while imports run: each is refused (busy) or counts the spans of whole
    imports — never a number between them."""
    store = tmp_path / "s.duckdb"
    # The span counts of a prefix of the four exports, imported in order: all a reader may see.
    prefix_counts, total = {0}, 0
    for path in exports:
        reference = tmp_path / f"ref-{path.stem}.duckdb"
        cli("--store", reference, "import", "--workers", "0", path)
        total += contents(reference)["rows:spans"][0]
        prefix_counts.add(total)
    importer = spawn(
        "--store",
        store,
        "import",
        "--workers",
        "0",
        *exports,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: list[str] = []
    busy = 0
    while importer.poll() is None or not seen:
        done = valuechain(
            "--store", store, "sql", "SELECT count(*) AS n FROM spans", "--format", "csv"
        )
        if done.returncode == 0:
            seen.append(done.stdout.split()[-1])
        elif "store is busy" in done.stderr:
            busy += 1
        else:
            assert "no store here yet" in done.stderr or "not undone" in done.stderr, done.stderr
    assert importer.wait() == 0
    assert {int(n) for n in seen} <= prefix_counts, (seen, prefix_counts)
    print(f"{len(seen)} reads, {busy} refused as busy during the import")
    assert wait_until(lambda: valuechain("--store", store, "runs").returncode == 0, 30)
