"""One pass over a trial's evidence, shared by every decision table (CONTRACT §2.2, §2.6).

`Facts` reads the input once — spans classified, prompts filtered, predicate rows routed —
so each rule of §2.8 is a cheap test of a precomputed fact. It also builds the evidence refs
rows cite (§2.1 row-construction rules: span ids are string-only, input order, first 5;
prompt indexes numeric-only, never truncated; predicate reasons bounded).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeGuard, cast

from valuechain.contract.chain import (
    MAX_EVIDENCE_REASON_CHARS,
    MAX_EVIDENCE_REASONS,
    MAX_EVIDENCE_SPAN_IDS,
    StageEvidenceRefs,
    StageResult,
)
from valuechain.contract.derivation import (
    JudgeEvidence,
    Number,
    PredicateResult,
    PromptSummary,
    SetupSignal,
    StageDerivationInput,
    StageSpan,
)
from valuechain.contract.vocab import Stage, StageReason, StageState
from valuechain.derive.jssem import js_trim, utf16_len, utf16_slice
from valuechain.derive.routing import route_predicates

# MCP-SDK client-side codes: connection closed, request timeout (CONTRACT §2.2).
TRANSPORT_LOCAL_MCP_CODES: frozenset[int] = frozenset({-32000, -32001})

# Shared empty lists (never mutated) for the common "nothing of this kind" case.
_NO_ROWS: list[PredicateResult] = []
_NO_SPANS: list[StageSpan] = []
_NO_PROMPTS: list[PromptSummary] = []
_PREFIX = {
    Stage.DISCOVERY: "disc",
    Stage.SELECTION: "sel",
    Stage.CALL: "call",
    Stage.RESPONSE: "resp",
    Stage.USER_VALUE: "uv",
}
_ROWS_ATTR = {stage: f"{prefix}_rows" for stage, prefix in _PREFIX.items()}
_FAILURES_ATTR = {stage: f"{prefix}_failures" for stage, prefix in _PREFIX.items()}
_ELLIPSIS = "\u2026"


def _is_number(value: object) -> TypeGuard[Number]:
    return isinstance(value, int | float) and value is not True and value is not False


def _is_transport_local(code: object) -> bool:
    return _is_number(code) and code in TRANSPORT_LOCAL_MCP_CODES


# --- fast construction of the frozen output rows ------------------------------------------
# A frozen dataclass's generated __init__ goes through object.__setattr__ per field, which
# dominates derivation time; setting the slots through their descriptors is ~2x faster and
# builds the identical object. Rows without evidence are interned outright.

_Setter = Callable[[object, object], None]


def slot_setter(cls: type, name: str) -> _Setter:
    """The `__set__` of a slotted (frozen) dataclass field's member descriptor."""
    return cast(_Setter, cls.__dict__[name].__set__)  # the slot's member descriptor


_new = object.__new__
_set_stage = slot_setter(StageResult, "stage")
_set_state = slot_setter(StageResult, "state")
_set_reason = slot_setter(StageResult, "reason")
_set_evidence = slot_setter(StageResult, "evidence")
_set_spans = slot_setter(StageEvidenceRefs, "span_ids")
_set_prompts = slot_setter(StageEvidenceRefs, "prompt_indexes")
_set_reasons = slot_setter(StageEvidenceRefs, "predicate_reasons")
_PLAIN_ROWS: dict[tuple[Stage, StageState, StageReason], StageResult] = {}


def new_result(
    stage: Stage, state: StageState, reason: StageReason | None, evidence: StageEvidenceRefs | None
) -> StageResult:
    """`StageResult(stage, state, reason, evidence)`, built fast; plain rows are interned."""
    if evidence is None and reason is not None:
        return plain_row(stage, state, reason)
    row: StageResult = _new(StageResult)
    _set_stage(row, stage)
    _set_state(row, state)
    _set_reason(row, reason)
    _set_evidence(row, evidence)
    return row


def plain_row(stage: Stage, state: StageState, reason: StageReason) -> StageResult:
    """The shared, immutable row `{stage, state, reason}` without evidence."""
    key = (stage, state, reason)
    row = _PLAIN_ROWS.get(key)
    if row is None:
        row = _PLAIN_ROWS[key] = StageResult(stage, state, reason)
    return row


def new_refs(
    span_ids: tuple[str, ...] | None = None,
    prompt_indexes: tuple[Number, ...] | None = None,
    predicate_reasons: tuple[str, ...] | None = None,
) -> StageEvidenceRefs:
    """`StageEvidenceRefs(...)`, built fast."""
    refs: StageEvidenceRefs = _new(StageEvidenceRefs)
    _set_spans(refs, span_ids)
    _set_prompts(refs, prompt_indexes)
    _set_reasons(refs, predicate_reasons)
    return refs


