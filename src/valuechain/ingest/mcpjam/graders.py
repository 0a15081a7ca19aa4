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


def remembering(matcher: Matcher) -> Matcher:
    """``matcher``, each of its grades kept for the same calls (in the same order, their
    arguments' keys too), options and negativity: a case's trials often repeat their calls,
    and grading them again cost a fifth of a trial's translation. Refusals are not kept."""
    grades: dict[tuple[bytes, MatchOptions, bool], ToolCallMatch] = {}

    def grade(
        expected: Sequence[ToolCall], actual: Sequence[ToolCall], options: MatchOptions, neg: bool
    ) -> ToolCallMatch:
        try:
            calls = orjson.dumps(
                [[[c.tool_name, c.arguments] for c in side] for side in (expected, actual)]
            )
        except TypeError:  # not plain JSON (orjson's error is one): graded each time
            return matcher(expected, actual, options, neg)
        key = (calls, options, neg)
        found = grades.get(key)
        if found is None:
            found = grades[key] = matcher(expected, actual, options, neg)
        return found

    return grade


def matcher_spans(
    ids: TrialTrace,
    root: str,
    turns: dict[int, str],
    result: dict[str, Any],
    matcher: Matcher,
    end_ms: float,
    out: list[Span],
) -> list[list[Any]]:
    """One matcher grader per turn: the SDK's own per-turn summaries (`trace.prompts`, whose
    `passed` is load-bearing, CONTRACT §2.2) when sent; else the case's expected vs actual
    calls graded by the matcher under the result's match options. No expectation and no
    negative case: no matcher row. Returns each turn's expected calls."""
    summaries = prompt_summaries_of(result)
    rows: list[tuple[int, list[Any], list[Any], list[Any], list[Any], bool | None]] = []
    if summaries:
        for p in summaries:
            passed = p.get("passed")
            rows.append(
                (
                    prompt_index(p),
                    as_list(p.get("expectedToolCalls")),
                    as_list(p.get("missing")),
                    as_list(p.get("unexpected")),
                    as_list(p.get("argumentMismatches")),
                    passed if isinstance(passed, bool) else None,
                )
            )
    elif result.get("expectedToolCalls") is not None or result.get("isNegativeTest") is True:
        calls = expected_calls(result)
        expected = [_call(c) for c in calls]
        actual = [_call(c) for c in as_list(result.get("actualToolCalls"))]
        options = ident.resolved_match_options(result.get("matchOptions"))
        match = matcher(
            expected,
            actual,
            MatchOptions(
                options["argumentMatching"], options["toolCallOrder"], options["maxExtraToolCalls"]
            ),
            result.get("isNegativeTest") is True,
        )
        rows.append(
            (
                0,
                [] if result.get("isNegativeTest") is True else calls,
                [_wire(c) for c in match.missing],
                [_wire(c) for c in match.extra],
                [
                    {
                        "toolName": m.tool_name,
                        "expectedArgs": dict(m.expected_args),
                        "actualArgs": dict(m.actual_args),
                    }
                    for m in match.argument_mismatches
                ],
                match.passed,
            )
        )
    expectations = []
    for index, expected, missing, unexpected, mismatches, passed in rows:
        attrs = [
            string_attr("mcp.app.span.role", "grader"),
            string_attr("openinference.span.kind", "EVALUATOR"),
            string_attr("mcp.app.grader.kind", "matcher"),
            string_attr("mcp.app.grader.scorer_id", "toolCalls:match"),
            string_attr("mcp.app.grader.link", "selection"),
            string_attr("mcp.app.grader.scope", "turn"),
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
        expectations.append(expected)
    return expectations


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
    ids: TrialTrace, root: str, result: dict[str, Any], end_ms: float, out: list[Span]
) -> list[dict[str, Any]]:
    """One predicate grader per `metadata.predicates[]` row (6.x): kind, tool, role, verdict."""
    rows = [r for r in predicate_rows(result) if promoted_call(r) is None]
    for k, row in enumerate(rows):
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
        out.append(
            otlp_span(
                ids,
                ids.span(f"predicate {k}"),
                root,
                f"grade predicate:{kind}",
                end_ms,
                end_ms,
                attrs,
            )
        )
    return rows


def evaluator_errored(result: dict[str, Any]) -> bool:
    """A gating score row (`metadata.scores[]`, 6.x) with `status: "error"`: the grader could
    not grade (CONTRACT §6.2, with the definitions' `onError` at its gating default `fail`)."""
    metadata = result.get("metadata")
    scores = metadata.get("scores") if isinstance(metadata, dict) else None
    if not isinstance(scores, list):
        return False
    return any(
        isinstance(s, dict) and s.get("status") == "error" and s.get("role") != "advisory"
        for s in scores
    )
