"""``serve``: start ``valuechain serve`` on a free port for a test; whatever a test leaves
running is killed at its end."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_harness import Served, Start, start


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "served.duckdb"


@pytest.fixture
def serve() -> Iterator[Start]:
    """``serve(store, *args, interval=0.2)``: a running serve (its port read from the banner,
    /health answering)."""
    running: list[Served] = []

    def begin(store: Path, *args: str, interval: float = 0.2) -> Served:
        served = start(store, *args, interval=interval)
        running.append(served)
        return served

    yield begin
    for served in running:
        if served.proc.poll() is None:
            served.stop(signal.SIGKILL)
