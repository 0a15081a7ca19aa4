"""What a trial did, from the result's trace: its turn, tool-call, LLM and error spans
(TRACE-FORMAT §3.4–§3.5), and the readers of the trace's spans, messages and prompt summaries.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from valuechain.ingest.mcpjam.otlp import (
    Span,
    TrialTrace,
    bool_attr,
    int_attr,
    otlp_span,
    string_attr,
)

_TRANSPORT_LOCAL = frozenset({-32000, -32001})


def trace_spans_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    trace = result.get("trace")
    spans = trace.get("spans") if isinstance(trace, dict) else None
    return [s for s in spans if isinstance(s, dict)] if isinstance(spans, list) else []


def messages_of(result: dict[str, Any]) -> list[Any]:
    trace = result.get("trace")
    if isinstance(trace, list):
        return trace
    messages = trace.get("messages") if isinstance(trace, dict) else None
    return messages if isinstance(messages, list) else []


def prompt_summaries_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    trace = result.get("trace")
    prompts = trace.get("prompts") if isinstance(trace, dict) else None
    return [p for p in prompts if isinstance(p, dict)] if isinstance(prompts, list) else []


def prompt_index(span: dict[str, Any]) -> int:
    index = span.get("promptIndex")
    return index if type(index) is int and index >= 0 else 0  # a bool is no index


# JSON's numbers as parsed (a bool is no number); `type` over `isinstance`: this runs for every
# time of every span
_NUMBERS = frozenset({int, float})


def is_number(value: Any) -> bool:
    return type(value) in _NUMBERS


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# the attributes every span of a kind carries, made once
_TURN = string_attr("mcp.app.span.role", "turn")
_TOOL_CALL = (
    string_attr("mcp.app.span.role", "tool_call"),
    string_attr("openinference.span.kind", "TOOL"),
)
_TOOLS_CALL = string_attr("mcp.method.name", "tools/call")
_LLM = (
    string_attr("mcp.app.span.role", "llm"),
    string_attr("openinference.span.kind", "LLM"),
    string_attr("gen_ai.operation.name", "chat"),
)
_SDK_ERROR = string_attr("error.type", "sdk_error")
_TOKENS = (
    ("inputTokens", "gen_ai.usage.input_tokens"),
    ("outputTokens", "gen_ai.usage.output_tokens"),
)


def turn_spans(
    ids: TrialTrace,
    root: str,
    trace_spans: list[dict[str, Any]],
    result: dict[str, Any],
    end_ms: float,
    out: list[Span],
) -> dict[int, str]:
    """One turn span per prompt index the trace or its prompt summaries name (else turn 0)."""
    bounds: dict[int, tuple[Any, Any]] = {}  # each turn's earliest start and latest end
    indexes = {prompt_index(p) for p in prompt_summaries_of(result)}
    for s in trace_spans:
        index = prompt_index(s)
        indexes.add(index)
        start, end = s.get("startMs"), s.get("endMs")
        if is_number(start) and is_number(end):
            first, last = bounds.get(index, (start, end))
            bounds[index] = (min(first, start), max(last, end))
    turns: dict[int, str] = {}
    for index in sorted(indexes or {0}):
        turns[index] = ids.span(f"turn {index}")
        start, end = bounds.get(index, (0, end_ms))
        attrs = [_TURN, int_attr("mcp.app.turn.index", index)]
        out.append(otlp_span(ids, turns[index], root, f"turn {index}", start, end, attrs))
    return turns


# Tool calls, and their failures as the transcript reports them
def message_failures(messages: list[Any]) -> dict[str, tuple[str, str | None]]:
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


def tool_spans(
    ids: TrialTrace,
    root: str,
    turns: dict[int, str],
    trace_spans: list[dict[str, Any]],
    failures: dict[str, tuple[str, str | None]],
    messages: list[Any],
    out: list[Span],
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
        parent = turns.get(prompt_index(span), root)
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
    ids: TrialTrace,
    local: str,
    parent: str,
    name: Any,
    call_id: Any,
    server: Any,
    outcome: str,
    code: int | None,
    start: Any,
    end: Any,
) -> Span:
    tool = name if isinstance(name, str) and name else "unknown"
    attrs = [
        *_TOOL_CALL,
        string_attr("tool.name", tool),
        _TOOLS_CALL,
        string_attr("mcp.app.tool.outcome", outcome),
    ]
    if outcome == "tool_error":
        attrs.append(bool_attr("mcp.app.tool.is_error", True))
    if isinstance(call_id, str):
        attrs.append(string_attr("tool_call.id", call_id))
    if isinstance(server, str) and server:
        attrs.append(string_attr("mcp.app.server.name", server))
    if code is not None:
        attrs.append(string_attr("rpc.response.status_code", str(code)))
    start_ms = start if is_number(start) else 0
    end_ms = end if is_number(end) else start_ms
    return otlp_span(
        ids,
        ids.span(local),
        parent,
        f"tools/call {tool}",
        start_ms,
        end_ms,
        attrs,
        error=outcome != "ok",
        kind=3,
    )


def llm_and_error_spans(
    ids: TrialTrace,
    root: str,
    turns: dict[int, str],
    trace_spans: list[dict[str, Any]],
    out: list[Span],
) -> None:
    """LLM spans (`role = llm`, the model that served) and the SDK's `error` spans."""
    for k, span in enumerate(trace_spans):
        category = span.get("category")
        if category not in ("llm", "error"):
            continue
        start = float(span["startMs"]) if is_number(span.get("startMs")) else 0.0
        end = float(span["endMs"]) if is_number(span.get("endMs")) else start
        parent = turns.get(prompt_index(span), root)
        failed = span.get("status") == "error"
        if category == "error":
            name = span.get("name") if isinstance(span.get("name"), str) else "error"
            out.append(
                otlp_span(
                    ids,
                    ids.span(f"error {k}"),
                    parent,
                    str(name)[:200],
                    start,
                    end,
                    [_SDK_ERROR],
                    error=True,
                )
            )
            continue
        attrs = [*_LLM]
        model = span.get("modelId")
        if isinstance(model, str):
            attrs.append(string_attr("gen_ai.request.model", model))
        for key, otel in _TOKENS:
            tokens = span.get(key)
            if isinstance(tokens, int) and not isinstance(tokens, bool):
                attrs.append(int_attr(otel, tokens))
        step = span.get("stepIndex")
        if isinstance(step, int):
            attrs.append(int_attr("mcp.app.step.index", step))
        out.append(
            otlp_span(
                ids,
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
