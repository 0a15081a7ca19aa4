"""The normalised span columns the convention readers fill, and what a reader is.

Every pass after the reading step reads these columns, never a convention's keys: which
convention said a span is a tool execution, which key named its tool, is the readers' concern
(`evidence.readers`). A reader says, per column it speaks for, its aliases in its own order of
preference; `readers.PREFERENCE` orders the readers per column (TRACE-FORMAT §8).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

import polars as pl

# --- MCP requests and tool calls (§2.3, §2.4, §3.7) ------------------------------------------
MCP_METHOD: Final = "mcp_method"  # the MCP method a request span carries
IS_EXECUTION: Final = "is_execution"  # the span is a tool's execution (either side)
TOOL_NAME: Final = "tool_name"
CALL_ID: Final = "call_id"  # the model's tool call id
REQUEST_ID: Final = "request_id"  # the JSON-RPC request id
MCP_SESSION: Final = "mcp_session"  # the MCP transport session
ERROR_CODE: Final = "error_code"  # the JSON-RPC / MCP error code, an integer
ERROR_TYPE: Final = "error_type"  # the failure's class as the span names it
CONTENT_ERROR: Final = "content_error"  # the server answered with an `isError` result
TOOL_OUTCOME: Final = "tool_outcome"  # the producer's outcome of a tool call (contract)
# --- model steps and the observed variant (§2.2, §3.8) ---------------------------------------
MODEL_STEP: Final = "model_step"  # the span declares itself a model call
NAMES_MODEL: Final = "names_model"  # names a model and no operation (an older instrumentation)
KIND_DECLARED: Final = "kind_declared"  # a span kind is declared (an OpenInference kind)
PROVIDER: Final = "provider"
REQUEST_MODEL: Final = "request_model"
RESPONSE_MODEL: Final = "response_model"
INPUT_TOKENS: Final = "span_input_tokens"
OUTPUT_TOKENS: Final = "span_output_tokens"
# --- sessions and content (§3.8) -------------------------------------------------------------
APP_SESSION: Final = "app_session"  # the application's session of the span
CONVERSATION: Final = "conversation"  # the conversation the span belongs to
REDACTION_DECLARED: Final = "redaction_declared"  # the span lists keys it left out (contract)

# The MCP methods the passes tell apart, and every method a span name may carry (TRACE-FORMAT
# §2.3's list, and MCP 2026-07-28's `server/discover`).
TOOLS_CALL: Final = "tools/call"
INITIALIZE: Final = "initialize"
SERVER_DISCOVER: Final = "server/discover"  # MCP 2026-07-28: the stateless lifecycle's set-up
TOOLS_LIST: Final = "tools/list"
MCP_METHODS: frozenset[str] = frozenset(
    {
        INITIALIZE,
        "notifications/initialized",
        "ping",
        TOOLS_LIST,
        TOOLS_CALL,
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
        SERVER_DISCOVER,
    }
)

# Each column with its type; a flag no reader raised is False.
COLUMNS: Mapping[str, pl.DataType] = MappingProxyType(
    {
        MCP_METHOD: pl.String(),
        IS_EXECUTION: pl.Boolean(),
        TOOL_NAME: pl.String(),
        CALL_ID: pl.String(),
        REQUEST_ID: pl.String(),
        MCP_SESSION: pl.String(),
        ERROR_CODE: pl.Int64(),
        ERROR_TYPE: pl.String(),
        CONTENT_ERROR: pl.Boolean(),
        TOOL_OUTCOME: pl.String(),
        MODEL_STEP: pl.Boolean(),
        NAMES_MODEL: pl.Boolean(),
        KIND_DECLARED: pl.Boolean(),
        PROVIDER: pl.String(),
        REQUEST_MODEL: pl.String(),
        RESPONSE_MODEL: pl.String(),
        INPUT_TOKENS: pl.Int64(),
        OUTPUT_TOKENS: pl.Int64(),
        APP_SESSION: pl.String(),
        CONVERSATION: pl.String(),
        REDACTION_DECLARED: pl.Boolean(),
    }
)

Aliases = Mapping[str, tuple[pl.Expr, ...]]


@dataclass(frozen=True, slots=True)
class Reader:
    """One input convention: the columns it speaks for, read from the spans frame's `name`,
    `oi` and wide attribute columns.

    `aliases()` gives, per column, the convention's expressions in its order of preference;
    each is null on a span the convention says nothing about (a flag: True or null). `spans`,
    when set, is the only spans the convention can speak for: its expressions are evaluated
    over those rows alone, so a costly check (a regex over a JSON value) costs nothing on a
    batch without such spans.
    """

    name: str
    aliases: Callable[[], Aliases]
    spans: Callable[[], pl.Expr] | None = None


def flag(condition: pl.Expr) -> pl.Expr:
    """True where `condition` holds, else null (a reader that does not say so)."""
    return pl.when(condition.fill_null(False)).then(pl.lit(True))


def name_suffix(prefix: str) -> pl.Expr:
    """The rest of a span name that starts with `prefix` (`execute_tool X` → `X`), if any."""
    name = pl.col("name")
    rest = name.str.strip_prefix(prefix).str.strip_chars()
    return pl.when(name.str.starts_with(prefix) & (rest != "")).then(rest)
