"""Which spans are MCP requests, tool executions and set-up, whoever wrote them (TRACE-FORMAT §2.3).

Three writers follow, more or less, the OpenTelemetry MCP conventions:

- the OTel MCP semantic conventions themselves, and the MCP Python SDK's built-in spans
  (mcp 2.3.0, `mcp/shared/jsonrpc_dispatcher.py`, `mcp/server/_otel.py`): `mcp.method.name`
  on every request span; client spans are named `MCP send {method} {target}`, server spans
  `{method} {target}` with `gen_ai.operation.name = execute_tool` and `gen_ai.tool.name` on
  `tools/call`; a JSON-RPC error sets `error.type` and `rpc.response.status_code` to its
  code, an `isError` result sets `error.type = tool_error` on the server span;
- traceloop's `@traceloop/instrumentation-mcp` (OpenLLMetry; 0.27.0, `dist/index.js`): no
  `mcp.method.name` at all — a request span is named `{method}.mcp` (`initialize.mcp`,
  `tools/list.mcp`), a tool call `{tool}.tool` with `traceloop.span.kind = tool` and
  `traceloop.entity.name = {tool}`; with content tracing on, `traceloop.entity.output` is
  JSON `{"result": …, "is_error": …}`; an `isError` result and a JSON-RPC error alike only set
  the span status ERROR (no code, no `error.type`);
- OpenInference's MCP instrumentation only propagates context (§2.1 `[O3]`): its spans are
  read by the OpenInference keys.

The expressions here read the wide columns of `conventions.READ_KEYS` on a span frame.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

import polars as pl

from valuechain.evidence import conventions as cv
from valuechain.evidence.frames import first_non_null

# MCP methods a traceloop `{method}.mcp` span name may carry (TRACE-FORMAT §2.3's list, and
# MCP 2026-07-28's `server/discover`); any other `….mcp` name is not read as a method.
KNOWN_METHODS: frozenset[str] = frozenset(
    {
        "initialize",
        "notifications/initialized",
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "logging/setLevel",
        "sampling/createMessage",
        "elicitation/create",
        "completion/complete",
        "roots/list",
        cv.SERVER_DISCOVER,
    }
)
TRACELOOP_METHOD_SUFFIX: Final = ".mcp"
TRACELOOP_TOOL_SUFFIX: Final = ".tool"

# Set-up evidence by method (§3.8): a session's start — the handshake `initialize` or
# MCP 2026-07-28's `server/discover` — is connection, `tools/list` is discovery.
SETUP_PHASES: MappingProxyType[str, str] = MappingProxyType(
    {
        cv.INITIALIZE: "connection",
        cv.SERVER_DISCOVER: "connection",
        cv.TOOLS_LIST: "discovery",
    }
)

# `"is_error": true` in traceloop's `traceloop.entity.output` JSON (an `isError` result).
_IS_ERROR_TRUE = r'"is_error"\s*:\s*true\b'


def method() -> pl.Expr:
    """The MCP method of a span: `mcp.method.name`, else a traceloop `{method}.mcp` name."""
    name = pl.col("name")
    stripped = name.str.strip_suffix(TRACELOOP_METHOD_SUFFIX)
    traceloop = pl.when(
        name.str.ends_with(TRACELOOP_METHOD_SUFFIX) & stripped.is_in(sorted(KNOWN_METHODS))
    ).then(stripped)
    return pl.coalesce(pl.col(cv.MCP_METHOD), traceloop)


def is_traceloop_tool() -> pl.Expr:
    """A traceloop / OpenLLMetry tool span (`traceloop.span.kind = tool`)."""
    return (pl.col(cv.TRACELOOP_SPAN_KIND) == cv.TRACELOOP_TOOL).fill_null(False)


def is_execution() -> pl.Expr:
    """A tool execution: OpenInference TOOL, GenAI `execute_tool`, a traceloop tool span."""
    return (
        (pl.col("oi") == "TOOL").fill_null(False)
        | (pl.col(cv.GENAI_OPERATION) == cv.EXECUTE_TOOL).fill_null(False)
        | is_traceloop_tool()
    )


def is_transport() -> pl.Expr:
    """An MCP `tools/call` request span (either side)."""
    return (method() == cv.TOOLS_CALL).fill_null(False)


def is_tool_span() -> pl.Expr:
    """Any span that may describe a tool call outside the contract (§2.4 (2)–(4))."""
    return is_execution() | is_transport()


def tool_name(frame: pl.DataFrame) -> pl.Expr:
    """§8 "Tool name": `tool.name`, `gen_ai.tool.name`, a traceloop tool span's entity name,
    then the span-name suffix (`tools/call X`, `execute_tool X`, `MCP send tools/call X`)."""
    name = pl.col("name")
    suffix = pl.coalesce(
        [
            pl.when(name.str.starts_with(p)).then(name.str.strip_prefix(p).str.strip_chars())
            for p in cv.TOOL_NAME_PREFIXES
        ]
    )
    traceloop = pl.when(is_traceloop_tool()).then(pl.col(cv.TRACELOOP_ENTITY_NAME))
    return pl.coalesce(
        first_non_null(frame, cv.TOOL_NAME), traceloop, pl.when(suffix != "").then(suffix)
    )


def content_error() -> pl.Expr:
    """The span says the server answered with an `isError` result: `error.type = tool_error`
    (OTel MCP, §2.3) or `"is_error": true` in traceloop's entity output."""
    return (pl.col(cv.ERROR_TYPE) == cv.TOOL_ERROR_TYPE).fill_null(False) | pl.col(
        cv.TRACELOOP_ENTITY_OUTPUT
    ).str.contains(_IS_ERROR_TRUE).fill_null(False)


def setup_phase() -> pl.Expr:
    """`connection` / `discovery` for a set-up request span, else null."""
    return method().replace_strict(dict(SETUP_PHASES), default=None, return_dtype=pl.String)
