"""Other processes on one store: a holder that keeps it open, valuechain as a child process,
and what two stores hold compared by content (row ids depend on the order of imports).

Imported by name (``from processes import …``); see ``conftest.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from valuechain.store import Database

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}

# Opens the store as valuechain does, says so, and holds it until its stdin closes.
_HOLD = """
import sys, valuechain
store = valuechain.open(sys.argv[1], read_only=sys.argv[2] == "read")
print("holding", flush=True)
sys.stdin.read()
store.close()
"""


@contextmanager
def holding(store: Path, mode: str = "write") -> Iterator[subprocess.Popen[str]]:
    """Another process with ``store`` open (``mode``: write or read) for the block's length."""
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(store), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "holding\n"
        yield child
    finally:
        release(child)


def release(child: subprocess.Popen[str]) -> None:
    if child.stdin is not None and not child.stdin.closed:
        child.stdin.close()
    child.wait(timeout=60)


def valuechain(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``valuechain ARGS…`` as a child process, its output to files (never a pipe it could
    leave open behind it)."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        done = spawn(*args, stdout=stdout, stderr=stderr)
        done.wait(timeout=600)
        stdout.seek(0)
        stderr.seek(0)
        return subprocess.CompletedProcess(
            done.args, done.returncode, stdout.read().decode(), stderr.read().decode()
        )


def spawn(*args: str | Path, **kw: Any) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "valuechain", *map(str, args)]
    return subprocess.Popen(command, env=ENV, **kw)


def wait_until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def contents(store: Path) -> dict[str, Any]:
    """What a store holds, independent of the order its sources came in: the number of rows
    of every ``core`` table, the ledger by content, every span's identity, every analytics
    document without its clock stamps."""
    with Database(store, read_only=True) as db:
        con = db.con
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'core' AND table_name <> 'meta' ORDER BY 1"
            ).fetchall()
        ]
        out: dict[str, Any] = {
            f"rows:{t}": con.execute(f"SELECT count(*) FROM core.{t}").fetchone() for t in tables
        }
        out["ledger"] = sorted(
            con.execute(
                "SELECT sha256, status, span_rows, spans_read, attributes_read FROM core.sources"
            ).fetchall()
        )
        out["spans"] = sorted(
            con.execute("SELECT trace_id, span_id, content_hash FROM core.spans").fetchall()
        )
        out["trials"] = sorted(
            con.execute("SELECT trial_id, status, exclusion_class FROM core.trials").fetchall()
        )
        documents = con.execute("SELECT document FROM core.analytics_documents").fetchall()
        out["documents"] = sorted(_without_clock(d) for (d,) in documents)
    return out


def _without_clock(document: str) -> str:
    parsed = json.loads(document)
    for key in ("createdAt", "updatedAt"):
        parsed.pop(key, None)
    return json.dumps(parsed, sort_keys=True)


def assert_ledger_balanced(db: Database) -> None:
    """TRACE-FORMAT §5.1 on every ledger row, the store's deduplication included."""
    unbalanced = db.fetch_one(
        "SELECT count(*) FROM core.sources WHERE records_read <> records_ingested "
        "+ records_other_signal + records_quarantined OR spans_read <> span_rows "
        "+ spans_quarantined + spans_deduplicated OR attributes_read <> attribute_rows "
        "+ attributes_quarantined + attributes_deduplicated"
    )
    assert unbalanced == (0,)
