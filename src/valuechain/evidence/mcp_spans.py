"""Which spans are MCP requests, tool calls and set-up, from the normalised columns (§2.3).

Whoever wrote them — the OTel MCP conventions and the MCP SDK, traceloop's instrumentation,
OpenInference, GenAI — the convention readers (`evidence.readers`) have put their method, and
whether they execute a tool, in `mcp_method` and `is_execution`; these expressions read those.
"""

from __future__ import annotations

from types import MappingProxyType

import polars as pl

from valuechain.evidence.readers import columns as c

# Set-up evidence by method (§3.8): a session's start — the handshake `initialize` or
# MCP 2026-07-28's `server/discover` — is connection, `tools/list` is discovery.
SETUP_PHASES: MappingProxyType[str, str] = MappingProxyType(
    {
        c.INITIALIZE: "connection",
        c.SERVER_DISCOVER: "connection",
        c.TOOLS_LIST: "discovery",
    }
)


def is_transport() -> pl.Expr:
    """An MCP `tools/call` request span (either side)."""
    return (pl.col(c.MCP_METHOD) == c.TOOLS_CALL).fill_null(False)


def is_tool_span() -> pl.Expr:
    """Any span that may describe a tool call outside the contract (§2.4 (2)–(4))."""
    return pl.col(c.IS_EXECUTION) | is_transport()


def setup_phase() -> pl.Expr:
    """`connection` / `discovery` for a set-up request span, else null."""
    return pl.col(c.MCP_METHOD).replace_strict(
        dict(SETUP_PHASES), default=None, return_dtype=pl.String
    )
