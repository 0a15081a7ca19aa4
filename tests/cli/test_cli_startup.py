"""The command line starts light: importing it, or asking any command for its help, loads none
of the engines — those load once a command opens a store (issue 41; `python -m bench startup`
measures the time, no test times it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from valuechain.cli import main

HEAVY = ("polars", "pyarrow", "duckdb", "ray", "altair", "pandas", "numpy")
SRC = Path(__file__).resolve().parents[2] / "src"


def _loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code`` (said on standard
    error after a marker: what the code prints is not ours to read)."""
    report = f"print('loaded:', *(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    path = os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\n{report}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        check=True,
    )
    marker = [line for line in done.stderr.splitlines() if line.startswith("loaded:")]
    return marker[-1].split()[1:]


def test_importing_the_command_line_loads_no_engine() -> None:
    assert _loaded_after("import valuechain.cli") == []


def test_importing_the_package_loads_no_engine() -> None:
    assert _loaded_after("import valuechain") == []


COMMANDS = sorted(
    [(name,) for name in main.commands if name != "store"]
    + [("store", name) for name in main.commands["store"].commands]  # type: ignore[attr-defined]
)


@pytest.mark.parametrize("command", [(), *COMMANDS], ids=lambda c: " ".join(c) or "valuechain")
def test_every_help_loads_no_engine(command: tuple[str, ...]) -> None:
    run = (
        "from valuechain.cli import main\n"
        f"try:\n    main([*{list(command)!r}, '--help'])\n"
        "except SystemExit as stop:\n    assert stop.code == 0, stop.code"
    )
    assert _loaded_after(run) == []


def test_opening_a_store_loads_the_engines_after_all(tmp_path: Path) -> None:
    """The probe can fail: a command that does its work loads them (so an empty list above is
    the command line's doing, not a probe that sees nothing)."""
    store = tmp_path / "s.duckdb"
    run = (
        "from valuechain.cli import main\n"
        f"try:\n    main(['--store', {str(store)!r}, 'runs'])\n"
        "except SystemExit:\n    pass"
    )
    assert {"duckdb", "polars"} <= set(_loaded_after(run))
