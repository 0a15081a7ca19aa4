"""Builders for evidence-adapter tests: the TRACE-FORMAT §3.9 example, cut and edited.

Each test starts from real-shaped spans (one trial of the example export) and changes only
what it is about, so the input shows exactly what the adapter is fed.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import DecodedSource, decode_export

EXAMPLE = Path("spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json")
FIRST_TRACE = "24a75fa8c847bd7f4dfb77d361186f20"
Span = dict[str, Any]


@cache
def example_doc(shared: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared / EXAMPLE).read_bytes())
    return doc


def example_spans(shared: Path) -> list[Span]:
    """Every span of the example, in file order (deep copies: tests edit them)."""
    doc = example_doc(shared)
    return copy.deepcopy(doc["resourceSpans"][0]["scopeSpans"][0]["spans"])


def resource(shared: Path) -> dict[str, Any]:
    return copy.deepcopy(example_doc(shared)["resourceSpans"][0]["resource"])


def trial_spans(shared: Path, trace: str = FIRST_TRACE) -> list[Span]:
    return [s for s in example_spans(shared) if s["traceId"] == trace]


def value(raw: object) -> dict[str, Any]:
    """An OTLP/JSON AnyValue for a plain Python value."""
    if isinstance(raw, bool):
        return {"boolValue": raw}
    if isinstance(raw, int):
        return {"intValue": str(raw)}
    if isinstance(raw, float):
        return {"doubleValue": raw}
    if isinstance(raw, list):
        return {"arrayValue": {"values": [value(v) for v in raw]}}
    return {"stringValue": raw}


def attrs(span: Span) -> dict[str, Any]:
    """The span's attributes as key → AnyValue dict (first occurrence)."""
    out: dict[str, Any] = {}
    for item in span["attributes"]:
        out.setdefault(item["key"], item["value"])
    return out


def set_attr(span: Span, key: str, raw: object) -> Span:
    """Set (or add) one attribute; `raw` may be an AnyValue dict already."""
    new = raw if isinstance(raw, dict) else value(raw)
    for item in span["attributes"]:
        if item["key"] == key:
            item["value"] = new
            return span
    span["attributes"].append({"key": key, "value": new})
    return span


def drop_attr(span: Span, *keys: str) -> Span:
    span["attributes"] = [a for a in span["attributes"] if a["key"] not in keys]
    return span


def role(span: Span) -> str | None:
    found = attrs(span).get("mcp.app.span.role")
    return None if found is None else str(found["stringValue"])


def root(spans: list[Span]) -> Span:
    return next(s for s in spans if role(s) == "trial")


def retrace(spans: list[Span], trace: str) -> list[Span]:
    """The same spans under another trace id (span ids stay: they are per trace)."""
    for span in spans:
        span["traceId"] = trace
    return spans


def request(spans: list[Span], res: dict[str, Any] | None) -> dict[str, Any]:
    envelope: dict[str, Any] = {"scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}
    if res is not None:
        envelope["resource"] = res
    return {"resourceSpans": [envelope]}


def decode(doc: dict[str, Any]) -> DecodedSource:
    return decode_export(orjson.dumps(doc), "test.json")


def evidence(doc: dict[str, Any]) -> TrialEvidence:
    decoded = decode(doc)
    return build_trials(
        decoded.tables["spans"], decoded.tables["attributes"], source_runs={0: decoded.sha256}
    )


def contract(shared: Path, spans: list[Span]) -> TrialEvidence:
    """Build trials from spans under the example's contract resource."""
    return evidence(request(spans, resource(shared)))


def codes(ev: TrialEvidence) -> list[str]:
    return [str(c) for c in ev.issues.column("code").to_pylist()]
