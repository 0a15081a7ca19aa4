"""``demo`` (and its bundled sample); ``synth`` is covered by tests/test_synth*.py."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from cli_runner import run

from valuechain.cli.sample import sample_export_path


def test_the_bundled_sample_is_found() -> None:
    assert sample_export_path().is_file()


def test_demo_never_touches_the_users_store(
    tmp_path: Path, example_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    before = Path(example_store).read_bytes()
    result = run("--store", example_store, "demo")
    assert result.exit_code == 0, result.output
    assert Path(example_store).read_bytes() == before
    assert (tmp_path / "valuechain-demo.duckdb").exists()


@pytest.mark.usefixtures("wide")
def test_demo_shows_a_funnel_a_failing_trial_a_comparison_and_a_trend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("demo")
    assert result.exit_code == 0, result.output
    text = result.stdout
    shown = (
        "spans by role",
        "passed, failed: measured · not reached, not measured, not applicable: not a pass",
        "run run_7d2d741dbb  suite",
        "where value stopped:",
        "week 5 against week 4: run_1cb7b417db vs run_d9b7ff3711",
        "comparable: no parity blocker",  # a real comparison, not a blocked pair
        "regressed     File a bug about webhooks",
        "6 runs, 2026-01-10 → 2026-02-14",  # one partition: the six weeks trend together
    )
    positions = [text.find(piece) for piece in shown]
    assert all(p >= 0 for p in positions), [
        s for s, p in zip(shown, positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions)  # in this order
    sections = [line for line in text.splitlines() if "───" in line]
    assert len(sections) >= 6
    for title in sections[1:]:  # a blank line before every section
        assert f"\n\n{title}\n" in text, title
    _, _, after = text.partition("next ───")
    nexts = [line.strip() for line in after.splitlines()[1:] if line.strip()]
    assert nexts and all(n.startswith("valuechain --store valuechain-demo.duckdb ") for n in nexts)
    assert not any(word in n for n in nexts for word in ("RUN", "TRIAL_ID", " | "))
    for command in nexts:  # each one runs as printed: real ids
        words = shlex.split(command)[1:]
        done = run(*words)
        assert done.exit_code == 0, (command, done.output)
