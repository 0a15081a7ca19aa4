"""One result → one trial's spans: the trial root with its run, case, variant and trial keys
(TRACE-FORMAT §3.1–§3.2), above the trace's spans and the graders.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from valuechain.ingest.mcpjam import identity as ident
from valuechain.ingest.mcpjam.graders import (
    Grading,
    matcher_spans,
    predicate_spans,
)
from valuechain.ingest.mcpjam.otlp import (
    PRODUCER,
    Attrs,
    Span,
    TrialTrace,
    bool_attr,
    int_attr,
    json_attr,
    otlp_span,
    string_attr,
)
from valuechain.ingest.mcpjam.scores import score_reading
from valuechain.ingest.mcpjam.trace import (
    as_list,
    is_number,
    llm_and_error_spans,
    message_failures,
    messages_of,
    tool_spans,
    trace_spans_of,
    turn_spans,
)


@dataclass(slots=True)
class RunFacts:
    """What every trial of one run shares: its root's run keys and its resource."""

    run_id: str
    suite_id: str
    settings: dict[str, Any]
    attrs: Attrs
    repetitions: Counter[tuple[str, str]]
    resource: Attrs
    start_ns: int  # the run's start (`clock.run_start_ns`)


def trial_spans(
    facts: RunFacts,
    result: dict[str, Any],
    case: str,
    content: str,
    variant: tuple[str, str],
    repetition: int,
    grading: Grading,
) -> list[Span]:
    """The trial's root span, then its turns, tool calls, LLM calls and graders."""
    provider, model = variant
    variant_key = f"{provider}/{model}@{PRODUCER}"
    external = result.get("externalIterationId")
    trial_id = (
        external
        if isinstance(external, str) and external
        else f"{facts.run_id}:{case}:{provider}/{model}:{repetition}"
    )
    ids = TrialTrace(f"{facts.run_id}\x00{trial_id}", facts.start_ns)
    root_id = ids.span("root")
    trace_spans = trace_spans_of(result)
    messages = messages_of(result)
    failures = message_failures(messages)
    spans: list[Span] = []
    end_ms = _duration(result, trace_spans)
    turns = turn_spans(ids, root_id, trace_spans, result, end_ms, spans)
    tools = tool_spans(ids, root_id, turns, trace_spans, failures, messages, spans)
    model_failed = any(
        s.get("category") == "llm" and s.get("status") == "error" for s in trace_spans
    )
    llm_and_error_spans(ids, root_id, turns, trace_spans, spans)
    prompts = matcher_spans(ids, root_id, result, grading, end_ms, spans)
    predicates = predicate_spans(ids, root_id, result, end_ms, grading, spans)
    attrs = [
        *_TRIAL,
        *facts.attrs,
        *_case_attrs(result, case, content, prompts, predicates, grading.cases),
        string_attr("mcp.app.trial.id", trial_id),
        int_attr("mcp.app.trial.iteration_number", _iteration_number(result, repetition)),
        int_attr("mcp.app.trial.repetition", repetition),
        int_attr(
            "mcp.app.trial.repetitions_configured", facts.repetitions[(case, f"{provider}/{model}")]
        ),
        string_attr("mcp.app.trial.variant_key", variant_key),
        _COMPLETED,
        _PASSED if result["passed"] else _FAILED,
        string_attr("mcp.app.variant.provider", provider),
        string_attr("mcp.app.variant.model", model),
        *_HOST,
    ]
    error = result.get("error")
    if isinstance(error, str) and error.strip():
        attrs.append(string_attr("mcp.app.trial.error", error))
    if model_failed:
        attrs.append(string_attr("mcp.app.trial.step_error.source", "model"))
    if result.get("trace") is None:
        attrs.append(bool_attr("mcp.app.evidence.trace_absent", True))
    elif not tools and not trace_spans:
        attrs.append(bool_attr("mcp.app.evidence.trace_lacks_span_channel", True))
    scores, errored = score_reading(result)
    if errored:
        attrs.append(bool_attr("mcp.app.evidence.evaluator_errored", True))
    if scores is not None:  # the SDK's claim beside `passed`; only §6.2's reading decides
        attrs.append(scores)
    query = result.get("query")
    if isinstance(query, str):
        attrs.append(string_attr("input.value", query))
    root = otlp_span(ids, root_id, None, "eval.trial", 0, end_ms, attrs)
    return [root, *spans]


