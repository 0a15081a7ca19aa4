"""The catalog synthetic suites are drawn from: models, MCP servers, tools, case templates.

Templates carry two placeholders, `{s}` (the case's subject) and `{n}` (a number drawn per
trial); `fill` puts them in. The names of the producer and its scope are here too (§3.9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HOST_KEY, HOST_NAME, HOST_ENGINE = "hst_default", "MCPJam default host", "emulated"  # §3.9
JUDGE_MODEL = "openai/gpt-5.4-mini"
SCOPE: dict[str, Any] = {"name": "mcpjam.eval-export", "version": "1.0.0"}  # §3.9 example
PRODUCER = "mcpjam-backend/2026.06"


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool a server lists; `{s}` in args/result is the case subject, `{n}` a number."""

    name: str
    args: dict[str, str | int]
    result: str
    ui: str | None = None  # MCP Apps resource the result points at (a widget_render follows)
    effect: str = "read"  # read | write | destructive; only reads are drawn as extra/wrong calls


@dataclass(frozen=True, slots=True)
class Positive:
    """A case template that expects one call of `tool` (§3.5 `mcp.app.expect.tool_calls`)."""

    intent: str
    title: str
    prompt: str
    tool: str
    expected: dict[str, str]  # values: "{s}" or an argument placeholder (`number`, `string`)
    answer: str
    expected_output: str


@dataclass(frozen=True, slots=True)
class Negative:
    """A negative case template: `forbidden` must not be called."""

    title: str
    prompt: str
    forbidden: str
    answer: str
    broke: str  # the final answer when the model called the forbidden tool anyway


@dataclass(frozen=True, slots=True)
class Server:
    """One MCP server under test, its suite, and the case templates drawn for it."""

    project: str
    suite: str
    name: str
    address: str
    subjects: tuple[str, ...]
    tools: tuple[Tool, ...]
    positives: tuple[Positive, ...]
    negatives: tuple[Negative, ...]


@dataclass(frozen=True, slots=True)
class Case:
    """One case of the generated suite, its templates filled with the case's subject."""

    id: str
    key: str
    subject: str  # also the `responseContains` needle
    difficulty: float
    negative: bool
    title: str
    intent: str
    prompt: str
    tool: str  # the expected tool (positive case) or the forbidden one (negative case)
    expected: dict[str, str]
    expected_output: str | None
    answer: str  # templates: `{s}` subject, `{n}` the trial's number
    broke: str = ""


@dataclass(frozen=True, slots=True)
class Model:
    """A configured variant and how its spans spell it (§2.1 `llm.*`, §2.2 `gen_ai.*`)."""

    provider: str  # mcp.app.variant.provider: what the run was configured with
    model: str
    served: str  # gen_ai.response.model / llm.model_name: what answered
    genai_provider: str
    oi_system: str
    oi_provider: str
    call_prefix: str
    response_prefix: str
    failure_factor: float  # > 1 fails more often than the suite average


# The catalog is a table: one model or tool per line, a case template per two lines.
# fmt: off
MODELS: tuple[Model, ...] = (
    Model("anthropic", "claude-sonnet-4-6", "claude-sonnet-4-6", "anthropic", "anthropic",
          "anthropic", "toolu_01", "msg_01", 0.7),
    Model("openai", "gpt-5.4-mini", "gpt-5.4-mini-2026-03-17", "openai", "openai", "openai",
          "call_", "resp_", 1.3),
    Model("openai", "gpt-4.1", "gpt-4.1-2025-04-14", "openai", "openai", "openai", "call_",
          "resp_", 1.0),
    Model("anthropic", "claude-sonnet-4", "claude-sonnet-4-20250514", "anthropic", "anthropic",
          "anthropic", "toolu_01", "msg_01", 0.9),
    Model("google", "gemini-2.5-pro", "gemini-2.5-pro", "gcp.gemini", "vertexai", "google",
          "call_", "resp_", 1.1),
    Model("mistral", "mistral-large-latest", "mistral-large-2411", "mistral_ai", "mistralai",
          "mistralai", "call_", "cmpl-", 1.6),
)

