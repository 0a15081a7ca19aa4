"""The failure scenarios: what each changes in a passing trial and which reasons it causes.

The table is data: each row names a cause (recorded on trial roots as `SCENARIO_KEY`), the
`Plan` that shapes its trial and the CONTRACT §1.3 (stage, reason) pairs it must produce.
"""

from __future__ import annotations

from dataclasses import dataclass

from valuechain.synth.vocabulary import Case

SCENARIO_KEY = "valuechain.synth.scenario"
STAGE_NAMES = ("connection", "discovery", "selection", "call", "response", "userValue")
# CONTRACT §1.3 row 1: never emitted by analyzer >= 2 (legacy rows only), so no cause exists.
REASONS_NOT_PRODUCED = {"noSpanChannel": "CONTRACT §1.3: never emitted by analyzer >= 2"}

_PLACEHOLDERS = frozenset({"any", "string", "number", "boolean", "object", "array", "null"})


@dataclass(frozen=True, slots=True)
class Check:
    """One authored predicate of the case (CONTRACT §3.2) and how its grader row comes out.

    `status="error"`: the grader could not measure it (no value; invisible to every stage,
    §2.5). `fail=True`: the check fails whatever the trial did (its parameters are set so).
    Otherwise it is evaluated honestly from what the trial produced.
    """

    kind: str
    role: str = "gating"
    status: str = "scored"
    fail: bool = False


CHECK_LINK = {  # CONTRACT §3.2 link of each kind the failure graders write
    "noToolErrors": "response",
    "toolResultContains": "response",
    "toolLatencyUnder": "response",
    "responseContains": "userValue",
    "finalAssistantMessageNonEmpty": "userValue",
    "widgetRendered": "userValue",
    "toolNeverCalled": "selection",
    "toolDescriptionsPresent": "discovery",
}
POSITIVE_CHECKS = (Check("noToolErrors"), Check("responseContains"))  # as attributes.predicate_rows
NEGATIVE_CHECKS = (Check("toolNeverCalled"), Check("finalAssistantMessageNonEmpty"))


@dataclass(frozen=True, slots=True)
class Plan:
    """How a scenario's trial differs from an ordinary passing one; the defaults are ordinary.

    Vocabulary: `fits` positive | negative | any | concrete_args (a positive case with an
    expected argument that is a value, not a placeholder). `connect` ok | failed_theirs_egress
    (failed, the egress canary proved our side) | failed_theirs | failed_ours | none; `discover`
    ok | failed_theirs | failed_unknown | failed_ours | none. `turn` model | none (no turn, no
    model or tool span) | tool_step (model-free: tool spans under the root) | provider_error
    (the first model step fails; the root gets `step_error.source = model`) | timed_out.
    `calls` expected | wrong | extra | bad_args | none | forbidden (negative case). `result`
    of the expected call: ok | tool_error | rpc_error | transport_error. `matcher` verdict |
    no_verdict | none. `judge` auto | pass | partial | fail | pending | not_requested | error
    | skipped | none.
    """

    fits: str = "positive"
    status: str = "completed"
    error: str | None = None
    connect: str = "ok"
    discover: str = "ok"
    signals: bool = True  # setup signals and tool counts copied onto the root (§3.7.1 (1))
    turn: str = "model"
    calls: str = "expected"
    result: str = "ok"
    off_topic: bool = False  # the final answer misses the user's subject
    render: bool = False  # the case asserts a widget (expects_widget_render) and it fails
    expectation: bool = True  # the case authored its expected call
    checks: tuple[Check, ...] | None = None  # None: the case's standard two checks
    expected_output: bool = True
    matcher: str = "verdict"
    max_extra: int | None = None  # bounded extra calls (mcp.app.match.*)
    judge: str = "auto"
    attribution: bool = False  # a metadataAttribution judge blames the tool metadata
    graded: bool = True  # grader spans exist
    trace_absent: bool = False
    lacks_span_channel: bool = False
    evaluator_errored: bool = False
    policy: str | None = None  # policy.reason of a block


@dataclass(frozen=True, slots=True)
class Scenario:
    """A named cause: what it changes, and the (stage, reason) pairs it must produce."""

    name: str
    changes: str
    expects: frozenset[tuple[str, str]]
    plan: Plan
    category: str | None = None  # the failure category, where it is part of the point


