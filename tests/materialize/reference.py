"""An independent, deliberately naive Python port of `aggregateStageAnalytics` (CONTRACT §5).

The oracle the SQL path is checked against: one loop over trials in (iteration, trial id)
order, exactly the steps of §5.4–§5.9 as written — full measurement reach (not the reduced
`reached`-only form the SQL packs), per-trial accumulation, first-seen host metadata,
rank-then-resort retention. It reads the same `TrialSpec` / `SetupCopy` rows the tests write
to the store, for ONE document: a chain source at one reader analyzer version.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from analytics_store import PROJECTION, SetupCopy, TrialSpec, parse_chain

from valuechain.contract.documents import MAX_HOST_SLICES, MAX_INTENT_SLICES, MAX_MODEL_SLICES
from valuechain.contract.vocab import (
    ExcludedTrialDetail,
    FailureCategory,
    StageExclusionClass,
    StageReason,
)
from valuechain.contract.vocab_rules import EXCLUDED_TRIAL_DETAIL_CLASSES, STAGES
from valuechain.derive.jssem import js_json, js_trim, utf16_sort_key

LIFECYCLE = {
    "pending": "notTerminal",
    "running": "notTerminal",
    "skipped": "skipped",
    "cancelled": "cancelled",
    "setup_failed": "setupFailed",
    "timed_out": "timedOut",
}
ADMITS = {
    "passed": {"reached"},
    "failed": {"reached"},
    "notReached": {"notReached"},
    "notApplicable": {"notApplicable"},
    "notMeasured": {"unknown", "reached"},
}
CAPS = {"intent": MAX_INTENT_SLICES, "model": MAX_MODEL_SLICES, "host": MAX_HOST_SLICES}
RUN_TERMINAL = {"completed", "failed", "cancelled", "timed_out"}
TRIAL_TERMINAL = RUN_TERMINAL | {"setup_failed", "skipped"}


def classify(t: TrialSpec, reader: int, conflict: bool) -> tuple[str, str] | None:
    """`classifyStageAnalyticsTrial` over the store's representation of one trial."""
    if t.evaluator_errored is True:
        return ("lifecycle", "evaluatorError")
    if t.status not in ("completed", "failed"):
        return ("lifecycle", LIFECYCLE.get(t.status or "", "executionFailed"))
    has_version = t.chain is not None or t.outcome
    measurements = t.outcome and t.measurements
    if t.exclusion_class == "version" or (has_version and t.analyzer > reader):
        return ("version", "chainVersionAhead")
    if measurements and (t.measurements_schema or 0) > 1:
        return ("version", "measurementsVersionAhead")
    if not t.chain:
        return ("integrity", "chainMissing")
    if not t.outcome or t.chain_verified is not True or t.exclusion_class or conflict:
        return ("integrity", "chainUnverified")
    if not measurements:
        return ("integrity", "measurementsMissing")
    if t.measurements_verified is not True:
        return ("integrity", "measurementsInvalid")
    meas_version = t.measurements_analyzer if t.measurements_analyzer is not None else t.analyzer
    if meas_version != t.analyzer:
        return ("integrity", "analyzerMismatch")
    return None


def _tally() -> dict[str, Any]:
    return {
        "applicable": 0,
        "reached": 0,
        "notReached": 0,
        "reachUnknown": 0,
        "measured": 0,
        "passed": 0,
        "failed": 0,
        "notMeasured": 0,
        "notApplicable": 0,
        "excluded": defaultdict(int),
        "reasons": defaultdict(int),
        "latency": [],
    }


def _slice() -> dict[str, Any]:
    return {
        "included": 0,
        "excluded": defaultdict(int),
        "categories": defaultdict(int),
        "stages": [_tally() for _ in STAGES],
    }


def _ordered(counts: dict[str, int], vocabulary: Sequence[str]) -> dict[str, int]:
    return {k: counts[k] for k in vocabulary if counts.get(k, 0) > 0}


