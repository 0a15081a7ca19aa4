"""The spans of a failure trial as its scenario's `Plan` shapes them (TRACE-FORMAT §3.5).

Setup, turn, model, tool and render spans; beside each tool span and render it keeps the
`StageDerivationInput` field TRACE-FORMAT §3.7 maps it to, for `FailureTrial`'s derived chain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuechain.contract.derivation import RenderObservation, StageSpan, ToolErrorRecord
from valuechain.synth.attributes import (
    AttrValue,
    any_value,
    connect_pairs,
    discover_pairs,
    to_json,
    widget_pairs,
)
from valuechain.synth.failures.catalogue import Scenario
from valuechain.synth.ids import hex_id, token
from valuechain.synth.trial import CLIENT, ERROR, INTERNAL, OK, TOOL_ERRORS, Call, Trial
from valuechain.synth.vocabulary import Tool, fill

_EGRESS_TARGET = "https://egress-check.mcpjam.example/healthz"
# (error.type / step_error.code, HTTP status, message) of a failed model step, per provider
_PROVIDER_ERRORS = {
    "anthropic": ("overloaded_error", 529, "Overloaded"),
    "openai": ("rate_limit_exceeded", 429, "Rate limit reached for requests"),
    "google": ("RESOURCE_EXHAUSTED", 429, "Resource has been exhausted"),
}
_DEFAULT_PROVIDER_ERROR = ("service_unavailable", 503, "Service unavailable")
_RPC_INVALID_PARAMS, _REQUEST_TIMEOUT, _INTERNAL_ERROR = -32602, -32001, -32603  # CONTRACT §2.2


@dataclass(slots=True)
class FailureCall(Call):
    """A call with its result kind: ok | tool_error | rpc_error | transport_error."""

    result: str = "ok"


class FailureSpans(Trial):
    """The spans of a scenario's trial; `FailureGraders` and `FailureTrial` build on it."""

    def __init__(self, *args: Any, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scenario, self.plan = scenario, scenario.plan
        case, plan = self.case, self.plan
        if not plan.expectation:
            self.expected = []
        others = [s for s in self.suite.server.subjects if s != case.subject]
        self.wrong_subject = self.rng.choice(others)
        self.bad_args: dict[str, str] = {}
        self.step_error: tuple[str, int] | None = None  # (code, HTTP status) of a model failure
        self.setup_ids: dict[str, list[str]] = {"connection": [], "discovery": []}
        # the StageDerivationInput the spans encode (TRACE-FORMAT §3.7); graders add theirs
        self.m_spans: list[StageSpan] = []
        self.m_errors: list[ToolErrorRecord] = []
        self.m_renders: list[RenderObservation] = []

    def draw_calls(self) -> list[FailureCall]:
        """The calls the trial makes (also when the executor hides them: no span channel)."""
        plan, case, suite, rng = self.plan, self.case, self.suite, self.rng
        if plan.turn in ("none", "provider_error") and not plan.lacks_span_channel:
            return []
        main = FailureCall(suite.tools[case.tool], True)
        if case.negative:
            return [main] if plan.calls == "forbidden" else []
        reads = [t for t in suite.server.tools if t.effect == "read" and t.name != case.tool]
        if plan.calls == "wrong":
            picked = rng.sample(reads, min(len(reads), rng.choice((1, 1, 2))))
            return [FailureCall(t, True) for t in picked]
        if plan.calls == "none":
            return []
        main.result, main.ok = plan.result, plan.result == "ok"
        if plan.calls == "bad_args":
            self.bad_args[case.tool] = fill(to_json(main.tool.args), self.wrong_subject, self.n)
        if plan.calls == "extra":
            return [main, FailureCall(rng.choice(reads), True)]
        return [main]

    def final_answer(self, calls: list[FailureCall]) -> str:
        plan, case, server = self.plan, self.case, self.suite.server.name
        if plan.turn in ("timed_out", "provider_error", "tool_step") or (
            plan.turn == "none" and not plan.lacks_span_channel
        ):
            return ""  # no final model message
        if case.negative:
            return fill(case.broke if calls else case.answer, case.subject, self.n)
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
        return fill(case.answer, subject, self.n)

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
        status = OK if plan.connect == "ok" else ERROR
        span = self.span(
            self.root_id, "initialize", CLIENT, (t, end), a, status=status, message=message
        )
        self.setup_ids["connection"].append(span)
        if plan.connect == "failed_theirs_egress":  # §3.5 Egress canary: only after a failure
            a = self.attrs("egress_canary")
            a.extend(("mcp.app.egress.outcome", "ok"), ("mcp.app.egress.target", _EGRESS_TARGET))
            when = (end + 5, end + 5 + rng.randint(40, 200))
            self.setup_ids["connection"].append(
                self.span(self.root_id, "egress_canary", CLIENT, when, a, status=OK)
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
        status = OK if plan.discover == "ok" else ERROR
        self.setup_ids["discovery"].append(
            self.span(self.root_id, "tools/list", CLIENT, when, a, status=status, message=message)
        )
        return when[1]

    # ------------------------------------------------------------------ turn and tools
    def turn(self, start: int, calls: list[Call]) -> int:
        """Turn 0 as the base trial writes it, cut short by a provider error or a timeout."""
        plan, turn_id, rounds = self.plan, hex_id(self.rng, 8), self.rounds(calls)
        t, prompt_tokens = start + 10, self.rng.randint(600, 1500)
        if plan.turn == "provider_error":
            t = self.failed_llm(turn_id, t, prompt_tokens)
        else:  # a timed-out turn stops after its calls, before the final model step
            final: list[list[Call]] = [[]] if plan.turn == "model" else []
            t = self.steps(turn_id, t, prompt_tokens, [*rounds, *final])
        status, message = (OK, "") if plan.turn == "model" else (ERROR, plan.error or "")
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
        self.span(turn, f"chat {m.model}", CLIENT, (start, end), a, status=ERROR, message=message)
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

    def tool_steps(self, start: int, calls: list[FailureCall]) -> int:
        """Model-free `tool_call` steps: tool spans straight under the root (§3.7.1 (5))."""
        t, request_id = start, 3
        for call in calls:
            call.call_id = "step_" + token(self.rng, 16)
            t = self.tool(self.root_id, call, t + 5, request_id)
            request_id += 1
        return t

    def tool(self, turn: str, call: Call, start: int, request_id: int) -> int:
        """One tools/call span (§3.5 Tool call) with the call's result kind, and its render."""
        rng, tool, case = self.rng, call.tool, self.case
        result = call.result if isinstance(call, FailureCall) else "ok" if call.ok else "tool_error"
        slow = result == "transport_error"  # the SDK gave up after its request timeout
        end = start + (30_000 + rng.randint(0, 40) if slow else rng.randint(60, 900))
        a = self.tool_call_attrs(tool, call.call_id, request_id)
        code: int | None = None
        output: dict[str, Any] | None = None
        if result in ("ok", "tool_error"):
            text = fill(tool.result, case.subject, self.n) if result == "ok" else ""
            output = {"content": [{"type": "text", "text": text or rng.choice(TOOL_ERRORS)}]}
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
        status = OK if result == "ok" else ERROR
        call.span_id = self.span(
            turn,
            f"tools/call {tool.name}",
            CLIENT,
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

    def render(self, turn: str, call: Call, end: int, ok: bool) -> int:
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
        status_code, message = (ERROR, f"widget render failed: {status}") if failing else (OK, "")
        self.span(turn, "widget.render", INTERNAL, when, w, status=status_code, message=message)
        self.m_renders.append(RenderObservation(status))
        return when[1]
