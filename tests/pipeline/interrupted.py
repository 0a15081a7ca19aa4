"""Run a command interrupted at one exact point (``interrupt_harness.py``) and compare what
two stores hold, row by row.

Imported by name (``from interrupted import …``) by the tests beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from valuechain.cli import main
from valuechain.store import Database

HARNESS = Path(__file__).with_name("interrupt_harness.py")
SRC = Path(__file__).resolve().parents[2] / "src"
# Written by the clock, not by the data: left out when two stores are compared.
_CLOCK_COLUMNS = {
    "sources": ("imported_at",),
    "analytics_runs": ("created_at", "updated_at"),
    "store_operations": ("done_at",),
}
_CLOCK_KEYS = ("createdAt", "updatedAt")

Dump = dict[str, list[tuple[Any, ...]]]


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def harness(
    point: str, sig: str, *args: str | Path, **env: str
) -> subprocess.CompletedProcess[str]:
    """``valuechain ARGS…`` in a child process that sends itself ``sig`` at ``point``.

    Its output goes to files, not pipes: a process it leaves behind holding a pipe would keep
    this call waiting for the pipe's end instead of returning when the child dies.
    """
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        done = subprocess.run(
            [sys.executable, str(HARNESS), point, sig, *map(str, args)],
            stdout=stdout,
            stderr=stderr,
            check=False,  # the signal is the point: the return code is asserted
            env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", **env},
            timeout=300,
            start_new_session="INTERRUPT_GROUP" in env,  # its group's signal reaches no other
        )
        stdout.seek(0)
        stderr.seek(0)
        return subprocess.CompletedProcess(
            done.args, done.returncode, stdout.read().decode(), stderr.read().decode()
        )


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie is dead: it only awaits its reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def comparable(path: Path) -> Dump:
    """Every row of every ``core`` table, the clock's stamps left out, in a stable order."""
    with Database(path, read_only=True) as db:
        names = [
            r[0]
            for r in db.con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'core' AND table_name <> 'meta' ORDER BY table_name"
            ).fetchall()
        ]
        out: Dump = {}
        for name in names:
            exclude = ", ".join(_CLOCK_COLUMNS.get(name, ()))
            columns = f"* EXCLUDE ({exclude})" if exclude else "*"
            rows = db.con.execute(f"SELECT {columns} FROM core.{name} ORDER BY ALL").fetchall()
            if name == "analytics_documents":
                rows = sorted((*row[:-1], _without_clock(row[-1])) for row in rows)
            out[name] = rows
    return out


def _without_clock(document: str) -> str:
    parsed = json.loads(document)
    for key in _CLOCK_KEYS:
        parsed.pop(key, None)
    return json.dumps(parsed, sort_keys=True)
