"""Failure injection for synthetic exports: `SynthConfig(failures=True)`, `synth --failures`.

`CATALOGUE` is a table of named scenarios. Each says what it changes in an ordinary passing
trial (`Scenario.changes`: spans, span attributes, trial-root attributes), how (`Plan`), and
which (stage, reason) pairs of CONTRACT §1.3 the trial's chain then holds (`Scenario.expects`;
`Scenario.category` when the failure category is part of the point). Together the scenarios
cause every reason analyzer 12 emits — all of §1.3 except the legacy `noSpanChannel`.

A failures run gives every trial one scenario, drawn by `ScenarioCycle`: the catalogue in a
seeded rotation, each trial taking the first scenario that fits its case (a few need a
negative case, or an expected argument with a concrete value), so a few hundred trials cover
the whole table. The trial root records its scenario as `SCENARIO_KEY`. That key is kept out
of `mcp.app.*` on purpose: it is not part of the contract (TRACE-FORMAT §3.2 goal 6), and an
unknown `mcp.app.*` key would be reported as `W_UNKNOWN_CONTRACT_KEY` on every import.

The persisted chain (`mcp.app.stages.*`, §3.5) of a failure trial is what analyzer 12
derives (`derive_chain`) from the `StageDerivationInput` its spans encode: `FailureTrial`
keeps, beside every tool span, render, grader row and root key it writes, the input field
TRACE-FORMAT §3.7 maps it to (read back from the attribute pairs it emitted). Producer and
derived chains therefore agree by construction, and a reader's evidence adapter must reach
the same input from the export.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson

from valuechain.contract.derivation import (
    IterationInfo,
    JudgeEvidence,
    MatchOptions,
    MetadataAttribution,
    PolicyInfo,
    PredicateRef,
    PredicateResult,
    PromptSummary,
    RenderObservation,
    SetupSignal,
    SetupSignals,
    StageAuthoredCase,
    StageDerivation,
    StageDerivationInput,
    StageEvidence,
    StageSpan,
    StepError,
    ToolCall,
    ToolErrorRecord,
    ToolSignals,
)
from valuechain.derive import derive_chain, evaluate_tool_calls
from valuechain.synth import (
    _CLIENT,
    _ERROR,
    _INTERNAL,
    _OK,
    _TOOL_ERRORS,
    _Call,
    _fill,
    _hex,
    _token,
    _Trial,
)
from valuechain.synth_attrs import (
    HOST_KEY,
    JUDGE_MODEL,
    MATCH_DEFAULTS,
    AttrValue,
    Case,
    Pairs,
    Row,
    Tool,
    any_value,
    case_pairs,
    chain_attributes,
    connect_pairs,
    discover_pairs,
    grader_pairs,
    to_json,
    variant_pairs,
    widget_pairs,
)

__all__ = [
    "CATALOGUE",
    "REASONS_NOT_PRODUCED",
    "SCENARIO_KEY",
    "Check",
    "FailureTrial",
    "Plan",
    "Scenario",
    "ScenarioCycle",
    "scenario_named",
]

SCENARIO_KEY = "valuechain.synth.scenario"
STAGE_NAMES = ("connection", "discovery", "selection", "call", "response", "userValue")
# CONTRACT §1.3 row 1: never emitted by analyzer >= 2 (legacy rows only), so no cause exists.
REASONS_NOT_PRODUCED = {"noSpanChannel": "CONTRACT §1.3: never emitted by analyzer >= 2"}

_PLACEHOLDERS = frozenset({"any", "string", "number", "boolean", "object", "array", "null"})
_EGRESS_TARGET = "https://egress-check.mcpjam.example/healthz"
# (error.type / step_error.code, HTTP status, message) of a failed model step, per provider
_PROVIDER_ERRORS = {
    "anthropic": ("overloaded_error", 529, "Overloaded"),
    "openai": ("rate_limit_exceeded", 429, "Rate limit reached for requests"),
    "google": ("RESOURCE_EXHAUSTED", 429, "Resource has been exhausted"),
}
_DEFAULT_PROVIDER_ERROR = ("service_unavailable", 503, "Service unavailable")
_RPC_INVALID_PARAMS, _REQUEST_TIMEOUT, _INTERNAL_ERROR = -32602, -32001, -32603  # CONTRACT §2.2


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


_LINK = {  # CONTRACT §3.2 link of each kind this module writes
    "noToolErrors": "response",
    "toolResultContains": "response",
    "toolLatencyUnder": "response",
    "responseContains": "userValue",
    "finalAssistantMessageNonEmpty": "userValue",
    "widgetRendered": "userValue",
    "toolNeverCalled": "selection",
    "toolDescriptionsPresent": "discovery",
}
POSITIVE_CHECKS = (Check("noToolErrors"), Check("responseContains"))  # as synth_attrs writes
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


def _fits(plan: Plan, case: Case) -> bool:
    if plan.fits == "any":
        return True
    if plan.fits == "negative":
        return case.negative
    return not case.negative and (plan.fits != "concrete_args" or _concrete_args(case))


class ScenarioCycle:
    """Deals scenarios to trials: the catalogue in a seeded rotation, first fit first.

    A scenario that fits the trial's case is taken and moved to the back, so every scenario
    comes round once per `len(CATALOGUE)`-odd trials whenever cases it fits keep arriving.
    """

    def __init__(self, seed: int) -> None:
        start = random.Random(f"valuechain.synth:{seed}:failures").randrange(len(CATALOGUE))
        self._queue = deque(CATALOGUE[start:] + CATALOGUE[:start])

    def draw(self, case: Case) -> Callable[..., _Trial]:
        """`_Trial`'s constructor for the next scenario that fits `case`."""
        for i, scenario in enumerate(self._queue):
            if _fits(scenario.plan, case):
                del self._queue[i]
                self._queue.append(scenario)
                return partial(FailureTrial, scenario=scenario)
        raise AssertionError("unreachable: `any` scenarios fit every case")


