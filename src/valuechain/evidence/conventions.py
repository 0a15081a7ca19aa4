"""The OpenInference and OTel GenAI / MCP / JSON-RPC keys the adapter reads (TRACE-FORMAT §2, §8).

Three vocabularies meet in one trace: OpenInference (`llm.*`, `tool.*`, `input.value`, …),
OTel GenAI / MCP / JSON-RPC (`gen_ai.*`, `mcp.method.name`, `rpc.*`, `jsonrpc.*`) and the
`mcp.app.*` eval contract (its keys: `evidence.contract_keys`). Every alias of §8 is listed
here once, in preference order; readers take the first alias that holds a usable value.
`READ_KEYS` joins both sides: every key the adapter reads wide, with the spans it is read on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from valuechain.evidence.contract_keys import (
    CHAIN_LENGTH,
    MEASUREMENT_FIELDS,
    ROOT_KEYS,
    SPAN_KEYS,
    STAGE_FIELDS,
    Kind,
    OwnerClass,
    measurement_key,
    stage_key,
)

# --- aliases (§8; first = preferred) ------------------------------------------------------

ERROR_CODE: tuple[str, ...] = (
    "rpc.status_code",
    "rpc.response.status_code",
    "rpc.jsonrpc.error_code",
    "error.type",  # only when it is a numeric string (§3.7.1 (2))
)
REQUEST_ID: tuple[str, ...] = ("jsonrpc.request.id", "rpc.jsonrpc.request_id")
JSONRPC_VERSION: tuple[str, ...] = ("jsonrpc.protocol.version", "rpc.jsonrpc.version")
PROVIDER: tuple[str, ...] = ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
REQUEST_MODEL: tuple[str, ...] = (
    "gen_ai.request.model",
    "llm.request.model_name",
    "llm.model_name",
)
RESPONSE_MODEL: tuple[str, ...] = (
    "gen_ai.response.model",
    "llm.response.model_name",
    "llm.model_name",
)
INPUT_TOKENS: tuple[str, ...] = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
)
OUTPUT_TOKENS: tuple[str, ...] = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
)
TOOL_NAME: tuple[str, ...] = ("tool.name", "gen_ai.tool.name")  # then the span-name suffix
TOOL_CALL_ID: tuple[str, ...] = ("tool_call.id", "gen_ai.tool.call.id", "tool.id")
TOOL_ARGUMENTS: tuple[str, ...] = (
    "input.value",
    "gen_ai.tool.call.arguments",
    "tool_call.function.arguments",
)
TOOL_RESULT: tuple[str, ...] = ("output.value", "gen_ai.tool.call.result")
SESSION: tuple[str, ...] = ("session.id", "gen_ai.conversation.id")
MCP_SESSION: Final = "mcp.session.id"  # the MCP transport session: a different thing
# The keys that join several traces into one trial (`evidence.grouping`), in preference order.
TRIAL_SESSION: tuple[str, ...] = (MCP_SESSION, "gen_ai.conversation.id", "session.id")
EVALUATION_PREFIXES: tuple[str, ...] = (
    "mcp.app.grader.",
    "gen_ai.evaluation.",
    "evaluation.",
    "annotation.",
)
# Span-name prefixes whose suffix is the tool name (last resort of §8 "Tool name"); the MCP
# Python SDK names its client spans `MCP send {method} {target}` (mcp 2.3.0,
# `mcp/shared/jsonrpc_dispatcher.py`).
TOOL_NAME_PREFIXES: tuple[str, ...] = ("tools/call ", "execute_tool ", "MCP send tools/call ")

GENAI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
GENAI_OPERATION: Final = "gen_ai.operation.name"
MCP_METHOD: Final = "mcp.method.name"
ERROR_TYPE: Final = "error.type"
INPUT_VALUE: Final = "input.value"
TOOL_ERROR_TYPE: Final = "tool_error"  # error.type of a CallToolResult with isError (§2.3)

# Inference operations (§2.2) whose spans count as model steps and carry token usage.
INFERENCE_OPERATIONS: frozenset[str] = frozenset({"chat", "text_completion", "generate_content"})
EXECUTE_TOOL: Final = "execute_tool"
TOOLS_CALL: Final = "tools/call"
INITIALIZE: Final = "initialize"
SERVER_DISCOVER: Final = "server/discover"  # MCP 2026-07-28: the stateless lifecycle's set-up
TOOLS_LIST: Final = "tools/list"

# Flattened message keys (§2.1): the requested calls and the roles of input messages.
LLM_TOOL_CALL_KEY: Final = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(id|function\.name)$"
)
LLM_INPUT_ROLE_KEY: Final = re.compile(r"^llm\.input_messages\.(\d+)\.message\.role$")
# The deprecated GenAI transcript keys instrumentations still write (semconv
# registry-deprecated; OpenLLMetry's indexed form): the user's ask is a prompt message with
# role `user`, the answer's requested tool calls are read like OpenInference's (§2.4 (1)).
GENAI_PROMPT: Final = "gen_ai.prompt"  # the whole prompt as one string (Python or JSON list)
GENAI_PROMPT_ROLE_KEY: Final = re.compile(r"^gen_ai\.prompt\.(\d+)\.role$")
# Output content: a model's (or tool's) answer as captured. Only read to tell an export that
# captured content from one that left it out (a redacted export, `evidence.roots`).
OUTPUT_CONTENT_KEY: Final = re.compile(
    r"^(llm\.output_messages\.\d+\.message\.role|gen_ai\.completion\.\d+\.role)$"
)
OUTPUT_CONTENT_KEYS: frozenset[str] = frozenset(
    {"output.value", "gen_ai.output.messages", "gen_ai.completion"}
)
GENAI_COMPLETION_TOOL_CALL_KEY: Final = re.compile(
    r"^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(id|name)$"
)
# The field names of a requested call, as the OpenInference family spells them.
TOOL_CALL_FIELDS: Mapping[str, str] = MappingProxyType(
    {"id": "id", "function.name": "function.name", "name": "function.name"}
)
LLM_OUTPUT_PREFIX: Final = "llm.output_messages."
LLM_INPUT_PREFIX: Final = "llm.input_messages."

# traceloop / OpenLLMetry keys (`@traceloop/ai-semantic-conventions` `SpanAttributes`, read in
# `@traceloop/instrumentation-mcp` 0.27.0 `dist/index.js`); `evidence.mcp_spans` reads them.
TRACELOOP_SPAN_KIND: Final = "traceloop.span.kind"  # `tool` on a tool span, `session`, …
TRACELOOP_ENTITY_NAME: Final = "traceloop.entity.name"  # the tool's name on a tool span
TRACELOOP_ENTITY_INPUT: Final = "traceloop.entity.input"  # JSON: {tool_name, arguments}
TRACELOOP_ENTITY_OUTPUT: Final = "traceloop.entity.output"  # JSON: {result, is_error}
TRACELOOP_TOOL: Final = "tool"

# Non-contract keys read from spans, with the kind they are read as.
FOREIGN_KEYS: Mapping[str, Kind] = MappingProxyType(
    {
        **dict.fromkeys(ERROR_CODE, Kind.TEXT),
        **dict.fromkeys(REQUEST_ID, Kind.TEXT),
        **dict.fromkeys(PROVIDER, Kind.STR),
        **dict.fromkeys((*REQUEST_MODEL, *RESPONSE_MODEL), Kind.STR),
        **dict.fromkeys((*INPUT_TOKENS, *OUTPUT_TOKENS), Kind.COUNT),
        **dict.fromkeys((*TOOL_NAME, *TOOL_CALL_ID), Kind.TEXT),
        **dict.fromkeys(SESSION, Kind.STR),
        MCP_SESSION: Kind.STR,
        GENAI_OPERATION: Kind.STR,
        MCP_METHOD: Kind.STR,
        TRACELOOP_SPAN_KIND: Kind.STR,
        TRACELOOP_ENTITY_NAME: Kind.STR,
        TRACELOOP_ENTITY_OUTPUT: Kind.STR,
    }
)

# --- keys read wide (§3.5 contract keys and the foreign keys above) ---------------------

_GRADER_READ = (
    "mcp.app.grader.kind",
    "mcp.app.grader.scorer_id",
    "mcp.app.grader.role",
    "mcp.app.grader.status",
    "mcp.app.grader.passed",
    "mcp.app.grader.reason",
    "mcp.app.grader.scope",
    "mcp.app.grader.turn_index",
    "mcp.app.predicate.type",
    "mcp.app.predicate.tool_name",
    "mcp.app.match.result.passed",
    "mcp.app.match.result.expected",
    "mcp.app.match.result.missing",
    "mcp.app.match.result.unexpected",
    "mcp.app.match.result.argument_mismatches",
    "mcp.app.match.result.missing_count",
    "mcp.app.match.result.unexpected_count",
    "mcp.app.match.result.argument_mismatch_count",
    "mcp.app.judge.name",
    "mcp.app.judge.status",
    "mcp.app.judge.pending_kind",
    "mcp.app.judge.verdict",
    "mcp.app.judge.attributed",
)
_ALL_READ = (
    "mcp.app.redacted_keys",
    "mcp.app.tool.outcome",
)

# Every key the adapter reads wide: its kind and the spans it is read on (the trial root's
# keys only on trial roots, grader keys only on graders, …; foreign keys on every span).
READ_KEYS: Mapping[str, tuple[Kind, OwnerClass]] = MappingProxyType(
    {
        **{key: (kind, OwnerClass.ALL) for key, kind in FOREIGN_KEYS.items()},
        **{key: (SPAN_KEYS[key], OwnerClass.ALL) for key in _ALL_READ},
        **{key: (kind, OwnerClass.TRIAL) for key, (kind, _) in ROOT_KEYS.items()},
        **{key: (SPAN_KEYS[key], OwnerClass.GRADER) for key in _GRADER_READ},
        "mcp.app.widget.status": (Kind.STR, OwnerClass.WIDGET),
        "mcp.app.turn.index": (Kind.INT, OwnerClass.TURN),
        # the persisted chain's six rows (other indexes are read as long rows)
        **{
            stage_key(i, field): (kind, OwnerClass.TRIAL)
            for i in range(CHAIN_LENGTH)
            for field, kind in STAGE_FIELDS.items()
        },
        **{
            measurement_key(i, field): (kind, OwnerClass.TRIAL)
            for i in range(CHAIN_LENGTH)
            for field, kind in MEASUREMENT_FIELDS.items()
        },
    }
)
