"""Requests made durable before they are answered: ``serve``'s spool folder.

A request is written to a file of its own in ``<store>.spool/`` beside the store — written
under a temporary name, fsynced, renamed into place and the folder fsynced — and only then
acknowledged. The importer (`serve.importer`) takes the files in name order, imports them
into the store and removes them once their transaction has committed; the store records
each request's sha256 in that same transaction (``core.served_requests``), so a request
whose file outlived a crash between commit and removal is recognised and not imported again.

Names sort in arrival order: ``<received ns, 20 digits>-<sha256>[-<step>].<kind>``; the
name carries the body's sha256, so no cycle reads a body again to know it. A
streaming MCPJam SDK run keeps its bodies in a folder of its own (``run-<runId>/``) until
its ``finalize`` arrives (`serve.mcpjam`).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SUFFIX = ".spool"
PART = ".part"
REJECTED = "rejected"  # a body still being written: never read
# what a spooled body is, by its name's ending
OTLP_PROTO = "otlp.pb"
OTLP_JSON = "otlp.json"
SDK_REPORT = "sdk.json"
KINDS = (OTLP_PROTO, OTLP_JSON, SDK_REPORT)


def spool_folder(store: Path) -> Path:
    """The spool of the store at ``store``: ``<store>.spool`` in the store's folder."""
    return store.with_name(store.name + SUFFIX)


@dataclass(frozen=True, slots=True)
class Spooled:
    """One acknowledged request body waiting in the spool."""

    path: Path
    kind: str
    sha256: str
    size: int

    @property
    def received_ns(self) -> int:
        return int(self.path.name.split("-", 1)[0])


class Spool:
    """The spool folder: `put` a body durably, list what is `pending`, `remove` what is in."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._last_ns = 0
        self.arrivals = 0  # bodies put since start
        for leftover in folder.rglob(f"*{PART}"):  # a body cut by a crash: never acknowledged
            leftover.unlink(missing_ok=True)
        # bytes waiting (bodies of open SDK runs included; not those set aside)
        self.backlog = sum(
            p.stat().st_size
            for p in folder.rglob("*")
            if p.is_file()
            and p.name.split(".", 1)[-1] in KINDS
            and REJECTED not in p.relative_to(folder).parts
        )

    def put(self, body: bytes, kind: str, folder: Path | None = None, label: str = "") -> Spooled:
        """Write ``body`` durably (fsynced, renamed, the folder fsynced); return its entry."""
        sha256 = hashlib.sha256(body).hexdigest()
        with self._lock:  # names strictly increasing, even within one clock tick
            now = max(time.time_ns(), self._last_ns + 1)
            self._last_ns = now
        where = folder or self.folder
        where.mkdir(parents=True, exist_ok=True)
        stem = f"{now:020d}-{sha256}" + (f"-{label}" if label else "")
        final = where / f"{stem}.{kind}"
        part = final.with_name(final.name + PART)
        with part.open("wb") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(part, final)
        fsync_folder(where)
        with self._lock:
            self.backlog += len(body)
            self.arrivals += 1
        return Spooled(final, kind, sha256, len(body))

    def pending(self, folder: Path | None = None) -> list[Spooled]:
        """The bodies waiting in ``folder`` (the spool itself by default), oldest first."""
        out = []
        for path in sorted((folder or self.folder).iterdir()):
            kind = path.name.split(".", 1)[1] if "." in path.name else ""
            if path.is_file() and kind in KINDS:
                out.append(Spooled(path, kind, body_sha256(path), path.stat().st_size))
        return out

    def remove(self, done: Iterable[Spooled]) -> None:
        folders = set()
        for item in done:
            if item.path.exists():
                item.path.unlink(missing_ok=True)
                with self._lock:
                    self.backlog -= item.size
            folders.add(item.path.parent)
        for folder in folders:
            if folder.is_dir():
                fsync_folder(folder)

    def set_aside(self, bodies: Iterable[Spooled]) -> None:
        """Move bodies the import refused to ``rejected/``: out of the way, not lost (an
        ``import`` of them says why)."""
        aside = self.folder / REJECTED
        aside.mkdir(exist_ok=True)
        for body in bodies:
            os.replace(body.path, aside / body.path.name)
            with self._lock:
                self.backlog -= body.size
        fsync_folder(aside)


UTF8_BOM = b"\xef\xbb\xbf"


def batched(body: bytes, kind: str) -> bytes:
    """``body`` as a record of the importer's batch of its kind: a length-prefixed record of
    the collector's ``proto`` format, or one NDJSON line (a body's line breaks are whitespace
    between JSON tokens — inside strings JSON escapes them — so they become spaces and the
    body means what it meant; a leading UTF-8 byte-order mark starts no line: dropped). The
    receiver decodes this, not the body alone, so what it answers 200 the batch reads alike."""
    if kind == OTLP_PROTO:
        return len(body).to_bytes(4, "big") + body
    line = body.removeprefix(UTF8_BOM).replace(b"\r", b" ").replace(b"\n", b" ")
    return line + b"\n"


def body_sha256(path: Path) -> str:
    """The sha256 of a spooled body, from its name (`Spool.put` wrote it there); read from
    the bytes only for a file named otherwise."""
    named = path.name.split(".", 1)[0].split("-")
    if len(named) > 1 and len(named[1]) == 64 and all(c in "0123456789abcdef" for c in named[1]):
        return named[1]
    return sha256_of(path)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while piece := handle.read(1 << 20):
            digest.update(piece)
    return digest.hexdigest()


def fsync_folder(folder: Path) -> None:
    """Make a rename or removal in ``folder`` durable (POSIX: fsync the directory)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["KINDS", "OTLP_JSON", "OTLP_PROTO", "SDK_REPORT", "Spool", "Spooled", "spool_folder"]


def append_durably(path: Path, line: bytes) -> None:
    """Append one line to ``path`` and make it durable before returning."""
    with path.open("ab") as handle:
        handle.write(line + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    fsync_folder(path.parent)
