"""One `StageDerivationInput` per trial, exactly as TRACE-FORMAT §3.7 / §3.7.1 / §3.8 map it.

The earlier passes (`prepare_tools`, `prepare`, `graders`, `setup`) prepare everything
vectorised — per tool span its status, code, error kind and prompt index; per grader row the
(shared, frozen) object it stands for; per trial the shared authored case, lifecycle, policy,
… — and this module only walks each trial's row ranges to put the objects together (the
inputs pass: `assemble`). Objects that repeat across trials are built once per
distinct value (`interned`). Trials whose tool spans need the §2.4 join rules (several spans
of one call) go through `toolcalls.group_tool_spans`; the others take a fast path.

§3.7's table is one mapping: each `StageDerivationInput` field's builder sits beside the
others, in the table's order, so the module reads as the table does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from valuechain.contract.derivation import (
    JudgeEvidence,
    MetadataAttribution,
    PredicateResult,
    PromptSummary,
    RenderObservation,
    SetupSignals,
    StageAuthoredCase,
    StageDerivationInput,
    StageEvidence,
    StageSpan,
    ToolErrorRecord,
)
from valuechain.contract.issues import Code
from valuechain.contract.vocab import SetupAttribution, ToolErrorKind
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.authored import CaseFacts, chat_session_case, infer_authored_case
from valuechain.evidence.groups import (
    GRADER_ATTRIBUTION,
    GRADER_JUDGE,
    GRADER_PREDICATE,
    GRADER_PROMPT,
    Columns,
    RootObjects,
    TrialGroups,
)
from valuechain.evidence.issues import (
    ORIGIN_UNKNOWN_MESSAGE,
    TRANSPORT_MESSAGE,
    EvidenceIssue,
    TrialLog,
)
from valuechain.evidence.objects import fold_signal, json_list
from valuechain.evidence.toolcalls import ToolSpan, group_tool_spans

TOOL_CATEGORY = "tool"


@dataclass(slots=True)
class Assembler:
    """Builds the inputs of every trial from the prepared per-role column sets."""

    roots: RootObjects
    tools: TrialGroups
    graders: TrialGroups  # columns: category, object
    renders: TrialGroups  # columns: status
    setup: TrialGroups  # foreign initialize / tools/list spans: phase, failed, span
    log: TrialLog
    tool_call_rows: list[tuple[Any, ...]] = field(default_factory=list)
    unknown_mode: list[int] = field(default_factory=list)
    _renders: dict[tuple[str | None, ...], tuple[RenderObservation, ...]] = field(
        default_factory=dict
    )
    _errors: dict[tuple[str, str | None], ToolErrorRecord] = field(default_factory=dict)

    def build(self, n: int, skip: Sequence[bool]) -> list[StageDerivationInput | None]:
        out: list[StageDerivationInput | None] = []
        contract = self.roots.contract
        for i in range(n):
            spans, errors = self._tool_calls(i, contract[i])
            if skip[i]:
                out.append(None)  # version ahead: never coerced (§5.2 W_VERSION_AHEAD)
            elif contract[i]:
                out.append(self._contract_input(i, spans, errors))
            else:
                out.append(self._foreign_input(i, spans, errors))
        return out

    # ----------------------------------------------------------------- tool calls (§2.4)
    def _tool_calls(
        self, i: int, contract: bool
    ) -> tuple[tuple[StageSpan, ...], tuple[ToolErrorRecord, ...]]:
        lo, hi = self.tools.offsets[i], self.tools.offsets[i + 1]
        if lo == hi:
            return (), ()
        c = self.tools.columns
        if c["simple"][lo]:  # one span per call: no join rule applies
            spans, errors = [], []
            for r in range(lo, hi):
                if c["evidence"][r]:
                    spans.append(self._span(r, r))
                    kind = c["error_kind"][r]
                    if kind is not None:
                        errors.append(self._error(kind, c["tool_name"][r]))
            return tuple(spans), tuple(errors)
        return self._joined_calls(i, lo, hi, contract)

    def _span(self, head: int, code_row: int, status: str | None = None) -> StageSpan:
        c = self.tools.columns
        return StageSpan(
            c["span"][head],
            TOOL_CATEGORY,
            status or c["status"][head],
            c["tool_name"][head],
            c["prompt_index"][head],
            c["code"][code_row],
            c["start_ms"][head],
            c["end_ms"][head],
        )

    def _error(self, kind: str, name: str | None) -> ToolErrorRecord:
        key = (kind, name)
        found = self._errors.get(key)
        if found is None:
            found = self._errors[key] = ToolErrorRecord(kind, name)
        return found

    def _joined_calls(
        self, i: int, lo: int, hi: int, contract: bool
    ) -> tuple[tuple[StageSpan, ...], tuple[ToolErrorRecord, ...]]:
        """Several spans may describe one call: apply the §2.4 join rules."""
        c = self.tools.columns
        candidates = [
            ToolSpan(
                c["span"][r],
                c["parent"][r],
                c["kind"][r],
                c["is_role"][r],
                c["is_execution"][r],
                c["is_transport"][r],
                c["call_id"][r],
                c["tool_name"][r],
                c["request_id"][r],
                c["mcp_session"][r],
            )
            for r in range(lo, hi)
        ]
        spans: list[StageSpan] = []
        errors: list[ToolErrorRecord] = []
        for call in group_tool_spans(candidates):
            head = lo + call.head
            if contract and not c["is_role"][head]:
                continue  # §3.7: contract evidence comes from `tool_call` spans only
            rows = [head, *(lo + m for m in call.members if lo + m != head)]
            code_row = next((r for r in rows if c["code"][r] is not None), head)
            name = next((c["tool_name"][r] for r in rows if c["tool_name"][r]), None)
            call_id = next((c["call_id"][r] for r in rows if c["call_id"][r]), None)
            errored = any(c["errored"][r] for r in rows)
            executed = c["executed"][head]
            self.tool_call_rows.append(
                (
                    i,
                    call_id,
                    name,
                    executed,
                    c["outcome"][head],
                    ("error" if errored else "ok") if executed else None,
                    c["span"][head],
                    len(rows),
                    c["code"][code_row],
                    c["prompt_index"][head],
                )
            )
            if not executed:  # §3.7: lives only in the tool_calls table
                continue
            unknown = errored and _origin_unknown(c, rows, head, code_row, contract)
            if unknown or (
                contract
                and c["outcome"][head] == ck.TRANSPORT_ERROR
                and c["code"][code_row] is None
            ):
                self._transport_without_code(i, c["span"][head], unknown=unknown)
            span = self._span(head, code_row, "error" if errored else "ok")
            spans.append(span if span.tool_name == name else _renamed(span, name))
            if errored:
                kind = _error_kind(
                    c["outcome"][head] if contract else None,
                    c["code"][code_row],
                    any(c["content_error"][r] for r in rows),
                    unknown,
                )
                if kind is not None:
                    errors.append(self._error(kind, name))
        return tuple(spans), tuple(errors)

    def _transport_without_code(self, i: int, span: str, *, unknown: bool) -> None:
        r = self.roots
        self.log.add(
            EvidenceIssue(
                Code.W_TRANSPORT_ERROR_WITHOUT_CODE,
                ORIGIN_UNKNOWN_MESSAGE if unknown else TRANSPORT_MESSAGE,
                trace_id=r.trace[i],
                span_id=span,
                trial_id=r.trial_id[i],
                run_id=r.run_id[i],
                key=None if unknown else "mcp.app.tool.outcome",
            )
        )

    # ----------------------------------------------------------------- contract (§3.7)
    def _contract_input(
        self, i: int, spans: tuple[StageSpan, ...], tool_errors: tuple[ToolErrorRecord, ...]
    ) -> StageDerivationInput:
        r = self.roots
        prompts, predicates, judge, attribution = self._graders(i)
        authored = r.authored[i]
        if authored is None:
            authored = self._infer_authored(i, prompts, predicates, spans)
        connection, discovery = r.connection[i], r.discovery[i]
        evidence = StageEvidence(
            spans,
            r.lacks_channel[i],
            r.trace_absent[i],
            prompts,
            predicates,
            tool_errors,
            r.step_error[i],
            self._render_observations(i),
            r.tool_signals[i],
            None
            if connection is None and discovery is None
            else SetupSignals(connection, discovery),
            r.evaluator_errored[i],
            judge,
            attribution,
        )
        return StageDerivationInput(authored, evidence, r.iteration[i], r.policy[i])

    def _graders(
        self, i: int
    ) -> tuple[
        tuple[PromptSummary, ...],
        tuple[PredicateResult, ...],
        JudgeEvidence | None,
        MetadataAttribution | None,
    ]:
        lo, hi = self.graders.offsets[i], self.graders.offsets[i + 1]
        category, objects = self.graders.columns["category"], self.graders.columns["object"]
        prompts: list[PromptSummary] = []
        predicates: list[PredicateResult] = []
        judge: JudgeEvidence | None = None
        attribution: MetadataAttribution | None = None
        for g in range(lo, hi):
            kind = category[g]
            if kind == GRADER_PREDICATE:
                predicates.append(objects[g])
            elif kind == GRADER_PROMPT:
                prompts.append(objects[g])
            elif kind == GRADER_JUDGE and judge is None:
                judge = objects[g]
            elif kind == GRADER_ATTRIBUTION and attribution is None:
                attribution = objects[g]
        if len(prompts) > 1:  # turn order (the rows are in span order)
            prompts.sort(key=lambda p: (p.prompt_index is None, p.prompt_index or 0))
        return tuple(prompts), tuple(predicates), judge, attribution

    def _render_observations(self, i: int) -> tuple[RenderObservation, ...]:
        lo, hi = self.renders.offsets[i], self.renders.offsets[i + 1]
        if lo == hi:
            return ()
        statuses = tuple(self.renders.columns["mcp.app.widget.status"][lo:hi])
        found = self._renders.get(statuses)
        if found is None:
            found = self._renders[statuses] = tuple(RenderObservation(s) for s in statuses)
        return found

    def _infer_authored(
        self,
        i: int,
        prompts: tuple[PromptSummary, ...],
        predicates: tuple[PredicateResult, ...],
        spans: tuple[StageSpan, ...],
    ) -> StageAuthoredCase:
        r, f = self.roots, self.roots.facts
        mode = r.mode[i]
        if mode is not None:  # CONTRACT Q6: an unknown mode is never passed on
            self.unknown_mode.append(i)
            self.log.add(
                EvidenceIssue(
                    Code.W_UNKNOWN_AUTHORED_MODE,
                    f"mcp.app.authored.mode = {mode!r} is neither model_driven nor model_free",
                    trace_id=r.trace[i],
                    span_id=r.root_span[i],
                    trial_id=r.trial_id[i],
                    run_id=r.run_id[i],
                    key="mcp.app.authored.mode",
                )
            )
        output_defined = f["mcp.app.expect.output_defined"][i]
        return infer_authored_case(
            CaseFacts(
                is_negative=f["mcp.app.case.is_negative"][i],
                case_type=f["mcp.app.case.type"][i],
                expected_tool_calls=json_list(f["mcp.app.expect.tool_calls"][i]),
                expected_output_defined=output_defined is True
                or (output_defined is None and f["mcp.app.expect.output"][i] is not None),
                predicate_kinds=tuple(
                    p.predicate.kind_ if p.predicate is not None else None for p in predicates
                ),
                turn_expected_tool_calls=tuple(p.expected_tool_calls for p in prompts),
                needs_model=bool(f["needs_model"][i]),
                has_tool_call_steps=any(s.prompt_index is None for s in spans),
            )
        )

    # ----------------------------------------------------------------- foreign (§3.8)
    def _foreign_input(
        self, i: int, spans: tuple[StageSpan, ...], tool_errors: tuple[ToolErrorRecord, ...]
    ) -> StageDerivationInput:
        r, f = self.roots, self.roots.facts
        # A redacted export may hide the ask: User value is then applicable and not
        # measured (CONTRACT §2.8.6 row 8, noEvidenceCaptured), never notApplicable (issue 39).
        authored = chat_session_case(
            model_driven=bool(f["needs_model"][i]),
            has_user_ask=bool(f["has_user_ask"][i] or f["content_redacted"][i]),
        )
        evidence = StageEvidence(
            spans=spans, tool_errors=tool_errors, setup_signals=self._folded_setup(i)
        )
        return StageDerivationInput(authored, evidence, r.iteration[i])

    def _folded_setup(self, i: int) -> SetupSignals | None:
        """OTel MCP initialize / tools/list spans folded per phase (CONTRACT Q20, §3.8)."""
        lo, hi = self.setup.offsets[i], self.setup.offsets[i + 1]
        if lo == hi:
            return None
        c = self.setup.columns
        phases: dict[str, list[int]] = {}
        for r in range(lo, hi):
            phases.setdefault(c["phase"][r], []).append(r)
        signals = {
            phase: fold_signal(
                [c["failed"][r] for r in rows],
                tuple(c["span"][r] for r in rows),
                attribution=SetupAttribution.UNKNOWN.value,
            )
            for phase, rows in phases.items()
        }
        return SetupSignals(signals.get("connection"), signals.get("discovery"))


def _renamed(span: StageSpan, name: str | None) -> StageSpan:
    return StageSpan(
        span.id,
        span.category,
        span.status,
        name,
        span.prompt_index,
        span.mcp_error_code,
        span.started_at,
        span.ended_at,
    )


def _origin_unknown(c: Columns, rows: list[int], head: int, code_row: int, contract: bool) -> bool:
    """A failed call none of whose spans shows its origin (`prepare_tools.origin_unknown`)."""
    outcome = c["outcome"][head] if contract else None
    return (
        outcome is None
        and c["code"][code_row] is None
        and all(c["error_type"][r] is None and not c["content_error"][r] for r in rows)
    )


def _error_kind(
    outcome: str | None, code: int | None, content_error: bool, origin_unknown: bool
) -> str | None:
    """§3.7 toolErrors by `mcp.app.tool.outcome`; without one (§3.8): a JSON-RPC code is a
    protocol error, an `isError` result (`error.type = tool_error`, traceloop's `is_error`) a
    content error, a failure of unknown origin a protocol error (a transport failure without
    a code, TRACE-FORMAT §3.7)."""
    if outcome is not None:
        return ck.TOOL_ERROR_KIND_BY_OUTCOME.get(outcome)
    if code is not None:
        return ToolErrorKind.PROTOCOL_ERROR.value
    if content_error:
        return ToolErrorKind.CONTENT_ERROR.value
    if origin_unknown:
        return ToolErrorKind.PROTOCOL_ERROR.value
    return None
