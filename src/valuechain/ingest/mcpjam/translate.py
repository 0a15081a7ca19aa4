"""SDK results → OTLP/JSON under the `mcp.app.*` eval convention (docs/mcpjam-sdk.md §4).

Each result becomes one trace — a trial root, a turn per prompt index, the trace's LLM and tool
spans, one matcher grader per turn and one grader per predicate row — written as one NDJSON
line, so the translated source takes the same framing and native parallel decode as any OTLP
export, and every stage after ingest reads it without knowing where it came from. The
tool-call matcher (CONTRACT §2.4) is the caller's (`Matcher`): ingest does not import derive.

Module size: one function per span role; it is over ~400 lines because the field-by-field
mapping stays in one place, next to the document that cites it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from valuechain.contract.matching import MatchOptions, ToolCall, ToolCallMatch
from valuechain.ingest.mcpjam import identity as ident
from valuechain.ingest.mcpjam.payloads import Quarantined, SdkRun

Matcher = Callable[[Sequence[ToolCall], Sequence[ToolCall], MatchOptions, bool], ToolCallMatch]

SCHEMA_VERSION = 1
PRODUCER = "mcpjam-sdk"
# SDK payloads carry no wall-clock time (trace span times are ms offsets from the prompt's
# start): every trial is placed at this fixed instant plus its own offsets
BASE_NS = 1_000_000_000_000_000_000  # 2001-09-09T01:46:40Z
_MS = 1_000_000
_TRANSPORT_LOCAL = frozenset({-32000, -32001})
_encode = msgspec.json.Encoder().encode

Attrs = list[dict[str, Any]]


def _s(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _i(key: str, value: int) -> dict[str, Any]:
    return {"key": key, "value": {"intValue": str(value)}}


def _b(key: str, value: bool) -> dict[str, Any]:
    return {"key": key, "value": {"boolValue": value}}


def _d(key: str, value: float) -> dict[str, Any]:
    return {"key": key, "value": {"doubleValue": float(value)}}


def _json(key: str, value: Any) -> dict[str, Any]:
    return _s(key, ident.canonical(value).decode())


@dataclass(slots=True)
class RunFacts:
    """What every trial of one run shares (its root's run keys)."""

    run_id: str
    suite_id: str
    settings: dict[str, Any]
    attrs: Attrs
    repetitions: Counter[tuple[str, str]]


def translate(runs: list[SdkRun], matcher: Matcher) -> tuple[bytes, list[Quarantined]]:
    """NDJSON of OTLP requests, one per trial, and the results that could not be graded."""
    lines: list[bytes] = []
    problems: list[Quarantined] = []
    for run in runs:
        for line in _run_lines(run, matcher, problems):
            lines.append(line)
    return b"\n".join(lines) + (b"\n" if lines else b""), problems


def _run_lines(run: SdkRun, matcher: Matcher, problems: list[Quarantined]) -> Iterator[bytes]:
    results = [r for _, r in run.results]
    if not results:
        return
    settings = dict(run.settings)
    settings.setdefault("suiteName", run.suite_name)
    run_id = run.external_run_id or "sdkrun_" + run.digest.hexdigest()[:16]
    variants = [_variant(r) for r in results]
    cases = [ident.case_key(r) for r in results]
    repetitions = Counter(zip(cases, (f"{p}/{m}" for p, m in variants), strict=True))
    contents = [ident.short_hash(ident.case_content(r)) for r in results]
    expected = settings.get("expectedIterations")
    facts = RunFacts(
        run_id,
        ident.opaque(run.suite_name, "s_"),
        settings,
        _run_attrs(run, settings, run_id, results, cases, contents, expected),
        repetitions,
    )
    resource = {"attributes": _resource_attrs(settings)}
    seen: Counter[tuple[str, str]] = Counter()
    for (path, result), case, content, variant in zip(
        run.results, cases, contents, variants, strict=True
    ):
        key = (case, f"{variant[0]}/{variant[1]}")
        repetition = seen[key]
        seen[key] += 1
        try:
            spans = _trial(facts, result, case, content, variant, repetition, matcher)
        except ValueError as exc:  # match options the matcher refuses (CONTRACT §2.4)
            problems.append(Quarantined(f"{path}.matchOptions", str(exc)))
            continue
        request = {
            "resourceSpans": [
                {
                    "resource": resource,
                    "scopeSpans": [{"scope": {"name": PRODUCER}, "spans": spans}],
                }
            ]
        }
        yield _encode(request)


def _resource_attrs(settings: dict[str, Any]) -> Attrs:
    project = settings.get("project")
    return [
        _s("service.name", "mcpjam-evals"),
        _s("openinference.project.name", project if isinstance(project, str) else "default"),
        _i("mcp.app.export.schema_version", SCHEMA_VERSION),
        _s("mcp.app.export.producer", f"{PRODUCER}/{_generation(settings)}"),
        _s("mcp.app.export.scope", "run"),
        _b("mcp.app.export.include_content", True),
    ]


def _generation(settings: dict[str, Any]) -> str:
    """`results` (1.14.0's /sdk/v1 shapes) vs `results-6` (the repository SDK's): told apart
    by the 6.x-only fields a run may carry; documented, never read by a later stage."""
    six = ("evaluationConfigHash", "project", "hostConfigHash")
    return "results-6" if any(k in settings for k in six) else "results"


def _run_attrs(
    run: SdkRun,
    settings: dict[str, Any],
    run_id: str,
    results: list[dict[str, Any]],
    cases: list[str],
    contents: list[str],
    expected: Any,
) -> Attrs:
    project = settings.get("project")
    attrs = [
        _s("mcp.app.project.id", project if isinstance(project, str) and project else "default"),
        _s("mcp.app.suite.id", ident.opaque(run.suite_name, "s_")),
        _s("mcp.app.suite.name", run.suite_name),
        _s("mcp.app.run.id", run_id),
        _s("mcp.app.run.config_revision", ident.config_revision(settings, results)),
        _s(
            "mcp.app.run.case_set_fingerprint",
            ident.case_set_fingerprint(zip(cases, contents, strict=True)),
        ),
        _s("mcp.app.run.status", "completed" if run.finalized else "running"),
        _s("mcp.app.run.source", "sdk"),
        _i(
            "mcp.app.run.trials_expected",
            expected if isinstance(expected, int) and expected >= len(results) else len(results),
        ),
        _s("mcp.app.run.measurement_unit", "caseVariant"),
        _s("mcp.app.run.materialization_state", "final" if run.finalized else "provisional"),
        _i("mcp.app.run.verdict_policy_version", 2),
        _d("mcp.app.suite.default_pass_threshold", _pass_threshold(settings)),
    ]
    group = ident.run_group(settings)
    if group is not None:
        attrs.append(_s("mcp.app.run.group_id", group))
    return attrs


def _pass_threshold(settings: dict[str, Any]) -> float:
    """`passCriteria.minimumPassRate` (a percentage above 1, else a fraction) as the case
    pass threshold; 1 (every graded trial passes) without one."""
    criteria = settings.get("passCriteria")
    rate = criteria.get("minimumPassRate") if isinstance(criteria, dict) else None
    if isinstance(rate, int | float) and not isinstance(rate, bool) and 0 <= rate <= 100:
        return rate / 100 if rate > 1 else float(rate)
    return 1.0


def _variant(result: dict[str, Any]) -> tuple[str, str]:
    """(provider, model): the result's, else the trace spans' `modelId` / `provider`
    (EvalSuite and EvalTest auto-save results set neither)."""
    provider, model = result.get("provider"), result.get("model")
    if not model or not provider:
        for span in _trace_spans(result):
            if not model and isinstance(span.get("modelId"), str) and span["modelId"]:
                model = span["modelId"]
            if not provider and isinstance(span.get("provider"), str) and span["provider"]:
                provider = span["provider"]
    if isinstance(model, str) and "/" in model and not provider:
        provider, model = model.split("/", 1)
    return (provider or "unknown", model or "unknown")


def _trace_spans(result: dict[str, Any]) -> list[dict[str, Any]]:
    trace = result.get("trace")
    spans = trace.get("spans") if isinstance(trace, dict) else None
    return [s for s in spans if isinstance(s, dict)] if isinstance(spans, list) else []


def _messages(result: dict[str, Any]) -> list[Any]:
    trace = result.get("trace")
    if isinstance(trace, list):
        return trace
    messages = trace.get("messages") if isinstance(trace, dict) else None
    return messages if isinstance(messages, list) else []


# ---------------------------------------------------------------------------- one trial
class _Ids:
    """Deterministic trace and span ids of one trial (its key decides them)."""

    def __init__(self, key: str) -> None:
        self.trace = hashlib.sha256(key.encode()).hexdigest()[:32]
        self.key = key
        self.n = 0

    def span(self, local: str) -> str:
        return hashlib.sha256(f"{self.key}\x00{local}".encode()).hexdigest()[:16]


def _trial(
    facts: RunFacts,
    result: dict[str, Any],
    case: str,
    content: str,
    variant: tuple[str, str],
    repetition: int,
    matcher: Matcher,
) -> list[dict[str, Any]]:
    provider, model = variant
    variant_key = f"{provider}/{model}@{PRODUCER}"
    external = result.get("externalIterationId")
    trial_id = (
        external
        if isinstance(external, str) and external
        else f"{facts.run_id}:{case}:{provider}/{model}:{repetition}"
    )
    ids = _Ids(f"{facts.run_id}\x00{trial_id}")
    root_id = ids.span("root")
    trace_spans = _trace_spans(result)
    messages = _messages(result)
    failures = _message_failures(messages)
    spans: list[dict[str, Any]] = []
    end_ms = _duration(result, trace_spans)
    turns = _turn_spans(ids, root_id, trace_spans, result, end_ms, spans)
    tools = _tool_spans(ids, root_id, turns, trace_spans, failures, messages, spans)
    model_failed = any(
        s.get("category") == "llm" and s.get("status") == "error" for s in trace_spans
    )
    _llm_and_error_spans(ids, root_id, turns, trace_spans, spans)
    prompts = _matcher_spans(ids, root_id, turns, result, matcher, end_ms, spans)
    predicates = _predicate_spans(ids, root_id, result, end_ms, spans)
    attrs = [
        _s("mcp.app.span.role", "trial"),
        _s("openinference.span.kind", "CHAIN"),
        *facts.attrs,
        *_case_attrs(result, case, content, prompts, predicates),
        _s("mcp.app.trial.id", trial_id),
        _i("mcp.app.trial.iteration_number", _iteration_number(result, repetition)),
        _i("mcp.app.trial.repetition", repetition),
        _i(
            "mcp.app.trial.repetitions_configured", facts.repetitions[(case, f"{provider}/{model}")]
        ),
        _s("mcp.app.trial.variant_key", variant_key),
        _s("mcp.app.trial.status", "completed"),
        _s("mcp.app.trial.result", "passed" if result["passed"] else "failed"),
        _s("mcp.app.variant.provider", provider),
        _s("mcp.app.variant.model", model),
        _s("mcp.app.host.key", PRODUCER),
        _s("mcp.app.host.name", "MCPJam SDK"),
    ]
    error = result.get("error")
    if isinstance(error, str) and error.strip():
        attrs.append(_s("mcp.app.trial.error", error))
    if model_failed:
        attrs.append(_s("mcp.app.trial.step_error.source", "model"))
    if result.get("trace") is None:
        attrs.append(_b("mcp.app.evidence.trace_absent", True))
    elif not tools and not trace_spans:
        attrs.append(_b("mcp.app.evidence.trace_lacks_span_channel", True))
    if _evaluator_errored(result):
        attrs.append(_b("mcp.app.evidence.evaluator_errored", True))
    query = result.get("query")
    if isinstance(query, str):
        attrs.append(_s("input.value", query))
    root = _span(ids.trace, root_id, None, "eval.trial", 0, end_ms, attrs)
    return [root, *spans]


def _duration(result: dict[str, Any], trace_spans: list[dict[str, Any]]) -> float:
    ends = [s["endMs"] for s in trace_spans if _number(s.get("endMs"))]
    duration = result.get("durationMs")
    return float(max([*ends, duration if _number(duration) else 0, 1]))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _span(
    trace: str,
    span_id: str,
    parent: str | None,
    name: str,
    start_ms: float,
    end_ms: float,
    attrs: Attrs,
    *,
    error: bool = False,
    kind: int = 1,
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": trace,
        "spanId": span_id,
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(BASE_NS + int(start_ms * _MS)),
        "endTimeUnixNano": str(BASE_NS + int(end_ms * _MS)),
        "attributes": attrs,
    }
    if parent is not None:
        span["parentSpanId"] = parent
    if error:
        span["status"] = {"code": 2}
    return span


def _iteration_number(result: dict[str, Any], repetition: int) -> int:
    metadata = result.get("metadata")
    number = metadata.get("iterationNumber") if isinstance(metadata, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else repetition + 1


def _prompt_index(span: dict[str, Any]) -> int:
    index = span.get("promptIndex")
    return index if isinstance(index, int) and not isinstance(index, bool) and index >= 0 else 0


def _turn_spans(
    ids: _Ids,
    root: str,
    trace_spans: list[dict[str, Any]],
    result: dict[str, Any],
    end_ms: float,
    out: list[dict[str, Any]],
) -> dict[int, str]:
    """One turn span per prompt index the trace or its prompt summaries name (else turn 0)."""
    indexes = {_prompt_index(s) for s in trace_spans} | {
        _prompt_index(p) for p in _prompt_summaries(result)
    }
    turns: dict[int, str] = {}
    for index in sorted(indexes or {0}):
        turns[index] = ids.span(f"turn {index}")
        times = [
            (s["startMs"], s["endMs"])
            for s in trace_spans
            if _prompt_index(s) == index and _number(s.get("startMs")) and _number(s.get("endMs"))
        ]
        start = min((t[0] for t in times), default=0)
        end = max((t[1] for t in times), default=end_ms)
        attrs = [_s("mcp.app.span.role", "turn"), _i("mcp.app.turn.index", index)]
        out.append(_span(ids.trace, turns[index], root, f"turn {index}", start, end, attrs))
    return turns


def _prompt_summaries(result: dict[str, Any]) -> list[dict[str, Any]]:
    trace = result.get("trace")
    prompts = trace.get("prompts") if isinstance(trace, dict) else None
    return [p for p in prompts if isinstance(p, dict)] if isinstance(prompts, list) else []


# ---------------------------------------------------------------------------- tools
def _message_failures(messages: list[Any]) -> dict[str, tuple[str, str | None]]:
    """Failed tool results in the transcript by tool call id: (kind, tool name), classified
    as `classifyToolFailurePart` (eval-tool-execution.ts) does."""
    out: dict[str, tuple[str, str | None]] = {}
    for k, part in enumerate(_tool_results(messages)):
        kind = _failure_kind(part)
        if kind is not None:
            call_id = part.get("toolCallId")
            name = part.get("toolName")
            out[call_id if isinstance(call_id, str) else f"#{k}"] = (
                kind,
                name if isinstance(name, str) else None,
            )
    return out


def _tool_results(messages: list[Any]) -> Iterator[dict[str, Any]]:
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool-result":
                    yield part


def _failure_kind(part: dict[str, Any]) -> str | None:
    error = part.get("error")
    if (isinstance(error, str) and error.strip()) or (
        isinstance(error, dict)
        and isinstance(error.get("message"), str)
        and error["message"].strip()
    ):
        return "protocol-error"
    output = part.get("output")
    if isinstance(output, dict) and output.get("type") == "error-text":
        return "protocol-error"
    result = part.get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        return "content-error"
    unwrapped = (
        output.get("value")
        if isinstance(output, dict) and "type" in output and "value" in output
        else output
    )
    if isinstance(unwrapped, dict) and unwrapped.get("isError") is True:
        return "content-error"
    return "content-error" if part.get("isError") is True else None


def _tool_spans(
    ids: _Ids,
    root: str,
    turns: dict[int, str],
    trace_spans: list[dict[str, Any]],
    failures: dict[str, tuple[str, str | None]],
    messages: list[Any],
    out: list[dict[str, Any]],
) -> int:
    """The trace's tool spans as `tool_call` spans (TRACE-FORMAT §3.5); without any, one per
    tool result in the transcript. Returns how many were written."""
    written = 0
    for k, span in enumerate(trace_spans):
        if span.get("category") != "tool":
            continue
        call_id = span.get("toolCallId")
        failure = failures.get(call_id) if isinstance(call_id, str) else None
        name = span.get("toolName") or span.get("name")
        code = span.get("mcpErrorCode")
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        outcome = _outcome(span.get("status") == "error", code, failure)
        parent = turns.get(_prompt_index(span), root)
        out.append(
            _tool_span(
                ids,
                f"tool {k}",
                parent,
                name,
                call_id,
                span.get("serverId"),
                outcome,
                code,
                span.get("startMs"),
                span.get("endMs"),
            )
        )
        written += 1
    if written or not messages:
        return written
    for k, part in enumerate(_tool_results(messages)):
        call_id = part.get("toolCallId")
        failure = failures.get(call_id) if isinstance(call_id, str) else failures.get(f"#{k}")
        outcome = _outcome(False, None, failure)
        out.append(
            _tool_span(
                ids,
                f"result {k}",
                turns.get(0, root),
                part.get("toolName"),
                call_id,
                None,
                outcome,
                None,
                0,
                0,
            )
        )
        written += 1
    return written


def _outcome(failed: bool, code: int | None, failure: tuple[str, str | None] | None) -> str:
    """`mcp.app.tool.outcome`: a coded failure is `transport_error` (−32000/−32001) or
    `rpc_error`; an errored span without a code is the SDK's protocol error (`rpc_error`,
    eval-tool-execution.ts `spanToolErrorRecords`); an `isError` result is `tool_error`."""
    if code is not None:
        return "transport_error" if code in _TRANSPORT_LOCAL else "rpc_error"
    if failure is not None:
        return "tool_error" if failure[0] == "content-error" else "rpc_error"
    return "rpc_error" if failed else "ok"


def _tool_span(
    ids: _Ids,
    local: str,
    parent: str,
    name: Any,
    call_id: Any,
    server: Any,
    outcome: str,
    code: int | None,
    start: Any,
    end: Any,
) -> dict[str, Any]:
    tool = name if isinstance(name, str) and name else "unknown"
    attrs = [
        _s("mcp.app.span.role", "tool_call"),
        _s("openinference.span.kind", "TOOL"),
        _s("tool.name", tool),
        _s("mcp.method.name", "tools/call"),
        _s("mcp.app.tool.outcome", outcome),
    ]
    if outcome == "tool_error":
        attrs.append(_b("mcp.app.tool.is_error", True))
    if isinstance(call_id, str):
        attrs.append(_s("tool_call.id", call_id))
    if isinstance(server, str) and server:
        attrs.append(_s("mcp.app.server.name", server))
    if code is not None:
        attrs.append(_s("rpc.response.status_code", str(code)))
    start_ms = start if _number(start) else 0
    end_ms = end if _number(end) else start_ms
    return _span(
        ids.trace,
        ids.span(local),
        parent,
        f"tools/call {tool}",
        start_ms,
        end_ms,
        attrs,
        error=outcome != "ok",
        kind=3,
    )


def _llm_and_error_spans(
    ids: _Ids,
    root: str,
    turns: dict[int, str],
    trace_spans: list[dict[str, Any]],
    out: list[dict[str, Any]],
) -> None:
    """LLM spans (`role = llm`, the model that served) and the SDK's `error` spans."""
    for k, span in enumerate(trace_spans):
        category = span.get("category")
        if category not in ("llm", "error"):
            continue
        start = float(span["startMs"]) if _number(span.get("startMs")) else 0.0
        end = float(span["endMs"]) if _number(span.get("endMs")) else start
        parent = turns.get(_prompt_index(span), root)
        failed = span.get("status") == "error"
        if category == "error":
            name = span.get("name") if isinstance(span.get("name"), str) else "error"
            out.append(
                _span(
                    ids.trace,
                    ids.span(f"error {k}"),
                    parent,
                    str(name)[:200],
                    start,
                    end,
                    [_s("error.type", "sdk_error")],
                    error=True,
                )
            )
            continue
        attrs = [
            _s("mcp.app.span.role", "llm"),
            _s("openinference.span.kind", "LLM"),
            _s("gen_ai.operation.name", "chat"),
        ]
        if isinstance(span.get("modelId"), str):
            attrs.append(_s("gen_ai.request.model", span["modelId"]))
        for key, otel in (
            ("inputTokens", "gen_ai.usage.input_tokens"),
            ("outputTokens", "gen_ai.usage.output_tokens"),
        ):
            if isinstance(span.get(key), int) and not isinstance(span.get(key), bool):
                attrs.append(_i(otel, span[key]))
        if isinstance(span.get("stepIndex"), int):
            attrs.append(_i("mcp.app.step.index", span["stepIndex"]))
        out.append(
            _span(
                ids.trace,
                ids.span(f"llm {k}"),
                parent,
                "chat",
                start,
                end,
                attrs,
                error=failed,
                kind=3,
            )
        )


# ---------------------------------------------------------------------------- graders
def _matcher_spans(
    ids: _Ids,
    root: str,
    turns: dict[int, str],
    result: dict[str, Any],
    matcher: Matcher,
    end_ms: float,
    out: list[dict[str, Any]],
) -> list[list[Any]]:
    """One matcher grader per turn: the SDK's own per-turn summaries (`trace.prompts`, whose
    `passed` is load-bearing, CONTRACT §2.2) when sent; else the case's expected vs actual
    calls graded by the matcher under the result's match options. No expectation and no
    negative case: no matcher row. Returns each turn's expected calls."""
    summaries = _prompt_summaries(result)
    rows: list[tuple[int, list[Any], list[Any], list[Any], list[Any], bool | None]] = []
    if summaries:
        for p in summaries:
            passed = p.get("passed")
            rows.append(
                (
                    _prompt_index(p),
                    _list(p.get("expectedToolCalls")),
                    _list(p.get("missing")),
                    _list(p.get("unexpected")),
                    _list(p.get("argumentMismatches")),
                    passed if isinstance(passed, bool) else None,
                )
            )
    elif result.get("expectedToolCalls") is not None or result.get("isNegativeTest") is True:
        expected = [_call(c) for c in _expected_calls(result)]
        actual = [_call(c) for c in _list(result.get("actualToolCalls"))]
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
                [] if result.get("isNegativeTest") is True else _expected_calls(result),
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
            _s("mcp.app.span.role", "grader"),
            _s("openinference.span.kind", "EVALUATOR"),
            _s("mcp.app.grader.kind", "matcher"),
            _s("mcp.app.grader.scorer_id", "toolCalls:match"),
            _s("mcp.app.grader.link", "selection"),
            _s("mcp.app.grader.scope", "turn"),
            _i("mcp.app.grader.turn_index", index),
            _json("mcp.app.match.result.expected", expected),
            _json("mcp.app.match.result.missing", missing),
            _json("mcp.app.match.result.unexpected", unexpected),
            _json("mcp.app.match.result.argument_mismatches", mismatches),
            _i("mcp.app.match.result.missing_count", len(missing)),
            _i("mcp.app.match.result.unexpected_count", len(unexpected)),
            _i("mcp.app.match.result.argument_mismatch_count", len(mismatches)),
        ]
        if passed is not None:
            attrs += [
                _b("mcp.app.match.result.passed", passed),
                _b("mcp.app.grader.passed", passed),
            ]
        # graders hang under the trial root (TRACE-FORMAT §3.3); the turn is their turn_index
        out.append(
            _span(
                ids.trace,
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


def _expected_calls(result: dict[str, Any]) -> list[Any]:
    """The case's expected calls, with each gating `toolCalledWith` predicate promoted into
    them when not already there (CONTRACT §3.1: it is graded inside the matcher)."""
    calls = list(_list(result.get("expectedToolCalls")))
    seen = {ident.canonical(c) for c in calls}
    for row in _predicate_rows(result):
        call = _promoted(row)
        if call is not None and ident.canonical(call) not in seen:
            seen.add(ident.canonical(call))
            calls.append(call)
    return calls


def _promoted(row: dict[str, Any]) -> dict[str, Any] | None:
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


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _call(value: Any) -> ToolCall:
    args = value.get("arguments") if isinstance(value, dict) else None
    return ToolCall(str(value.get("toolName")), args if isinstance(args, dict) else None)


def _wire(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"toolName": call.tool_name}
    if call.arguments is not None:
        out["arguments"] = dict(call.arguments)
    return out


def _predicate_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    metadata = result.get("metadata")
    rows = metadata.get("predicates") if isinstance(metadata, dict) else None
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def _predicate_spans(
    ids: _Ids, root: str, result: dict[str, Any], end_ms: float, out: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One predicate grader per `metadata.predicates[]` row (6.x): kind, tool, role, verdict."""
    rows = [r for r in _predicate_rows(result) if _promoted(r) is None]
    for k, row in enumerate(rows):
        found = row.get("predicate")
        predicate: dict[str, Any] = found if isinstance(found, dict) else {}
        kind = predicate.get("type")
        attrs = [
            _s("mcp.app.span.role", "grader"),
            _s("openinference.span.kind", "EVALUATOR"),
            _s("mcp.app.grader.kind", "predicate"),
            _s("mcp.app.grader.scorer_id", f"predicate:{kind}#{k}"),
            _s("mcp.app.grader.scope", "turn" if isinstance(row.get("scope"), dict) else "case"),
        ]
        if isinstance(kind, str):
            attrs.append(_s("mcp.app.predicate.type", kind))
        if isinstance(predicate.get("toolName"), str):
            attrs.append(_s("mcp.app.predicate.tool_name", predicate["toolName"]))
        if isinstance(predicate.get("role"), str):
            attrs.append(_s("mcp.app.grader.role", predicate["role"]))
        if isinstance(row.get("passed"), bool):
            attrs.append(_b("mcp.app.grader.passed", row["passed"]))
        if isinstance(row.get("status"), str):
            attrs.append(_s("mcp.app.grader.status", row["status"]))
        if isinstance(row.get("reason"), str):
            attrs.append(_s("mcp.app.grader.reason", row["reason"][:2000]))
        scope = row.get("scope")
        if isinstance(scope, dict) and isinstance(scope.get("promptIndex"), int):
            attrs.append(_i("mcp.app.grader.turn_index", scope["promptIndex"]))
        attrs.append(_json("mcp.app.predicate.spec", predicate))
        out.append(
            _span(
                ids.trace,
                ids.span(f"predicate {k}"),
                root,
                f"grade predicate:{kind}",
                end_ms,
                end_ms,
                attrs,
            )
        )
    return rows


def _evaluator_errored(result: dict[str, Any]) -> bool:
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


# ---------------------------------------------------------------------------- the case
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
) -> Attrs:
    """The case's keys and its authored case, inferred as CONTRACT §2.3 does."""
    negative = result.get("isNegativeTest") is True
    expected = _list(result.get("expectedToolCalls"))
    kinds = [
        (r.get("predicate") or {}).get("type") if isinstance(r.get("predicate"), dict) else None
        for r in predicates
    ]
    expects_call = (
        bool(expected)
        or any(expectations)
        or any(k in ("toolCalledAtLeastOnce", "firstToolWas") for k in kinds)
    )
    output = result.get("expectedOutput")
    assertions = sum(k not in _SELECTION_KINDS for k in kinds) + (output is not None)
    attrs = [
        _s("mcp.app.case.id", case),
        _s("mcp.app.case.key", case),
        _s("mcp.app.case.content_hash", content),
        _s("mcp.app.case.title", ident.case_title(result)),
        _b("mcp.app.case.is_negative", negative),
        _s("mcp.app.authored.mode", "model_driven"),
        _b("mcp.app.authored.expects_tool_call", expects_call),
        _i("mcp.app.authored.assertion_count", assertions),
        _json("mcp.app.expect.tool_calls", [] if negative else expected),
        _b("mcp.app.expect.output_defined", output is not None),
    ]
    if "isNegativeTest" in result and isinstance(result["isNegativeTest"], bool):
        attrs.append(_b("mcp.app.authored.is_negative_test", result["isNegativeTest"]))
    if isinstance(output, str):
        attrs.append(_s("mcp.app.expect.output", output))
    if expected or negative or expectations:
        options = ident.resolved_match_options(result.get("matchOptions"))
        bounded = options["maxExtraToolCalls"] is not None
        attrs += [
            _s("mcp.app.match.argument_matching", str(options["argumentMatching"])),
            _s("mcp.app.match.tool_call_order", str(options["toolCallOrder"])),
            _s("mcp.app.match.extra_tool_calls", "bounded" if bounded else "unbounded"),
            _s("mcp.app.match.source", "case" if result.get("matchOptions") else "default"),
        ]
        if bounded and isinstance(options["maxExtraToolCalls"], int):
            attrs.append(_i("mcp.app.match.max_extra_tool_calls", options["maxExtraToolCalls"]))
    return attrs