_TRIAL = (
    string_attr("mcp.app.span.role", "trial"),
    string_attr("openinference.span.kind", "CHAIN"),
)
_COMPLETED = string_attr("mcp.app.trial.status", "completed")
_PASSED = string_attr("mcp.app.trial.result", "passed")
_FAILED = string_attr("mcp.app.trial.result", "failed")
_HOST = (string_attr("mcp.app.host.key", PRODUCER), string_attr("mcp.app.host.name", "MCPJam SDK"))


def _duration(result: dict[str, Any], trace_spans: list[dict[str, Any]]) -> float:
    ends = [s["endMs"] for s in trace_spans if is_number(s.get("endMs"))]
    duration = result.get("durationMs")
    return float(max([*ends, duration if is_number(duration) else 0, 1]))


def _iteration_number(result: dict[str, Any], repetition: int) -> int:
    metadata = result.get("metadata")
    number = metadata.get("iterationNumber") if isinstance(metadata, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else repetition + 1


# The case's keys and authored expectations
_SELECTION_KINDS = frozenset(
    {
        "toolCalledAtLeastOnce",
        "firstToolWas",
        "toolNeverCalled",
        "onlyToolsCalled",
        "toolCallCountUnder",
        "toolCalledBefore",
        "noDeprecatedToolCalled",
        "noDestructiveToolCalled",
    }
)


def _case_attrs(
    result: dict[str, Any],
    case: str,
    content: str,
    expectations: list[list[Any]],
    predicates: list[dict[str, Any]],
    seen: dict[tuple[Any, ...], Attrs],
) -> Attrs:
    """The case's keys and its authored case, inferred as CONTRACT §2.3 does; kept in
    ``seen`` for the case's other trials. Besides the case and its content hash (of its
    title, expected calls, negativity, expected output and match options:
    `identity.case_content`), they depend only on whether the turns expect calls and on the
    predicates' kinds."""
    kinds = tuple(
        (r.get("predicate") or {}).get("type") if isinstance(r.get("predicate"), dict) else None
        for r in predicates
    )
    key = (case, content, bool(expectations), any(expectations), kinds)
    found = seen.get(key)
    if found is None:
        found = seen[key] = _authored(result, case, content, expectations, kinds)
    return found


def _authored(
    result: dict[str, Any],
    case: str,
    content: str,
    expectations: list[list[Any]],
    kinds: tuple[Any, ...],
) -> Attrs:
    negative = result.get("isNegativeTest") is True
    expected = as_list(result.get("expectedToolCalls"))
    expects_call = (
        bool(expected)
        or any(expectations)
        or any(k in ("toolCalledAtLeastOnce", "firstToolWas") for k in kinds)
    )
    output = result.get("expectedOutput")
    assertions = sum(k not in _SELECTION_KINDS for k in kinds) + (output is not None)
    attrs = [
        string_attr("mcp.app.case.id", case),
        string_attr("mcp.app.case.key", case),
        string_attr("mcp.app.case.content_hash", content),
        string_attr("mcp.app.case.title", ident.case_title(result)),
        bool_attr("mcp.app.case.is_negative", negative),
        string_attr("mcp.app.authored.mode", "model_driven"),
        bool_attr("mcp.app.authored.expects_tool_call", expects_call),
        int_attr("mcp.app.authored.assertion_count", assertions),
        json_attr("mcp.app.expect.tool_calls", [] if negative else expected),
        bool_attr("mcp.app.expect.output_defined", output is not None),
    ]
    if "isNegativeTest" in result and isinstance(result["isNegativeTest"], bool):
        attrs.append(bool_attr("mcp.app.authored.is_negative_test", result["isNegativeTest"]))
    if isinstance(output, str):
        attrs.append(string_attr("mcp.app.expect.output", output))
    if expected or negative or expectations:
        options = ident.resolved_match_options(result.get("matchOptions"))
        bounded = options["maxExtraToolCalls"] is not None
        attrs += [
            string_attr("mcp.app.match.argument_matching", str(options["argumentMatching"])),
            string_attr("mcp.app.match.tool_call_order", str(options["toolCallOrder"])),
            string_attr("mcp.app.match.extra_tool_calls", "bounded" if bounded else "unbounded"),
            string_attr(
                "mcp.app.match.source", "case" if result.get("matchOptions") else "default"
            ),
        ]
        if bounded and isinstance(options["maxExtraToolCalls"], int):
            attrs.append(
                int_attr("mcp.app.match.max_extra_tool_calls", options["maxExtraToolCalls"])
            )
    return attrs
