"""Counting tool calls once (TRACE-FORMAT §2.4).

One logical call can show up as an LLM `tool_call` entry (the request), an OpenInference
`TOOL` / GenAI `execute_tool` span (the execution), an MCP `tools/call` CLIENT span (the
transport, possibly the same span) and an MCP SERVER span. Spans are joined, in order, by
(a) tool-call id, (b) nesting — a `tools/call` span under an execution span of the same
tool, or a SERVER `tools/call` span under the CLIENT `tools/call` span of the same tool whose
trace context it received (`params._meta`, §2.3: the MCP Python SDK writes no session id, so
(c) cannot pair its two sides) — and (c) MCP pairing on `jsonrpc.request.id` +
`mcp.session.id`. Requests join their
execution by tool-call id; a request that never executed is a distinct fact, not a call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SERVER_KIND = 2
CLIENT_KIND = 3


@dataclass(frozen=True, slots=True)
class ToolSpan:
    """One span that may describe a tool call, with what the join rules read."""

    span: str
    parent: str | None
    kind: int | None
    is_role: bool  # contract `mcp.app.span.role = tool_call`
    is_execution: bool  # OpenInference TOOL or GenAI execute_tool
    is_transport: bool  # MCP `tools/call`
    call_id: str | None
    tool_name: str | None
    request_id: str | None
    mcp_session: str | None


@dataclass(frozen=True, slots=True)
class LogicalCall:
    """The spans (indexes into the trial's `ToolSpan` list) of one call; `head` represents it."""

    head: int
    members: tuple[int, ...]


def _rank(span: ToolSpan) -> int:
    """Representative preference: the contract span, the execution, the client, the rest."""
    if span.is_role:
        return 0
    if span.is_execution:
        return 1
    if span.is_transport and span.kind != SERVER_KIND:
        return 2
    return 3


def group_tool_spans(spans: Sequence[ToolSpan]) -> list[LogicalCall]:
    """Logical calls in order of their first span (spans come in start order)."""
    n = len(spans)
    if n == 1:
        return [LogicalCall(0, (0,))]
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)

    by_call_id: dict[str, int] = {}
    by_request: dict[tuple[str, str], int] = {}
    by_span: dict[str, int] = {}
    for i, s in enumerate(spans):
        by_span.setdefault(s.span, i)
    for i, s in enumerate(spans):
        if s.call_id is not None:  # (a)
            union(i, by_call_id.setdefault(s.call_id, i))
        if s.is_transport and s.parent is not None:  # (b)
            j = by_span.get(s.parent)
            if (
                j is not None
                and _same_tool(spans[j], s)
                and (spans[j].is_execution or is_client_to_server(spans[j], s))
            ):
                union(i, j)
        if s.is_transport and s.request_id is not None and s.mcp_session is not None:  # (c)
            union(i, by_request.setdefault((s.request_id, s.mcp_session), i))
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    calls = []
    for members in groups.values():
        head = min(members, key=lambda i: (_rank(spans[i]), i))
        calls.append(LogicalCall(head, tuple(members)))
    calls.sort(key=lambda call: call.members[0])
    return calls


def is_client_to_server(outer: ToolSpan, inner: ToolSpan) -> bool:
    """The server side of a `tools/call` directly under its client side (§2.4 (b))."""
    return (
        outer.is_transport
        and outer.kind == CLIENT_KIND
        and inner.kind == SERVER_KIND
        and (outer.request_id is None or inner.request_id in (None, outer.request_id))
    )


def _same_tool(outer: ToolSpan, inner: ToolSpan) -> bool:
    return inner.tool_name is None or outer.tool_name is None or inner.tool_name == outer.tool_name
