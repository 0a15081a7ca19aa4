"""The grader rows of a failure trial (§3.5 Grader), each evaluated from what the trial did.

The matcher row is graded by the CONTRACT §2.4 matcher itself, the predicates from the spans
and the final answer; each row is read back into the §3.7 input field it stands for.
"""

from __future__ import annotations

from typing import Any

import orjson

from valuechain.contract.derivation import (
    JudgeEvidence,
    MetadataAttribution,
    PredicateRef,
    PredicateResult,
    PromptSummary,
)
from valuechain.contract.matching import MatchOptions, ToolCall
from valuechain.derive import evaluate_tool_calls
from valuechain.synth.attributes import AttrValue, Pairs, grader_pairs, to_json
from valuechain.synth.failures.catalogue import CHECK_LINK, NEGATIVE_CHECKS, POSITIVE_CHECKS, Check
from valuechain.synth.failures.spans import FailureCall, FailureSpans
from valuechain.synth.trial import ERROR
from valuechain.synth.vocabulary import JUDGE_MODEL, fill


class FailureGraders(FailureSpans):
    """`FailureSpans` plus the grader rows of the scenario's checks and judges."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        case, plan = self.case, self.plan
        standard = NEGATIVE_CHECKS if case.negative else POSITIVE_CHECKS
        self.checks = standard if plan.checks is None else plan.checks
        # the StageDerivationInput fields the grader rows stand for (TRACE-FORMAT §3.7)
        self.m_prompts: list[PromptSummary] = []
        self.m_predicates: list[PredicateResult] = []
        self.m_judge: JudgeEvidence | None = None
        self.m_attribution: MetadataAttribution | None = None

    def grade(self, start: int, calls: list[FailureCall]) -> int:
        """The plan's grader spans in order: matcher, checks, goal judge, attribution judge."""
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
        self.spans[-1]["status"] = {"code": ERROR, "message": message}

    def matcher_row(self, calls: list[FailureCall]) -> Pairs:
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

    def check_row(self, n: int, check: Check, calls: list[FailureCall]) -> tuple[str, Pairs]:
        """One predicate grader row (§3.5): its verdict evaluated from the trial."""
        kind = check.kind
        passed, reason, spec = self.evaluate(check, calls)
        scorer, advisory = f"predicate:{kind}#{n}", check.role == "advisory"
        if check.status == "error":
            pairs = grader_pairs(
                "predicate", scorer, CHECK_LINK[kind], None, "", status="error", advisory=advisory
            )
            pairs.append(("mcp.app.grader.reason", f"could not be measured: {reason}"))
        else:
            pairs = grader_pairs(
                "predicate", scorer, CHECK_LINK[kind], float(passed), reason, advisory=advisory
            )
        pairs.append(("mcp.app.predicate.type", kind))
        tool = spec.get("toolName")
        if isinstance(tool, str):
            pairs.append(("mcp.app.predicate.tool_name", tool))
        pairs.append(("mcp.app.predicate.spec", to_json({"type": kind, **spec})))
        return scorer, pairs

    def evaluate(self, check: Check, calls: list[FailureCall]) -> tuple[bool, str, dict[str, Any]]:
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
            text = fill(main.tool.result, subject, self.n) if main and main.ok else ""
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

    def attribution_row(self, calls: list[FailureCall]) -> Pairs:
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
