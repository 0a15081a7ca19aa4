"""The keys the attribute reading classifies and reads wide (TRACE-FORMAT §2, §3.5, §8).

The transcript keys (OpenInference `llm.*_messages.*`, `input.value`; GenAI's deprecated
`gen_ai.prompt*` / `gen_ai.completion*`) are read as long rows (`evidence.classify`): the
requested tool calls, the user's ask, whether content was captured. `READ_KEYS` lists every
key read wide — the `mcp.app.*` contract's (`evidence.contract_keys`), each on the spans of
its owner class, and the convention readers' (`evidence.readers`), on every span.
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
from valuechain.evidence.readers import KEYS as CONVENTION_KEYS

# --- keys read as long rows -----------------------------------------------------------------

GENAI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
INPUT_VALUE: Final = "input.value"

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

# --- keys read wide (§3.5 contract keys, the readers' keys) --------------------------------

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

# Every key the adapter reads wide: its kind and the spans it is read on (the trial root's
# keys only on trial roots, grader keys only on graders, …; the readers' keys on every span).
READ_KEYS: Mapping[str, tuple[Kind, OwnerClass]] = MappingProxyType(
    {
        **{key: (kind, OwnerClass.ALL) for key, kind in CONVENTION_KEYS.items()},
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
