"""Plain traces (docs/spec/trace-format-3.8.md, issue 39.2): a session joins traces into one trial,
a failure of unknown origin reads as a transport failure without a code, a redacted export
leaves User value not measured, traceloop spans are read by their own keys."""

from __future__ import annotations

import json
from typing import Any

from valuechain.derive import derive_chain
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import decode_export


def _span(trace: str, n: int, parent: int | None, name: str, attrs: dict[str, str], **kw: Any):
    span: dict[str, Any] = {
        "traceId": trace * 32,
        "spanId": f"{n:016x}",
        "name": name,
        "kind": kw.get("kind", 1),
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1_000_000),
        "endTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1_000_000 + 500),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
        "status": {"code": kw.get("status", 0)},
    }
    if parent is not None:
        span["parentSpanId"] = f"{parent:016x}"
    return span


def _evidence(*spans: dict[str, Any]) -> TrialEvidence:
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]}
    decoded = decode_export(json.dumps(doc).encode(), "t.json")
    tables = decoded.tables
    return build_trials(tables["spans"], tables["attributes"], source_runs={0: decoded.sha256})


def _chain(ev: TrialEvidence, i: int) -> list[str]:
    inp = ev.inputs[i]
    assert inp is not None
    return [f"{r.state.value}:{r.reason.value}" for r in derive_chain(inp).stage_results]


def test_one_mcp_session_over_five_traces_is_one_trial() -> None:
    s = {"mcp.session.id": "s-1"}
    ev = _evidence(
        _span("a", 1, None, "initialize", {"mcp.method.name": "initialize", **s}),
        _span("b", 2, None, "tools/list", {"mcp.method.name": "tools/list", **s}),
        _span("c", 3, None, "tools/call add", {"mcp.method.name": "tools/call", **s}),
        _span("d", 4, None, "tools/call x", {"mcp.method.name": "tools/call", **s}, status=2),
        _span("e", 5, None, "tools/call y", {"mcp.method.name": "tools/call", **s}),
        _span("f", 6, None, "tools/call z", {"mcp.method.name": "tools/call"}),  # no session
    )
    rows = ev.trials.select(["trial_id", "session_id"]).to_pylist()
    assert rows == [
        {"trial_id": "a" * 32, "session_id": "s-1"},
        {"trial_id": "f" * 32, "session_id": None},
    ]
    assert _chain(ev, 0) == [
        "passed:observed",
        "passed:observed",
        "notApplicable:notAuthored",
        "failed:protocolError",  # span d: ERROR, no code, no error.type, no isError
        "failed:toolError",  # the same span, failed without a code (TRACE-FORMAT §3.7)
        "notApplicable:notAuthored",
    ]
    assert ev.issues.column("code").to_pylist() == ["W_TRANSPORT_ERROR_WITHOUT_CODE"]


def test_conversation_id_joins_only_when_no_mcp_session_id() -> None:
    ev = _evidence(
        _span("a", 1, None, "chat", {"gen_ai.conversation.id": "c"}),
        _span("b", 2, None, "chat", {"gen_ai.conversation.id": "c"}),
        _span("c", 3, None, "chat", {"gen_ai.conversation.id": "c", "mcp.session.id": "m"}),
    )
    # c is read by its mcp.session.id (the first key), which no other trace shares
    assert ev.trials.column("trial_id").to_pylist() == ["a" * 32, "c" * 32]


def test_server_discover_is_set_up_and_tool_error_type_is_a_content_error() -> None:
    ev = _evidence(
        _span("a", 1, None, "session", {}),
        _span("a", 2, 1, "server/discover", {"mcp.method.name": "server/discover"}, kind=2),
        _span(
            "a",
            3,
            1,
            "tools/call d",
            {"mcp.method.name": "tools/call", "error.type": "tool_error"},
            status=2,
        ),
    )
    assert _chain(ev, 0)[:2] == ["passed:observed", "passed:impliedByLaterEvidence"]
    assert _chain(ev, 0)[3:5] == ["passed:observed", "failed:toolError"]
    assert "W_TRANSPORT_ERROR_WITHOUT_CODE" not in ev.issues.column("code").to_pylist()


def test_traceloop_spans_by_their_own_keys() -> None:
    tool = {"traceloop.span.kind": "tool", "traceloop.entity.name": "divide"}
    ev = _evidence(
        _span("a", 1, None, "mcp.client.session", {"traceloop.span.kind": "session"}),
        _span("a", 2, 1, "initialize.mcp", {}, kind=3),
        _span("a", 3, 1, "tools/list.mcp", {}, kind=3),
        _span(
            "a",
            4,
            1,
            "divide.tool",
            {**tool, "traceloop.entity.output": '{"result":"no","is_error":true}'},
            kind=3,
            status=2,
        ),
    )
    assert _chain(ev, 0) == [
        "passed:observed",
        "passed:observed",
        "notApplicable:notAuthored",
        "passed:observed",
        "failed:toolError",
        "notApplicable:notAuthored",
    ]
    assert ev.tool_calls.column("tool_name").to_pylist() == ["divide"]


def test_mcp_sdk_client_and_server_spans_are_one_call() -> None:
    ev = _evidence(
        _span("a", 1, None, "app", {}),
        _span(
            "a",
            2,
            1,
            "MCP send tools/call add",
            {"mcp.method.name": "tools/call", "jsonrpc.request.id": "3"},
            kind=3,
        ),
        _span(
            "a",
            3,
            2,
            "tools/call add",
            {
                "mcp.method.name": "tools/call",
                "jsonrpc.request.id": "3",
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "add",
            },
            kind=2,
        ),
    )
    calls = ev.tool_calls.select(["tool_name", "span_count"]).to_pylist()
    assert calls == [{"tool_name": "add", "span_count": 2}]


def test_a_redacted_export_leaves_user_value_not_measured() -> None:
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
    ev = _evidence(
        _span("a", 1, None, "agent", {}),
        _span("a", 2, 1, "chat gpt-4o", chat),  # no content at all: redacted
        _span("b", 3, None, "agent", {}),
        _span("b", 4, 3, "chat gpt-4o", {**chat, "gen_ai.prompt.0.role": "system"}),
    )
    assert ev.trials.column("redacted").to_pylist() == [True, None]
    assert _chain(ev, 0)[5] == "notMeasured:noEvidenceCaptured"
    assert _chain(ev, 1)[5] == "notApplicable:notAuthored"
