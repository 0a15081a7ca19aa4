"""The command line: thin click commands over ``api``, one module per group of verbs."""

from __future__ import annotations

from valuechain.cli.app import CommandsOnDemand, main

# Where each command lives: a command's module is imported when the command is asked for, so
# ``valuechain runs`` loads `funnels` and none of the other modules' option machinery
# (tests/cli/test_cli_startup.py checks this table against what the modules register).
COMMAND_MODULES = {
    "compare": "compare",
    "coverage": "coverage",
    "demo": "tools",
    "derive": "chains",
    "export": "export",
    "funnel": "funnels",
    "import": "ingest",
    "issues": "ingest",
    "materialize": "funnels",
    "recompute": "recompute",
    "report": "report",
    "runs": "funnels",
    "scale": "scale",
    "schema": "funnels",
    "serve": "serve",
    "sql": "ingest",
    "store": "store",
    "synth": "tools",
    "trend": "trend",
    "trial": "chains",
    "trials": "chains",
    "verdict": "verdict",
    "verify": "chains",
}
main.commands = CommandsOnDemand({name: f"{__name__}.{m}" for name, m in COMMAND_MODULES.items()})

__all__ = ["COMMAND_MODULES", "main"]
