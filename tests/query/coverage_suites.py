"""Suites for the coverage tests, cut from the TRACE-FORMAT §3.9 example (imported by basename).

Each suite is the example run (cases C1 "forecast" and C2 "meta question, negative"; 2 models ×
2 repetitions each), re-identified under its own suite and run ids, with every case's checks
replaced by the ones a `CaseChecks` lists: predicate rows (kind, role, status), whether the
tool-call matcher is there (its grader rows and the root's expected calls), the argument
matching, the goal judge and the expected output. The root's `mcp.app.authored.*` is re-inferred
from what is left (CONTRACT §2.3, the contract's own implementation), as the producer would.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import valuechain
from valuechain.evidence.authored import CaseFacts, infer_authored_case

EXAMPLE: Final = Path("spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json")
CASES: Final = {"C1": "c_f0rec4stParis", "C2": "c_n0DeleteMeta"}
Span = dict[str, Any]


@dataclass(frozen=True)
class Check:
    kind: str | None
    role: str | None = "gating"
    status: str = "scored"


@dataclass(frozen=True)
class CaseChecks:
    predicates: Sequence[Check] = ()
    matcher: bool = True  # the matcher's rows and the root's expected calls
    argument_matching: str | None = None  # None: the key is absent (partial)
    judge: bool = False  # the goal judge, requested and scored
    expected_output: bool = False


def check(kind: str | None, role: str | None = "gating", status: str = "scored") -> Check:
    return Check(kind, role, status)


def _value(raw: object) -> dict[str, Any]:
    if isinstance(raw, bool):
        return {"boolValue": raw}
    if isinstance(raw, int):
        return {"intValue": str(raw)}
    return {"stringValue": raw}


def _attrs(span: Span) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def _set(span: Span, key: str, raw: object | None) -> None:
    kept = [a for a in span["attributes"] if a["key"] != key]
    span["attributes"] = kept if raw is None else [*kept, {"key": key, "value": _value(raw)}]


def _span_id(*parts: str) -> str:
    return hashlib.md5(":".join(parts).encode()).hexdigest()[:16]


def _template(root: Span) -> Span:
    """A predicate grader span under ``root`` (its attributes are set by `_grader`)."""
    span = {k: root[k] for k in ("traceId", "startTimeUnixNano", "endTimeUnixNano")}
    attributes = [
        ("openinference.span.kind", "EVALUATOR"),
        ("mcp.app.span.role", "grader"),
        ("mcp.app.grader.kind", "predicate"),
        ("mcp.app.grader.link", "userValue"),
        ("mcp.app.grader.scope", "case"),
    ]
    return span | {
        "parentSpanId": root["spanId"],
        "kind": 1,
        "attributes": [{"key": k, "value": _value(v)} for k, v in attributes],
    }


def _grader(template: Span, trace: str, index: int, c: Check) -> Span:
    span = copy.deepcopy(template)
    span["spanId"] = _span_id(trace, "check", str(index))
    scorer = f"predicate:{c.kind}#{index}"
    span["name"] = f"grade {scorer}"
    for key, raw in (
        ("mcp.app.grader.scorer_id", scorer),
        ("mcp.app.grader.role", c.role),
        ("mcp.app.grader.status", c.status),
        ("mcp.app.grader.passed", c.status != "error"),
        ("mcp.app.predicate.type", c.kind),
        ("mcp.app.predicate.spec", None),
        ("mcp.app.grader.reason", f"{c.kind} checked"),
    ):
        _set(span, key, raw)
    return span


def _trial(spans: list[Span], suite: str, run: str, checks: CaseChecks) -> list[Span]:
    root = next(s for s in spans if not s.get("parentSpanId"))
    trace = spans[0]["traceId"]
    roles = [_attrs(s).get("mcp.app.span.role") for s in spans]
    template = _template(root)
    kept = []
    for span, role in zip(spans, roles, strict=True):
        if role == "grader":
            a = _attrs(span)
            grader_kind = a["mcp.app.grader.kind"]
            if grader_kind == "predicate" or (grader_kind == "matcher" and not checks.matcher):
                continue
            if grader_kind == "judge" and not checks.judge:
                continue
            if grader_kind == "judge":  # requested and scored (C2's was not requested)
                _set(span, "mcp.app.judge.pending_kind", None)
                _set(span, "mcp.app.judge.status", "scored")
                _set(span, "mcp.app.judge.verdict", "pass")
        if role == "grader" and checks.argument_matching == "ignore":
            _set(span, "mcp.app.match.result.argument_mismatches", None)  # none under ignore
            _set(span, "mcp.app.match.result.argument_mismatch_count", None)
        kept.append(span)
    kept += [_grader(template, trace, i, c) for i, c in enumerate(checks.predicates)]
    if not checks.matcher:
        _set(root, "mcp.app.expect.tool_calls", "[]")
    _set(root, "mcp.app.match.argument_matching", checks.argument_matching)
    _set(root, "mcp.app.expect.output_defined", checks.expected_output)
    _set(root, "mcp.app.expect.output", None)
    _reauthor(root, kept, checks)
    _reidentify(kept, suite, run)
    return kept


def _reauthor(root: Span, spans: list[Span], checks: CaseChecks) -> None:
    a = _attrs(root)
    matcher_rows = [_attrs(s) for s in spans if _attrs(s).get("mcp.app.grader.kind") == "matcher"]
    case = infer_authored_case(
        CaseFacts(
            is_negative=a["mcp.app.case.is_negative"],
            case_type=a.get("mcp.app.case.type"),
            expected_tool_calls=tuple(json.loads(a["mcp.app.expect.tool_calls"])),
            expected_output_defined=checks.expected_output,
            predicate_kinds=tuple(c.kind for c in checks.predicates),
            turn_expected_tool_calls=tuple(
                tuple(json.loads(m.get("mcp.app.match.result.expected", "[]")))
                for m in matcher_rows
            ),
            needs_model=True,
            has_tool_call_steps=False,
        )
    )
    for key, raw in (
        ("mcp.app.authored.is_negative_test", case.is_negative_test),
        ("mcp.app.authored.expects_tool_call", case.expects_tool_call),
        ("mcp.app.authored.expects_widget_render", case.expects_widget_render),
        ("mcp.app.authored.assertion_count", case.assertion_count),
    ):
        _set(root, key, raw)


def _reidentify(spans: list[Span], suite: str, run: str) -> None:
    for span in spans:
        span["traceId"] = hashlib.md5(f"{run}:{span['traceId']}".encode()).hexdigest()
        for attr in span["attributes"]:
            if attr["key"] == "mcp.app.run.id":
                attr["value"] = {"stringValue": run}
            elif attr["key"] == "mcp.app.suite.id":
                attr["value"] = {"stringValue": suite}
            elif attr["key"] == "mcp.app.trial.id":
                attr["value"] = {"stringValue": f"{attr['value']['stringValue']}_{run}"}


def suite_export(
    shared: Path, suite: str, run: str, cases: Mapping[str, CaseChecks], *, completed: str
) -> dict[str, Any]:
    """One run of `suite` as one OTLP/JSON document: the example's trials of the cases named
    (C1, C2), each with its checks replaced; `completed` is the run's completion time."""
    doc = json.loads((shared / EXAMPLE).read_bytes())
    scope = doc["resourceSpans"][0]["scopeSpans"][0]
    by_trace: dict[str, list[Span]] = {}
    for span in scope["spans"]:
        by_trace.setdefault(span["traceId"], []).append(span)
    wanted = {CASES[name]: checks for name, checks in cases.items()}
    out: list[Span] = []
    for spans in by_trace.values():
        root = next(s for s in spans if not s.get("parentSpanId"))
        case_id = _attrs(root)["mcp.app.case.id"]
        if case_id in wanted:
            _set(root, "mcp.app.run.completed_time", completed)
            _set(root, "mcp.app.run.trials_expected", 4 * len(wanted))
            out += _trial(spans, suite, run, wanted[case_id])
    scope["spans"] = out
    return doc


def import_suites(store_path: Path, exports: Mapping[str, dict[str, Any]]) -> None:
    """Import each export as its own source into the store at ``store_path``."""
    with valuechain.open(store_path) as store:
        for name, doc in exports.items():
            source = store_path.parent / f"{name}.json"
            source.write_text(json.dumps(doc), encoding="utf-8")
            store.import_paths([source], workers=0)
