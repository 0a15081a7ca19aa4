"""Invoke the command line in-process and read its one red error line (imported by basename)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from valuechain.cli import main

EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"
EXAMPLE_RUN = "run_8d2e1f0a9b"


def run(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    """``valuechain ARGS…``; a traceback fails the test instead of hiding in the result."""
    return CliRunner(env=env).invoke(main, [str(a) for a in args], catch_exceptions=False)


def red_line(result: Result) -> str:
    """The one error line: exactly one non-empty line on stderr, nothing traceback-like."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]
