"""The trial's graders (TRACE-FORMAT §3.3): one matcher grader per turn and one predicate
grader per `metadata.predicates[]` row. The tool-call matcher (CONTRACT §2.4) is the caller's
(`Matcher`): ingest does not import derive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from valuechain.contract.matching import MatchOptions, ToolCall, ToolCallMatch
from valuechain.ingest.mcpjam import identity as ident
from valuechain.ingest.mcpjam.otlp import (
    Attrs,
    Span,
    TrialTrace,
    bool_attr,
    int_attr,
    json_attr,
    otlp_span,
    string_attr,
)
from valuechain.ingest.mcpjam.trace import as_list, prompt_index, prompt_summaries_of

Matcher = Callable[[Sequence[ToolCall], Sequence[ToolCall], MatchOptions, bool], ToolCallMatch]


class Grading:
    """A job's tool-call matcher, with what it decided remembered by what decides it: a
    case's trials often repeat their calls, and grading them (and writing the grader's
    attributes) again cost a fifth of a trial's translation. Kept for one job, so bounded;
    refusals (the matcher's ``ValueError``) are never kept. ``predicates``: the predicate
    graders' attributes by their rows (`predicate_spans`); ``cases``: each case's root
    attributes (`trial._case_attrs`)."""

    __slots__ = ("cases", "graders", "matcher", "predicates")

    def __init__(self, matcher: Matcher) -> None:
        self.matcher = matcher
        self.graders: dict[bytes, tuple[Attrs, list[Any]]] = {}
        self.predicates: dict[bytes, list[tuple[str, Attrs]]] = {}
        self.cases: dict[tuple[Any, ...], Attrs] = {}

    def case_grader(self, result: dict[str, Any]) -> tuple[Attrs, list[Any]]:
        """The matcher grader's attributes for the case's expected vs actual calls, and the
        expected calls: decided by the expected and actual calls (their arguments' keys in
        order too: the wire rows keep it), the gating predicates, options and negativity."""
        metadata = result.get("metadata")
        try:
            key = orjson.dumps(
                [
                    result.get("expectedToolCalls"),
                    result.get("actualToolCalls"),
                    result.get("matchOptions"),
                    result.get("isNegativeTest"),
                    metadata.get("predicates") if isinstance(metadata, dict) else None,
                ]
            )
        except TypeError:  # not plain JSON (orjson's error is one): graded each time
            return self._case_grader(result)
        found = self.graders.get(key)
        if found is None:
            found = self.graders[key] = self._case_grader(result)
        return found

    def _case_grader(self, result: dict[str, Any]) -> tuple[Attrs, list[Any]]:
        negative = result.get("isNegativeTest") is True
        calls = expected_calls(result)
        options = ident.resolved_match_options(result.get("matchOptions"))
        match = self.matcher(
            [_call(c) for c in calls],
            [_call(c) for c in as_list(result.get("actualToolCalls"))],
            MatchOptions(
                options["argumentMatching"], options["toolCallOrder"], options["maxExtraToolCalls"]
            ),
            negative,
        )
        expected = [] if negative else calls
        mismatches = [
            {
                "toolName": m.tool_name,
                "expectedArgs": dict(m.expected_args),
                "actualArgs": dict(m.actual_args),
            }
            for m in match.argument_mismatches
        ]
        missing, extra = [_wire(c) for c in match.missing], [_wire(c) for c in match.extra]
        return _grader_attrs(0, expected, missing, extra, mismatches, match.passed), expected


_MATCHER_GRADER = (
    string_attr("mcp.app.span.role", "grader"),
    string_attr("openinference.span.kind", "EVALUATOR"),
    string_attr("mcp.app.grader.kind", "matcher"),
    string_attr("mcp.app.grader.scorer_id", "toolCalls:match"),
    string_attr("mcp.app.grader.link", "selection"),
    string_attr("mcp.app.grader.scope", "turn"),
)


def _grader_attrs(
    index: int,
    expected: list[Any],
    missing: list[Any],
    unexpected: list[Any],
    mismatches: list[Any],
    passed: bool | None,
) -> Attrs:
    attrs = [
        *_MATCHER_GRADER,
        int_attr("mcp.app.grader.turn_index", index),
        json_attr("mcp.app.match.result.expected", expected),
        json_attr("mcp.app.match.result.missing", missing),
        json_attr("mcp.app.match.result.unexpected", unexpected),
        json_attr("mcp.app.match.result.argument_mismatches", mismatches),
        int_attr("mcp.app.match.result.missing_count", len(missing)),
        int_attr("mcp.app.match.result.unexpected_count", len(unexpected)),
        int_attr("mcp.app.match.result.argument_mismatch_count", len(mismatches)),
    ]
    if passed is not None:
        attrs += [
            bool_attr("mcp.app.match.result.passed", passed),
            bool_attr("mcp.app.grader.passed", passed),
        ]
    return attrs


def matcher_spans(
    ids: TrialTrace,
    root: str,
    result: dict[str, Any],
    grading: Grading,
    end_ms: float,
    out: list[Span],
) -> list[list[Any]]:
    """One matcher grader per turn: the SDK's own per-turn summaries (`trace.prompts`, whose
    `passed` is load-bearing, CONTRACT §2.2) when sent; else the case's expected vs actual
    calls graded by the matcher under the result's match options. No expectation and no
    negative case: no matcher row. Returns each turn's expected calls."""
    summaries = prompt_summaries_of(result)
    graders: list[tuple[int, Attrs, list[Any]]] = []
    if summaries:
        for p in summaries:
            passed = p.get("passed")
            index, expected = prompt_index(p), as_list(p.get("expectedToolCalls"))
            attrs = _grader_attrs(
                index,
                expected,
                as_list(p.get("missing")),
                as_list(p.get("unexpected")),
                as_list(p.get("argumentMismatches")),
                passed if isinstance(passed, bool) else None,
            )
            graders.append((index, attrs, expected))
    elif result.get("expectedToolCalls") is not None or result.get("isNegativeTest") is True:
        graders.append((0, *grading.case_grader(result)))
    for index, attrs, _ in graders:
        # graders hang under the trial root (TRACE-FORMAT §3.3); the turn is their turn_index
        out.append(
            otlp_span(
                ids,
                ids.span(f"match {index}"),
                root,
                "grade toolCalls:match",
                end_ms,
                end_ms,
                attrs,
            )
        )
    return [expected for _, _, expected in graders]