class Facts:
    """Everything the decision tables ask of one `StageDerivationInput`, computed once."""

    __slots__ = (
        "_tool_refs",
        "analyzer",
        "any_expected_calls",
        "any_transport_local_code",
        "applies",
        "authored",
        "call_failures",
        "call_rows",
        "coded_spans",
        "conn_failed",
        "conn_ok",
        "conn_signal",
        "connection_reached",
        "content_error",
        "disc_failed",
        "disc_failures",
        "disc_ok",
        "disc_rows",
        "disc_signal",
        "domain_failed_spans",
        "evaluator_errored",
        "evidence",
        "gating_count",
        "judge",
        "lacks_channel",
        "mismatched_prompts",
        "missing_prompts",
        "observed_tool_failure",
        "ok_spans",
        "open_unadjudicated",
        "prompts",
        "protocol_error_record",
        "reaching_spans",
        "resp_failures",
        "resp_rows",
        "sel_failures",
        "sel_rows",
        "step_error_model",
        "tool_spans",
        "tools_listed",
        "trace_absent",
        "unexpected_prompts",
        "uv_failures",
        "uv_rows",
        "widget",
    )

    def __init__(self, inp: StageDerivationInput, analyzer: int) -> None:
        evidence = inp.evidence
        self.analyzer = analyzer
        self.authored = inp.authored
        self.evidence = evidence
        self._classify_spans(evidence.spans)
        self._classify_prompts(evidence.prompts)
        self._route(evidence.predicate_results, analyzer)
        content_error = protocol_error = False
        for record in evidence.tool_errors:
            content_error = content_error or record.kind == "content-error"
            protocol_error = protocol_error or record.kind == "protocol-error"
        self.content_error, self.protocol_error_record = content_error, protocol_error
        # §2.6: the exact condition response's `toolError` rule decides on.
        self.observed_tool_failure = content_error or bool(self.domain_failed_spans)
        signals = evidence.setup_signals
        conn = self.conn_signal = None if signals is None else signals.connection
        disc = self.disc_signal = None if signals is None else signals.discovery
        self.conn_ok = conn is not None and conn.outcome == "ok"
        self.conn_failed = conn is not None and conn.outcome == "failed"
        self.disc_ok = disc is not None and disc.outcome == "ok"
        self.disc_failed = disc is not None and disc.outcome == "failed"
        tool_signals = evidence.tool_signals
        total = None if tool_signals is None else tool_signals.tools_total_before
        self.tools_listed = total is not None and total > 0
        # §2.8.1: "connection positively reached" — a discovery signal alone never proves it.
        self.connection_reached = self.conn_ok or self.tools_listed or bool(self.reaching_spans)
        self.trace_absent = bool(evidence.trace_absent)
        self.lacks_channel = bool(evidence.trace_lacks_span_channel)
        self.evaluator_errored = bool(evidence.evaluator_errored)
        step_error = evidence.step_error
        self.step_error_model = step_error is not None and step_error.source == "model"
        self.judge: JudgeEvidence | None = evidence.judge_evidence
        authored = inp.authored
        self.widget = bool(authored.expects_widget_render)
        # §2.8.3 row 0: nothing adjudicates selection under an `open` tool expectation.
        self.open_unadjudicated = (
            authored.tool_expectation == "open"
            and not self.sel_rows
            and not self.any_expected_calls
        )
        self.applies: tuple[bool, ...] = ()  # CONTRACT §2.6, set by `stages.applicability`
        self._tool_refs: StageEvidenceRefs | None = None

    def _classify_spans(self, spans: Sequence[StageSpan]) -> None:
        tool: list[StageSpan] = []
        coded_or_errored = any_transport_local = False
        for span in spans:
            code = span.mcp_error_code
            if code is not None and _is_number(code):
                # §2.11 `call` branch: every span, whatever its category, is scanned.
                any_transport_local = any_transport_local or code in TRANSPORT_LOCAL_MCP_CODES
                if span.category == "tool":
                    tool.append(span)
                    coded_or_errored = True
            elif span.category == "tool":
                tool.append(span)
                coded_or_errored = coded_or_errored or span.status == "error"
        self.tool_spans = tool or _NO_SPANS
        self.any_transport_local_code = any_transport_local
        if not coded_or_errored:  # the common case: every tool span reached and answered
            self.reaching_spans = self.ok_spans = self.tool_spans
            self.coded_spans = self.domain_failed_spans = _NO_SPANS
            return
        self.reaching_spans = [s for s in tool if not _is_transport_local(s.mcp_error_code)]
        # A numeric code: the call never produced a protocol result.
        self.coded_spans = [s for s in tool if _is_number(s.mcp_error_code)]
        # No code but `status == "error"`: a domain error (`isError: true`).
        self.domain_failed_spans = [
            s for s in tool if s.status == "error" and not _is_number(s.mcp_error_code)
        ]
        self.ok_spans = [
            s for s in tool if s.status != "error" and not _is_number(s.mcp_error_code)
        ]

    def _classify_prompts(self, prompts: Sequence[PromptSummary]) -> None:
        self.prompts = prompts
        missing: list[PromptSummary] | None = None
        unexpected: list[PromptSummary] | None = None
        mismatched: list[PromptSummary] | None = None
        any_expected_calls = False
        for prompt in prompts:  # lists are only allocated when something lands in them
            if prompt.missing:
                missing = (missing or []) + [prompt]
            if prompt.unexpected:
                unexpected = (unexpected or []) + [prompt]
            if prompt.argument_mismatches:
                mismatched = (mismatched or []) + [prompt]
            any_expected_calls = any_expected_calls or bool(prompt.expected_tool_calls)
        self.missing_prompts = missing or _NO_PROMPTS
        self.unexpected_prompts = unexpected or _NO_PROMPTS
        self.mismatched_prompts = mismatched or _NO_PROMPTS
        self.any_expected_calls = any_expected_calls

    def _route(self, rows: Sequence[PredicateResult], analyzer: int) -> None:
        self.disc_rows = self.sel_rows = self.call_rows = self.resp_rows = self.uv_rows = _NO_ROWS
        self.disc_failures = self.sel_failures = self.call_failures = _NO_ROWS
        self.resp_failures = self.uv_failures = _NO_ROWS
        if not rows:
            self.gating_count = 0
            return
        routed, self.gating_count = route_predicates(rows, analyzer)
        for stage, stage_rows in routed.items():
            failures = [row for row in stage_rows if row.passed is False]  # only False fails
            setattr(self, _ROWS_ATTR[stage], stage_rows)
            setattr(self, _FAILURES_ATTR[stage], failures)

    def span_refs(self, spans: list[StageSpan]) -> StageEvidenceRefs:
        """`{spanIds}` of a subset of the tool spans (shared when it is all of them)."""
        if len(spans) != len(self.tool_spans):
            return span_refs(spans)
        if self._tool_refs is None:
            self._tool_refs = span_refs(spans)
        return self._tool_refs


