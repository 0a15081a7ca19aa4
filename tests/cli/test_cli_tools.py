"""``demo`` (and its bundled sample); ``synth`` is covered by tests/test_synth*.py."""

from __future__ import annotations

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
def test_demo_shows_spans_a_funnel_and_a_failing_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("demo")
    assert result.exit_code == 0, result.output
    shown = (
        "spans by role",
        "\ntrial    ",
        "run run_7d2d741dbb  suite",
        "trial it_9acdadc414  run",
    )
    for text in (*shown, "where value stopped: selection"):
        assert text in result.stdout, text
    assert result.stdout.endswith('| sql "SELECT * FROM stage_rates LIMIT 5"\n')
