"""The I/O shell of ingest: which files a user meant, in which order, and their bytes.

Directories and globs expand to export files; rotated collector files are read in rotation
order, oldest first, the live file last (TRACE-FORMAT §5.3).
"""

from __future__ import annotations

import glob
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

READ_CHUNK = 1 << 20  # bytes per read of a source file
EXPORT_SUFFIXES = frozenset(
    {".json", ".jsonl", ".ndjson", ".gz", ".zst", ".zstd", ".pb", ".otlp", ".bin", ".proto"}
)
# data.json → data-2022-09-14T05-02-14.173.json (the collector's rotation naming)
_ROTATED = re.compile(
    r"^(?P<stem>.+)-(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)"
    r"(?P<ext>(?:\.[^.]+)*)$"
)


@dataclass(frozen=True, slots=True)
class Missing:
    """A path or pattern that matched nothing, or names nothing a reader can read (``why``
    says what was looked for, or what the path is; ``hint``, when given, what to do instead
    of the unreadable code's general hint)."""

    pattern: str
    why: str = "no such file, directory or matching glob"
    hint: str | None = None


NOT_AN_EXPORT_NAME = "not an export by name"
STDIN = "/dev/stdin"  # what ``-`` names where pipes are read (``import``)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file inside a named directory that is not read, and why (its name is not an
    export's; a symlink whose target does not exist)."""

    path: Path
    why: str = NOT_AN_EXPORT_NAME


def expand_paths(
    patterns: Iterable[str | Path], *, pipes: bool = False
) -> list[Path | Missing | Skipped]:
    """Files named by ``patterns`` (files, directories, globs), each once, in reading order.

    A directory yields its export files (by suffix, hidden ones aside); its other files come
    back as ``Skipped``, and a directory without a single export file as ``Missing``. With
    ``pipes``, a named pipe (``<(zcat …)``, ``/dev/stdin``) is a source too, read once as it
    streams (a reader that opens a path twice or elsewhere — scale-out — cannot take one),
    and ``-`` is standard input, piped or redirected."""
    out: list[Path | Missing | Skipped] = []
    seen: set[Path] = set()
    for pattern in patterns:
        text = str(pattern)
        path = Path(STDIN if pipes and text == "-" else text)  # "-": standard input
        if path.is_dir():
            entries = sorted(p for p in path.rglob("*") if not _hidden(p.relative_to(path)))
            files = [p for p in entries if p.is_file()]
            found = [p for p in files if _is_export(p)]
            out.extend(Skipped(p) for p in files if not _is_export(p))
            out.extend(_dangling(p) for p in entries if p.is_symlink() and not p.exists())
            if not found:
                suffixes = " ".join(sorted(EXPORT_SUFFIXES))
                out.append(Missing(text, f"no export files in this directory ({suffixes})"))
                continue
        elif path.is_file() or (pipes and path.is_fifo()):  # a pipe named on purpose
            found = [path]
        elif path.is_symlink() and not path.exists():  # named, but its target is gone
            out.append(Missing(text, _dangling(path).why))
            continue
        elif path.exists() or text == "-":  # a device, a socket, a pipe here: never read
            out.append(_not_a_file(text, path, pipes=pipes))
            continue
        else:
            found = [Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file()]
            if not found:
                out.append(Missing(text))
                continue
        for file in rotation_order(found):
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                out.append(file)
    return out


def rotated_name(path: Path) -> bool:
    """Whether the name is a collector's rotated file (a timestamp before the extension)."""
    return _ROTATED.match(path.name) is not None


def rotation_order(files: Iterable[Path]) -> list[Path]:
    """Sort so that each live file follows its rotated predecessors, oldest first."""

    def key(path: Path) -> tuple[str, int, str, str]:
        match = _ROTATED.match(path.name)
        if match:
            base = str(path.parent / (match["stem"] + match["ext"]))
            return base, 0, match["ts"], path.name
        return str(path), 1, "", path.name  # the live file sorts after its rotations

    return sorted(files, key=key)


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _is_export(path: Path) -> bool:
    return bool(set(path.suffixes) & EXPORT_SUFFIXES)


_STDIN_HINT = "pipe or redirect the export into /dev/stdin: valuechain import /dev/stdin < FILE"


def _not_a_file(text: str, path: Path, *, pipes: bool = False) -> Missing:
    """Why a path that exists but is no file or directory is not read: what it is, and what
    to do instead. ``/dev/zero`` would be read forever, a terminal waits for typing."""
    if text == "-" and pipes:  # standard input, but nothing piped or redirected into it
        return Missing(
            text,
            "standard input is no pipe or file: nothing is piped or redirected into it",
            "valuechain import - < FILE, or: zcat FILE.gz | valuechain import -",
        )
    if text == "-":  # not a path here: standard input has a name of its own
        return Missing(text, "'-' does not name standard input here", _STDIN_HINT)
    if path.is_char_device():
        what = "a character device (such as a terminal or /dev/zero)"
        return Missing(text, f"{what}, not a file valuechain can import", _STDIN_HINT)
    if path.is_fifo():  # only where ``pipes`` is off: a reader that opens a path twice
        return Missing(
            text,
            "a named pipe, which this command cannot read (it opens each file more than once)",
            "save the pipe's bytes to a file first, or use valuechain import, which reads a "
            "pipe as it streams",
        )
    what = "a block device" if path.is_block_device() else "a socket"
    return Missing(text, f"{what}, not a file valuechain can import", "name an export file instead")


def _dangling(path: Path) -> Skipped:
    try:
        target = str(path.readlink())
    except OSError:  # unreadable link: say what we know
        target = "an unreadable target"
    return Skipped(path, f"a symlink to {target}, which does not exist")


def file_chunks(
    path: Any, size: int = READ_CHUNK, on_read: Callable[[int], None] | None = None
) -> Iterator[bytes]:
    """The bytes of the file at ``path``, ``size`` at a time; ``on_read(n)`` after each read
    of ``n`` bytes (progress: the bytes consumed so far are the sum)."""
    with open(path, "rb") as handle:
        while piece := handle.read(size):
            if on_read is not None:
                on_read(len(piece))
            yield piece
