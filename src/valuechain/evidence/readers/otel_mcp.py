"""The OpenTelemetry MCP and JSON-RPC conventions (TRACE-FORMAT §2.3) as a reader.

The OTel MCP semantic conventions and the MCP Python SDK's built-in spans (mcp 2.3.0,
`mcp/shared/jsonrpc_dispatcher.py`, `mcp/server/_otel.py`): `mcp.method.name` on every
request span; client spans are named `MCP send {method} {target}`, server spans
`{method} {target}` (the tool's name follows `tools/call`); a JSON-RPC error sets
`error.type` and `rpc.response.status_code` to its code, an `isError` result sets
`error.type = tool_error` on the server span. The RPC conventions' older code keys are §8's
aliases. (The SDK's server span is also a GenAI `execute_tool` span: `readers.genai`.)
"""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.evidence.contract_keys import Kind
from valuechain.evidence.frames import parse_int_code
from valuechain.evidence.readers import columns as c
from valuechain.evidence.readers.columns import Aliases, Reader, flag, name_suffix

METHOD: Final = "mcp.method.name"
SESSION: Final = "mcp.session.id"  # the MCP transport session
ERROR_TYPE: Final = "error.type"
# §8: the code keys, first = preferred; `error.type` only when it is a numeric string.
ERROR_CODE: tuple[str, ...] = (
    "rpc.status_code",
    "rpc.response.status_code",
    "rpc.jsonrpc.error_code",
    ERROR_TYPE,
)
REQUEST_ID: tuple[str, ...] = ("jsonrpc.request.id", "rpc.jsonrpc.request_id")
TOOL_ERROR_TYPE: Final = "tool_error"  # error.type of a CallToolResult with isError (§2.3)
# Span names whose suffix is the tool's name (§8's last resort): the SDK's server span, then
# its client span.
TOOL_NAME_PREFIXES: tuple[str, ...] = (f"{c.TOOLS_CALL} ", f"MCP send {c.TOOLS_CALL} ")

KEYS: dict[str, Kind] = {
    **dict.fromkeys(ERROR_CODE, Kind.TEXT),
    **dict.fromkeys(REQUEST_ID, Kind.TEXT),
    SESSION: Kind.STR,
    METHOD: Kind.STR,
}


def _aliases() -> Aliases:
    error_type = pl.col(ERROR_TYPE)
    return {
        c.MCP_METHOD: (pl.col(METHOD),),
        c.TOOL_NAME: tuple(name_suffix(p) for p in TOOL_NAME_PREFIXES),
        c.REQUEST_ID: (pl.coalesce(REQUEST_ID),),
        c.MCP_SESSION: (pl.col(SESSION),),
        c.ERROR_CODE: (pl.coalesce([parse_int_code(pl.col(k)) for k in ERROR_CODE]),),
        c.ERROR_TYPE: (error_type,),
        c.CONTENT_ERROR: (flag(error_type == TOOL_ERROR_TYPE),),
    }


READER = Reader("otel_mcp", _aliases)
