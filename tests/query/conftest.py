"""A small store with three materialized runs, shared by the read-side tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "materialize"))

from analytics_store import Funnels, SetupCopy, TrialSpec
from trend_store import partitioned_store

from valuechain.store import Database


@pytest.fixture(scope="module")
def store() -> Iterator[Funnels]:
    """run-1: derived@12 + producer chains; old: derived@11 only; blocked: no suite id."""
    db = Database(":memory:")
    funnels = Funnels(db)
    funnels.add(
        TrialSpec(
            "a", intent="search", provider="anthropic", model="m", host_key="h", latency={3: 120}
        ),
        TrialSpec("b", chain="P,P,P,F,NR,NR", intent="search", failure_category="arguments"),
        TrialSpec("c", chain="P,P,P,P,NM,NM", status="failed"),
        TrialSpec("d", status="cancelled", chain=None, outcome=False),
        TrialSpec("a", source="producer", analyzer=11, trial_row=False),
        TrialSpec("x", run_id="old", analyzer=11),
        TrialSpec("y", run_id="blocked", suite_id=None),
    )
    funnels.setup(SetupCopy("a", duration_ms=80.0))
    funnels.materialize()
    try:
        yield funnels
    finally:
        db.close()


@pytest.fixture(scope="module")
def trends() -> Iterator[Funnels]:
    """Runs across three partitions, blocked and unmeasured ones (trend_store.py)."""
    db = Database(":memory:")
    try:
        yield partitioned_store(db)
    finally:
        db.close()
