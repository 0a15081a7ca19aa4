"""What the commands need of the pipeline and the query side beyond `Store`'s methods: the
progress phases they show, an import's plan (files found before a store exists) and report,
and a request's values checked before the store is opened — all through the API (the CLI
imports no floor below it).

The progress names are plain imports (light: the command line reads them at start-up); the
rest load on first use (PEP 562), so that importing this module brings no polars or DuckDB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from valuechain._lazy import lazy_names
from valuechain.pipeline.progress import UNITS, BatchesDone, Phase

if TYPE_CHECKING:
    from valuechain.pipeline.follow import FollowRound
    from valuechain.pipeline.imports import ImportReport, plan
    from valuechain.pipeline.recompute import RecomputeResult
    from valuechain.query.claims import ProducerClaims
    from valuechain.query.compare import regression
    from valuechain.query.coverage import coverage_request
    from valuechain.query.trend import parse_since, trend_request
    from valuechain.query.trial import TrialView

_LAZY = {
    "FollowRound": "valuechain.pipeline.follow",
    "ImportReport": "valuechain.pipeline.imports",
    "plan": "valuechain.pipeline.imports",
    "RecomputeResult": "valuechain.pipeline.recompute",
    "ProducerClaims": "valuechain.query.claims",
    "regression": "valuechain.query.compare",
    "coverage_request": "valuechain.query.coverage",
    "parse_since": "valuechain.query.trend",
    "trend_request": "valuechain.query.trend",
    "TrialView": "valuechain.query.trial",
}

__all__ = [
    "UNITS",
    "BatchesDone",
    "FollowRound",
    "ImportReport",
    "Phase",
    "ProducerClaims",
    "RecomputeResult",
    "TrialView",
    "coverage_request",
    "parse_since",
    "plan",
    "regression",
    "trend_request",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
