"""The command line starts light: importing it, or asking any command for its help, loads none
of the engines — those load once a command opens a store (issue 41; `python -m bench startup`
measures the time, no test times it)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from valuechain.cli import COMMAND_MODULES, main

HEAVY = ("polars", "pyarrow", "duckdb", "ray", "altair", "pandas", "numpy")
SRC = Path(__file__).resolve().parents[2] / "src"


def _env() -> dict[str, str]:
    """This checkout's sources first, in a fresh interpreter too."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }


def _held_after(code: str, modules: Sequence[str], prefix: str = "") -> list[str]:
    """Which of ``modules`` (each after ``prefix``) a fresh interpreter holds after running
    ``code`` (said on standard error after a marker: what the code prints is not ours to read)."""
    held = f"(m for m in {list(modules)!r} if {prefix!r} + m in sys.modules)"
    report = f"print('held:', *{held}, file=sys.stderr)"
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\n{report}"],
        capture_output=True,
        text=True,
        env=_env(),
        check=True,
    )
    marker = [line for line in done.stderr.splitlines() if line.startswith("held:")]
    return marker[-1].split()[1:]


def _loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    return _held_after(code, HEAVY)


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


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    subprocess.run(
        [sys.executable, "-m", "valuechain", "-q", "demo"],
        cwd=folder,
        check=True,
        capture_output=True,
        env=_env(),
    )
    return folder / "valuechain-demo.duckdb"


def _command(store: Path, *args: str) -> str:
    return (
        "from valuechain.cli import main\n"
        f"try:\n    main(['--store', {str(store)!r}, *{list(args)!r}])\n"
        "except SystemExit as stop:\n    assert stop.code == 0, stop.code"
    )


def test_listing_runs_loads_duckdb_alone(demo_store: Path) -> None:
    """`runs` answers from a few Python rows: the DataFrame engines stay unloaded."""
    assert _loaded_after(_command(demo_store, "runs")) == ["duckdb"]


def test_a_frame_of_results_loads_the_engines_after_all(demo_store: Path) -> None:
    """The probe can fail: a command that works on frames loads them (so the lists above are
    the command line's doing, not a probe that sees nothing)."""
    loaded = set(_loaded_after(_command(demo_store, "runs", "--format", "json")))
    assert {"duckdb", "polars", "pyarrow"} <= loaded


def test_the_command_table_names_each_commands_module() -> None:
    """`COMMAND_MODULES` says where every registered command lives, and nothing more."""
    registered = {
        name: command.callback.__module__.rsplit(".", 1)[-1]  # type: ignore[union-attr]
        for name, command in main.commands.items()
        if command.callback is not None
    }
    registered["store"] = "store"  # a group of verbs: its own callback-less section
    assert registered == COMMAND_MODULES


def test_a_command_imports_its_own_module_alone(demo_store: Path) -> None:
    modules = sorted(set(COMMAND_MODULES.values()))
    held = _held_after(_command(demo_store, "runs"), modules, prefix="valuechain.cli.")
    assert held == ["funnels"]
