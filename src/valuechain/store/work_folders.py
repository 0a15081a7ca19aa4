"""Work folders beside an output (an export's staging folder): named by the process that owns
them, and swept away once that process is gone.

A folder written whole and renamed into place is never half there, but a process killed while
writing it (SIGKILL, a power cut) leaves its work folder behind, which nothing would ever
remove. So each carries its owner's pid in its name, ``.NAME.PURPOSE-PID-RANDOM``, and
`sweep` removes those whose owner no longer runs — never one still being written, by this
process or a concurrent one. A ``replaced`` folder (the previous output, moved aside for a
moment while the new one is renamed into place) is put back when its output is missing: the
swap was cut between its two renames.

The exports of a store are recorded beside it (``.STORE.exports``, `remember`), so that
``store vacuum`` can sweep the folders they left (`sweep_remembered`) wherever they went.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from pathlib import Path

STAGING = "export"  # an export being written: .DIR.export-PID-RANDOM
REPLACED = "replaced"  # the export it replaces, moved aside for a moment
EXPORT_WORK_FOLDERS = frozenset({STAGING, REPLACED})
_WORK = re.compile(r"^\.(?P<name>.+)\.(?P<purpose>[a-z]+)-(?P<pid>\d+)-[0-9a-f]{12}$")


def work_folder(target: Path, purpose: str) -> Path:
    """A new name beside ``target`` for a work folder of this process (not created)."""
    return target.parent / f".{target.name}.{purpose}-{os.getpid()}-{uuid.uuid4().hex[:12]}"


def sweep(folder: Path, purposes: frozenset[str]) -> list[Path]:
    """Remove the work folders of ``purposes`` in ``folder`` whose owner is gone (putting a
    ``replaced`` one back where its output is missing); the folders removed or put back."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    swept: list[Path] = []
    for entry in sorted(entries, key=lambda e: _purpose(e) != REPLACED):  # put back first
        found = _WORK.match(entry.name)
        if found is None or found["purpose"] not in purposes or not entry.is_dir():
            continue
        if _running(int(found["pid"])):
            continue
        output = folder / found["name"]
        if found["purpose"] == REPLACED and not output.exists():
            with contextlib.suppress(OSError):
                entry.rename(output)
                swept.append(entry)
            continue
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            swept.append(entry)
    return swept


def remember(store: Path, folder: Path) -> None:
    """Record beside ``store`` that one of its outputs works in ``folder`` (best effort: a
    store on a read-only medium records nothing, and its exports still sweep each other)."""
    registry = _registry(store)
    with contextlib.suppress(OSError):
        if str(folder.parent) in _remembered(registry):
            return
        with registry.open("a", encoding="utf-8") as handle:
            handle.write(f"{folder.parent}\n")


def sweep_remembered(store: Path, purposes: frozenset[str]) -> list[Path]:
    """`sweep` every folder the outputs of ``store`` were written in (`remember`), then
    forget them. Call it holding the store open for writing: no export of it runs then."""
    registry = _registry(store)
    try:
        folders = _remembered(registry)
    except OSError:
        return []
    swept = [path for name in sorted(folders) for path in sweep(Path(name), purposes)]
    with contextlib.suppress(OSError):
        registry.unlink()
    return swept


def _registry(store: Path) -> Path:
    return store.with_name(f".{store.name}.exports")


def _remembered(registry: Path) -> set[str]:
    """The folders recorded (none yet: empty); raises OSError when it cannot be read."""
    try:
        return {line for line in registry.read_text(encoding="utf-8").splitlines() if line}
    except FileNotFoundError:
        return set()


def _purpose(entry: Path) -> str | None:
    found = _WORK.match(entry.name)
    return found["purpose"] if found else None


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs; True where that cannot be asked safely."""
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks
    except ProcessLookupError:
        return False
    except OSError:  # another user's: running
        return True
    return True
