"""One trial's trace (§3.3): its spans, their attributes and timing, drawn from one stream."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from valuechain.synth.attributes import (
    MATCH_DEFAULTS,
    Attrs,
    Pairs,
    case_pairs,
    connect_pairs,
    discover_pairs,
    judge_pairs,
    matcher_pairs,
    predicate_rows,
    to_json,
    variant_pairs,
    widget_pairs,
)
from valuechain.synth.chain import chain_attributes, scenario_chain
from valuechain.synth.ids import hex_id, token
from valuechain.synth.suite import Suite
from valuechain.synth.vocabulary import HOST_KEY, Case, Model, Tool, fill

TOOL_ERRORS = (
    "upstream API returned 503 Service Unavailable",
    "rate limit exceeded; retry in 30 s",
    "backend timed out after 10 s",
)
INTERNAL, CLIENT = 1, 3  # §1.6: enums are written as integers
OK, ERROR = 1, 2


@dataclass(slots=True)
class Call:
    """One tool call of a trial; its call and span ids are set as its spans are written."""

    tool: Tool
    ok: bool
    call_id: str = ""
    span_id: str = ""


@dataclass(slots=True)
class Outcome:
    """What an ordinary trial drew: its kind and the calls it makes."""

    kind: str  # passed | wrongTool | toolError
    calls: list[Call] = field(default_factory=list)


def _plan(rng: random.Random, suite: Suite, case: Case, model: Model) -> Outcome:
    """Draw the trial's outcome: mostly passes, some wrong tools and tool errors."""
    risk = model.failure_factor * case.difficulty
    if case.negative:  # a negative case that holds makes no call at all (CONTRACT §2.4)
        if rng.random() < 0.15 * risk:
            return Outcome("wrongTool", [Call(suite.tools[case.tool], True)])
        return Outcome("passed")
    reads = [t for t in suite.server.tools if t.effect == "read" and t.name != case.tool]
    roll, extras = rng.random(), rng.choices((0, 1, 2), weights=(65, 25, 10))[0]
    if roll < 0.07 * risk:
        wrong = rng.sample(reads, min(len(reads), rng.choice((1, 1, 2))))
        return Outcome("wrongTool", [Call(t, True) for t in wrong])
    calls = [Call(suite.tools[case.tool], roll >= 0.13 * risk)]
    calls += [Call(t, True) for t in rng.sample(reads, min(extras, len(reads)))]
    rng.shuffle(calls)
    return Outcome("passed" if all(c.ok for c in calls) else "toolError", calls)


