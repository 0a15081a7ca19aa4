"""The `mcp.app.*` eval contract's keys as data: each key's value kind (TRACE-FORMAT §3.4, §3.5).

The contract is only in force when the resource carries `mcp.app.export.schema_version`
(§3.2 goal 6). `ROOT_KEYS` / `SPAN_KEYS` / `RESOURCE_KEYS` are the §3.4/§3.5 tables: each
contract key with the value kind it must carry and whether the trial root requires it. A key
of the wrong kind is `W_CONTRACT_TYPE` and reads as absent; an `mcp.app.*` key in none of
these tables is `W_UNKNOWN_CONTRACT_KEY`. The values the adapter dispatches on (span roles,
tool outcomes, grader kinds) are declared here too, so a contract word is written once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import IntEnum, StrEnum
from types import MappingProxyType
from typing import Final

# --- versions ---------------------------------------------------------------------------

# The contract version this reader understands (§3.4: "this document is `1`").
SUPPORTED_CONTRACT_VERSION: Final = 1


class Kind(StrEnum):
    """How an attribute value is read; the accepted OTLP value types follow from it."""

    STR = "str"  # stringValue
    INT = "int"  # intValue
    NUM = "num"  # doubleValue, or intValue (a JS number)
    BOOL = "bool"  # boolValue
    STRS = "strs"  # arrayValue of strings
    INTS = "ints"  # arrayValue of ints
    JSON = "json"  # JSON text; kvlistValue / arrayValue carrying the same structure (§3.2)
    TEXT = "text"  # any scalar rendered as text (error codes: "-32602" or -32602)
    COUNT = "count"  # intValue, or an integral doubleValue (token counts of foreign traces)


# Which OTLP value types a kind accepts; others are `W_CONTRACT_TYPE` on contract keys.
ACCEPTED_VALUE_TYPES: Mapping[Kind, frozenset[str]] = MappingProxyType(
    {
        Kind.STR: frozenset({"string"}),
        Kind.INT: frozenset({"int"}),
        Kind.NUM: frozenset({"double", "int"}),
        Kind.BOOL: frozenset({"bool"}),
        Kind.STRS: frozenset({"array"}),
        Kind.INTS: frozenset({"array"}),
        Kind.JSON: frozenset({"string", "array", "kvlist"}),
        Kind.TEXT: frozenset({"string", "int", "double"}),
        Kind.COUNT: frozenset({"int", "double"}),
    }
)

# --- span roles (§3.3) ------------------------------------------------------------------


class OwnerClass(IntEnum):
    """The spans a key is read on: every span, or the spans of one contract role."""

    ALL = 0
    TRIAL = 1
    GRADER = 2
    WIDGET = 3
    TURN = 4


class Role(StrEnum):
    """`mcp.app.span.role`: readers dispatch on the role key, never on the span name."""

    TRIAL = "trial"
    CONNECT = "connect"
    EGRESS_CANARY = "egress_canary"
    DISCOVER = "discover"
    TURN = "turn"
    LLM = "llm"
    TOOL_CALL = "tool_call"
    WIDGET_RENDER = "widget_render"
    GRADER = "grader"
    SESSION = "session"


# --- resource keys (§3.4) ---------------------------------------------------------------

SCHEMA_VERSION: Final = "mcp.app.export.schema_version"
INCLUDE_CONTENT: Final = "mcp.app.export.include_content"
RESOURCE_KEYS: Mapping[str, Kind] = MappingProxyType(
    {
        "service.name": Kind.STR,
        "openinference.project.name": Kind.STR,
        SCHEMA_VERSION: Kind.INT,
        "mcp.app.export.producer": Kind.STR,
        "mcp.app.export.scope": Kind.STR,
        INCLUDE_CONTENT: Kind.BOOL,
        "mcp.app.export.created_time": Kind.STR,
    }
)

# --- contract span keys (§3.5): key → (kind, required on the trial root) -------------------

_S, _I, _N, _B, _SS, _J = Kind.STR, Kind.INT, Kind.NUM, Kind.BOOL, Kind.STRS, Kind.JSON
_REQ, _OPT = True, False


def _setup(phase: str) -> dict[str, tuple[Kind, bool]]:
    p = f"mcp.app.setup.{phase}."
    return {
        p + "outcome": (_S, _OPT),  # §3.7.1 (1): setup signals are optional
        p + "attribution": (_S, _OPT),
        p + "egress_verified": (_B, _OPT),
        p + "span_ids": (_SS, _OPT),
        p + "duration_ms": (_N, _OPT),
    }


ROOT_KEYS: Mapping[str, tuple[Kind, bool]] = MappingProxyType(
    {
        "mcp.app.project.id": (_S, _REQ),
        "mcp.app.project.name": (_S, _OPT),
        "mcp.app.suite.id": (_S, _REQ),
        "mcp.app.suite.name": (_S, _OPT),
        "mcp.app.run.id": (_S, _REQ),
        "mcp.app.run.number": (_I, _OPT),
        "mcp.app.run.group_id": (_S, _OPT),
        "mcp.app.run.config_revision": (_S, _REQ),
        "mcp.app.run.case_set_fingerprint": (_S, _REQ),
        "mcp.app.run.status": (_S, _REQ),
        "mcp.app.run.stop_reason": (_S, _OPT),
        "mcp.app.run.source": (_S, _OPT),
        "mcp.app.run.completed_time": (_S, _OPT),
        "mcp.app.run.trials_expected": (_I, _REQ),
        "mcp.app.run.measurement_unit": (_S, _OPT),
        "mcp.app.run.materialization_state": (_S, _OPT),
        "mcp.app.run.verdict": (_S, _OPT),
        "mcp.app.case.id": (_S, _REQ),
        "mcp.app.case.key": (_S, _REQ),
        "mcp.app.case.content_hash": (_S, _OPT),
        "mcp.app.case.title": (_S, _REQ),
        "mcp.app.case.intent": (_S, _OPT),
        "mcp.app.case.type": (_S, _OPT),
        "mcp.app.case.is_negative": (_B, _REQ),
        "mcp.app.case.turn_count": (_I, _OPT),
        "mcp.app.authored.mode": (_S, _REQ),
        "mcp.app.authored.is_negative_test": (_B, _OPT),
        "mcp.app.authored.expects_tool_call": (_B, _OPT),
        "mcp.app.authored.expects_widget_render": (_B, _OPT),
        "mcp.app.authored.assertion_count": (_I, _OPT),
        "mcp.app.authored.has_user_ask": (_B, _OPT),
        "mcp.app.authored.tool_expectation": (_S, _OPT),
        "mcp.app.trial.id": (_S, _REQ),
        "mcp.app.trial.iteration_number": (_I, _REQ),
        "mcp.app.trial.repetition": (_I, _REQ),
        "mcp.app.trial.repetitions_configured": (_I, _OPT),
        "mcp.app.trial.variant_key": (_S, _REQ),
        "mcp.app.trial.status": (_S, _REQ),
        "mcp.app.trial.result": (_S, _OPT),
        "mcp.app.trial.error": (_S, _OPT),
        "mcp.app.trial.step_error.source": (_S, _OPT),
        "mcp.app.trial.step_error.code": (_S, _OPT),
        "mcp.app.trial.step_error.http_status": (_I, _OPT),
        "mcp.app.trial.failure_category": (_S, _OPT),
        "mcp.app.variant.provider": (_S, _REQ),
        "mcp.app.variant.model": (_S, _REQ),
        "mcp.app.host.key": (_S, _REQ),
        "mcp.app.host.name": (_S, _OPT),
        "mcp.app.host.engine": (_S, _OPT),
        "mcp.app.host.config_hash": (_S, _OPT),
        "mcp.app.policy.blocked": (_B, _OPT),
        "mcp.app.policy.reason": (_S, _OPT),
        **_setup("connection"),
        **_setup("discovery"),
        "mcp.app.tools.total_before": (_I, _OPT),
        "mcp.app.tools.exposed": (_I, _OPT),
        "mcp.app.evidence.trace_absent": (_B, _OPT),
        "mcp.app.evidence.trace_lacks_span_channel": (_B, _OPT),
        "mcp.app.evidence.evaluator_errored": (_B, _OPT),
        "mcp.app.expect.tool_calls": (_J, _REQ),
        "mcp.app.expect.output_defined": (_B, _REQ),
        "mcp.app.expect.output": (_S, _OPT),
        "mcp.app.match.argument_matching": (_S, _OPT),  # "yes*": only with expectations
        "mcp.app.match.tool_call_order": (_S, _OPT),
        "mcp.app.match.extra_tool_calls": (_S, _OPT),
        "mcp.app.match.max_extra_tool_calls": (_I, _OPT),
        "mcp.app.match.source": (_S, _OPT),
        "mcp.app.analyzer.version": (_I, _OPT),  # required with a chain (checked there)
        "mcp.app.stages.first_failed": (_S, _OPT),
        "mcp.app.chain.verified": (_B, _OPT),
        "mcp.app.measurements.schema_version": (_I, _OPT),
        "mcp.app.measurements.verified": (_B, _OPT),
        "mcp.app.env.plugin_bundle_hashes": (_SS, _OPT),
        "mcp.app.env.skills_excluded": (_B, _OPT),
    }
)

# Keys of the other roles (§3.5) and keys any span may carry; none is required.
SPAN_KEYS: Mapping[str, Kind] = MappingProxyType(
    {
        "mcp.app.span.role": _S,
        "mcp.app.redacted_keys": _SS,
        "mcp.app.session.source": _S,
        "mcp.app.server.name": _S,
        "mcp.app.connect.outcome": _S,
        "mcp.app.egress.outcome": _S,
        "mcp.app.egress.target": _S,
        "mcp.app.discovery.outcome": _S,
        "mcp.app.discovery.tool_count": _I,
        "mcp.app.discovery.tool_names": _SS,
        "mcp.app.turn.index": _I,
        "mcp.app.turn.step_id": _S,
        "mcp.app.step.index": _I,
        "mcp.app.tool.outcome": _S,
        "mcp.app.tool.is_error": _B,
        "mcp.app.tool.error_source": _S,
        "mcp.app.widget.status": _S,
        "mcp.app.widget.protocol": _S,
        "mcp.app.widget.tool_call_id": _S,
        "mcp.app.widget.tool_name": _S,
        "mcp.app.widget.resource_uri": _S,
        "mcp.app.widget.bridge_initialized": _B,
        "mcp.app.widget.render_ms": _I,
        "mcp.app.widget.console_error_count": _I,
        "mcp.app.widget.blocked_request_count": _I,
        "mcp.app.widget.console_errors": _SS,
        "mcp.app.widget.screenshot_ref": _S,
        "mcp.app.grader.kind": _S,
        "mcp.app.grader.scorer_id": _S,
        "mcp.app.grader.definition_hash": _S,
        "mcp.app.grader.role": _S,
        "mcp.app.grader.status": _S,
        "mcp.app.grader.link": _S,
        "mcp.app.grader.passed": _B,
        "mcp.app.grader.value": _N,
        "mcp.app.grader.threshold": _N,
        "mcp.app.grader.reason": _S,
        "mcp.app.grader.scope": _S,
        "mcp.app.grader.turn_index": _I,
        "mcp.app.predicate.type": _S,
        "mcp.app.predicate.tool_name": _S,
        "mcp.app.predicate.spec": _J,
        "mcp.app.predicate.observation": _B,
        "mcp.app.match.result.passed": _B,
        "mcp.app.match.result.expected": _J,
        "mcp.app.match.result.missing": _J,
        "mcp.app.match.result.unexpected": _J,
        "mcp.app.match.result.out_of_order": _J,
        "mcp.app.match.result.argument_mismatches": _J,
        "mcp.app.match.result.missing_count": _I,
        "mcp.app.match.result.unexpected_count": _I,
        "mcp.app.match.result.out_of_order_count": _I,
        "mcp.app.match.result.argument_mismatch_count": _I,
        "mcp.app.judge.name": _S,
        "mcp.app.judge.status": _S,
        "mcp.app.judge.pending_kind": _S,
        "mcp.app.judge.verdict": _S,
        "mcp.app.judge.attributed": _B,
        "mcp.app.judge.model": _S,
        "mcp.app.judge.partial_floor": _N,
        "mcp.app.judge.grounding": _S,
    }
)

# The producer's own claims beside its verdict (`mcp.app.trial.result`), on the trial root:
# carried for `verify` (read as long rows there), never read by the derivation, so not wide.
CLAIM_KEYS: Mapping[str, Kind] = MappingProxyType(
    {
        "mcp.app.claim.scores": _J,  # MCPJam SDK 6.x score rows (docs/spec/mcpjam-sdk.md §4)
    }
)

# Indexed contract keys: `mcp.app.stages.<i>.<field>` and `mcp.app.measurements.<i>.<field>`.
STAGE_KEY: Final = re.compile(r"^mcp\.app\.stages\.(\d+)\.(.+)$")
MEASUREMENT_KEY: Final = re.compile(r"^mcp\.app\.measurements\.(\d+)\.(.+)$")
STAGE_FIELDS: Mapping[str, Kind] = MappingProxyType(
    {
        "name": _S,
        "state": _S,
        "reason": _S,
        "evidence.span_ids": _SS,
        "evidence.prompt_indexes": Kind.INTS,
        "evidence.predicate_reasons": _SS,
    }
)
MEASUREMENT_FIELDS: Mapping[str, Kind] = MappingProxyType({"reach": _S, "latency_ms": _N})
STAGES_PREFIX: Final = "mcp.app.stages."
MEASUREMENTS_PREFIX: Final = "mcp.app.measurements."
CHAIN_LENGTH: Final = 6  # CONTRACT §2.1: exactly six rows


def stage_key(index: int, field: str) -> str:
    return f"{STAGES_PREFIX}{index}.{field}"


def measurement_key(index: int, field: str) -> str:
    return f"{MEASUREMENTS_PREFIX}{index}.{field}"


REQUIRED_ROOT_KEYS: tuple[str, ...] = tuple(key for key, (_, req) in ROOT_KEYS.items() if req)
CONTRACT_KEY_KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        **{key: kind for key, kind in RESOURCE_KEYS.items() if key.startswith("mcp.app.")},
        **{key: kind for key, (kind, _) in ROOT_KEYS.items()},
        **SPAN_KEYS,
        **CLAIM_KEYS,
    }
)

# --- vocabulary of values the adapter dispatches on ------------------------------------

AUTHORED_MODES: frozenset[str] = frozenset({"model_driven", "model_free"})
TOOL_OUTCOME_OK: Final = "ok"
TOOL_OUTCOME_NOT_EXECUTED: Final = "not_executed"
# §3.7 `toolErrors[].kind` by `mcp.app.tool.outcome`.
TOOL_ERROR_KIND_BY_OUTCOME: Mapping[str, str] = MappingProxyType(
    {
        "tool_error": "content-error",
        "rpc_error": "protocol-error",
        "transport_error": "protocol-error",
    }
)
TRANSPORT_ERROR: Final = "transport_error"
GRADER_MATCHER: Final = "matcher"
GRADER_PREDICATE: Final = "predicate"
SCOPE_TURN: Final = "turn"
JUDGE_GOAL: Final = "goalCompletion"
JUDGE_ATTRIBUTION: Final = "metadataAttribution"
JUDGE_SCORER_PREFIX: Final = "judge:"
DEFAULT_JUDGE_STATUS: Final = "scored"  # §3.5: grader status "scored (default when absent)"