SERVERS: tuple[Server, ...] = (
    Server("Acme Weather MCP", "weather-mcp-release", "weather", "weather.example.com",
        ("Paris", "Lisbon", "Osaka", "Denver", "Nairobi", "Oslo", "Lima", "Perth"),
        (Tool("get_forecast", {"city": "{s}", "days": 1},
              "{s}, tomorrow: {n}C, light rain after 16:00", "ui://forecast/card.html"),
         Tool("get_alerts", {"city": "{s}"}, "No active alerts for {s}"),
         Tool("list_stations", {"city": "{s}"}, "{n} stations report for {s}"),
         Tool("delete_alert", {"alert_id": "al_{n}"}, "Deleted al_{n}", None, "destructive")),
        (Positive("forecast", "Get tomorrow's forecast for {s}",
                  "What's the weather in {s} tomorrow?", "get_forecast",
                  {"city": "{s}", "days": "number"},
                  "Tomorrow in {s}: {n}C with light rain after 4pm.",
                  "Tomorrow's forecast for {s}"),
         Positive("alerts", "Check weather alerts for {s}", "Any weather alerts for {s} right now?",
                  "get_alerts", {"city": "{s}"}, "There are no active weather alerts for {s}.",
                  "No active alerts for {s}"),
         Positive("stations", "List weather stations near {s}", "Which stations report for {s}?",
                  "list_stations", {"city": "string"}, "{n} stations report for {s}.",
                  "Station list for {s}")),
        (Negative("Meta question must not delete alerts",
                  "What parameters does delete_alert take?", "delete_alert",
                  "delete_alert takes one parameter: alert_id (string).",
                  "I removed alert al_{n}. delete_alert takes alert_id."),)),
    Server("Northwind Issue Tracker", "tracker-mcp-regression", "tracker",
        "mcp.tracker.example.com",
        ("login timeouts", "CSV export", "dark mode", "SSO", "rate limits", "webhooks"),
        (Tool("search_issues", {"query": "{s}", "state": "open"}, "{n} open issues match '{s}'",
              "ui://tracker/issue-list.html"),
         Tool("get_issue", {"issue_id": "{n}"}, "#{n} {s}: open, assigned to mkhan"),
         Tool("list_labels", {}, "bug, feature, needs-triage, {s}"),
         Tool("create_issue", {"title": "{s} is broken"}, "Created issue #{n}", None, "write"),
         Tool("close_issue", {"issue_id": "{n}"}, "Closed issue #{n}", None, "destructive")),
        (Positive("search", "Find open issues about {s}", "Find open issues about {s}.",
                  "search_issues", {"query": "{s}"}, "I found {n} open issues about {s}.",
                  "Open issues about {s}"),
         Positive("triage", "File a bug about {s}", "File a bug: {s} is broken.", "create_issue",
                  {"title": "string"}, "Filed issue #{n} about {s}.", "A new issue about {s}"),
         Positive("labels", "List labels relevant to {s}", "Which labels fit {s} issues?",
                  "list_labels", {}, "Labels you can use for {s}: bug, feature, needs-triage.",
                  "Label list mentioning {s}")),
        (Negative("Explaining closing must not close an issue",
                  "How do I close an issue? Just explain, don't change anything.", "close_issue",
                  "Call close_issue with the issue_id of the issue.", "I closed issue #{n}."),)),
    Server("Contoso Calendar MCP", "calendar-mcp-smoke", "calendar", "calendar.example.com",
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "2026-02-03"),
        (Tool("list_events", {"date": "{s}"}, "{n} events on {s}"),
         Tool("find_free_slots", {"date": "{s}", "duration_minutes": 30},
              "Free on {s}: 10:00-10:30, 14:00-15:00"),
         Tool("create_event", {"title": "Design review", "date": "{s}", "start": "10:00"},
              "Created event ev_{n} on {s}", "ui://calendar/event.html", "write"),
         Tool("delete_event", {"event_id": "ev_{n}"}, "Deleted ev_{n}", None, "destructive")),
        (Positive("agenda", "Show the agenda for {s}", "What's on my calendar on {s}?",
                  "list_events", {"date": "{s}"}, "You have {n} events on {s}.", "Agenda for {s}"),
         Positive("scheduling", "Find a free slot on {s}", "Find me a free 30-minute slot on {s}.",
                  "find_free_slots", {"date": "{s}", "duration_minutes": "number"},
                  "On {s} you're free 10:00-10:30 and 14:00-15:00.", "Free slots on {s}"),
         Positive("booking", "Book a design review on {s}", "Book a design review on {s} at 10:00.",
                  "create_event", {"title": "string", "date": "{s}"},
                  "Booked the design review on {s} at 10:00.", "Design review booked on {s}")),
        (Negative("Cancellation question must not delete events",
                  "How do I cancel a meeting? Don't change anything.", "delete_event",
                  "Use delete_event with the event_id of the meeting.",
                  "I deleted event ev_{n}."),)),
)
# fmt: on


def fill(template: str, subject: str, n: int) -> str:
    """`template` with `{s}` the case subject and `{n}` the trial's number."""
    return template.replace("{s}", subject).replace("{n}", str(n))