class Trial:
    """One trial's trace (§3.3): root, connect, discover, one turn, graders; ms offsets."""

    def __init__(
        self,
        suite: Suite,
        case: Case,
        model: Model,
        rng: random.Random,
        *,
        t0_ns: int,
        redacted: bool,
        head: Pairs,
        numbering: Pairs,
    ) -> None:
        self.suite, self.case, self.model, self.rng = suite, case, model, rng
        self.t0_ns, self.redacted, self.head, self.numbering = t0_ns, redacted, head, numbering
        self.answer = ""
        self.trace_id, self.root_id, self.session = hex_id(rng, 16), hex_id(rng, 8), hex_id(rng, 16)
        self.session_key, self.trial_id = "cs_" + hex_id(rng, 6), "it_" + hex_id(rng, 5)
        self.n = rng.randint(2, 40)
        self.spans: list[dict[str, Any]] = []
        self.intervals: dict[str, tuple[int, int]] = {}
        named = [] if case.negative else [{"toolName": case.tool, "arguments": case.expected}]
        # §3.5/§3.6: argument values in mcp.app.expect.tool_calls and match.result.* are content
        self.expected = [{"toolName": e["toolName"]} for e in named] if redacted else named

    def build(self) -> list[dict[str, Any]]:
        """All spans of the trial, root first."""
        case, outcome = self.case, _plan(self.rng, self.suite, self.case, self.model)
        if case.negative:
            self.answer = fill(case.broke if outcome.calls else case.answer, case.subject, self.n)
        elif outcome.kind == "passed":
            self.answer = fill(case.answer, case.subject, self.n)
        elif outcome.kind == "wrongTool":
            self.answer = "I couldn't find exactly that, but here is what I found instead."
        else:
            self.answer = f"Sorry, the {self.suite.server.name} service failed. Try again later."
        connect, discover, t = self.setup()
        t, reasons = self.graders(self.turn(t + 40, outcome.calls) + 20, outcome)
        self.root(t + 10, outcome, (connect, discover), reasons)
        return self.spans

    def attrs(self, role: str, oi_kind: str | None = None) -> Attrs:
        attrs = Attrs(self.redacted)
        if oi_kind:
            attrs.add("openinference.span.kind", oi_kind)
        attrs.add("mcp.app.span.role", role)
        return attrs

    def span(
        self,
        parent: str | None,
        name: str,
        kind: int,
        when: tuple[int, int],
        attrs: Attrs,
        *,
        status: int = 0,
        message: str = "",
        span_id: str = "",
    ) -> str:
        """Append one span; uint64 times as decimal strings, root without parentSpanId (§1.1)."""
        (start, end), span_id = when, span_id or hex_id(self.rng, 8)
        span: dict[str, Any] = {"traceId": self.trace_id, "spanId": span_id}
        if parent:
            span["parentSpanId"] = parent
        span |= {
            "name": name,
            "kind": kind,
            "startTimeUnixNano": str(self.t0_ns + start * 10**6),
            "endTimeUnixNano": str(self.t0_ns + end * 10**6),
            "attributes": attrs.encode(),
        }
        if status:
            span["status"] = {"code": status, "message": message} if message else {"code": status}
        self.spans.append(span)
        self.intervals[span_id] = (start, end)
        return span_id

    def setup(self) -> tuple[str, str, int]:
        """Connect and discover spans (§3.5 Connect, Discover): both ids and the end time."""
        server, rng = self.suite.server, self.rng
        a = self.attrs("connect")
        a.extend(*connect_pairs(server, self.session, "ok"))
        end = 5 + rng.randint(90, 320)
        connect = self.span(self.root_id, "initialize", CLIENT, (5, end), a, status=OK)
        a = self.attrs("discover")
        a.extend(*discover_pairs(server, "ok"))
        when = (end + 5, end + 5 + rng.randint(30, 140))
        discover = self.span(self.root_id, "tools/list", CLIENT, when, a, status=OK)
        return connect, discover, when[1]

    def args(self, tool: Tool) -> str:
        return fill(to_json(tool.args), self.case.subject, self.n)

    def llm(
        self, turn: str, step: int, start: int, prompt_tokens: int, calls: list[Call]
    ) -> tuple[int, int]:
        """One model step (§3.5 LLM): its end time and completion tokens."""
        m, rng = self.model, self.rng
        out = rng.randint(30, 90) * len(calls) if calls else rng.randint(40, 260)
        ttfc = round(rng.uniform(0.25, 1.1), 2)
        end = start + int(ttfc * 1000 + out / rng.uniform(45, 120) * 1000) + rng.randint(20, 120)
        a = self.attrs("llm", "LLM")
        a.extend(
            ("mcp.app.step.index", step),
            ("llm.system", m.oi_system),
            ("llm.provider", m.oi_provider),
            ("llm.model_name", m.served),
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.provider.name", m.genai_provider),
            ("gen_ai.request.model", m.model),
            ("gen_ai.response.model", m.served),
            ("gen_ai.response.id", m.response_prefix + token(rng, 24)),
            ("gen_ai.response.finish_reasons", ["tool-calls" if calls else "stop"]),
            ("llm.token_count.prompt", prompt_tokens),
            ("llm.token_count.completion", out),
            ("llm.token_count.total", prompt_tokens + out),
            ("gen_ai.usage.input_tokens", prompt_tokens),
            ("gen_ai.usage.output_tokens", out),
            ("gen_ai.response.time_to_first_chunk", ttfc),
        )
        a.content("llm.input_messages.0.message.role", "user")  # §3.6 gates llm.input_messages.*
        a.content("llm.input_messages.0.message.content", self.case.prompt)
        a.add("llm.output_messages.0.message.role", "assistant")
        for k, call in enumerate(calls):  # id and name always, arguments gated (§3.5 LLM)
            p = f"llm.output_messages.0.message.tool_calls.{k}.tool_call."
            a.extend((p + "id", call.call_id), (p + "function.name", call.tool.name))
            a.content(p + "function.arguments", self.args(call.tool))
        if not calls:
            a.content("llm.output_messages.0.message.content", self.answer)
        self.span(turn, f"chat {m.model}", CLIENT, (start, end), a, status=OK)
        return end, out

    def tool_call_attrs(self, tool: Tool, call_id: str, request_id: int) -> Attrs:
        """The identity and arguments every tools/call span carries (§3.5 Tool call)."""
        a = self.attrs("tool_call", "TOOL")
        a.extend(
            ("tool.name", tool.name),
            ("tool_call.id", call_id),
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", tool.name),
            ("gen_ai.tool.call.id", call_id),
            ("mcp.method.name", "tools/call"),
            ("mcp.session.id", self.session),
            ("mcp.app.server.name", self.suite.server.name),
            ("jsonrpc.request.id", str(request_id)),
        )
        a.content("input.value", self.args(tool), "application/json")
        return a

    def tool(self, turn: str, call: Call, start: int, request_id: int) -> int:
        """One tools/call span (§3.5 Tool call) and, for an MCP App result, its widget render."""
        rng, tool = self.rng, call.tool
        end = start + rng.randint(60, 900)
        text = fill(tool.result, self.case.subject, self.n) if call.ok else ""
        text = text or rng.choice(TOOL_ERRORS)
        result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
        result["isError"] = not call.ok
        if tool.ui and call.ok:
            result["_meta"] = {"ui": {"resourceUri": tool.ui}}
        a = self.tool_call_attrs(tool, call.call_id, request_id)
        a.content("output.value", to_json(result), "application/json")
        a.extend(
            ("mcp.app.tool.outcome", "ok" if call.ok else "tool_error"),
            ("mcp.app.tool.is_error", not call.ok),
        )
        if not call.ok:  # §2.3: isError is error.type tool_error and carries no JSON-RPC code
            a.extend(("mcp.app.tool.error_source", "result"), ("error.type", "tool_error"))
        status, message = (OK, "") if call.ok else (ERROR, "tool returned isError: true")
        name = f"tools/call {tool.name}"
        call.span_id = self.span(
            turn, name, CLIENT, (start, end), a, status=status, message=message
        )
        if not (tool.ui and call.ok):
            return end
        render_ms = rng.randint(180, 650)
        w = self.attrs("widget_render")
        w.extend(*widget_pairs(call.call_id, tool.name, tool.ui, render_ms))
        self.span(turn, "widget.render", INTERNAL, (end + 5, end + 5 + render_ms), w, status=OK)
        return end + 5 + render_ms

    def turn(self, start: int, calls: list[Call]) -> int:
        """Turn 0 (§3.5 Turn): model steps, the calls they request, the final answer."""
        turn_id, rounds = hex_id(self.rng, 8), self.rounds(calls)
        t = self.steps(turn_id, start + 10, self.rng.randint(600, 1500), [*rounds, []])
        self.turn_span(turn_id, (start, t), OK)
        return t

    def rounds(self, calls: list[Call]) -> list[list[Call]]:
        """Mint the call ids; parallel calls share a model step, otherwise the model asks again."""
        rng, rounds = self.rng, list[list[Call]]()
        for call in calls:
            call.call_id = self.model.call_prefix + token(rng, 22)
            if not rounds or rng.random() < 0.4:
                rounds.append([call])
            else:
                rounds[-1].append(call)
        return rounds

    def steps(self, turn: str, start: int, prompt_tokens: int, batches: list[list[Call]]) -> int:
        """One model step per batch, then the calls it asked for; returns the end time."""
        rng, t, step, request_id = self.rng, start, 0, 3
        for batch in batches:
            t, out = self.llm(turn, step, t, prompt_tokens, batch)
            prompt_tokens += out + sum(rng.randint(60, 400) for _ in batch)
            for call in batch:  # tool steps are numbered between model steps (§3.9)
                t = self.tool(turn, call, t + 5, request_id)
                step, request_id = step + 1, request_id + 1
            step, t = step + 1, t + 5
        return t

    def turn_span(self, turn: str, when: tuple[int, int], status: int, message: str = "") -> None:
        """The turn's own span (§3.5 Turn): the user's prompt in, the final answer out."""
        a = self.attrs("turn", "CHAIN")
        a.add("mcp.app.turn.index", 0)
        a.content("input.value", self.case.prompt, "text/plain")
        if self.answer:  # a turn cut short has no final answer
            a.content("output.value", self.answer, "text/plain")
        self.span(
            self.root_id,
            "turn 0",
            INTERNAL,
            when,
            a,
            status=status,
            message=message,
            span_id=turn,
        )

    def grader(self, start: int, scorer: str, pairs: Pairs, slow: bool = False) -> int:
        """One grader span (§3.5 Grader): verdicts are attributes, never span status (§3.3)."""
        a = self.attrs("grader", "EVALUATOR")
        a.extend(*pairs)
        end = start + (self.rng.randint(900, 3500) if slow else 0) + self.rng.randint(3, 30)
        self.span(self.root_id, f"grade {scorer}", INTERNAL, (start, end), a)
        return end + 5

    def graders(self, start: int, outcome: Outcome) -> tuple[int, list[str]]:
        """Matcher, two gating predicates, goal judge; returns the end and predicate reasons."""
        case, calls, rng = self.case, outcome.calls, self.rng
        extra = [c.tool.name for c in calls if case.negative or c.tool.name != case.tool]
        missing = outcome.kind == "wrongTool" and not case.negative
        t = self.grader(
            start,
            "toolCalls:match",
            matcher_pairs(case, self.expected, missing=missing, extra=extra),
        )
        failed_tool = next((c.tool.name for c in calls if not c.ok), None)
        rows = predicate_rows(
            case, calls=len(calls), failed_tool=failed_tool, answered=outcome.kind == "passed"
        )
        for scorer, pairs, _ in rows:
            t = self.grader(t, scorer, pairs)
        score = None
        if not case.negative:  # CONTRACT §2.12 thresholds: pass ≥ 0.7, partial ≥ 0.4
            low, high = (0.72, 0.97) if rng.random() >= 0.15 else (0.45, 0.69)
            score = round(
                rng.uniform(*((low, high) if outcome.kind == "passed" else (0.05, 0.38))), 2
            )
        t = self.grader(t, "judge:goalCompletion", judge_pairs(score, case), slow=bool(score))
        return t, [reason for _, _, reason in rows]

    def root(self, end: int, outcome: Outcome, setup: tuple[str, str], reasons: list[str]) -> None:
        """The trial root (§3.5 Trial root), moved first like in the §3.9 example."""
        case, m = self.case, self.model
        calls = [
            (c.span_id, c.ok, case.negative or c.tool.name != case.tool) for c in outcome.calls
        ]
        rows, category = scenario_chain(
            case.negative,
            outcome.kind,
            setup,
            calls,
            {"selection": reasons[0], "userValue": reasons[1]},
        )
        a = self.attrs("trial", "CHAIN")
        a.extend(
            ("session.id", self.session_key),
            *self.suite.head,
            *self.head,
            *case_pairs(case),
            ("mcp.app.trial.id", self.trial_id),
            *self.numbering,
            ("mcp.app.trial.variant_key", f"{m.provider}/{m.model}@{HOST_KEY}"),
            ("mcp.app.trial.status", "completed"),
            ("mcp.app.trial.result", "failed" if category else "passed"),
            *variant_pairs(m),
        )
        for phase, span_id in zip(("connection", "discovery"), setup, strict=True):
            first, last = self.intervals[span_id]  # §3.7.1 (1): a per-trial copy of a run fact
            a.extend(
                (f"mcp.app.setup.{phase}.outcome", "ok"),
                (f"mcp.app.setup.{phase}.span_ids", [span_id]),
                (f"mcp.app.setup.{phase}.duration_ms", float(last - first)),
            )
        tools = len(self.suite.server.tools)
        a.extend(
            ("mcp.app.tools.total_before", tools),
            ("mcp.app.tools.exposed", tools),
            ("mcp.app.expect.tool_calls", to_json(self.expected)),
            ("mcp.app.expect.output_defined", case.expected_output is not None),
        )
        if case.expected_output is not None:
            a.content("mcp.app.expect.output", case.expected_output)
        a.extend(*MATCH_DEFAULTS, *chain_attributes(rows, category, self.intervals))
        a.content("input.value", case.prompt, "text/plain")
        a.add("tag.tags", ["mcpjam-eval", self.suite.server.suite])
        self.span(None, "eval.trial", INTERNAL, (0, end), a, span_id=self.root_id)
        self.spans.insert(0, self.spans.pop())
