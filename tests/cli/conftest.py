"""Stores for the command-line tests: a fresh path, a small one with issues, the spec example."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_runner import EXAMPLE, run

from valuechain.cli.app import out

Write = Callable[[str, bytes | dict[str, Any]], Path]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """Where a test's store goes; nothing is there yet."""
    return tmp_path / "cli.duckdb"


@pytest.fixture
def filled(store: Path, otlp: SimpleNamespace, write: Write) -> Path:
    """Two imports: odd values (NaN, bytes, a time beyond int64, an unknown kind) and a bad id."""
    huge = 11651379494838206464  # beyond 2^53 and beyond int64 (conformance file 03)
    request = otlp.request(
        otlp.span(
            1,
            attributes=[
                {"key": "ratio", "value": {"doubleValue": "NaN"}},
                {"key": "blob", "value": {"bytesValue": "AQL/"}},
            ],
        ),
        otlp.span(2, startTimeUnixNano=str(huge), endTimeUnixNano=str(huge), kind=42),
    )
    assert run("--store", store, "import", write("filled.json", request)).exit_code == 0
    other = otlp.request(otlp.span(3, spanId="s01"), otlp.span(4))
    assert run("--store", store, "import", write("other.json", other)).exit_code == 0
    return store


@pytest.fixture
def example_store(tmp_path: Path, shared: Path) -> str:
    """The spec example export (one run, eight trials with producer chains), imported."""
    path = str(tmp_path / "s.duckdb")
    result = run("--store", path, "import", shared / EXAMPLE)
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Terminal tables 200 columns wide, so no cell wraps (the console is not a terminal)."""
    monkeypatch.setattr(out, "width", 200)
