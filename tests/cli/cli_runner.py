"""Invoke the command line in-process and read its one red error and hint (imported by basename)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from valuechain.cli import main

EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"
EXAMPLE_RUN = "run_8d2e1f0a9b"


def run(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    """``valuechain ARGS…``; a traceback fails the test instead of hiding in the result."""
    return CliRunner(env=env).invoke(main, [str(a) for a in args], catch_exceptions=False)


def red_line(result: Result, label: str = "error:") -> str:
    """The one error: an ``error:`` line (wrapped at 80 columns, continued indented) and at
    most one ``hint:`` line under it, nothing else on stderr, nothing traceback-like.

    Returns the whole message, its wrapped lines joined: ``error: … hint: …``."""
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines and lines[0].startswith(f"{label} "), result.stderr
    # a line is wider than 80 only to keep one word (a path) whole
    assert all(len(line) <= 80 or len(line.split()) <= 2 for line in lines), result.stderr
    starts = [line.split(" ", 1)[0] for line in lines if not line.startswith("  ")]
    assert starts in ([label], [label, "hint:"]), result.stderr
    return " ".join(" ".join(lines).split())


def error_and_hint(result: Result, label: str = "error:") -> tuple[str, str | None]:
    """The error (without ``error:``) and its hint (without ``hint:``), each unwrapped."""
    message = red_line(result, label).removeprefix(f"{label} ")
    problem, _, hint = message.partition(" hint: ")
    return problem, hint or None
