"""A user's script needs no ``if __name__ == "__main__":`` guard (`pipeline.worker_context`).

One unguarded script, run as a real Python process in every way a user runs code: a script
file, piped on stdin, ``-m``, ``-c``, the interactive interpreter and a Jupyter kernel. It
imports a source larger than a decode part with decode *processes*, and the import derives
what an earlier import left pending: more traces than one derive batch, so the staging
workers start too. Before the fix each worker ran the script again (a file or module) and
met the store's lock: ``BrokenProcessPool``, or the script ran more than once.

A probe on the scripts' ``PYTHONPATH`` (a ``sitecustomize``) records which of valuechain's
functions each forked worker unpickles, proving that both pools really ran workers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import valuechain
from valuechain.pipeline.derive import DEFAULT_BATCH_TRACES
from valuechain.synth import SynthConfig, write_export

# blank lines after each block: the interactive interpreter reads it line by line too
SCRIPT = """\
import valuechain

with open("ran.txt", "a") as log:
    log.write("ran\\n")

with valuechain.open("s.duckdb") as store:
    store.import_paths(["small.jsonl"], workers=2, worker_processes=True, batch_bytes=16384)

"""

PROBE = """\
import os
import sys


def _record(event, args):
    if event == "pickle.find_class" and args[0].startswith("valuechain."):
        with open(os.environ["WORKER_LOG"], "a") as log:
            log.write(f"{args[0]}.{args[1]}\\n")


# only in forked processes: the fork server's workers (nothing else here forks)
os.register_at_fork(after_in_child=lambda: sys.addaudithook(_record))
"""

DECODE_TASK = "valuechain.ingest.source.parts.decode_part"
STAGING_TASK = "valuechain.pipeline.handoff.stage_mapped"
BIG = SynthConfig(runs=2, cases=26, models=1, reps=20, seed=7)  # 2 runs of 520 traces
SMALL = SynthConfig(runs=1, cases=2, models=1, reps=2, seed=8)  # 4 traces, ~90 kB
TRIALS = sum(c.runs * c.cases * c.models * c.reps for c in (BIG, SMALL))
TIMEOUT = 300  # seconds: a loaded two-core machine; a run takes a few


@pytest.fixture(scope="module")
def pending(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a store holding two runs imported but not derived (two derive batches)
    and a small export several decode parts long."""
    folder = tmp_path_factory.mktemp("unguarded")
    big = write_export(folder / "big.jsonl", BIG, ndjson=True)
    assert big.trials > DEFAULT_BATCH_TRACES >= big.trials // BIG.runs  # two batches
    write_export(folder / "small.jsonl", SMALL, ndjson=True)
    with valuechain.open(folder / "s.duckdb") as store:
        store.import_paths([folder / "big.jsonl"], derive=False)
    (folder / "big.jsonl").unlink()
    return folder


@pytest.fixture
def folder(pending: Path, tmp_path: Path) -> Path:
    """A fresh copy of the pending store, the small export, the script and the probe."""
    for name in ("s.duckdb", "small.jsonl"):
        shutil.copy(pending / name, tmp_path / name)
    (tmp_path / "s.py").write_text(SCRIPT)
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "sitecustomize.py").write_text(PROBE)
    return tmp_path


def _environment(folder: Path) -> dict[str, str]:
    sources = str(Path(valuechain.__file__).parents[1])  # this checkout's, as in this process
    paths = [str(folder / "probe"), sources, os.environ.get("PYTHONPATH", "")]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in paths if p),
        "WORKER_LOG": str(folder / "workers.log"),
        "VALUECHAIN_DERIVE_WORKERS": "2",
    }


def _run(folder: Path, args: list[str], stdin: str | None = None) -> None:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=folder,
        env=_environment(folder),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr  # the REPL goes on after an error


def _notebook(folder: Path) -> None:
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SCRIPT)])
    client = NotebookClient(
        book,
        timeout=TIMEOUT,
        startup_timeout=180,  # a kernel's start on a busy two-core machine
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute(env=_environment(folder))  # raises CellExecutionError on any error


WAYS: dict[str, Callable[[Path], None]] = {
    "script-file": lambda folder: _run(folder, ["s.py"]),
    "stdin": lambda folder: _run(folder, ["-"], stdin=SCRIPT),
    "module": lambda folder: _run(folder, ["-m", "s"]),
    "command": lambda folder: _run(folder, ["-c", SCRIPT]),
    "repl": lambda folder: _run(folder, ["-q", "-i"], stdin=SCRIPT),
    "notebook": _notebook,
}


@pytest.mark.slow
@pytest.mark.parametrize("way", list(WAYS))
def test_an_unguarded_script_runs_once_and_its_workers_do_the_work(way: str, folder: Path) -> None:
    WAYS[way](folder)
    assert (folder / "ran.txt").read_text() == "ran\n"  # the workers never ran it again
    worked = set((folder / "workers.log").read_text().split())
    assert {DECODE_TASK, STAGING_TASK} <= worked  # both pools' workers did their tasks
    with valuechain.open(folder / "s.duckdb", read_only=True) as store:
        assert store.pending_derivation() is None
        trials = store.sql("SELECT count(*) FROM trials").rows()
        derived = store.sql(
            "SELECT count(DISTINCT trial_id) FROM stage_chain WHERE source = 'derived'"
        ).rows()
    assert trials == derived == [(TRIALS,)]