def aggregate(
    trials: Sequence[TrialSpec],
    setup: Sequence[SetupCopy] = (),
    *,
    reader: int = 12,
    now_ms: int = 1_767_225_600_000,
    run_completed_at: int | None = None,
    materialization_state: str | None = None,
) -> dict[str, Any]:
    """The document of one run's trials (all assumed to carry the one chain source)."""
    order = sorted(
        trials, key=lambda t: (t.iteration is None, t.iteration or 0, t.trial_id, t.trace or "")
    )
    ids = [t.trial_id for t in trials]
    slices: dict[str, dict[str, Any]] = {"overall": _slice()}
    meta: dict[str, tuple[dict[str, Any], Any]] = {"overall": ({"dimension": "overall"}, b"")}
    run_excluded: dict[str, int] = defaultdict(int)
    detail: dict[str, int] = defaultdict(int)
    included = 0
    versions: set[int] = set()
    judge_pending = False
    for t in order:
        keys = ["overall"]
        intent = js_trim(t.intent) if t.intent is not None else ""
        intent_value = intent or None
        key = f"intent:{intent_value!r}"
        meta.setdefault(
            key,
            (
                {"dimension": "intent", "intent": intent_value},
                utf16_sort_key(intent_value if intent_value else "\uffff"),
            ),
        )
        keys.append(key)
        if t.provider and t.model:
            text = js_json([t.provider, t.model])
            key = f"model:{text}"
            meta.setdefault(
                key,
                (
                    {"dimension": "model", "provider": t.provider, "model": t.model},
                    utf16_sort_key(text),
                ),
            )
            keys.append(key)
        if t.host_key:
            key = f"host:{t.host_key}"
            host: dict[str, Any] = {"dimension": "host", "hostKey": t.host_key}
            if t.host_name:
                host["hostName"] = t.host_name
            if t.execution_engine:
                host["executionEngine"] = t.execution_engine
            meta.setdefault(key, (host, utf16_sort_key(t.host_key)))
            keys.append(key)
        for k in keys:
            slices.setdefault(k, _slice())
        verdict = classify(t, reader, ids.count(t.trial_id) > 1)
        if verdict is not None:
            cls, why = verdict
            run_excluded[cls] += 1
            detail[why] += 1
            for k in keys:
                slices[k]["excluded"][cls] += 1
            continue
        included += 1
        versions.add(t.analyzer)
        for k in keys:
            slices[k]["included"] += 1
            if t.failure_category:
                slices[k]["categories"][t.failure_category] += 1
        rows = parse_chain(t.chain or "")
        for i, stage in enumerate(STAGES):
            if i >= len(rows):
                continue
            state, reason = rows[i]
            m_stage = t.measurement_stage.get(i, stage.value)
            m_reach = t.reach.get(i, PROJECTION.get(state, "unknown"))
            agrees = m_stage == stage.value and m_reach in ADMITS.get(state, {"unknown"})
            reach = m_reach if agrees else PROJECTION.get(state, "unknown")
            if reason == "judgePending" and state != "notApplicable":
                judge_pending = True
            for k in keys:
                tally = slices[k]["stages"][i]
                tally["reasons"][reason] += 1
                if state == "notApplicable":
                    tally["notApplicable"] += 1
                    tally["excluded"]["notApplicable"] += 1
                    continue
                tally["applicable"] += 1
                if reach == "notReached":
                    tally["notReached"] += 1
                    continue
                if reach != "reached":
                    tally["reachUnknown"] += 1
                    tally["excluded"]["reachUnknown"] += 1
                    continue
                tally["reached"] += 1
                if state == "passed":
                    tally["measured"] += 1
                    tally["passed"] += 1
                elif state == "failed":
                    tally["measured"] += 1
                    tally["failed"] += 1
                else:
                    tally["notMeasured"] += 1
                    tally["excluded"]["notMeasured"] += 1
                latency = t.latency.get(i)
                if agrees and latency is not None and latency >= 0 and i in (2, 3, 4):
                    tally["latency"].append(latency)

    classes = [c.value for c in StageExclusionClass]
    reasons = [r.value for r in StageReason]

    def finish(key: str) -> dict[str, Any]:
        acc = slices[key]
        stages = []
        for stage, tally in zip(STAGES, acc["stages"], strict=True):
            out: dict[str, Any] = {"stage": stage.value}
            out.update(
                {
                    k: tally[k]
                    for k in (
                        "applicable",
                        "reached",
                        "notReached",
                        "reachUnknown",
                        "measured",
                        "passed",
                        "failed",
                        "notMeasured",
                        "notApplicable",
                    )
                }
            )
            out["excluded"] = _ordered(tally["excluded"], classes)
            out["reasons"] = [
                {"reason": r, "count": n} for r, n in _ordered(tally["reasons"], reasons).items()
            ]
            if tally["latency"]:
                samples = tally["latency"]
                out["latency"] = {
                    "unit": "ms",
                    "basis": "evidence_span_union",
                    "sampleCount": len(samples),
                    "totalMs": sum(samples),
                    "minMs": min(samples),
                    "maxMs": max(samples),
                }
            stages.append(out)
        return {
            "slice": meta[key][0],
            "includedTrials": acc["included"],
            "excludedTrials": _ordered(acc["excluded"], classes),
            "failureCategories": [
                {"category": c, "count": n}
                for c, n in _ordered(acc["categories"], [f.value for f in FailureCategory]).items()
            ],
            "stages": stages,
        }

    kept = ["overall"]
    truncation = []
    for dimension in ("intent", "model", "host"):
        members = [k for k in slices if k.startswith(dimension + ":")]
        if not members:
            continue
        ranked = sorted(members, key=lambda k: (-slices[k]["included"], meta[k][1]))
        retained = ranked[: CAPS[dimension]]
        if len(retained) < len(members):
            truncation.append(
                {"dimension": dimension, "distinctValues": len(members), "retained": len(retained)}
            )
        kept.extend(sorted(retained, key=lambda k: meta[k][1]))

    setup_rows = []
    for phase in ("connection", "discovery"):
        copies = [c for c in setup if c.phase == phase]
        if not copies:
            continue
        failed = [c for c in copies if c.outcome == "failed"]
        attributions = {c.attribution for c in failed}
        egress = {c.egress_verified for c in failed}
        durations = {
            c.duration_ms for c in copies if c.duration_ms is not None and c.duration_ms >= 0
        }
        row: dict[str, Any] = {
            "phase": phase,
            "uniqueAttempts": 1,
            "failedAttempts": 1 if failed else 0,
            "serverAttributedFailures": 1
            if failed and attributions == {"theirs"} and egress == {True}
            else 0,
            "impactedTrials": len({c.trial_id for c in failed}),
        }
        if len(durations) == 1:
            (d,) = durations
            row["latency"] = {
                "unit": "ms",
                "basis": "setup_phase_wall",
                "sampleCount": 1,
                "totalMs": d,
                "minMs": d,
                "maxMs": d,
            }
        setup_rows.append(row)

    terminal = all(t.status in TRIAL_TERMINAL for t in trials)
    statuses = {t.run_status for t in trials if t.run_status}
    if len(statuses) == 1:
        terminal = statuses.pop() in RUN_TERMINAL
    elif statuses:
        terminal = False
    state = materialization_state or ("final" if terminal and not judge_pending else "provisional")
    first = trials[0] if trials else None
    doc: dict[str, Any] = {
        "schemaVersion": 1,
        "measurementUnit": "trial",
        "runId": "run-1",
        "suiteId": first.suite_id if first else "suite-1",
    }
    for field, value in (
        ("runGroupId", first and first.run_group_id),
        ("configRevision", first and first.config_revision),
        ("caseSetFingerprint", first and first.case_set_fingerprint),
    ):
        if value:
            doc[field] = value
    if run_completed_at is not None and terminal:
        doc["runCompletedAt"] = run_completed_at
    doc["sourceIterationCount"] = len(trials)
    doc["stageAnalyzerVersion"] = max(versions) if versions else reader
    if len(versions) > 1:
        doc["sourceStageAnalyzerVersions"] = sorted(versions)
    doc["measurementsSchemaVersion"] = 1
    doc.update(
        {
            "materializationState": state,
            "createdAt": now_ms,
            "updatedAt": now_ms,
            "includedTrials": included,
            "excludedTrials": _ordered(run_excluded, classes),
            "totalTrials": len(trials),
            "excludedTrialDetail": _ordered(detail, [d.value for d in ExcludedTrialDetail]),
            "slices": [finish(k) for k in kept],
            "setup": setup_rows,
        }
    )
    if truncation:
        doc["sliceTruncation"] = truncation
    assert all(EXCLUDED_TRIAL_DETAIL_CLASSES[ExcludedTrialDetail(d)] for d in detail)
    return doc


def canonical(doc: dict[str, Any]) -> str:
    """Compact JSON with JS number formatting, for byte comparisons."""
    return js_json(json.loads(json.dumps(doc)))