# --- evidence refs (CONTRACT §2.1) -------------------------------------------------------


def span_refs(spans: Iterable[StageSpan]) -> StageEvidenceRefs:
    """`{spanIds}`: string ids in input order, first 5 — the key is kept even when empty."""
    ids = [span.id for span in spans if isinstance(span.id, str)]
    return new_refs(span_ids=tuple(ids[:MAX_EVIDENCE_SPAN_IDS]))


def prompt_refs(prompts: Iterable[PromptSummary]) -> StageEvidenceRefs:
    """`{promptIndexes}`: numeric prompt indexes in input order, not truncated."""
    return new_refs(prompt_indexes=tuple(i for p in prompts if _is_number(i := p.prompt_index)))


def signal_refs(signal: SetupSignal | None) -> StageEvidenceRefs | None:
    """A setup signal's span ids as given (first 5, no type filter); none ⇒ no evidence."""
    if signal is None or not signal.span_ids:
        return None
    return new_refs(span_ids=tuple(signal.span_ids[:MAX_EVIDENCE_SPAN_IDS]))


def bounded_reasons(reasons: Iterable[object] | None) -> tuple[str, ...]:
    """Non-blank reasons, first 5, each over 500 UTF-16 units cut to 499 units + `…`."""
    kept: list[str] = []
    if reasons is None:
        return ()
    for reason in reasons:
        if not isinstance(reason, str) or not js_trim(reason):
            continue
        # A string of ≤ 250 code points is ≤ 500 UTF-16 units: skip the count.
        too_long = len(reason) > MAX_EVIDENCE_REASON_CHARS // 2 and (
            utf16_len(reason) > MAX_EVIDENCE_REASON_CHARS
        )
        kept.append(
            utf16_slice(reason, 0, MAX_EVIDENCE_REASON_CHARS - 1) + _ELLIPSIS
            if too_long
            else reason
        )
        if len(kept) == MAX_EVIDENCE_REASONS:
            break
    return tuple(kept)


def reason_refs(reasons: Iterable[object] | None) -> StageEvidenceRefs | None:
    """`{predicateReasons}` from bounded reasons, or no evidence when none survive."""
    kept = bounded_reasons(reasons)
    return new_refs(predicate_reasons=kept) if kept else None


def row_reason_refs(rows: Iterable[PredicateResult]) -> StageEvidenceRefs | None:
    """Bounded reasons of predicate rows, in author order."""
    return reason_refs(row.reason for row in rows)
