"""A named path that exists but is no file (a device, a pipe where only files are read, a
socket) is said to be what it is, with what to do instead — never "no such file"."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from valuechain.ingest.source.read import Missing, expand_paths


def _only(patterns: list[str | Path], *, pipes: bool = False) -> Missing:
    (item,) = expand_paths(patterns, pipes=pipes)
    assert isinstance(item, Missing), item
    return item


def test_a_character_device_is_named_and_not_read() -> None:
    missing = _only(["/dev/zero"], pipes=True)
    assert missing.why.startswith("a character device")
    assert missing.hint is not None and "/dev/stdin < FILE" in missing.hint


def test_a_link_to_a_device_is_no_dangling_link(tmp_path: Path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    assert _only([link]).why.startswith("a character device")
    gone = tmp_path / "gone.json"
    gone.symlink_to(tmp_path / "nowhere.json")
    assert "which does not exist" in _only([gone]).why


def test_a_named_pipe_where_only_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "export.json"
    try:
        os.mkfifo(fifo)
    except (AttributeError, OSError):
        pytest.skip("no named pipes here")
    missing = _only([fifo])  # scale's reading: files only
    assert missing.why.startswith("a named pipe, which this command cannot read")
    assert missing.hint is not None and "valuechain import" in missing.hint
    assert expand_paths([fifo], pipes=True) == [fifo]  # import's: read as it streams


def test_a_socket_is_named(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        missing = _only([path], pipes=True)
    assert missing.why == "a socket, not a file valuechain can import"
