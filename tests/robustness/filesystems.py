"""A store on a disk that fills, or on a read-only file system — for real where the machine
lets an unprivileged process mount a small tmpfs in its own namespace (``unshare -rm``), else
by the nearest stand-in (a file-size limit: writes fail with EFBIG; a folder without write
permission). Either way the same valuechain code meets a failing write.

    python filesystems.py SCENARIO FOLDER MECHANISM SMALL BIG   # prints a JSON report

Run by ``test_store_cases.py`` (inside ``unshare -rm`` for the tmpfs mechanism).
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from processes import ENV, contents

from valuechain.store import Database

VALUECHAIN = [sys.executable, "-m", "valuechain"]


def namespaces_work() -> bool:
    """Whether this machine lets an unprivileged process mount a tmpfs of its own."""
    try:
        done = subprocess.run(
            ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
            capture_output=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _run(*args: str | Path, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails: EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit or 0, limit or 0))

    return subprocess.run(
        [*VALUECHAIN, *map(str, args)],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
        timeout=600,
        preexec_fn=limited if limit is not None else None,
    )


def _mount(folder: Path, options: str) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=True)


def _remount(folder: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(folder)], check=True)


def full(folder: Path, mechanism: str, small: Path, big: Path) -> dict[str, Any]:
    store = folder / "s.duckdb"
    if mechanism == "tmpfs":
        _mount(folder, "size=8m")
    first = _run("--store", store, "import", "--workers", "0", small)
    before = contents(store)
    limit = 1 << 20 if mechanism == "fsize" else None  # no write past the first MiB
    failed = _run("--store", store, "import", "--workers", "0", big, limit=limit)
    if mechanism == "tmpfs":
        _remount(folder, "size=256m")
    with Database(store):  # the next writable open: an unfinished import is undone
        pass
    after = contents(store)
    again = _run("--store", store, "import", "--workers", "0", big)
    return {
        "first": first.returncode,
        "failed": failed.returncode,
        "said": failed.stderr,
        "intact": before == after,
        "again": again.returncode,
        "again_said": again.stdout + again.stderr,
    }


def read_only(folder: Path, mechanism: str, small: Path, big: Path) -> dict[str, Any]:
    store = folder / "s.duckdb"
    if mechanism == "tmpfs":
        _mount(folder, "size=64m")
    _run("--store", store, "import", "--workers", "0", small)
    before = store.read_bytes()
    if mechanism == "tmpfs":
        _remount(folder, "ro")
    else:
        folder.chmod(0o555)
        store.chmod(0o444)
    writer = _run("--store", store, "import", "--workers", "0", big)
    reader = _run("--store", store, "sql", "SELECT count(*) AS n FROM spans", "--format", "csv")
    return {
        "writer": writer.returncode,
        "said": writer.stderr,
        "reader": reader.returncode,
        "read": reader.stdout,
        "unchanged": store.read_bytes() == before,
    }


if __name__ == "__main__":
    scenario, folder_arg, mechanism_arg, small_arg, big_arg = sys.argv[1:6]
    run = {"full": full, "read-only": read_only}[scenario]
    report = run(Path(folder_arg), mechanism_arg, Path(small_arg), Path(big_arg))
    print(json.dumps(report), flush=True)
