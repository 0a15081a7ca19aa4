"""GenAI conventions as instrumentations write them (issue 12 point 7, TRACE-FORMAT §2.2, §8).

The deprecated indexed transcript (`gen_ai.prompt.N.role` / `.content`,
`gen_ai.completion.N.*`) and the whole-prompt string `gen_ai.prompt` read as the user's ask
and the answer; provider and model come from `gen_ai.system` / `gen_ai.provider.name` and
`gen_ai.request.model` / `gen_ai.response.model`, each from the span that carries them.
"""

from __future__ import annotations

from typing import Any

import pytest
from evidence_builders import evidence, request, value

from valuechain.derive import derive_chain

T0 = 1_700_000_000_000_000_000


def _span(n: int, parent: int | None, name: str, attrs: dict[str, object]) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": "cd" * 16,
        "spanId": f"{n:016x}",
        "name": name,
        "kind": 3 if parent else 1,
        "startTimeUnixNano": str(T0 + n * 1_000_000),
        "endTimeUnixNano": str(T0 + n * 1_000_000 + 500_000),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if parent is not None:
        span["parentSpanId"] = f"{parent:016x}"
    return span


def _trial(*spans: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    ev = evidence(request(list(spans), None))
    (row,) = ev.trials.to_pylist()
    (inp,) = ev.inputs
    assert inp is not None
    return row, inp


def _user_value(inp: Any) -> tuple[str, str | None]:
    last = derive_chain(inp).stage_results[-1]
    return last.state.value, last.reason and last.reason.value


AGENT = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"}


@pytest.mark.parametrize(
    ("ask", "has_user_ask", "user_value"),
    [
        # OpenLLMetry's indexed form: a user message is the ask
        (
            {"gen_ai.prompt.0.role": "system", "gen_ai.prompt.1.role": "user"},
            True,
            ("notMeasured", "noEvidenceCaptured"),
        ),
        ({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi"}, True, None),
        # only system instructions: no ask, so userValue is not applicable
        ({"gen_ai.prompt.0.role": "system"}, False, ("notApplicable", "notAuthored")),
        # the deprecated whole-prompt string, as semconv's example writes it (Python repr)
        ({"gen_ai.prompt": "[{'role': 'user', 'content': 'Capital of France?'}]"}, True, None),
        ({"gen_ai.prompt": '[{"role": "user", "content": "Capital of France?"}]'}, True, None),
        ({"gen_ai.prompt": "[{'role': 'system', 'content': 'be brief'}]"}, False, None),
        # the newer keys keep working beside them
        ({"gen_ai.input.messages": '[{"role":"user","parts":[]}]'}, True, None),
        ({"gen_ai.completion.0.role": "assistant"}, False, None),
    ],
)
def test_deprecated_prompt_keys_read_as_the_users_ask(
    ask: dict[str, object], has_user_ask: bool, user_value: tuple[str, str] | None
) -> None:
    chat = {"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o", **ask}
    _, inp = _trial(_span(1, None, "agent", AGENT), _span(2, 1, "openai.chat", chat))
    assert (inp.authored.has_user_ask is True) is has_user_ask
    assert inp.authored.mode == "model_driven"  # a span naming a model is a model step
    if user_value is not None:
        assert _user_value(inp) == user_value


@pytest.mark.parametrize(
    ("agent", "chat", "provider", "model"),
    [
        # everything on the inference span
        (
            {},
            {"gen_ai.system": "anthropic", "gen_ai.request.model": "claude"},
            "anthropic",
            "claude",
        ),
        # the newer provider key wins over the deprecated one on the same span
        (
            {},
            {
                "gen_ai.provider.name": "openai",
                "gen_ai.system": "az.ai.openai",
                "gen_ai.request.model": "gpt-4o",
            },
            "openai",
            "gpt-4o",
        ),
        # only the served model recorded
        (
            {},
            {"gen_ai.system": "openai", "gen_ai.response.model": "gpt-4o-2024-08-06"},
            "openai",
            "gpt-4o-2024-08-06",
        ),
        # the requested model wins over the served one
        (
            {},
            {
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.response.model": "gpt-4o-2024-08-06",
            },
            "openai",
            "gpt-4o",
        ),
        # provider on the agent span, model on the chat span: each from the span carrying it
        ({"gen_ai.system": "aws.bedrock"}, {"gen_ai.request.model": "nova"}, "aws.bedrock", "nova"),
        # the inference span's values come before the agent span's
        (
            {"gen_ai.system": "outer", "gen_ai.request.model": "router"},
            {"gen_ai.system": "inner", "gen_ai.request.model": "m1"},
            "inner",
            "m1",
        ),
    ],
)
def test_provider_and_model_come_from_the_span_that_carries_them(
    agent: dict[str, object], chat: dict[str, object], provider: str, model: str
) -> None:
    row, _ = _trial(
        _span(1, None, "agent", {**AGENT, **agent}),
        _span(2, 1, "openai.chat", {**chat, "gen_ai.prompt.0.role": "user"}),
    )
    assert (row["provider"], row["model"]) == (provider, model)


@pytest.mark.parametrize(
    ("agent_usage", "expected"),
    [
        ({}, (12, 5)),
        # an agent span's summed usage is not a second model step
        ({"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 5}, (12, 5)),
    ],
)
def test_tokens_of_an_old_style_chat_span_count_once(
    agent_usage: dict[str, object], expected: tuple[int, int]
) -> None:
    chat = {
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.prompt_tokens": 12,
        "gen_ai.usage.completion_tokens": 5,
    }
    row, _ = _trial(
        _span(1, None, "agent", {**AGENT, **agent_usage}), _span(2, 1, "openai.chat", chat)
    )
    assert (row["input_tokens"], row["output_tokens"]) == expected


def test_completion_tool_calls_are_the_requested_calls() -> None:
    chat = {
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "weather in Oslo?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.id": "call_7",
        "gen_ai.completion.0.tool_calls.0.name": "get_weather",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Oslo"}',
    }
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "call_7"}
    _, inp = _trial(
        _span(1, None, "agent", AGENT),
        _span(2, 1, "openai.chat", chat),
        _span(3, 1, "execute_tool get_weather", tool),
    )
    (span,) = inp.evidence.spans
    assert (span.id, span.tool_name) == (f"{3:016x}", "get_weather")
    states = [(r.stage.value, r.state.value) for r in derive_chain(inp).stage_results]
    assert states[3:] == [("call", "passed"), ("response", "passed"), ("userValue", "notMeasured")]