def _expect(*items: str) -> frozenset[tuple[str, str]]:
    """`"stage:reason"` items; stage `*` = all six, `later` = the four after discovery."""
    out: set[tuple[str, str]] = set()
    for item in items:
        where, reason = item.split(":")
        stages = STAGE_NAMES if where == "*" else STAGE_NAMES[2:] if where == "later" else (where,)
        out.update((stage, reason) for stage in stages)
    return frozenset(out)


def _initialize_failed(connect: str, error: str, status: str = "failed") -> Plan:
    """An initialize that failed (`connect` says whose side): nothing after it, no trace kept."""
    return Plan(
        fits="any",
        status=status,
        error=error,
        connect=connect,
        discover="none",
        turn="none",
        graded=False,
        trace_absent=True,
    )


_JUDGED = (Check("noToolErrors"), Check("responseContains", role="advisory"))  # judge decides

# fmt: off
CATALOGUE: tuple[Scenario, ...] = (
    # --- setup (connection / discovery) --------------------------------------------------
    Scenario("connect_failed_theirs",
             "initialize span ERROR (HTTP 502) + egress_canary span ok; root: trial.status failed, "
             "evidence.trace_absent, setup.connection {failed, theirs, egress_verified}; no "
             "tools/list, turn or grader spans",
             _expect("connection:connectFailed", "discovery:earlierStageFailed",
                     "later:earlierStageFailed"),
             _initialize_failed("failed_theirs_egress",
                                "MCP initialize failed: HTTP 502 Bad Gateway"), "setup"),
    Scenario("egress_unverified",
             "initialize span ERROR, no egress canary; root: trial.status failed, "
             "evidence.trace_absent, setup.connection {failed, theirs, egress_verified false}",
             _expect("connection:egressUnverified", "discovery:traceAbsent", "later:setupAborted"),
             _initialize_failed("failed_theirs", "MCP initialize failed: connection reset"),
             "setup"),
    Scenario("setup_aborted",
             "initialize span ERROR on our side (TLS config); root: trial.status setup_failed, "
             "evidence.trace_absent, setup.connection {failed, ours}",
             _expect("connection:setupAborted", "discovery:traceAbsent", "later:setupAborted"),
             _initialize_failed("failed_ours", "client TLS bundle missing", "setup_failed"),
             "setup"),
    Scenario("tools_list_failed",
             "tools/list span ERROR with JSON-RPC -32603; root: trial.status failed, "
             "evidence.trace_absent, setup.discovery {failed, theirs}, no tool counts",
             _expect("connection:observed", "discovery:toolsListFailed",
                     "later:earlierStageFailed"),
             Plan(status="failed", error="tools/list failed: Internal error",
                  discover="failed_theirs", turn="none", graded=False, trace_absent=True),
             "setup"),
    Scenario("egress_unverified_discovery",
             "tools/list span ERROR (request timeout) with setup.discovery {failed, unknown}; the "
             "model runs without tools and calls nothing",
             _expect("discovery:egressUnverified", "selection:missingToolCall",
                     "call:earlierStageFailed"),
             Plan(discover="failed_unknown", calls="none"), "selection"),
    Scenario("setup_aborted_discovery",
             "tools/list span ERROR from our client's schema validation, setup.discovery "
             "{failed, ours}; the model runs without tools and calls nothing",
             _expect("discovery:setupAborted", "selection:missingToolCall"),
             Plan(discover="failed_ours", calls="none"), "selection"),
    Scenario("implied_by_later_evidence",
             "root carries no mcp.app.setup.* and no mcp.app.tools.* (signals not copied); the "
             "initialize / tools/list spans and a successful tool call remain",
             _expect("connection:impliedByLaterEvidence", "discovery:impliedByLaterEvidence"),
             Plan(signals=False)),
    # --- lifecycle, policy, missing traces ---------------------------------------------------
    Scenario("lifecycle_stopped",
             "trial.status timed_out (trial.error says why); the turn ends after its tool calls "
             "with no final model step; no grader spans",
             _expect("*:lifecycleStopped"),
             Plan(fits="any", status="timed_out", error="iteration exceeded its 120 s timeout",
                  turn="timed_out", graded=False), "setup"),
    Scenario("blocked_by_policy",
             "root only: policy.blocked + policy.reason, trial.status skipped; no setup, turn or "
             "grader spans, no setup signals",
             _expect("*:blockedByPolicy"),
             Plan(fits="any", status="skipped", connect="none", discover="none", signals=False,
                  turn="none", graded=False,
                  policy="server is not on the organisation's MCP allow-list")),
    Scenario("trace_absent",
             "root only, evidence.trace_absent (the iteration's trace was not kept); no setup "
             "signals, no grader spans",
             _expect("*:traceAbsent"),
             Plan(fits="any", connect="none", discover="none", signals=False, turn="none",
                  graded=False, trace_absent=True)),
    Scenario("executor_emits_no_spans",
             "evidence.trace_lacks_span_channel; no turn / model / tool spans, no matcher row; "
             "noToolErrors grader status error (no tool channel)",
             _expect("selection:executorEmitsNoSpans", "call:executorEmitsNoSpans",
                     "response:executorEmitsNoSpans"),
             Plan(turn="none", lacks_span_channel=True, matcher="none",
                  checks=(Check("noToolErrors", status="error"), Check("responseContains")))),
    Scenario("provider_error",
             "first model step ERROR with an exception event; root: step_error.{source model, "
             "code, http_status}, trial.status failed; no tool call, no final answer",
             _expect("selection:providerError", "call:providerError", "userValue:providerError"),
             Plan(status="failed", error="model provider error", turn="provider_error",
                  calls="none", judge="not_requested"), "setup"),
    # --- selection -------------------------------------------------------------------------
    Scenario("missing_tool_call",
             "the model calls other read tools instead of the expected one; matcher row lists it "
             "missing",
             _expect("selection:missingToolCall"), Plan(calls="wrong"), "selection"),
    Scenario("missing_tool_call_metadata",
             "as missing_tool_call, plus a judge:metadataAttribution grader {scored, attributed} "
             "blaming the tool description",
             _expect("selection:missingToolCall"), Plan(calls="wrong", attribution=True),
             "metadata"),
    Scenario("unexpected_tool_call",
             "the expected call plus one extra read call; mcp.app.match extra calls bounded at 0, "
             "so the matcher row fails on the extra",
             _expect("selection:unexpectedToolCall"), Plan(calls="extra", max_extra=0),
             "selection"),
    Scenario("unexpected_tool_call_negative",
             "negative case: the model calls the forbidden tool; toolNeverCalled row fails",
             _expect("selection:unexpectedToolCall"), Plan(fits="negative", calls="forbidden"),
             "selection"),
    Scenario("match_verdict_unavailable",
             "the expected call plus one extra; the matcher row (status error) lists the calls "
             "but has no mcp.app.match.result.passed",
             _expect("selection:matchVerdictUnavailable"),
             Plan(calls="extra", matcher="no_verdict")),
    # --- call ------------------------------------------------------------------------------
    Scenario("argument_mismatch",
             "the expected tool is called with another subject's arguments; matcher row lists an "
             "argument mismatch",
             _expect("call:argumentMismatch"), Plan(fits="concrete_args", calls="bad_args"),
             "arguments"),
    Scenario("protocol_error",
             "the expected call's span ERROR, tool.outcome rpc_error, rpc.status_code -32602",
             _expect("call:protocolError", "response:predicateFailed"),
             Plan(result="rpc_error"), "serverData"),
    Scenario("protocol_error_transport",
             "the expected call's span ERROR, tool.outcome transport_error, error.type -32001 "
             "(SDK-local request timeout)",
             _expect("call:protocolError", "response:predicateFailed"),
             Plan(result="transport_error"), "setup"),
    # --- response --------------------------------------------------------------------------
    Scenario("tool_error",
             "the expected call returns isError: tool.outcome tool_error, span ERROR, no code",
             _expect("response:toolError"), Plan(result="tool_error"), "serverData"),
    Scenario("render_failed",
             "authored.expects_widget_render + a widgetRendered check; the widget_render span "
             "status is bridge_timeout (no_ui_resource for a tool without UI)",
             _expect("response:renderFailed", "userValue:predicateFailed"),
             Plan(render=True, checks=(*POSITIVE_CHECKS, Check("widgetRendered"))), "serverData"),
    Scenario("predicate_failed_response",
             "an extra gating toolLatencyUnder check whose limit is below the call's duration",
             _expect("response:predicateFailed"),
             Plan(checks=(*POSITIVE_CHECKS, Check("toolLatencyUnder", fail=True))), "serverData"),
    # --- discovery / user value checks -------------------------------------------------------
    Scenario("predicate_failed_discovery",
             "an extra gating toolDescriptionsPresent check that fails on a short description",
             _expect("discovery:predicateFailed"),
             Plan(checks=(*POSITIVE_CHECKS, Check("toolDescriptionsPresent", fail=True))), "setup"),
    Scenario("predicate_failed_user_value",
             "the tool call succeeds but the final answer misses the subject; responseContains "
             "fails",
             _expect("userValue:predicateFailed"), Plan(off_topic=True), "userValue"),
    Scenario("evaluator_error",
             "the responseContains grader crashed (span ERROR, grader.status error); root "
             "evidence.evaluator_errored",
             _expect("userValue:evaluatorError"),
             Plan(evaluator_errored=True,
                  checks=(Check("noToolErrors"), Check("responseContains", status="error"))),
             "evaluator"),
    # --- the advisory goal judge (responseContains advisory, so the judge decides) ----------
    Scenario("judge_observed", "responseContains advisory; judge:goalCompletion scored pass",
             _expect("userValue:judgeObserved"), Plan(checks=_JUDGED, judge="pass")),
    Scenario("judge_partial", "responseContains advisory; judge:goalCompletion scored partial",
             _expect("userValue:judgePartial"), Plan(checks=_JUDGED, judge="partial"), "userValue"),
    Scenario("judge_failed",
             "responseContains advisory; off-topic answer; judge:goalCompletion scored fail",
             _expect("userValue:judgeFailed"),
             Plan(checks=_JUDGED, off_topic=True, judge="fail"), "userValue"),
    Scenario("judge_pending",
             "responseContains advisory; judge:goalCompletion pending (scheduled)",
             _expect("userValue:judgePending"), Plan(checks=_JUDGED, judge="pending")),
    Scenario("judge_not_requested",
             "responseContains advisory; judge:goalCompletion pending (not_requested)",
             _expect("userValue:judgeNotRequested"), Plan(checks=_JUDGED, judge="not_requested")),
    Scenario("judge_error",
             "responseContains advisory; judge:goalCompletion status error (span ERROR)",
             _expect("userValue:evaluatorError"), Plan(checks=_JUDGED, judge="error")),
    Scenario("judge_skipped", "responseContains advisory; judge:goalCompletion status skipped",
             _expect("userValue:noEvidenceCaptured"), Plan(checks=_JUDGED, judge="skipped")),
    # --- stages the case does not author ----------------------------------------------------
    Scenario("not_authored_selection",
             "model-free case (authored.mode model_free, case.turn_count 0): one tool span under "
             "the root, no turn, no model step, no matcher row; toolResultContains is its only "
             "check",
             _expect("selection:notAuthored", "call:observed"),
             Plan(turn="tool_step", checks=(Check("toolResultContains"),), expected_output=False,
                  matcher="none", judge="none")),
    Scenario("not_authored_call",
             "no expected call (expect.tool_calls [], authored.expects_tool_call false, no match "
             "options, no matcher row) and no response check; the model still calls the tool",
             _expect("call:notAuthored", "response:notAuthored", "selection:noEvidenceCaptured"),
             Plan(expectation=False, matcher="none", checks=(Check("responseContains"),))),
    Scenario("not_authored_user_value",
             "no checks and no expected output (authored.assertion_count 0), no judge",
             _expect("userValue:notAuthored"),
             Plan(checks=(), expected_output=False, judge="none")),
    Scenario("negative_held",
             "negative case: the model calls nothing; nothing can grade its response",
             _expect("call:observed", "response:noEvidenceCaptured"),
             Plan(fits="negative", calls="none")),
)
# fmt: on

_BY_NAME = {scenario.name: scenario for scenario in CATALOGUE}


def scenario_named(name: str) -> Scenario:
    """The catalogue entry called `name` (what `SCENARIO_KEY` on a trial root names)."""
    return _BY_NAME[name]


def _concrete_args(case: Case) -> bool:
    return any(str(v).strip().lower() not in _PLACEHOLDERS for v in case.expected.values())


def fits(plan: Plan, case: Case) -> bool:
    """Whether a scenario with `plan` can be played on `case` (`Plan.fits`)."""
    if plan.fits == "any":
        return True
    if plan.fits == "negative":
        return case.negative
    return not case.negative and (plan.fits != "concrete_args" or _concrete_args(case))
