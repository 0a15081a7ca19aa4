"""Seeded generator of realistic MCPJam-style OTLP/JSON eval exports (TRACE-FORMAT §3).

Topology, timing and randomness live here; vocabulary and attribute builders in `synth_attrs`.
Every draw comes from `random.Random` instances seeded from `SynthConfig.seed`, so the same
config always yields the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import random
import string
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from gzip import GzipFile
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from valuechain.synth_attrs import (
    HOST_KEY,
    MATCH_DEFAULTS,
    MODELS,
    PRODUCER,
    SCOPE,
    SERVERS,
    Attrs,
    Case,
    Model,
    Pairs,
    Server,
    Tool,
    case_pairs,
    chain_attributes,
    judge_pairs,
    matcher_pairs,
    predicate_rows,
    scenario_chain,
    to_json,
    variant_pairs,
    widget_pairs,
)

__all__ = ["SynthConfig", "SynthSummary", "generate_requests", "write_export"]

_URLSAFE = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"  # CONTRACT §7.5
_BASE62 = string.digits + string.ascii_letters
_TOOL_ERRORS = (
    "upstream API returned 503 Service Unavailable",
    "rate limit exceeded; retry in 30 s",
    "backend timed out after 10 s",
)
_INTERNAL, _CLIENT = 1, 3  # §1.6: enums are written as integers
_OK, _ERROR = 1, 2
_DAY_MS = 86_400_000
_BUFFER_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class SynthConfig:
    """What to generate: `runs` eval runs of one suite, each cases × models × reps trials."""

    runs: int = 1
    cases: int = 4
    models: int = 2
    reps: int = 2
    seed: int = 0
    redacted: bool = False  # §3.6: withhold content, list it in `mcp.app.redacted_keys`
    start_unix_nano: int = 1_767_225_600_000_000_000  # fixed epoch base so output is deterministic
    failures: bool = False  # every trial gets a failure scenario (valuechain.synth_failures)


@dataclass(frozen=True, slots=True)
class SynthSummary:
    """What `write_export` wrote; `bytes_written` is the file size on disk."""

    path: Path
    bytes_written: int
    runs: int
    trials: int
    spans: int
    traces: int


@dataclass(frozen=True, slots=True)
class _Suite:
    server: Server
    tools: dict[str, Tool]
    cases: tuple[Case, ...]
    head: Pairs  # project and suite keys of every trial root (§3.5)
    resource: Pairs  # §3.4
    revisions: tuple[int, ...]
    fingerprint: str
    first_run_number: int


@dataclass(slots=True)
class _Call:
    tool: Tool
    ok: bool
    call_id: str = ""
    span_id: str = ""


@dataclass(slots=True)
class _Outcome:
    kind: str  # passed | wrongTool | toolError
    calls: list[_Call] = field(default_factory=list)


def _shape(config: SynthConfig) -> str:
    """The export's shape, mixed into every seed: two exports of different shapes made with the
    same --seed never share run, trial or trace ids (they would collide on import)."""
    return f"{config.runs}x{config.cases}x{config.models}x{config.reps}"


def _hex(rng: random.Random, nbytes: int) -> str:
    """A non-zero lower-hex id of `nbytes` bytes (§1.1: all-zero ids are invalid)."""
    while not (value := rng.getrandbits(nbytes * 8)):
        pass
    return f"{value:0{nbytes * 2}x}"


def _token(rng: random.Random, n: int, alphabet: str = _BASE62) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _fill(template: str, subject: str, n: int) -> str:
    return template.replace("{s}", subject).replace("{n}", str(n))


def _new_case(rng: random.Random, server: Server, i: int) -> Case:
    """Case `i` of the suite; every fourth, from the third, is negative (§3.9 has both kinds)."""
    subject = rng.choice(server.subjects)
    # CONTRACT §7.5: minted case ids are `c_` + 21 characters of the URL-safe alphabet
    ids = ("c_" + _token(rng, 21, _URLSAFE), "ck_" + _hex(rng, 3), subject, rng.uniform(0.5, 1.6))
    if server.negatives and i % 4 == 2:
        neg = server.negatives[i // 4 % len(server.negatives)]
        return Case(
            *ids,
            negative=True,
            title=neg.title,
            intent="meta-question",
            prompt=neg.prompt,
            tool=neg.forbidden,
            expected={},
            expected_output=None,
            answer=neg.answer,
            broke=neg.broke,
        )
    ordinal = i - (i + 1) // 4 if server.negatives else i  # positives before this one
    pos = server.positives[ordinal % len(server.positives)]
    return Case(
        *ids,
        negative=False,
        title=_fill(pos.title, subject, 0),
        intent=pos.intent,
        prompt=_fill(pos.prompt, subject, 0),
        tool=pos.tool,
        expected={k: _fill(v, subject, 0) for k, v in pos.expected.items()},
        expected_output=_fill(pos.expected_output, subject, 0),
        answer=pos.answer,
    )


def _suite(config: SynthConfig) -> _Suite:
    counts = (config.runs, config.cases, config.reps)
    if min(counts) < 1 or not 1 <= config.models <= len(MODELS) or config.start_unix_nano < 0:
        raise ValueError(
            f"{config}: runs, cases and reps must be >= 1, models 1..{len(MODELS)}, and "
            "start_unix_nano >= 0. Hint: add pairs to valuechain.synth_attrs.MODELS for more."
        )
    rng = random.Random(f"valuechain.synth:{config.seed}:{_shape(config)}:suite")
    server = rng.choice(SERVERS)
    cases = tuple(_new_case(rng, server, i) for i in range(config.cases))
    revisions, revision = [], rng.randint(1, 40)
    for _ in range(config.runs):  # the suite's config is edited now and then between runs
        revision += rng.random() < 0.2
        revisions.append(revision)
    head: Pairs = [
        ("mcp.app.project.id", "prj_" + _hex(rng, 4)),
        ("mcp.app.project.name", server.project),
        ("mcp.app.suite.id", "s_" + _token(rng, 21, _URLSAFE)),
        ("mcp.app.suite.name", server.suite),
    ]
    created_ms = config.start_unix_nano // 10**6 + config.runs * _DAY_MS
    resource: Pairs = [
        ("service.name", "mcpjam-evals"),
        ("openinference.project.name", server.project),
        ("mcp.app.export.schema_version", 1),
        ("mcp.app.export.producer", PRODUCER),
        ("mcp.app.export.scope", "run" if config.runs == 1 else "project"),
        ("mcp.app.export.include_content", not config.redacted),
        (
            "mcp.app.export.created_time",
            datetime.fromtimestamp(created_ms // 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        ),
    ]
    fingerprint = "csf_" + hashlib.sha256("|".join(c.key for c in cases).encode()).hexdigest()[:10]
    tools = {t.name: t for t in server.tools}
    return _Suite(
        server,
        tools,
        cases,
        head,
        resource,
        tuple(revisions),
        fingerprint,
        first_run_number=rng.randint(1, 200),
    )


def _plan(rng: random.Random, suite: _Suite, case: Case, model: Model) -> _Outcome:
    """Draw the trial's outcome: mostly passes, some wrong tools and tool errors."""
    risk = model.failure_factor * case.difficulty
    if case.negative:  # a negative case that holds makes no call at all (CONTRACT §2.4)
        if rng.random() < 0.15 * risk:
            return _Outcome("wrongTool", [_Call(suite.tools[case.tool], True)])
        return _Outcome("passed")
    reads = [t for t in suite.server.tools if t.effect == "read" and t.name != case.tool]
    roll, extras = rng.random(), rng.choices((0, 1, 2), weights=(65, 25, 10))[0]
    if roll < 0.07 * risk:
        wrong = rng.sample(reads, min(len(reads), rng.choice((1, 1, 2))))
        return _Outcome("wrongTool", [_Call(t, True) for t in wrong])
    calls = [_Call(suite.tools[case.tool], roll >= 0.13 * risk)]
    calls += [_Call(t, True) for t in rng.sample(reads, min(extras, len(reads)))]
    rng.shuffle(calls)
    return _Outcome("passed" if all(c.ok for c in calls) else "toolError", calls)


