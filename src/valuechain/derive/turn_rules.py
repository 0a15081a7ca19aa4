"""Decision tables of selection, call, response and userValue (CONTRACT §2.8.3–§2.8.6).

First match wins; rules carry the spec's row numbers, and a row with several outcomes is a
`group` (see `rules.py`).
"""

from __future__ import annotations

from valuechain.contract.chain import StageEvidenceRefs
from valuechain.derive.facts import Facts, prompt_refs, reason_refs, row_reason_refs
from valuechain.derive.rules import (
    NM,
    NOTHING_CAPTURED,
    Condition,
    F,
    P,
    R,
    Rule,
    always,
    any_tool_span,
    fact,
    group,
    tool_span_ids,
    trace_absent,
)

# --- §2.8.3 selection --------------------------------------------------------------------

# A bare call is not evidence the RIGHT tool was chosen: under `open`, passing needs a turn
# that declared expected calls, or a selection check (row 0).
open_unadjudicated = fact("open_unadjudicated")
turn_missing_call = fact("missing_prompts")
selection_check_failed = fact("sel_failures")
extras_present = fact("unexpected_prompts")
any_prompt = fact("prompts")
selection_checks_passed = fact("sel_rows")  # none failed


def required_call_missing(f: Facts) -> bool:
    # A missing required call outranks an unexpected one.
    return any(
        row.predicate is not None and row.predicate.kind_ == "toolCalledAtLeastOnce"
        for row in f.sel_failures
    )


def extras_judged_failing(f: Facts) -> bool:
    # Turns that also carry argument mismatches are left to `call`.
    return any(p.passed is False and not p.argument_mismatches for p in f.unexpected_prompts)


def extras_unadjudicated(f: Facts) -> bool:
    return any(p.passed is None for p in f.unexpected_prompts)


def missing_turns(f: Facts) -> StageEvidenceRefs:
    return prompt_refs(f.missing_prompts)


def failed_selection_reasons(f: Facts) -> StageEvidenceRefs | None:
    return row_reason_refs(f.sel_failures)


def failing_extra_turns(f: Facts) -> StageEvidenceRefs:
    return prompt_refs(
        p for p in f.unexpected_prompts if p.passed is False and not p.argument_mismatches
    )


def unadjudicated_extra_turns(f: Facts) -> StageEvidenceRefs:
    return prompt_refs(p for p in f.unexpected_prompts if p.passed is None)


def all_turns(f: Facts) -> StageEvidenceRefs:
    return prompt_refs(f.prompts)


SELECTION: tuple[Rule, ...] = (
    group(
        open_unadjudicated,  # 0
        Rule(trace_absent, NM, R.TRACE_ABSENT),  # 0a
        Rule(any_tool_span, NM, R.MATCH_VERDICT_UNAVAILABLE, tool_span_ids),  # 0b
        Rule(always, NM, R.NO_EVIDENCE_CAPTURED),  # 0c
    ),
    Rule(turn_missing_call, F, R.MISSING_TOOL_CALL, missing_turns),  # 1
    group(
        selection_check_failed,  # 2
        Rule(required_call_missing, F, R.MISSING_TOOL_CALL, failed_selection_reasons),
        Rule(always, F, R.UNEXPECTED_TOOL_CALL, failed_selection_reasons),
    ),
    group(
        extras_present,  # 3
        Rule(extras_judged_failing, F, R.UNEXPECTED_TOOL_CALL, failing_extra_turns),  # 3a
        Rule(extras_unadjudicated, NM, R.MATCH_VERDICT_UNAVAILABLE, unadjudicated_extra_turns),
        Rule(always, P, R.OBSERVED, all_turns),  # 3c: extras tolerated; ALL turns cited
    ),
    Rule(any_prompt, P, R.OBSERVED),  # 4
    Rule(selection_checks_passed, P, R.OBSERVED),  # 5
    *NOTHING_CAPTURED,  # 6
)


# --- §2.8.4 call -------------------------------------------------------------------------

turn_argument_mismatch = fact("mismatched_prompts")
call_check_failed = fact("call_failures")
call_checks_passed = fact("call_rows")  # none failed


def protocol_failure(f: Facts) -> bool:
    # A coded tool span (transport-local included) never produced a protocol result.
    return bool(f.coded_spans) or f.protocol_error_record


def negative_case_turns(f: Facts) -> bool:
    # Proving no call happened is the negative case's assertion; the turns are its evidence.
    return f.authored.is_negative_test is True and bool(f.prompts)


def mismatched_turns(f: Facts) -> StageEvidenceRefs:
    return prompt_refs(f.mismatched_prompts)


def failed_call_reasons(f: Facts) -> StageEvidenceRefs | None:
    return row_reason_refs(f.call_failures)


def coded_span_ids(f: Facts) -> StageEvidenceRefs:
    return f.span_refs(f.coded_spans)  # may be {spanIds: []} (a protocol-error record only)


