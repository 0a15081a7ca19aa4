"""Runs for the comparison tests, built with the synth generator (imported by basename).

Every run is the same synthetic suite (one seed, one shape, so one run group, config and case
set: a comparable pair), re-identified under its own run id — its trace and trial ids are
derived from it, so two runs never share a trace. `CaseEdit`s then change what one case's
trials say: their result or status, a content hash or pass threshold on their roots, or drop
the case from the run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import valuechain
from valuechain.synth import SynthConfig, generate_requests

CONFIG: Final = SynthConfig(runs=1, cases=8, models=1, reps=2, seed=21)
TRIALS_PER_CASE: Final = CONFIG.models * CONFIG.reps


@dataclass(frozen=True)
class CaseEdit:
    result: str | None = None  # every trial's mcp.app.trial.result
    results: tuple[str, ...] | None = None  # one result per trial, in repetition order
    status: str | None = None  # every trial's mcp.app.trial.status
    content_hash: str | None = None
    threshold: float | None = None  # mcp.app.case.pass_threshold
    drop: bool = False


PASS: Final = CaseEdit(result="passed")
FAIL: Final = CaseEdit(result="failed")


def _value(value: str | float) -> dict[str, Any]:
    return {"stringValue": value} if isinstance(value, str) else {"doubleValue": value}


def _set(span: dict[str, Any], key: str, value: str | float) -> None:
    attrs = [a for a in span["attributes"] if a["key"] != key]
    span["attributes"] = [*attrs, {"key": key, "value": _value(value)}]


def _reidentify(span: dict[str, Any], run_id: str) -> None:
    span["traceId"] = hashlib.md5(f"{run_id}:{span['traceId']}".encode()).hexdigest()
    for attr in span["attributes"]:
        if attr["key"] == "mcp.app.run.id":
            attr["value"] = {"stringValue": run_id}
        elif attr["key"] == "mcp.app.trial.id":
            attr["value"] = {"stringValue": f"{attr['value']['stringValue']}_{run_id}"}


def run_requests(
    run_id: str,
    edits: Mapping[int, CaseEdit] | None = None,
    *,
    failures: bool = False,
    run_keys: Mapping[str, str | None] | None = None,
) -> list[dict[str, Any]]:
    """One run of the suite as OTLP requests (one per trial), edited per case index;
    ``run_keys`` sets (or, with None, removes) run-level keys on every trial root."""
    out = []
    for index, request in enumerate(generate_requests(replace(CONFIG, failures=failures))):
        case, repetition = divmod(index, TRIALS_PER_CASE)
        edit = (edits or {}).get(case, CaseEdit())
        if edit.drop:
            continue
        spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
        for span in spans:
            _reidentify(span, run_id)
        root = next(s for s in spans if not s.get("parentSpanId"))
        result = edit.results[repetition] if edit.results else edit.result
        for key, value in (
            ("mcp.app.trial.result", result),
            ("mcp.app.trial.status", edit.status),
            ("mcp.app.case.content_hash", edit.content_hash),
            ("mcp.app.case.pass_threshold", edit.threshold),
        ):
            if value is not None:
                _set(root, key, value)
        for key, run_value in (run_keys or {}).items():
            if run_value is None:
                root["attributes"] = [a for a in root["attributes"] if a["key"] != key]
            else:
                _set(root, key, run_value)
        out.append(request)
    return out


def import_runs(store_path: Path, runs: Mapping[str, list[dict[str, Any]]]) -> None:
    """Import each run as its own NDJSON source into the store at ``store_path``."""
    with valuechain.open(store_path) as store:
        for run_id, requests in runs.items():
            source = store_path.parent / f"{run_id}.jsonl"
            source.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
            report = store.import_paths([source], workers=0)
            assert report is not None


# The comparable pair showing every change kind, case by case (A edits, B edits).
EVERY_CHANGE: Final = {
    "passed": (PASS, PASS),
    "stillFailing": (FAIL, FAIL),
    "regressed": (PASS, FAIL),
    "fixed": (FAIL, PASS),
    "new": (CaseEdit(drop=True), PASS),
    "removed": (PASS, CaseEdit(drop=True)),
    "changed": (CaseEdit(result="passed", content_hash="h1"), CaseEdit(content_hash="h2")),
    "inconclusive": (PASS, CaseEdit(status="cancelled")),
}


def every_change_runs() -> dict[str, list[dict[str, Any]]]:
    edits = list(EVERY_CHANGE.values())
    return {
        "run-before": run_requests("run-before", {i: a for i, (a, _) in enumerate(edits)}),
        "run-after": run_requests("run-after", {i: b for i, (_, b) in enumerate(edits)}),
    }