@dataclass(slots=True)
class _FCall(_Call):
    """A call with its result kind: ok | tool_error | rpc_error | transport_error."""

    result: str = "ok"


class FailureTrial(_Trial):
    """A trial shaped by a scenario's `Plan`; its producer chain is derived by analyzer 12."""

    def __init__(self, *args: Any, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scenario, self.plan = scenario, scenario.plan
        case, plan = self.case, self.plan
        standard = NEGATIVE_CHECKS if case.negative else POSITIVE_CHECKS
        self.checks = standard if plan.checks is None else plan.checks
        if not plan.expectation:
            self.expected = []
        others = [s for s in self.suite.server.subjects if s != case.subject]
        self.wrong_subject = self.rng.choice(others)
        self.bad_args: dict[str, str] = {}
        self.step_error: tuple[str, int] | None = None  # (code, HTTP status) of a model failure
        self.setup_ids: dict[str, list[str]] = {"connection": [], "discovery": []}
        # the StageDerivationInput the spans encode (TRACE-FORMAT §3.7)
        self.m_spans: list[StageSpan] = []
        self.m_errors: list[ToolErrorRecord] = []
        self.m_renders: list[RenderObservation] = []
        self.m_prompts: list[PromptSummary] = []
        self.m_predicates: list[PredicateResult] = []
        self.m_judge: JudgeEvidence | None = None
        self.m_attribution: MetadataAttribution | None = None

    # ------------------------------------------------------------------ the trial
    def build(self) -> list[dict[str, Any]]:
        plan = self.plan
        calls = self.draw_calls()
        self.answer = self.final_answer(calls)
        t = self.setup_spans()
        if plan.turn in ("model", "timed_out", "provider_error"):
            t = self.turn(t + 40, list(calls))
        elif plan.turn == "tool_step":
            t = self.tool_steps(t + 40, calls)
        if plan.graded:
            t = self.grade(t + 20, calls)
        self.trial_root(t + 10)
        return self.spans

    def draw_calls(self) -> list[_FCall]:
        """The calls the trial makes (also when the executor hides them: no span channel)."""
        plan, case, suite, rng = self.plan, self.case, self.suite, self.rng
        if plan.turn in ("none", "provider_error") and not plan.lacks_span_channel:
            return []
        main = _FCall(suite.tools[case.tool], True)
        if case.negative:
            return [main] if plan.calls == "forbidden" else []
        reads = [t for t in suite.server.tools if t.effect == "read" and t.name != case.tool]
        if plan.calls == "wrong":
            picked = rng.sample(reads, min(len(reads), rng.choice((1, 1, 2))))
            return [_FCall(t, True) for t in picked]
        if plan.calls == "none":
            return []
        main.result, main.ok = plan.result, plan.result == "ok"
        if plan.calls == "bad_args":
            self.bad_args[case.tool] = _fill(to_json(main.tool.args), self.wrong_subject, self.n)
        if plan.calls == "extra":
            return [main, _FCall(rng.choice(reads), True)]
        return [main]

    def final_answer(self, calls: list[_FCall]) -> str:
        plan, case, server = self.plan, self.case, self.suite.server.name
        if plan.turn in ("timed_out", "provider_error", "tool_step") or (
            plan.turn == "none" and not plan.lacks_span_channel
        ):
            return ""  # no final model message
        if case.negative:
            return _fill(case.broke if calls else case.answer, case.subject, self.n)
        if plan.off_topic:
            return f"Here is what the {server} service returned."
        main = next((c for c in calls if c.tool.name == case.tool), None)
        if main is None:
            if not calls:
                return f"I can't reach the {server} tools right now, so I can't answer that."
            return "I couldn't find exactly that, but here is what I found instead."
        if main.result != "ok":
            return f"Sorry, the {server} service failed. Try again later."
        subject = self.wrong_subject if case.tool in self.bad_args else case.subject
        return _fill(case.answer, subject, self.n)

    def args(self, tool: Tool) -> str:
        return self.bad_args.get(tool.name) or super().args(tool)

    # ------------------------------------------------------------------ setup (§3.5)
    def setup_spans(self) -> int:
        """Connect (+ egress canary) and discover spans as the plan says; their end time."""
        plan, server, rng = self.plan, self.suite.server, self.rng
        t = 5
        if plan.connect == "none":
            return t
        a = self.attrs("connect")
        a.extend(*connect_pairs(server, self.session, "ok" if plan.connect == "ok" else "failed"))
        message = ""
        if plan.connect in ("failed_theirs", "failed_theirs_egress"):
            a.add("error.type", "502" if plan.connect == "failed_theirs_egress" else "ECONNRESET")
            message = f"initialize: {plan.error or 'connection failed'} ({server.address})"
        elif plan.connect == "failed_ours":
            a.add("error.type", "tls_config")
            message = "initialize: client TLS certificate bundle not found"
        end = t + rng.randint(90, 320)
        status = _OK if plan.connect == "ok" else _ERROR
        span = self.span(
            self.root_id, "initialize", _CLIENT, (t, end), a, status=status, message=message
        )
        self.setup_ids["connection"].append(span)
        if plan.connect == "failed_theirs_egress":  # §3.5 Egress canary: only after a failure
            a = self.attrs("egress_canary")
            a.extend(("mcp.app.egress.outcome", "ok"), ("mcp.app.egress.target", _EGRESS_TARGET))
            when = (end + 5, end + 5 + rng.randint(40, 200))
            self.setup_ids["connection"].append(
                self.span(self.root_id, "egress_canary", _CLIENT, when, a, status=_OK)
            )
            end = when[1]
        if plan.connect != "ok" or plan.discover == "none":
            return end
        a = self.attrs("discover")
        a.extend(*discover_pairs(server, "ok" if plan.discover == "ok" else "failed"))
        message = ""
        if plan.discover == "failed_theirs":  # the server answered with a JSON-RPC error
            code = str(_INTERNAL_ERROR)
            a.extend(("error.type", code), ("rpc.status_code", code))
            a.add("rpc.response.status_code", code)
            message = "tools/list: MCP error -32603: Internal error"
        elif plan.discover == "failed_unknown":
            a.add("error.type", str(_REQUEST_TIMEOUT))
            message = "tools/list: MCP error -32001: Request timed out"
        elif plan.discover != "ok":
            a.add("error.type", "schema_validation")
            message = "tools/list: result failed the client's schema validation"
        when = (end + 5, end + 5 + rng.randint(30, 140))
        status = _OK if plan.discover == "ok" else _ERROR
        self.setup_ids["discovery"].append(
            self.span(self.root_id, "tools/list", _CLIENT, when, a, status=status, message=message)
        )
        return when[1]

    # ------------------------------------------------------------------ turn and tools
    def turn(self, start: int, calls: list[_Call]) -> int:
        """Turn 0 as the base trial writes it, cut short by a provider error or a timeout."""
        plan, turn_id, rounds = self.plan, _hex(self.rng, 8), self.rounds(calls)
        t, prompt_tokens = start + 10, self.rng.randint(600, 1500)
        if plan.turn == "provider_error":
            t = self.failed_llm(turn_id, t, prompt_tokens)
        else:  # a timed-out turn stops after its calls, before the final model step
            final: list[list[_Call]] = [[]] if plan.turn == "model" else []
            t = self.steps(turn_id, t, prompt_tokens, [*rounds, *final])
        status, message = (_OK, "") if plan.turn == "model" else (_ERROR, plan.error or "")
        self.turn_span(turn_id, (start, t), status, message)
        return t

    def failed_llm(self, turn: str, start: int, prompt_tokens: int) -> int:
        """A model step the provider refused (§3.5 LLM: status ERROR, error.type, exception)."""
        m = self.model
        code, http, text = _PROVIDER_ERRORS.get(m.provider, _DEFAULT_PROVIDER_ERROR)
        end = start + self.rng.randint(300, 2500)
        a = self.attrs("llm", "LLM")
        a.extend(
            ("mcp.app.step.index", 0),
            ("llm.system", m.oi_system),
            ("llm.provider", m.oi_provider),
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.provider.name", m.genai_provider),
            ("gen_ai.request.model", m.model),
            ("llm.token_count.prompt", prompt_tokens),
            ("gen_ai.usage.input_tokens", prompt_tokens),
            ("error.type", code),
        )
        a.content("llm.input_messages.0.message.role", "user")
        a.content("llm.input_messages.0.message.content", self.case.prompt)
        message = f"{http} {code}: {text}"
        self.span(turn, f"chat {m.model}", _CLIENT, (start, end), a, status=_ERROR, message=message)
        event = [
            {"key": key, "value": any_value(value)}
            for key, value in (
                ("exception.type", f"{m.provider}.APIStatusError"),
                ("exception.message", message),
            )
        ]
        time = str(self.t0_ns + end * 10**6)
        self.spans[-1]["events"] = [
            {"timeUnixNano": time, "name": "exception", "attributes": event}
        ]
        self.step_error = (code, http)
        return end

    def tool_steps(self, start: int, calls: list[_FCall]) -> int:
        """Model-free `tool_call` steps: tool spans straight under the root (§3.7.1 (5))."""
        t, request_id = start, 3
        for call in calls:
            call.call_id = "step_" + _token(self.rng, 16)
            t = self.tool(self.root_id, call, t + 5, request_id)
            request_id += 1
        return t

    def tool(self, turn: str, call: _Call, start: int, request_id: int) -> int:
        """One tools/call span (§3.5 Tool call) with the call's result kind, and its render."""
        rng, tool, case = self.rng, call.tool, self.case
        result = call.result if isinstance(call, _FCall) else "ok" if call.ok else "tool_error"
        slow = result == "transport_error"  # the SDK gave up after its request timeout
        end = start + (30_000 + rng.randint(0, 40) if slow else rng.randint(60, 900))
        a = self.tool_call_attrs(tool, call.call_id, request_id)
        code: int | None = None
        output: dict[str, Any] | None = None
        if result in ("ok", "tool_error"):
            text = _fill(tool.result, case.subject, self.n) if result == "ok" else ""
            output = {"content": [{"type": "text", "text": text or rng.choice(_TOOL_ERRORS)}]}
            output["isError"] = result == "tool_error"
            if tool.ui and result == "ok":
                output["_meta"] = {"ui": {"resourceUri": tool.ui}}
        elif result == "rpc_error":
            code = _RPC_INVALID_PARAMS
            error = {"code": code, "message": f"Invalid params: {tool.name} rejected the input"}
            output = {"jsonrpc": "2.0", "id": request_id, "error": error}
        else:
            code = _REQUEST_TIMEOUT
        if output is not None:
            a.content("output.value", to_json(output), "application/json")
        a.extend(
            ("mcp.app.tool.outcome", result), ("mcp.app.tool.is_error", result == "tool_error")
        )
        message = ""
        if result == "tool_error":  # §2.3: isError is error.type tool_error, no JSON-RPC code
            a.extend(("mcp.app.tool.error_source", "result"), ("error.type", "tool_error"))
            message = "tool returned isError: true"
        elif result == "rpc_error":  # the server answered with a JSON-RPC error (§3.5)
            a.extend(("mcp.app.tool.error_source", "jsonrpc"), ("error.type", str(code)))
            a.extend(("rpc.status_code", str(code)), ("rpc.response.status_code", str(code)))
            message = f"MCP error {code}: Invalid params"
        elif result == "transport_error":  # SDK-local code: error.type only (§3.1 OTEL_ATTR)
            a.extend(("mcp.app.tool.error_source", "sdk_local"), ("error.type", str(code)))
            message = f"MCP error {code}: Request timed out"
        status = _OK if result == "ok" else _ERROR
        call.span_id = self.span(
            turn,
            f"tools/call {tool.name}",
            _CLIENT,
            (start, end),
            a,
            status=status,
            message=message,
        )
        prompt = None if turn == self.root_id else 0
        state = "ok" if result == "ok" else "error"
        self.m_spans.append(StageSpan(call.span_id, "tool", state, tool.name, prompt, code))
        if result != "ok":
            kind = "content-error" if result == "tool_error" else "protocol-error"
            self.m_errors.append(ToolErrorRecord(kind, tool.name))
        return self.render(turn, call, end, result == "ok")

    def render(self, turn: str, call: _Call, end: int, ok: bool) -> int:
        """The MCP App render of a result: `rendered`, or the scenario's failure."""
        tool, failing = call.tool, self.plan.render and call.tool.name == self.case.tool
        if failing:
            status = "bridge_timeout" if tool.ui else "no_ui_resource"
        elif tool.ui and ok:
            status = "rendered"
        else:
            return end
        render_ms = self.rng.randint(180, 650) if status != "no_ui_resource" else 0
        pairs = widget_pairs(call.call_id, tool.name, tool.ui or "", render_ms)
        changed: dict[str, AttrValue] = {"mcp.app.widget.status": status}
        if failing:
            changed["mcp.app.widget.bridge_initialized"] = False
        w = self.attrs("widget_render")
        w.extend(
            *(
                (key, changed.get(key, value))
                for key, value in pairs
                if tool.ui or key != "mcp.app.widget.resource_uri"
            )
        )
        when = (end + 5, end + 5 + max(render_ms, 1))
        status_code, message = (_ERROR, f"widget render failed: {status}") if failing else (_OK, "")
        self.span(turn, "widget.render", _INTERNAL, when, w, status=status_code, message=message)
        self.m_renders.append(RenderObservation(status))
        return when[1]

    # ------------------------------------------------------------------ graders (§3.5 Grader)
    def grade(self, start: int, calls: list[_FCall]) -> int:
        plan, t = self.plan, start
        if plan.matcher != "none":
            pairs = self.matcher_row(calls)
            t = self.grader(t, "toolCalls:match", pairs)
            self.m_prompts.append(_read_prompt(dict(pairs)))
        for n, check in enumerate(self.checks, start=1):
            scorer, pairs = self.check_row(n, check, calls)
            t = self.grader(t, scorer, pairs)
            if check.status == "error":
                self._crashed(f"{scorer} could not be measured")
            self.m_predicates.append(_read_predicate(dict(pairs)))
        judge = self.judge_row()
        if judge is not None:
            status = dict(judge)["mcp.app.judge.status"]
            t = self.grader(t, "judge:goalCompletion", judge, slow=status == "scored")
            if status == "error":
                self._crashed("judge output was not valid JSON")
            self.m_judge = _read_judge(dict(judge))
        if plan.attribution:
            pairs = self.attribution_row(calls)
            t = self.grader(t, "judge:metadataAttribution", pairs, slow=True)
            read = _read_judge(dict(pairs))
            self.m_attribution = MetadataAttribution(
                read.status,
                read.pending_kind,
                dict(pairs)["mcp.app.judge.attributed"] is True,
                read.reasons,
            )
        return t

    def _crashed(self, message: str) -> None:
        """§3.3: a grader that crashed has span status ERROR (its verdict is not status)."""
        self.spans[-1]["status"] = {"code": _ERROR, "message": message}

    def matcher_row(self, calls: list[_FCall]) -> Pairs:
        """The turn's `toolCalls:match` row, graded by the §2.4 matcher itself."""
        case, plan, redacted = self.case, self.plan, self.redacted
        expected = (
            []
            if case.negative or not plan.expectation
            else [ToolCall(case.tool, dict(case.expected))]
        )
        actual = [ToolCall(c.tool.name, orjson.loads(self.args(c.tool))) for c in calls]
        options = MatchOptions(max_extra_tool_calls=plan.max_extra)
        match = evaluate_tool_calls(expected, actual, options, is_negative_test=case.negative)
        extra = [c.tool_name for c in match.extra]
        missing = [
            {"toolName": c.tool_name} | ({} if redacted else {"arguments": c.arguments})
            for c in match.missing
        ]
        mismatches: list[dict[str, Any]] = []
        for m in match.argument_mismatches:
            keys = sorted(k for k, v in m.expected_args.items() if m.actual_args.get(k) != v)
            item: dict[str, Any] = {"toolName": m.tool_name, "keys": keys}
            if not redacted:  # §3.6: argument values are content
                item |= {"expectedArgs": dict(m.expected_args), "actualArgs": dict(m.actual_args)}
            mismatches.append(item)
        if case.negative:
            why = f"negative case: {len(extra) or 'no'} call{'s' * (len(extra) != 1)} made"
        elif missing:
            why = f"expected {case.tool} was not called; got {', '.join(extra) or 'no call'}"
        elif mismatches:
            named = ", ".join(mismatches[0]["keys"])
            why = f"{case.tool} was called with other arguments ({named})"
        elif match.passed:
            why = f"expected {case.tool} matched" + (f"; {len(extra)} extra" if extra else "")
        else:
            why = f"{len(extra)} extra call(s) over the cap of {plan.max_extra}"
        verdict = plan.matcher == "verdict"
        if verdict:
            score = float(match.passed)
            pairs = grader_pairs("matcher", "toolCalls:match", "selection", score, why)
            pairs.append(("mcp.app.match.result.passed", match.passed))
        else:  # §3.7.1 (3): the producer could not compute the verdict
            pairs = grader_pairs(
                "matcher", "toolCalls:match", "selection", None, "", status="error"
            )
            pairs.append(("mcp.app.grader.reason", "match options could not be resolved"))
        return [
            *pairs,
            ("mcp.app.match.result.expected", to_json(self.expected)),
            ("mcp.app.match.result.missing", to_json(missing)),
            ("mcp.app.match.result.unexpected", to_json([{"toolName": n} for n in extra])),
            ("mcp.app.match.result.out_of_order", "[]"),
            ("mcp.app.match.result.argument_mismatches", to_json(mismatches)),
            ("mcp.app.match.result.missing_count", len(missing)),
            ("mcp.app.match.result.unexpected_count", len(extra)),
            ("mcp.app.match.result.out_of_order_count", 0),
            ("mcp.app.match.result.argument_mismatch_count", len(mismatches)),
        ]

    def check_row(self, n: int, check: Check, calls: list[_FCall]) -> tuple[str, Pairs]:
        """One predicate grader row (§3.5): its verdict evaluated from the trial."""
        kind = check.kind
        passed, reason, spec = self.evaluate(check, calls)
        scorer, advisory = f"predicate:{kind}#{n}", check.role == "advisory"
        if check.status == "error":
            pairs = grader_pairs(
                "predicate", scorer, _LINK[kind], None, "", status="error", advisory=advisory
            )
            pairs.append(("mcp.app.grader.reason", f"could not be measured: {reason}"))
        else:
            pairs = grader_pairs(
                "predicate", scorer, _LINK[kind], float(passed), reason, advisory=advisory
            )
        pairs.append(("mcp.app.predicate.type", kind))
        tool = spec.get("toolName")
        if isinstance(tool, str):
            pairs.append(("mcp.app.predicate.tool_name", tool))
        pairs.append(("mcp.app.predicate.spec", to_json({"type": kind, **spec})))
        return scorer, pairs

    def evaluate(self, check: Check, calls: list[_FCall]) -> tuple[bool, str, dict[str, Any]]:
        """(passed, reason, authored parameters) of one check over what the trial produced."""
        case, kind = self.case, check.kind
        subject, answer = case.subject, self.answer
        main = next((c for c in calls if c.tool.name == case.tool), None)
        if kind == "noToolErrors":
            bad = [c.tool.name for c in calls if c.result != "ok"]
            return not bad, f"{bad[0]} failed" if bad else "no tool errors", {}
        if kind == "responseContains":
            ok = subject.lower() in answer.lower()
            word = "contains" if ok else "does not contain"
            return ok, f'final message {word} "{subject}"', {"needle": subject}
        if kind == "finalAssistantMessageNonEmpty":
            ok = bool(answer.strip())
            return ok, "final message is " + ("non-empty" if ok else "empty"), {}
        if kind == "toolNeverCalled":
            times = sum(c.tool.name == case.tool for c in calls)
            said = f"called {times} time" + "s" * (times > 1) if times else "never called"
            return not times, f"{case.tool} was {said}", {"toolName": case.tool}
        if kind == "toolResultContains":
            text = _fill(main.tool.result, subject, self.n) if main and main.ok else ""
            ok = subject.lower() in text.lower()
            word = "contains" if ok else "does not contain"
            return ok, f'{case.tool} result {word} "{subject}"', {"needle": subject}
        if kind == "widgetRendered":
            failed = [str(r.status) for r in self.m_renders if r.status != "rendered"]
            ok = bool(self.m_renders) and not failed
            seen = failed[0] if failed else "no observation"
            why = "widget rendered" if ok else f"widget did not render ({seen})"
            return ok, why, {"toolName": case.tool}
        if kind == "toolLatencyUnder":
            spent = max((self._duration(c.span_id) for c in calls), default=0)
            limit = max(1, spent // 2) if check.fail else 10_000
            ok = spent < limit
            return ok, f"slowest call took {spent} ms (limit {limit} ms)", {"ms": limit}
        if kind == "toolDescriptionsPresent":
            short, spec = self.suite.server.tools[-1].name, {"minLength": 20}
            if check.fail:
                return False, f"{short}: description is shorter than 20 characters", spec
            return True, "every tool has a description", spec
        raise ValueError(f"synth_failures: no evaluation for check kind {kind!r}")

    def _duration(self, span_id: str) -> int:
        start, end = self.intervals.get(span_id, (0, 0))
        return end - start

    def judge_row(self) -> Pairs | None:
        """The advisory goal judge (CONTRACT §2.12, §3.5) in the plan's state."""
        plan, case, rng = self.plan, self.case, self.rng
        mode = plan.judge
        if mode == "none":
            return None
        if mode == "auto":
            good = case.subject.lower() in self.answer.lower()
            if case.negative:
                mode = "not_requested"
            else:
                mode = ("pass" if rng.random() >= 0.15 else "partial") if good else "fail"
        head: Pairs = [("mcp.app.judge.name", "goalCompletion")]
        tail: Pairs = [
            ("mcp.app.judge.model", JUDGE_MODEL),
            ("mcp.app.judge.partial_floor", 0.4),
            ("mcp.app.judge.grounding", "expectedOutput"),
        ]
        scorer = "judge:goalCompletion"
        if mode in ("pass", "partial", "fail"):
            low, high = {"pass": (0.72, 0.97), "partial": (0.45, 0.69), "fail": (0.05, 0.38)}[mode]
            score = round(rng.uniform(low, high), 2)
            reason = {
                "pass": f"Answers the {case.intent} request for {case.subject}.",
                "partial": f"Mostly answers the {case.intent} request but adds detail nobody "
                "asked for.",
                "fail": f"Does not answer what the user asked about {case.subject}.",
            }[mode]
            pairs = grader_pairs(
                "judge", scorer, "userValue", score, reason, advisory=True, threshold=0.7
            )
            return [
                *pairs,
                *head,
                ("mcp.app.judge.status", "scored"),
                *tail,
                ("mcp.app.judge.verdict", mode),
            ]
        status = "pending" if mode in ("pending", "not_requested") else mode
        pairs = grader_pairs("judge", scorer, "userValue", None, "", advisory=True, status=status)
        if mode == "error":
            pairs.append(("mcp.app.grader.reason", "judge output was not valid JSON; not graded"))
        pairs += [*head, ("mcp.app.judge.status", status), *tail]
        if status == "pending":
            kind = "not_requested" if mode == "not_requested" else "scheduled"
            pairs.append(("mcp.app.judge.pending_kind", kind))
        return pairs

    def attribution_row(self, calls: list[_FCall]) -> Pairs:
        """A metadataAttribution judge that blames the called tool's description (§2.11)."""
        called = calls[0].tool.name if calls else "another tool"
        reason = (
            f"The description for '{called}' says it answers {self.case.intent} questions, "
            f"which is what '{self.case.tool}' does."
        )
        scorer = "judge:metadataAttribution"
        pairs = grader_pairs(
            "judge", scorer, "selection", 0.9, reason, advisory=True, threshold=0.5
        )
        return [
            *pairs,
            ("mcp.app.judge.name", "metadataAttribution"),
            ("mcp.app.judge.status", "scored"),
            ("mcp.app.judge.attributed", True),
            ("mcp.app.judge.model", JUDGE_MODEL),
        ]

    # ------------------------------------------------------------------ root (§3.5 Trial root)
    def authored(self) -> StageAuthoredCase:
        """What the case asserts, inferred by CONTRACT §2.3 from its checks and expectations."""
        case, plan = self.case, self.plan
        counted = sum(_LINK[c.kind] != "selection" for c in self.checks)  # advisory too (Q5)
        return StageAuthoredCase(
            mode="model_free" if plan.turn == "tool_step" else "model_driven",
            is_negative_test=case.negative,
            expects_tool_call=not case.negative and plan.expectation,
            expects_widget_render=plan.render,
            assertion_count=counted + (1 if self.expected_output else 0),
        )

    @property
    def expected_output(self) -> str | None:
        return self.case.expected_output if self.plan.expected_output else None

    def setup_pairs(self) -> tuple[Pairs, SetupSignals | None, ToolSignals | None]:
        """`mcp.app.setup.*` and `mcp.app.tools.*` (copies of run facts) and what they mean."""
        plan, pairs = self.plan, list[tuple[str, AttrValue]]()
        signals: dict[str, SetupSignal] = {}
        state = {"connection": plan.connect, "discovery": plan.discover}
        for phase, ids in self.setup_ids.items():
            if not plan.signals or not ids:
                continue
            outcome = "ok" if state[phase] == "ok" else "failed"
            attribution = state[phase].split("_")[1] if outcome == "failed" else None
            egress = plan.connect == "failed_theirs_egress" if phase == "connection" else None
            first, last = self.intervals[ids[0]][0], self.intervals[ids[-1]][1]
            p = f"mcp.app.setup.{phase}."
            pairs.append((p + "outcome", outcome))
            if attribution is not None:
                pairs.append((p + "attribution", attribution))
                if egress is not None:
                    pairs.append((p + "egress_verified", egress))
            pairs += [(p + "span_ids", ids), (p + "duration_ms", float(last - first))]
            signals[phase] = SetupSignal(
                outcome,
                attribution,
                egress if attribution else None,
                tuple(ids),
                float(last - first),
            )
        tools = None
        if plan.signals and plan.connect == "ok" and plan.discover == "ok":
            n = len(self.suite.server.tools)
            pairs += [("mcp.app.tools.total_before", n), ("mcp.app.tools.exposed", n)]
            tools = ToolSignals(n, n)
        setup = SetupSignals(signals.get("connection"), signals.get("discovery"))
        return pairs, setup if signals else None, tools

    def trial_root(self, end: int) -> None:
        """The root: identity as the base trial writes it, the plan's keys, the derived chain."""
        case, m, plan = self.case, self.model, self.plan
        authored = self.authored()
        setup, setup_signals, tool_signals = self.setup_pairs()
        step_error = self.step_error
        inp = StageDerivationInput(
            authored,
            StageEvidence(
                spans=tuple(self.m_spans),
                trace_lacks_span_channel=plan.lacks_span_channel or None,
                trace_absent=plan.trace_absent or None,
                prompts=tuple(self.m_prompts),
                predicate_results=tuple(self.m_predicates),
                tool_errors=tuple(self.m_errors),
                step_error=StepError("model", *step_error) if step_error else None,
                render_observations=tuple(self.m_renders),
                tool_signals=tool_signals,
                setup_signals=setup_signals,
                evaluator_errored=plan.evaluator_errored or None,
                judge_evidence=self.m_judge,
                metadata_attribution=self.m_attribution,
            ),
            IterationInfo(plan.status, plan.error),
            PolicyInfo(True, plan.policy) if plan.policy else None,
        )
        chain = derive_chain(inp)
        rows, category = _rows(chain)
        failed = chain.first_failed_stage is not None
        result = None
        if plan.status in ("completed", "failed") and category != "evaluator" and not plan.policy:
            result = "failed" if failed or category else "passed"
        kept = {
            "mcp.app.case.turn_count": 0 if plan.turn == "tool_step" else 1,
            "mcp.app.authored.mode": authored.mode,
            "mcp.app.authored.expects_tool_call": bool(authored.expects_tool_call),
            "mcp.app.authored.expects_widget_render": bool(authored.expects_widget_render),
            "mcp.app.authored.assertion_count": authored.assertion_count or 0,
        }
        a = self.attrs("trial", "CHAIN")
        a.extend(
            ("session.id", self.session_key),
            *self.suite.head,
            *self.head,
            *((key, kept.get(key, value)) for key, value in case_pairs(case)),
            ("mcp.app.trial.id", self.trial_id),
            *self.numbering,
            ("mcp.app.trial.variant_key", f"{m.provider}/{m.model}@{HOST_KEY}"),
            ("mcp.app.trial.status", plan.status),
        )
        if result is not None:
            a.add("mcp.app.trial.result", result)
        if plan.error is not None:
            a.add("mcp.app.trial.error", plan.error)
        if step_error:
            a.extend(
                ("mcp.app.trial.step_error.source", "model"),
                ("mcp.app.trial.step_error.code", step_error[0]),
                ("mcp.app.trial.step_error.http_status", step_error[1]),
            )
        a.extend(*variant_pairs(m))
        if plan.policy:
            a.extend(("mcp.app.policy.blocked", True), ("mcp.app.policy.reason", plan.policy))
        a.extend(*setup)
        flags = (
            ("mcp.app.evidence.trace_absent", plan.trace_absent),
            ("mcp.app.evidence.trace_lacks_span_channel", plan.lacks_span_channel),
            ("mcp.app.evidence.evaluator_errored", plan.evaluator_errored),
        )
        a.extend(*((key, True) for key, on in flags if on))
        a.extend(
            ("mcp.app.expect.tool_calls", to_json(self.expected)),
            ("mcp.app.expect.output_defined", self.expected_output is not None),
        )
        if self.expected_output is not None:
            a.content("mcp.app.expect.output", self.expected_output)
        if self.expected or case.negative:  # §3.5 "yes*": whenever the case has expectations
            options = MATCH_DEFAULTS
            if plan.max_extra is not None:
                options = [
                    ("mcp.app.match.argument_matching", "partial"),
                    ("mcp.app.match.tool_call_order", "ignore"),
                    ("mcp.app.match.extra_tool_calls", "bounded"),
                    ("mcp.app.match.max_extra_tool_calls", plan.max_extra),
                    ("mcp.app.match.source", "case"),
                ]
            a.extend(*options)
        a.extend(*chain_attributes(rows, category, self.intervals))
        a.content("input.value", case.prompt, "text/plain")
        a.add("tag.tags", ["mcpjam-eval", self.suite.server.suite])
        a.add(SCENARIO_KEY, self.scenario.name)
        self.span(None, "eval.trial", _INTERNAL, (0, end), a, span_id=self.root_id)
        self.spans.insert(0, self.spans.pop())


def _rows(chain: StageDerivation) -> tuple[list[Row], str | None]:
    """The derived chain as the `synth_attrs.Row`s `chain_attributes` persists."""
    rows = []
    for r in chain.stage_results:
        evidence: dict[str, list[str] | list[int]] = {}
        refs = r.evidence
        if refs is not None:
            if refs.span_ids is not None:
                evidence["span_ids"] = list(refs.span_ids)
            if refs.prompt_indexes is not None:
                evidence["prompt_indexes"] = [int(i) for i in refs.prompt_indexes]
            if refs.predicate_reasons is not None:
                evidence["predicate_reasons"] = list(refs.predicate_reasons)
        reason = r.reason.value if r.reason is not None else ""
        rows.append(Row(r.stage.value, r.state.value, reason, evidence))
    category = chain.failure_category.value if chain.failure_category is not None else None
    return rows, category


# --- §3.7: the input fields a grader row stands for, read back from the pairs written ------


def _read_prompt(d: dict[str, AttrValue]) -> PromptSummary:
    def listed(key: str) -> tuple[object, ...]:
        value = d[key]
        assert isinstance(value, str)
        return tuple(orjson.loads(value))

    passed = d.get("mcp.app.match.result.passed")
    index = d.get("mcp.app.grader.turn_index")
    return PromptSummary(
        prompt_index=index if isinstance(index, int) else None,
        expected_tool_calls=listed("mcp.app.match.result.expected"),
        missing=listed("mcp.app.match.result.missing"),
        unexpected=listed("mcp.app.match.result.unexpected"),
        argument_mismatches=listed("mcp.app.match.result.argument_mismatches"),
        passed=passed if isinstance(passed, bool) else None,
    )


def _text(d: dict[str, AttrValue], key: str) -> str | None:
    value = d.get(key)
    return value if isinstance(value, str) else None


def _read_predicate(d: dict[str, AttrValue]) -> PredicateResult:
    passed = d.get("mcp.app.grader.passed")
    return PredicateResult(
        passed if isinstance(passed, bool) else None,
        _text(d, "mcp.app.grader.reason"),
        _text(d, "mcp.app.grader.status"),
        PredicateRef(
            _text(d, "mcp.app.predicate.type"),
            _text(d, "mcp.app.predicate.tool_name"),
            _text(d, "mcp.app.grader.role"),
        ),
    )


def _read_judge(d: dict[str, AttrValue]) -> JudgeEvidence:
    status = _text(d, "mcp.app.judge.status") or _text(d, "mcp.app.grader.status") or "scored"
    reason = _text(d, "mcp.app.grader.reason")
    return JudgeEvidence(
        status,
        _text(d, "mcp.app.judge.pending_kind"),
        _text(d, "mcp.app.judge.verdict"),
        None if reason is None else (reason,),
    )