def expected_calls(result: dict[str, Any]) -> list[Any]:
    """The case's expected calls, with each gating `toolCalledWith` predicate promoted into
    them when not already there (CONTRACT §3.1: it is graded inside the matcher)."""
    calls = list(as_list(result.get("expectedToolCalls")))
    seen = {ident.canonical(c) for c in calls}
    for row in predicate_rows(result):
        call = promoted_call(row)
        if call is not None and ident.canonical(call) not in seen:
            seen.add(ident.canonical(call))
            calls.append(call)
    return calls


def promoted_call(row: dict[str, Any]) -> dict[str, Any] | None:
    predicate = row.get("predicate")
    if not isinstance(predicate, dict) or predicate.get("type") != "toolCalledWith":
        return None
    if predicate.get("role") == "advisory" or not isinstance(predicate.get("toolName"), str):
        return None
    args = predicate.get("args")
    inner = args.get("args") if isinstance(args, dict) else None
    return {
        "toolName": predicate["toolName"],
        "arguments": inner if isinstance(inner, dict) else {},
    }


def _call(value: Any) -> ToolCall:
    args = value.get("arguments") if isinstance(value, dict) else None
    return ToolCall(str(value.get("toolName")), args if isinstance(args, dict) else None)


def _wire(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"toolName": call.tool_name}
    if call.arguments is not None:
        out["arguments"] = dict(call.arguments)
    return out


def predicate_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    metadata = result.get("metadata")
    rows = metadata.get("predicates") if isinstance(metadata, dict) else None
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def predicate_spans(
    ids: TrialTrace,
    root: str,
    result: dict[str, Any],
    end_ms: float,
    grading: Grading,
    out: list[Span],
) -> list[dict[str, Any]]:
    """One predicate grader per `metadata.predicates[]` row (6.x): kind, tool, role, verdict
    (their attributes remembered in ``grading`` by the rows)."""
    rows = [r for r in predicate_rows(result) if promoted_call(r) is None]
    if not rows:
        return rows
    try:
        key: bytes | None = orjson.dumps(rows)
    except TypeError:  # not plain JSON: written each time
        key = None
    graders = grading.predicates.get(key) if key is not None else None
    if graders is None:
        graders = [_predicate_grader(k, row) for k, row in enumerate(rows)]
        if key is not None:
            grading.predicates[key] = graders
    for k, (name, attrs) in enumerate(graders):
        out.append(otlp_span(ids, ids.span(f"predicate {k}"), root, name, end_ms, end_ms, attrs))
    return rows


def _predicate_grader(k: int, row: dict[str, Any]) -> tuple[str, Attrs]:
    """The span name and attributes of the ``k``-th predicate row's grader."""
    found = row.get("predicate")
    predicate: dict[str, Any] = found if isinstance(found, dict) else {}
    kind = predicate.get("type")
    attrs = [
        string_attr("mcp.app.span.role", "grader"),
        string_attr("openinference.span.kind", "EVALUATOR"),
        string_attr("mcp.app.grader.kind", "predicate"),
        string_attr("mcp.app.grader.scorer_id", f"predicate:{kind}#{k}"),
        string_attr(
            "mcp.app.grader.scope", "turn" if isinstance(row.get("scope"), dict) else "case"
        ),
    ]
    if isinstance(kind, str):
        attrs.append(string_attr("mcp.app.predicate.type", kind))
    if isinstance(predicate.get("toolName"), str):
        attrs.append(string_attr("mcp.app.predicate.tool_name", predicate["toolName"]))
    if isinstance(predicate.get("role"), str):
        attrs.append(string_attr("mcp.app.grader.role", predicate["role"]))
    if isinstance(row.get("passed"), bool):
        attrs.append(bool_attr("mcp.app.grader.passed", row["passed"]))
    if isinstance(row.get("status"), str):
        attrs.append(string_attr("mcp.app.grader.status", row["status"]))
    if isinstance(row.get("reason"), str):
        attrs.append(string_attr("mcp.app.grader.reason", row["reason"][:2000]))
    scope = row.get("scope")
    if isinstance(scope, dict) and isinstance(scope.get("promptIndex"), int):
        attrs.append(int_attr("mcp.app.grader.turn_index", scope["promptIndex"]))
    attrs.append(json_attr("mcp.app.predicate.spec", predicate))
    return f"grade predicate:{kind}", attrs
