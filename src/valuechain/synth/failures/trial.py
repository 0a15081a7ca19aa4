"""`FailureTrial`: a trial played as a scenario, its root holding the chain analyzer 12 derives.

`ScenarioCycle` deals the scenarios to the trials of a failures run.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

from valuechain.contract.chain import StageDerivation
from valuechain.contract.derivation import (
    IterationInfo,
    PolicyInfo,
    SetupSignal,
    SetupSignals,
    StageAuthoredCase,
    StageDerivationInput,
    StageEvidence,
    StepError,
    ToolSignals,
)
from valuechain.derive import derive_chain
from valuechain.synth.attributes import (
    MATCH_DEFAULTS,
    AttrValue,
    Pairs,
    case_pairs,
    to_json,
    variant_pairs,
)
from valuechain.synth.chain import Row, chain_attributes
from valuechain.synth.failures.catalogue import CATALOGUE, CHECK_LINK, SCENARIO_KEY, fits
from valuechain.synth.failures.graders import FailureGraders
from valuechain.synth.trial import INTERNAL, Trial
from valuechain.synth.vocabulary import HOST_KEY, Case


class FailureTrial(FailureGraders):
    """A trial shaped by a scenario's `Plan`; its producer chain is derived by analyzer 12."""

    def build(self) -> list[dict[str, Any]]:
        """All spans of the trial as the plan says, root first."""
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

    def authored(self) -> StageAuthoredCase:
        """What the case asserts, inferred by CONTRACT §2.3 from its checks and expectations."""
        case, plan = self.case, self.plan
        counted = sum(CHECK_LINK[c.kind] != "selection" for c in self.checks)  # advisory too (Q5)
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
        self.span(None, "eval.trial", INTERNAL, (0, end), a, span_id=self.root_id)
        self.spans.insert(0, self.spans.pop())


def _rows(chain: StageDerivation) -> tuple[list[Row], str | None]:
    """The derived chain as the `chain.Row`s `chain_attributes` persists."""
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


class ScenarioCycle:
    """Deals scenarios to trials: the catalogue in a seeded rotation, first fit first.

    A scenario that fits the trial's case is taken and moved to the back, so every scenario
    comes round once per `len(CATALOGUE)`-odd trials whenever cases it fits keep arriving.
    """

    def __init__(self, seed: int) -> None:
        start = random.Random(f"valuechain.synth:{seed}:failures").randrange(len(CATALOGUE))
        self._queue = deque(CATALOGUE[start:] + CATALOGUE[:start])

    def draw(self, case: Case) -> Callable[..., Trial]:
        """`Trial`'s constructor for the next scenario that fits `case`."""
        for i, scenario in enumerate(self._queue):
            if fits(scenario.plan, case):
                del self._queue[i]
                self._queue.append(scenario)
                return partial(FailureTrial, scenario=scenario)
        raise AssertionError("unreachable: `any` scenarios fit every case")
