"""Stores for the trend tests: runs across partitions, blocked and unmeasured runs.

Built with the analytics tests' row builders (tests/materialize/analytics_store.py) and
materialized by the real SQL, so the trend reads what every import would leave.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "materialize"))

from collections.abc import Iterator
from contextlib import contextmanager

from analytics_store import T0, Funnels, TrialSpec

from valuechain.store import Database

_SECOND_CONFIG = {"config_revision": "config-2"}
_OTHER_SUITE = {"suite_id": "suite-2", "run_group_id": "group-2"}


def day(n: int) -> object:
    """Day ``n`` of January 2026 (T0 is its first midnight, UTC)."""
    return T0 + timedelta(days=n - 1)


def _run(run_id: str, completed: int, *chains: str, **identity: object) -> list[TrialSpec]:
    """One run whose trials have ``chains``, completed on day ``completed``."""
    return [
        TrialSpec(
            f"{run_id}-t{i}",
            run_id=run_id,
            chain=chain,
            run_completed_at=day(completed),
            **identity,
        )  # type: ignore[arg-type]
        for i, chain in enumerate(chains)
    ]


def partitioned_trials() -> list[TrialSpec]:
    """Three partitions and every way a run stays out of them.

    - group-1 · config-1 · cases-1 @ 12: ``z-first`` (day 1), ``m-second`` (day 2, userValue
      not measured by any trial), ``a-third`` (day 3) — ids sorting against completion order;
      ``prov`` shares their identity but is provisional (blocked);
    - group-1 · config-2 · cases-1 @ 12: ``cfg2-a`` (day 2), ``cfg2-b`` (day 4);
    - group-2 · config-1 · cases-1 @ 12, suite-2: ``other`` (day 5);
    - blocked: ``nogroup`` (no run group), ``bare`` (no identity at all, and provisional);
    - unmeasured at 12: ``nosuite`` (no suite id, so no document), ``old`` (derived at 11 only:
      it forms its own partition at analyzer 11);
    - producer chains: ``z-first`` at 12 (a producer partition), ``mixed`` at 11 and 12.
    """
    return [
        *_run("z-first", 1, "P,P,P,P,P,P", "P,P,P,F,NR,NR"),
        *_run("m-second", 2, "P,P,P,P,P,NM", "P,P,P,P,P,NM"),
        *_run("a-third", 3, "P,P,P,P,P,P", "P,P,P,P,P,P"),
        *_run("prov", 3, "P,P,P,P,P,P", materialization_state="provisional"),
        *_run("cfg2-a", 2, "P,P,F,NR,NR,NR", **_SECOND_CONFIG),
        *_run("cfg2-b", 4, "P,P,P,P,P,P", **_SECOND_CONFIG),
        *_run("other", 5, "P,P,P,P,P,P", **_OTHER_SUITE),
        *_run("nogroup", 2, "P,P,P,P,P,P", run_group_id=None),
        *_run(
            "bare",
            2,
            "P,P,P,P,P,P",
            run_group_id=None,
            config_revision=None,
            case_set_fingerprint=None,
            materialization_state="provisional",
        ),
        *_run("nosuite", 2, "P,P,P,P,P,P", suite_id=None),
        *_run("old", 1, "P,P,P,P,P,P", analyzer=11),
        TrialSpec("z-first-t0", run_id="z-first", source="producer", trial_row=False),
        *_run("mixed", 2, "P,P,P,P,P,P", source="producer", analyzer=11, run_group_id="group-m"),
        TrialSpec(
            "mixed-t1",
            run_id="mixed",
            source="producer",
            analyzer=12,
            run_group_id="group-m",
            run_completed_at=day(2),
        ),  # type: ignore[arg-type]
    ]


def partitioned_store(db: Database) -> Funnels:
    """``db`` filled with `partitioned_trials` and materialized."""
    funnels = Funnels(db)
    funnels.add(*partitioned_trials())
    funnels.materialize()
    return funnels


def many_runs_trials(runs: int) -> list[TrialSpec]:
    """``runs`` runs over six partitions (group i%3 × config i%2), completed i hours apart,
    ids in reverse order of completion; every 10th is provisional. Run i's call stage passes
    for i%3 of its three trials (the rate drifts), its userValue is never measured."""
    trials = []
    for i in range(runs):
        identity = {
            "run_group_id": f"group-{i % 3}",
            "config_revision": f"config-{i % 2}",
            "materialization_state": "provisional" if i % 10 == 9 else None,
        }
        for t in range(3):
            chain = "P,P,P,P,P,NM" if t < i % 3 else "P,P,P,F,NR,NR"
            trials.append(
                TrialSpec(
                    f"r{i}-t{t}",
                    run_id=f"run-{runs - i:04d}",
                    chain=chain,
                    run_completed_at=T0 + timedelta(hours=i),
                    **identity,
                )  # type: ignore[arg-type]
            )
    return trials


@contextmanager
def many_runs_store(runs: int) -> Iterator[Funnels]:
    """An in-memory store of `many_runs_trials`, materialized; closed on exit."""
    db = Database(":memory:")
    try:
        funnels = Funnels(db)
        funnels.add(*many_runs_trials(runs))
        funnels.materialize()
        yield funnels
    finally:
        db.close()
