"""Stores for the HTML report's tests: the demo store and the trend tests' partitioned one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "materialize"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "query"))

from report_outline import report_of
from trend_store import partitioned_store

import valuechain
from valuechain.cli.sample import sample_export_path
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``valuechain demo`` imports: the bundled sample export, two runs."""
    path = tmp_path_factory.mktemp("report-demo") / "valuechain-demo.duckdb"
    with valuechain.open(path) as store:
        assert store.import_paths([sample_export_path()]).ok
    return path


@pytest.fixture(scope="session")
def decided_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One synthetic run decided under verdict policy v2 (``synth --verdict-policy
    --failures``): its failing cases have case verdicts, failed and passed."""
    folder = tmp_path_factory.mktemp("report-decided")
    export = folder / "decided.json"
    write_export(export, SynthConfig(cases=3, failures=True, verdict_policy=True, seed=0))
    path = folder / "decided.duckdb"
    with valuechain.open(path) as store:
        assert store.import_paths([export]).ok
    return path


@pytest.fixture(scope="session")
def trend_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Partitions, blocked and unmeasured runs, and a run whose userValue nothing measured
    (``m-second``: every rate of that stage is notMeasured)."""
    path = tmp_path_factory.mktemp("report-trend") / "trend.duckdb"
    with Database(path) as db:
        partitioned_store(db)
    return path


@pytest.fixture(scope="session")
def history_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``valuechain synth --history 6 --store h.duckdb`` builds: 27 runs of 3 suites over
    six weeks, the first two at the previous analyzer (unmeasured until recompute)."""
    folder = tmp_path_factory.mktemp("report-history")
    manifest = valuechain.synth_history(folder / "h", weeks=6, seed=0)
    assert len(manifest.runs) == 27
    path = folder / "h.duckdb"
    with valuechain.open(path) as store:
        assert all(report.ok for _, report in store.import_history(folder / "h"))
    return path


@pytest.fixture(scope="session")
def history_html(history_store: Path) -> str:
    """The report of the whole 27-run history (built once: it takes seconds)."""
    return report_of(history_store)