CALL: tuple[Rule, ...] = (
    Rule(turn_argument_mismatch, F, R.ARGUMENT_MISMATCH, mismatched_turns),  # 1
    Rule(call_check_failed, F, R.ARGUMENT_MISMATCH, failed_call_reasons),  # 2
    Rule(protocol_failure, F, R.PROTOCOL_ERROR, coded_span_ids),  # 3
    Rule(any_tool_span, P, R.OBSERVED, tool_span_ids),  # 4
    Rule(negative_case_turns, P, R.OBSERVED, all_turns),  # 5
    Rule(call_checks_passed, P, R.OBSERVED),  # 6
    *NOTHING_CAPTURED,  # 7
)


# --- §2.8.5 response ---------------------------------------------------------------------

observed_tool_failure = fact("observed_tool_failure")  # the predicate that turns response on
response_check_failed = fact("resp_failures")
widget_case = fact("widget")
ok_tool_span = fact("ok_spans")
response_checks_passed = fact("resp_rows")  # none failed


def no_render_observation(f: Facts) -> bool:
    return not f.evidence.render_observations


def some_render_not_rendered(f: Facts) -> bool:
    return any(o.status != "rendered" for o in f.evidence.render_observations)


def domain_failed_span_ids(f: Facts) -> StageEvidenceRefs:
    return f.span_refs(f.domain_failed_spans)  # may be {spanIds: []} (a content-error record)


def failed_response_reasons(f: Facts) -> StageEvidenceRefs | None:
    return row_reason_refs(f.resp_failures)


def ok_span_ids(f: Facts) -> StageEvidenceRefs:
    return f.span_refs(f.ok_spans)


RESPONSE: tuple[Rule, ...] = (
    Rule(observed_tool_failure, F, R.TOOL_ERROR, domain_failed_span_ids),  # 1
    Rule(response_check_failed, F, R.PREDICATE_FAILED, failed_response_reasons),  # 2
    group(
        widget_case,  # 3: returns for every widget case
        Rule(no_render_observation, NM, R.NO_EVIDENCE_CAPTURED),
        Rule(some_render_not_rendered, F, R.RENDER_FAILED),
        Rule(always, P, R.OBSERVED),
    ),
    Rule(ok_tool_span, P, R.OBSERVED, ok_span_ids),  # 4
    Rule(response_checks_passed, P, R.OBSERVED),  # 5
    *NOTHING_CAPTURED,  # 6
)


# --- §2.8.6 userValue --------------------------------------------------------------------

evaluator_errored = fact("evaluator_errored")
user_value_check_failed = fact("uv_failures")
user_value_checks_passed = fact("uv_rows")  # none failed
judge_present = fact("judge")  # discarded (None) when any upstream stage failed (§2.7 step 6)


def judge_scored(verdict: str) -> Condition:
    def condition(f: Facts) -> bool:
        return f.judge is not None and f.judge.status == "scored" and f.judge.verdict == verdict

    return condition


def judge_errored(f: Facts) -> bool:
    return f.judge is not None and f.judge.status == "error"


def judge_not_requested(f: Facts) -> bool:
    return judge_pending(f) and f.judge is not None and f.judge.pending_kind == "not_requested"


def judge_pending(f: Facts) -> bool:
    return f.judge is not None and f.judge.status == "pending"  # absent kind ⇒ pending


def failed_user_value_reasons(f: Facts) -> StageEvidenceRefs | None:
    return row_reason_refs(f.uv_failures)


def judge_reasons(f: Facts) -> StageEvidenceRefs | None:
    return None if f.judge is None else reason_refs(f.judge.reasons)


USER_VALUE: tuple[Rule, ...] = (
    Rule(evaluator_errored, NM, R.EVALUATOR_ERROR),  # 1
    Rule(user_value_check_failed, F, R.PREDICATE_FAILED, failed_user_value_reasons),  # 2
    Rule(user_value_checks_passed, P, R.OBSERVED),  # 3
    Rule(trace_absent, NM, R.TRACE_ABSENT),  # 4: an untraced run is not judgeable
    group(
        judge_present,  # tier 2: only where deterministic evidence is silent
        Rule(judge_scored("pass"), P, R.JUDGE_OBSERVED, judge_reasons),  # 5
        Rule(judge_scored("partial"), F, R.JUDGE_PARTIAL, judge_reasons),  # 5
        Rule(judge_scored("fail"), F, R.JUDGE_FAILED, judge_reasons),  # 5
        Rule(judge_errored, NM, R.EVALUATOR_ERROR, judge_reasons),  # 6: no `evaluator` category
        Rule(judge_not_requested, NM, R.JUDGE_NOT_REQUESTED, judge_reasons),  # 7
        Rule(judge_pending, NM, R.JUDGE_PENDING, judge_reasons),  # 7
    ),  # scored without a verdict, skipped, not_applicable: fall through to 8
    Rule(always, NM, R.NO_EVIDENCE_CAPTURED),  # 8
)
