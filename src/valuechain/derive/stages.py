"""Applicability and the top-level derivation algorithm (CONTRACT §2.6, §2.7, §2.9).

The per-stage decision tables live in `rules.py`; this module decides which of them run,
handles the policy, lifecycle and setup-abort paths, withdraws what a provider failure made
unknowable, and applies the positional cascade.
"""

from __future__ import annotations

from valuechain.contract.chain import StageResult
from valuechain.contract.derivation import StageAuthoredCase, StageDerivationInput
from valuechain.contract.vocab import Stage, StageReason
from valuechain.contract.vocab_rules import STAGES
from valuechain.derive.facts import Facts, new_result, plain_row
from valuechain.derive.rules import (
    CONNECTION,
    DISCOVERY_V11,
    DISCOVERY_V12,
    NA,
    NM,
    NR,
    CompiledTable,
    F,
    R,
    Rule,
    compile_table,
    decide,
)
from valuechain.derive.turn_rules import CALL, RESPONSE, SELECTION, USER_VALUE

# Analyzer → the six tables in stage order. 11 differs from 12 only in discovery (§7.2 (a));
# its routing difference (§7.2 (b)) lives in `routing.ROUTES`.
TABLES: dict[int, tuple[tuple[Rule, ...], ...]] = {
    12: (CONNECTION, DISCOVERY_V12, SELECTION, CALL, RESPONSE, USER_VALUE),
    11: (CONNECTION, DISCOVERY_V11, SELECTION, CALL, RESPONSE, USER_VALUE),
}
_COMPILED: dict[int, tuple[CompiledTable, ...]] = {
    analyzer: tuple(
        compile_table(stage, table) for stage, table in zip(STAGES, tables, strict=True)
    )
    for analyzer, tables in TABLES.items()
}


def applicability(f: Facts, authored: StageAuthoredCase) -> tuple[bool, ...]:
    """CONTRACT §2.6, in stage order; computed before any evidence is interpreted."""
    call_applies = (
        authored.expects_tool_call is True
        or authored.is_negative_test is True
        or authored.tool_expectation in ("required", "open")
    )
    widget = authored.expects_widget_render is True
    count = authored.assertion_count
    return (
        True,
        True,
        authored.mode == "model_driven",
        call_applies or bool(f.call_rows),
        call_applies or widget or f.observed_tool_failure or bool(f.resp_rows),
        (count is not None and count > 0) or widget or authored.has_user_ask is True,
    )


# --- §2.7 top-level algorithm, §2.9 provider withdrawal, positional cascade ----------------

_NOT_AUTHORED = {stage: plain_row(stage, NA, R.NOT_AUTHORED) for stage in STAGES}
_NOT_REACHED = {stage: plain_row(stage, NR, R.EARLIER_STAGE_FAILED) for stage in STAGES}
_LIFECYCLE_STOPPED = frozenset({"cancelled", "timed_out", "setup_failed", "skipped"})
_SETUP_ABORT_STATUSES = frozenset({"failed", "setup_failed"})
_BLANKED = frozenset({R.NO_EVIDENCE_CAPTURED, R.TRACE_ABSENT, R.EXECUTOR_EMITS_NO_SPANS})
_UNKNOWABLE = frozenset({R.MISSING_TOOL_CALL, R.PREDICATE_FAILED, R.JUDGE_PARTIAL, R.JUDGE_FAILED})


def _uniform(f: Facts, reason: StageReason) -> list[StageResult]:
    """Every applicable stage `NM:<reason>`, the others `NA:notAuthored`."""
    return [
        plain_row(stage, NM, reason) if applies else _NOT_AUTHORED[stage]
        for stage, applies in zip(STAGES, f.applies, strict=True)
    ]


def derive_rows(inp: StageDerivationInput, f: Facts) -> tuple[list[StageResult], bool]:
    """CONTRACT §2.7 steps 1–8: the six rows, and whether category `setup` is forced."""
    f.applies = applies = applicability(f, inp.authored)  # step 1
    if inp.policy is not None and inp.policy.blocked:  # step 2: no forced category
        return _uniform(f, R.BLOCKED_BY_POLICY), False
    status = inp.iteration.status
    evidence = inp.evidence
    is_setup_abort = (  # step 3
        status in _SETUP_ABORT_STATUSES
        and f.trace_absent
        and not evidence.spans
        and not evidence.prompts
        and f.gating_count == 0
    )
    if status in _LIFECYCLE_STOPPED and not is_setup_abort:  # step 4
        reason = R.SETUP_ABORTED if status == "setup_failed" else R.LIFECYCLE_STOPPED
        return _uniform(f, reason), True
    if is_setup_abort:  # step 5
        return _setup_abort_rows(f), True
    tables = _COMPILED[f.analyzer]  # step 6
    rows: list[StageResult] = []
    upstream_failed = False
    for index in range(5):
        row = decide(tables[index], f) if applies[index] else _NOT_AUTHORED[STAGES[index]]
        upstream_failed = upstream_failed or row.state is F
        rows.append(row)
    if upstream_failed:
        f.judge = None  # the judge is tier 2: discarded when anything upstream failed
    rows.append(decide(tables[5], f) if applies[5] else _NOT_AUTHORED[Stage.USER_VALUE])
    return cascade(withdraw_provider(rows, f)), False  # steps 7–8


def _setup_abort_rows(f: Facts) -> list[StageResult]:
    """CONTRACT §2.7 step 5: only setup signals can say whose side broke."""
    if f.conn_signal is None and f.disc_signal is None:  # 5a
        return _uniform(f, R.SETUP_ABORTED)
    tables = _COMPILED[f.analyzer]  # 5b
    connection = decide(tables[0], f)
    discovery = decide(tables[1], f)
    if connection.state is F and discovery.state is NM:
        discovery = _NOT_REACHED[Stage.DISCOVERY]
    top_failed = connection.state is F or discovery.state is F
    rest = [
        (_NOT_REACHED[stage] if top_failed else plain_row(stage, NM, R.SETUP_ABORTED))
        if applies
        else _NOT_AUTHORED[stage]
        for stage, applies in zip(STAGES[2:], f.applies[2:], strict=True)
    ]
    return [connection, discovery, *rest]


def withdraw_provider(rows: list[StageResult], f: Facts) -> list[StageResult]:
    """CONTRACT §2.9: a model-call failure withdraws absence verdicts (idempotent).

    Rewrites `rows` (the caller's own working list) in place and returns it.
    """
    if not f.step_error_model:
        return rows
    for index, row in enumerate(rows):
        if row.state is NM and row.reason in _BLANKED:  # keeps its evidence
            rows[index] = new_result(row.stage, NM, R.PROVIDER_ERROR, row.evidence)
        elif row.state is F and row.reason in _UNKNOWABLE:  # loses its evidence
            rows[index] = plain_row(row.stage, NM, R.PROVIDER_ERROR)
    return rows


def cascade(rows: list[StageResult]) -> list[StageResult]:
    """Positional cascade: after the first failure, only rows that decided nothing
    (`notMeasured`, any reason) become `NR:earlierStageFailed`, without evidence.

    Rewrites `rows` (the caller's own working list) in place and returns it.
    """
    failed = False
    for index, row in enumerate(rows):
        if failed and row.state is NM:
            rows[index] = _NOT_REACHED[row.stage]
        failed = failed or row.state is F
    return rows
