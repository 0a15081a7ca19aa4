"""Runs for the verdict tests, built with the synth generator (imported by basename).

One synthetic suite (4 cases × 1 model × 2 repetitions) re-identified under a run id, then
edited: per-trial result/status/evaluator-error flag by (case, repetition), and run-level keys
(TRACE-FORMAT §3.7.2) set, typed, on every trial root — or removed with None.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from valuechain.synth import SynthConfig, generate_requests
from valuechain.synth.attributes import any_value

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "query"))

from compare_runs import _reidentify as reidentify  # shared with the comparison runs
from compare_runs import import_runs

__all__ = ["CONFIG", "V2", "import_runs", "run_requests"]

CONFIG: Final = SynthConfig(runs=1, cases=4, models=1, reps=2, seed=7)
TRIALS_PER_CASE: Final = CONFIG.models * CONFIG.reps
V2: Final = {
    "mcp.app.run.verdict_policy_version": 2,
    "mcp.app.suite.default_pass_threshold": 0.5,
}

Value = str | int | float | bool


def _set(span: dict[str, Any], key: str, value: Value | None) -> None:
    attrs = [a for a in span["attributes"] if a["key"] != key]
    span["attributes"] = (
        attrs if value is None else [*attrs, {"key": key, "value": any_value(value)}]
    )


def run_requests(
    run_id: str,
    trials: Mapping[tuple[int, int], Mapping[str, Value | None]] | None = None,
    run_keys: Mapping[str, Value | None] | None = None,
    *,
    drop: frozenset[tuple[int, int]] = frozenset(),
    cases: int = CONFIG.cases,
) -> list[dict[str, Any]]:
    """One run as OTLP requests; ``trials[(case, rep)]`` sets root keys of that trial."""
    out = []
    config = replace(CONFIG, failures=False, cases=cases)
    for index, request in enumerate(generate_requests(config)):
        position = divmod(index, TRIALS_PER_CASE)
        if position in drop:
            continue
        spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
        for span in spans:
            reidentify(span, run_id)
        root = next(s for s in spans if not s.get("parentSpanId"))
        for key, value in {**(run_keys or {}), **(trials or {}).get(position, {})}.items():
            _set(root, key, value)
        out.append(request)
    return out