class _Trial:
    """One trial's trace (§3.3): root, connect, discover, one turn, graders; ms offsets."""

    def __init__(
        self,
        suite: _Suite,
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
        self.trace_id, self.root_id, self.session = _hex(rng, 16), _hex(rng, 8), _hex(rng, 16)
        self.session_key, self.trial_id = "cs_" + _hex(rng, 6), "it_" + _hex(rng, 5)
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
            self.answer = _fill(case.broke if outcome.calls else case.answer, case.subject, self.n)
        elif outcome.kind == "passed":
            self.answer = _fill(case.answer, case.subject, self.n)
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
        (start, end), span_id = when, span_id or _hex(self.rng, 8)
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
        a.extend(
            ("mcp.method.name", "initialize"),
            ("mcp.app.server.name", server.name),
            ("network.transport", "tcp"),
            ("server.address", server.address),
            ("server.port", 443),
            ("jsonrpc.request.id", "0"),
            ("mcp.protocol.version", "2025-11-25"),
            ("mcp.session.id", self.session),
            ("mcp.app.connect.outcome", "ok"),
        )
        end = 5 + rng.randint(90, 320)
        connect = self.span(self.root_id, "initialize", _CLIENT, (5, end), a, status=_OK)
        a = self.attrs("discover")
        a.extend(
            ("mcp.method.name", "tools/list"),
            ("mcp.app.server.name", server.name),
            ("jsonrpc.request.id", "1"),
            ("mcp.app.discovery.outcome", "ok"),
            ("mcp.app.discovery.tool_count", len(server.tools)),
            ("mcp.app.discovery.tool_names", [t.name for t in server.tools]),
        )
        when = (end + 5, end + 5 + rng.randint(30, 140))
        discover = self.span(self.root_id, "tools/list", _CLIENT, when, a, status=_OK)
        return connect, discover, when[1]

    def args(self, tool: Tool) -> str:
        return _fill(to_json(tool.args), self.case.subject, self.n)

    def llm(
        self, turn: str, step: int, start: int, prompt_tokens: int, calls: list[_Call]
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
            ("gen_ai.response.id", m.response_prefix + _token(rng, 24)),
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
        self.span(turn, f"chat {m.model}", _CLIENT, (start, end), a, status=_OK)
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

    def tool(self, turn: str, call: _Call, start: int, request_id: int) -> int:
        """One tools/call span (§3.5 Tool call) and, for an MCP App result, its widget render."""
        rng, tool = self.rng, call.tool
        end = start + rng.randint(60, 900)
        text = _fill(tool.result, self.case.subject, self.n) if call.ok else ""
        text = text or rng.choice(_TOOL_ERRORS)
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
        status, message = (_OK, "") if call.ok else (_ERROR, "tool returned isError: true")
        name = f"tools/call {tool.name}"
        call.span_id = self.span(
            turn, name, _CLIENT, (start, end), a, status=status, message=message
        )
        if not (tool.ui and call.ok):
            return end
        render_ms = rng.randint(180, 650)
        w = self.attrs("widget_render")
        w.extend(*widget_pairs(call.call_id, tool.name, tool.ui, render_ms))
        self.span(turn, "widget.render", _INTERNAL, (end + 5, end + 5 + render_ms), w, status=_OK)
        return end + 5 + render_ms

    def turn(self, start: int, calls: list[_Call]) -> int:
        """Turn 0 (§3.5 Turn): model steps, the calls they request, the final answer."""
        rng, turn_id = self.rng, _hex(self.rng, 8)
        rounds: list[list[_Call]] = []
        for call in calls:  # parallel calls share a model step; otherwise the model asks again
            call.call_id = self.model.call_prefix + _token(rng, 22)
            if not rounds or rng.random() < 0.4:
                rounds.append([call])
            else:
                rounds[-1].append(call)
        t, step, prompt_tokens, request_id = start + 10, 0, rng.randint(600, 1500), 3
        for batch in [*rounds, []]:
            t, out = self.llm(turn_id, step, t, prompt_tokens, batch)
            prompt_tokens += out + sum(rng.randint(60, 400) for _ in batch)
            for call in batch:  # tool steps are numbered between model steps (§3.9)
                t = self.tool(turn_id, call, t + 5, request_id)
                step, request_id = step + 1, request_id + 1
            step, t = step + 1, t + 5
        a = self.attrs("turn", "CHAIN")
        a.add("mcp.app.turn.index", 0)
        a.content("input.value", self.case.prompt, "text/plain")
        a.content("output.value", self.answer, "text/plain")
        self.span(self.root_id, "turn 0", _INTERNAL, (start, t), a, status=_OK, span_id=turn_id)
        return t

    def grader(self, start: int, scorer: str, pairs: Pairs, slow: bool = False) -> int:
        """One grader span (§3.5 Grader): verdicts are attributes, never span status (§3.3)."""
        a = self.attrs("grader", "EVALUATOR")
        a.extend(*pairs)
        end = start + (self.rng.randint(900, 3500) if slow else 0) + self.rng.randint(3, 30)
        self.span(self.root_id, f"grade {scorer}", _INTERNAL, (start, end), a)
        return end + 5

    def graders(self, start: int, outcome: _Outcome) -> tuple[int, list[str]]:
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

    def root(self, end: int, outcome: _Outcome, setup: tuple[str, str], reasons: list[str]) -> None:
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
        self.span(None, "eval.trial", _INTERNAL, (0, end), a, span_id=self.root_id)
        self.spans.insert(0, self.spans.pop())


def _traces(config: SynthConfig, suite: _Suite) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(run index, spans) per trial, in case × model × repetition order like §3.9."""
    models = MODELS[: config.models]
    cycle = None
    if config.failures:  # imported here: synth_failures builds on this module
        from valuechain.synth_failures import ScenarioCycle  # noqa: PLC0415

        cycle = ScenarioCycle(config.seed)
    for r in range(config.runs):
        rng = random.Random(f"valuechain.synth:{config.seed}:{_shape(config)}:run:{r}")
        head: Pairs = [
            ("mcp.app.run.id", "run_" + _hex(rng, 5)),
            ("mcp.app.run.number", suite.first_run_number + r),
            ("mcp.app.run.group_id", _hex(rng, 16)),
            ("mcp.app.run.config_revision", f"cr_{suite.revisions[r]:04d}"),
            ("mcp.app.run.case_set_fingerprint", suite.fingerprint),
            ("mcp.app.run.status", "completed"),
            ("mcp.app.run.source", rng.choice(("ui", "sdk", "schedule", "github_check"))),
            ("mcp.app.run.trials_expected", len(suite.cases) * len(models) * config.reps),
            ("mcp.app.run.measurement_unit", "caseVariant"),
            ("mcp.app.run.materialization_state", "final"),
        ]
        t_ms, iteration = r * _DAY_MS + rng.randint(0, 3_600_000), 0  # one run a day
        for case in suite.cases:
            for model in models:
                for rep in range(config.reps):
                    iteration += 1
                    numbering: Pairs = [
                        ("mcp.app.trial.iteration_number", iteration),
                        ("mcp.app.trial.repetition", rep),
                        ("mcp.app.trial.repetitions_configured", config.reps),
                    ]
                    t0_ns = config.start_unix_nano + t_ms * 10**6
                    trial_rng = random.Random(rng.getrandbits(64))  # one stream per trial
                    trial = (_Trial if cycle is None else cycle.draw(case))(
                        suite,
                        case,
                        model,
                        trial_rng,
                        t0_ns=t0_ns,
                        head=head,
                        numbering=numbering,
                        redacted=config.redacted,
                    )
                    yield r, trial.build()
                    t_ms += rng.randint(1500, 6000)  # trials overlap, as parallel workers do


def _resource(suite: _Suite) -> dict[str, Any]:
    resource = Attrs(redacted=False)
    resource.extend(*suite.resource)
    return {"attributes": resource.encode()}


def _request(suite: _Suite, spans: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {"resource": _resource(suite), "scopeSpans": [{"scope": dict(SCOPE), "spans": spans}]}
        ]
    }


def generate_requests(config: SynthConfig) -> Iterator[dict[str, Any]]:
    """One ExportTraceServiceRequest dict per trace (one trial = one trace, §3.3)."""
    suite = _suite(config)
    for _, spans in _traces(config, suite):
        yield _request(suite, spans)


def _stream(out: BinaryIO, config: SynthConfig, ndjson: bool) -> tuple[int, int]:
    """Write the export to `out`, holding one trace in memory at a time: (trials, spans)."""
    emit, suite, trials, spans, current = out.write, _suite(config), 0, 0, -1
    if not ndjson:
        emit(b'{"resourceSpans":[')
    for run, trace in _traces(config, suite):
        trials, spans = trials + 1, spans + len(trace)
        if ndjson:
            emit(orjson.dumps(_request(suite, trace)) + b"\n")
            continue
        if run != current:  # §3.3: one ResourceSpans per exported run, holding all its traces
            emit(
                (b"]}]}," if current >= 0 else b"")
                + b'{"resource":'
                + orjson.dumps(_resource(suite))
                + b',"scopeSpans":[{"scope":'
                + orjson.dumps(SCOPE)
                + b',"spans":['
            )
            current = run
        else:
            emit(b",")
        emit(b",".join(orjson.dumps(span) for span in trace))
    if not ndjson:
        emit(b"]}]}]}")
    return trials, spans


def _proto(request: dict[str, Any]) -> bytes:
    """The request as a serialized ExportTraceServiceRequest (the collector's ``format: proto``).

    Built field by field from the OTLP/JSON dict (``json_format.ParseDict`` would do the same
    at a tenth of the speed); only the shapes this generator writes occur.
    """
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
        ExportTraceServiceRequest,
    )

    out = ExportTraceServiceRequest()
    for rs in request["resourceSpans"]:
        prs = out.resource_spans.add()
        _proto_attributes(prs.resource.attributes, rs["resource"]["attributes"])
        for ss in rs["scopeSpans"]:
            pss = prs.scope_spans.add()
            pss.scope.name = ss["scope"].get("name", "")
            pss.scope.version = ss["scope"].get("version", "")
            for span in ss["spans"]:
                p = pss.spans.add()
                p.trace_id = bytes.fromhex(span["traceId"])
                p.span_id = bytes.fromhex(span["spanId"])
                if "parentSpanId" in span:
                    p.parent_span_id = bytes.fromhex(span["parentSpanId"])
                p.name = span["name"]
                p.kind = span["kind"]
                p.start_time_unix_nano = int(span["startTimeUnixNano"])
                p.end_time_unix_nano = int(span["endTimeUnixNano"])
                _proto_attributes(p.attributes, span["attributes"])
                if "status" in span:
                    p.status.code = span["status"]["code"]
                    p.status.message = span["status"].get("message", "")
    return bytes(out.SerializeToString())


def _proto_attributes(target: Any, attributes: list[dict[str, Any]]) -> None:
    for kv in attributes:
        item = target.add()
        item.key = kv["key"]
        _proto_value(item.value, kv["value"])


def _proto_value(target: Any, value: dict[str, Any]) -> None:
    ((variant, raw),) = value.items()
    if variant == "stringValue":
        target.string_value = raw
    elif variant == "intValue":
        target.int_value = int(raw)
    elif variant == "boolValue":
        target.bool_value = raw
    elif variant == "doubleValue":
        target.double_value = raw
    elif variant == "arrayValue":
        target.array_value.SetInParent()
        for inner in raw.get("values", []):
            _proto_value(target.array_value.values.add(), inner)
    else:
        raise ValueError(f"synth writes no {variant} values")


def _stream_records(
    out: BinaryIO, config: SynthConfig, proto: bool, legacy: bool
) -> tuple[int, int]:
    """Length-prefixed records, one request per trace: 4-byte big-endian length, then the
    protobuf (or JSON) request, zstd-compressed on its own in the collector's legacy mode."""
    from valuechain.ingest.bytes.compression import zstd_compress  # noqa: PLC0415

    suite, trials, spans = _suite(config), 0, 0
    for _, trace in _traces(config, suite):
        trials, spans = trials + 1, spans + len(trace)
        request = _request(suite, trace)
        payload = _proto(request) if proto else orjson.dumps(request)
        if legacy:
            payload = zstd_compress(payload)
        out.write(struct.pack(">I", len(payload)) + payload)
    return trials, spans


def write_export(
    path: str | Path,
    config: SynthConfig,
    *,
    ndjson: bool = False,
    gzip: bool = False,
    proto: bool = False,
    zstd: str | None = None,
) -> SynthSummary:
    """Stream the export to `path` in any framing of TRACE-FORMAT §1.8/§5.3, in bounded memory.

    - default: one OTLP/JSON document; ``ndjson``: one request per line (one per trace);
    - ``proto``: the collector's ``format: proto`` — length-prefixed binary protobuf records,
      one ExportTraceServiceRequest per trace (a single bare request would have to be built
      whole in memory, which a multi-gigabyte export cannot be);
    - ``gzip``: gzip the output; ``zstd="native"``: one standard zstd stream around it (the
      collector's ``nativeCompression``); ``zstd="legacy"``: the collector's default zstd mode,
      length-prefixed records each compressed on its own (JSON records unless ``proto``).
    """
    path = Path(path)
    if zstd not in (None, "native", "legacy"):
        raise ValueError(f"zstd must be 'native' or 'legacy', not {zstd!r}")
    if gzip and zstd:
        raise ValueError("choose one compression: gzip or zstd")
    records = proto or zstd == "legacy"
    with path.open("wb", buffering=_BUFFER_BYTES) as raw:
        if gzip or zstd == "native":
            from valuechain.ingest.bytes.compression import zstd_open_write  # noqa: PLC0415

            # gzip: mtime=0 and an empty name in the header: same config, same bytes
            wrapper = (
                GzipFile(filename="", mode="wb", compresslevel=6, fileobj=raw, mtime=0)
                if gzip
                else zstd_open_write(raw)
            )
            with wrapper as packed, io.BufferedWriter(packed, _BUFFER_BYTES) as out:
                trials, spans = (
                    _stream_records(out, config, proto, legacy=False)
                    if records
                    else _stream(out, config, ndjson)
                )
        elif records:
            trials, spans = _stream_records(raw, config, proto, legacy=zstd == "legacy")
        else:
            trials, spans = _stream(raw, config, ndjson)
    return SynthSummary(path, path.stat().st_size, config.runs, trials, spans, trials)
