"""TRACE-FORMAT §2.4: one logical call is counted once, however many spans describe it."""

from __future__ import annotations

from pathlib import Path

import pytest
from evidence_builders import (
    attrs,
    contract,
    evidence,
    request,
    role,
    set_attr,
    trial_spans,
)

from valuechain.derive import derive_chain

TOOL_SPAN = "919046a58ca45119"  # trial 1's tools/call get_forecast
SESSION = "2b3113a6afe3a2ec1b45d8075ff00940"


def _one_call_three_ways(shared: Path) -> list[dict[str, object]]:
    """Trial 1, its call seen as LLM tool_call entry + TOOL span + MCP client and server."""
    spans = trial_spans(shared)
    tool = next(s for s in spans if s["spanId"] == TOOL_SPAN)
    set_attr(tool, "mcp.session.id", SESSION)
    client = {
        "traceId": tool["traceId"],
        "spanId": "c1c1c1c1c1c1c1c1",
        "parentSpanId": TOOL_SPAN,
        "name": "tools/call get_forecast",
        "kind": 3,
        "startTimeUnixNano": str(int(tool["startTimeUnixNano"]) + 1_000_000),
        "endTimeUnixNano": str(int(tool["endTimeUnixNano"]) - 1_000_000),
        "attributes": [
            {"key": "mcp.method.name", "value": {"stringValue": "tools/call"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "get_forecast"}},
            {"key": "jsonrpc.request.id", "value": {"stringValue": "3"}},
            {"key": "mcp.session.id", "value": {"stringValue": SESSION}},
        ],
    }
    server = {
        **client,
        "spanId": "5e5e5e5e5e5e5e5e",
        "parentSpanId": "c1c1c1c1c1c1c1c1",
        "kind": 2,
        "attributes": [*client["attributes"]],  # type: ignore[list-item]
    }
    return [*spans, client, server]


def test_contract_call_counted_once(shared: Path) -> None:
    spans = _one_call_three_ways(shared)
    llm = [s for s in spans if role(s) == "llm"]
    ids = [a for s in llm for k, a in attrs(s).items() if k.endswith("tool_call.id")]
    assert ids == [{"stringValue": "toolu_01"}]  # the request entry on the model step
    ev = contract(shared, spans)
    inp = ev.inputs[0]
    assert inp is not None
    assert [s.id for s in inp.evidence.spans] == [TOOL_SPAN]
    calls = ev.tool_calls.to_pylist()
    assert len(calls) == 1
    call = calls[0]
    assert (call["call_id"], call["span_id"], call["span_count"]) == ("toolu_01", TOOL_SPAN, 3)
    assert call["requested"] is True and call["executed"] is True and call["status"] == "ok"
    chain = derive_chain(inp).to_wire()["stageResults"]
    assert isinstance(chain, list)
    assert chain[3] == {
        "stage": "call",
        "state": "passed",
        "reason": "observed",
        "evidence": {"spanIds": [TOOL_SPAN]},
    }


def test_foreign_call_counted_once(shared: Path) -> None:
    ev = evidence(request(_one_call_three_ways(shared), None))
    (inp,) = ev.inputs
    assert inp is not None
    assert [s.id for s in inp.evidence.spans] == [TOOL_SPAN]  # the execution span leads
    assert [c["span_count"] for c in ev.tool_calls.to_pylist()] == [3]


def test_requested_but_never_executed_is_a_fact_not_a_call(shared: Path) -> None:
    spans = trial_spans(shared)
    step = next(s for s in spans if role(s) == "llm")
    prefix = "llm.output_messages.0.message.tool_calls.5.tool_call."
    set_attr(step, prefix + "id", "toolu_99")
    set_attr(step, prefix + "function.name", "delete_alert")
    ev = contract(shared, spans)
    inp = ev.inputs[0]
    assert inp is not None
    assert [s.id for s in inp.evidence.spans] == [TOOL_SPAN]
    never = [c for c in ev.tool_calls.to_pylist() if c["call_id"] == "toolu_99"]
    assert never == [
        {
            "trial_index": 0,
            "trial_id": "it_adf8682489",
            "call_id": "toolu_99",
            "tool_name": "delete_alert",
            "requested": True,
            "executed": False,
            "outcome": None,
            "status": None,
            "span_id": None,
            "span_count": 0,
            "mcp_error_code": None,
            "prompt_index": None,
        }
    ]


def test_not_executed_outcome_stays_out_of_the_evidence(shared: Path) -> None:
    spans = trial_spans(shared)
    set_attr(
        next(s for s in spans if s["spanId"] == TOOL_SPAN), "mcp.app.tool.outcome", "not_executed"
    )
    ev = contract(shared, spans)
    inp = ev.inputs[0]
    assert inp is not None and inp.evidence.spans == ()
    (call,) = ev.tool_calls.to_pylist()
    assert (call["executed"], call["outcome"], call["status"]) == (False, "not_executed", None)


@pytest.mark.parametrize(
    ("outcome", "code", "kind", "mcp_error_code"),
    [
        ("tool_error", None, "content-error", None),
        ("rpc_error", "-32602", "protocol-error", -32602),
        ("transport_error", "-32001", "protocol-error", -32001),
    ],
)
def test_tool_error_kinds(
    shared: Path, outcome: str, code: str | None, kind: str, mcp_error_code: int | None
) -> None:
    spans = trial_spans(shared)
    tool = next(s for s in spans if s["spanId"] == TOOL_SPAN)
    set_attr(tool, "mcp.app.tool.outcome", outcome)
    if code is not None:
        set_attr(tool, "error.type", code)  # §3.7.1 (2): error.type is the last alias
    inp = contract(shared, spans).inputs[0]
    assert inp is not None
    (span,) = inp.evidence.spans
    assert (span.status, span.mcp_error_code) == ("error", mcp_error_code)
    assert [e.kind for e in inp.evidence.tool_errors] == [kind]
