"""Vocabulary and attribute builders for the synthetic export generator (TRACE-FORMAT §3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

AttrValue = str | bool | int | float | list[str] | list[int]
Pairs = list[tuple[str, AttrValue]]

HOST_KEY, HOST_NAME, HOST_ENGINE = "hst_default", "MCPJam default host", "emulated"  # §3.9
JUDGE_MODEL = "openai/gpt-5.4-mini"
SCOPE: dict[str, Any] = {"name": "mcpjam.eval-export", "version": "1.0.0"}  # §3.9 example
PRODUCER = "mcpjam-backend/2026.06"
_JUDGE_REASONS = {
    "pass": "Answers the {intent} request for {subject}.",
    "partial": "Mostly answers the {intent} request but adds detail nobody asked for.",
    "fail": "Does not answer what the user asked about {subject}.",
}
_REACH = {
    "passed": "reached",
    "failed": "reached",
    "notReached": "notReached",
    "notMeasured": "unknown",
    "notApplicable": "notApplicable",
}  # CONTRACT §4


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


def any_value(value: AttrValue) -> dict[str, Any]:
    """Encode one value as an OTLP/JSON AnyValue (§1.5; int64 as a decimal string, §1.1)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"arrayValue": {"values": [any_value(item) for item in value]}}


def to_json(value: Any) -> str:
    """Compact JSON text for structured values carried as strings (§3.2 naming style)."""
    return orjson.dumps(value).decode()


class Attrs:
    """An ordered attribute list that withholds content-gated keys when redacting (§3.6)."""

    __slots__ = ("_items", "_redacted", "_withheld")

    def __init__(self, redacted: bool) -> None:
        self._items: Pairs = []
        self._withheld: list[str] = []
        self._redacted = redacted

    def add(self, key: str, value: AttrValue) -> None:
        self._items.append((key, value))

    def extend(self, *pairs: tuple[str, AttrValue]) -> None:
        self._items.extend(pairs)

    def content(self, key: str, value: str, mime: str | None = None) -> None:
        """Add a content-gated key (and its `*.mime_type` sibling) or list it as withheld."""
        if self._redacted:
            self._withheld.append(key)
            return
        self._items.append((key, value))
        if mime is not None:
            self._items.append((key.removesuffix("value") + "mime_type", mime))

    def encode(self) -> list[dict[str, Any]]:
        items = self._items
        if self._withheld:  # §3.5 `mcp.app.redacted_keys`: standard keys withheld on this span
            items = [*items, ("mcp.app.redacted_keys", self._withheld)]
        return [{"key": key, "value": any_value(value)} for key, value in items]


MATCH_DEFAULTS: Pairs = [  # CONTRACT §2.4 defaults, written out as §3.9 does
    ("mcp.app.match.argument_matching", "partial"),
    ("mcp.app.match.tool_call_order", "ignore"),
    ("mcp.app.match.extra_tool_calls", "unbounded"),
    ("mcp.app.match.source", "default"),
]


def connect_pairs(server: Server, session: str, outcome: str) -> Pairs:
    """The initialize span's keys (§3.5 Connect); `outcome` is ok or failed."""
    return [
        ("mcp.method.name", "initialize"),
        ("mcp.app.server.name", server.name),
        ("network.transport", "tcp"),
        ("server.address", server.address),
        ("server.port", 443),
        ("jsonrpc.request.id", "0"),
        ("mcp.protocol.version", "2025-11-25"),
        ("mcp.session.id", session),
        ("mcp.app.connect.outcome", outcome),
    ]


def discover_pairs(server: Server, outcome: str) -> Pairs:
    """The tools/list span's keys (§3.5 Discover); the tool list only when it was listed."""
    pairs: Pairs = [
        ("mcp.method.name", "tools/list"),
        ("mcp.app.server.name", server.name),
        ("jsonrpc.request.id", "1"),
        ("mcp.app.discovery.outcome", outcome),
    ]
    if outcome == "ok":
        pairs.append(("mcp.app.discovery.tool_count", len(server.tools)))
        pairs.append(("mcp.app.discovery.tool_names", [t.name for t in server.tools]))
    return pairs


def case_pairs(case: Case) -> Pairs:
    """Case identity and the authored case the producer inferred (§3.5, CONTRACT §2.3)."""
    return [
        ("mcp.app.case.id", case.id),
        ("mcp.app.case.key", case.key),
        ("mcp.app.case.title", case.title),
        ("mcp.app.case.intent", case.intent),
        ("mcp.app.case.is_negative", case.negative),
        ("mcp.app.case.turn_count", 1),
        ("mcp.app.authored.mode", "model_driven"),
        ("mcp.app.authored.is_negative_test", case.negative),
        ("mcp.app.authored.expects_tool_call", not case.negative),  # toolNeverCalled: no
        ("mcp.app.authored.expects_widget_render", False),
        # non-selection predicates (2 or 1) + 1 for an authored expected output
        ("mcp.app.authored.assertion_count", 1 if case.negative else 3),
    ]


def variant_pairs(model: Model) -> Pairs:
    """The configured execution variant and the host slice (§3.5 Trial root)."""
    return [
        ("mcp.app.variant.provider", model.provider),
        ("mcp.app.variant.model", model.model),
        ("mcp.app.host.key", HOST_KEY),
        ("mcp.app.host.name", HOST_NAME),
        ("mcp.app.host.engine", HOST_ENGINE),
    ]


def widget_pairs(call_id: str, tool: str, uri: str, render_ms: int) -> Pairs:
    """A render observation of an MCP App result (§3.5 Widget render); no failures here."""
    return [
        ("mcp.app.widget.status", "rendered"),
        ("mcp.app.widget.protocol", "mcp-apps"),
        ("mcp.app.widget.tool_call_id", call_id),
        ("mcp.app.widget.tool_name", tool),
        ("mcp.app.widget.resource_uri", uri),
        ("mcp.app.widget.bridge_initialized", True),
        ("mcp.app.widget.render_ms", render_ms),
        ("mcp.app.widget.console_error_count", 0),
        ("mcp.app.widget.blocked_request_count", 0),
    ]


def grader_pairs(
    kind: str,
    scorer: str,
    link: str,
    score: float | None,
    reason: str,
    *,
    advisory: bool = False,
    threshold: float = 1.0,
    status: str = "scored",
) -> Pairs:
    """The keys every grader row carries (§3.5 Grader) plus the GenAI evaluation mirror (§2.2)."""
    pairs: Pairs = [
        ("mcp.app.grader.kind", kind),
        ("mcp.app.grader.scorer_id", scorer),
        ("mcp.app.grader.role", "advisory" if advisory else "gating"),
        ("mcp.app.grader.status", status),
        ("mcp.app.grader.link", link),
        ("mcp.app.grader.scope", "turn" if kind == "matcher" else "case"),
    ]
    if kind == "matcher":  # one matcher row per turn; this generator writes one turn
        pairs.append(("mcp.app.grader.turn_index", 0))
    pairs.append(("gen_ai.evaluation.name", scorer))
    if score is not None:
        passed = score >= threshold
        pairs += [
            ("mcp.app.grader.value", score),
            ("mcp.app.grader.threshold", threshold),
            ("mcp.app.grader.passed", passed),
            ("gen_ai.evaluation.score.value", score),
            ("gen_ai.evaluation.score.label", "pass" if passed else "fail"),
            ("mcp.app.grader.reason", reason),
            ("gen_ai.evaluation.explanation", reason),
        ]
    return pairs


def matcher_pairs(
    case: Case, expected: list[dict[str, Any]], *, missing: bool, extra: list[str]
) -> Pairs:
    """The turn's `toolCalls:match` row (CONTRACT §2.4, default options: extras have no cap)."""
    tool, negative, lost = case.tool, case.negative, expected if missing else []
    matched = not lost and not (negative and extra)
    if negative:
        why = f"negative case: {len(extra) or 'no'} call{'s' * (len(extra) != 1)} made"
    elif lost:
        why = f"expected {tool} was not called; got {', '.join(extra)}"
    else:
        tolerated = f"; {len(extra)} extra call(s) tolerated (no cap)"
        why = f"expected {tool} matched" + (tolerated if extra else " (partial args)")
    return [
        *grader_pairs("matcher", "toolCalls:match", "selection", float(matched), why),
        ("mcp.app.match.result.passed", matched),
        ("mcp.app.match.result.expected", to_json(expected)),
        ("mcp.app.match.result.missing", to_json(lost)),
        ("mcp.app.match.result.unexpected", to_json([{"toolName": n} for n in extra])),
        ("mcp.app.match.result.out_of_order", "[]"),
        ("mcp.app.match.result.argument_mismatches", "[]"),
        ("mcp.app.match.result.missing_count", len(lost)),
        ("mcp.app.match.result.unexpected_count", len(extra)),
        ("mcp.app.match.result.out_of_order_count", 0),
        ("mcp.app.match.result.argument_mismatch_count", 0),
    ]


def predicate_rows(
    case: Case, *, calls: int, failed_tool: str | None, answered: bool
) -> list[tuple[str, Pairs, str]]:
    """The case's two gating predicate rows as (scorer id, pairs, reason) (§3.5, §3.9)."""
    negative, tool, subject = case.negative, case.tool, case.subject
    checks = (
        [
            (
                "toolNeverCalled",
                "selection",
                not calls,
                f"{tool} was "
                + (f"called {calls} time" + "s" * (calls > 1) if calls else "never called"),
            ),
            ("finalAssistantMessageNonEmpty", "userValue", True, "final message is non-empty"),
        ]
        if negative
        else [
            (
                "noToolErrors",
                "response",
                failed_tool is None,
                f"{failed_tool} returned isError: true" if failed_tool else "no tool errors",
            ),
            (
                "responseContains",
                "userValue",
                answered,
                f'final message {"contains" if answered else "does not contain"} "{subject}"',
            ),
        ]
    )
    rows = []
    for n, (kind, link, passed, reason) in enumerate(checks, start=1):
        scorer, spec = f"predicate:{kind}#{n}", {"type": kind}
        pairs = grader_pairs("predicate", scorer, link, float(passed), reason)
        pairs.append(("mcp.app.predicate.type", kind))
        if kind == "toolNeverCalled":
            pairs.append(("mcp.app.predicate.tool_name", tool))
            spec["toolName"] = tool
        if kind == "responseContains":
            spec["needle"] = subject
        pairs.append(("mcp.app.predicate.spec", to_json(spec)))
        rows.append((scorer, pairs, reason))
    return rows


def judge_pairs(score: float | None, case: Case) -> Pairs:
    """The advisory goal judge (CONTRACT §2.12); `None` = not requested, as for §3.9's C2."""
    scorer = "judge:goalCompletion"
    tail: Pairs = [
        ("mcp.app.judge.model", JUDGE_MODEL),
        ("mcp.app.judge.partial_floor", 0.4),
        ("mcp.app.judge.grounding", "expectedOutput"),
    ]
    if score is None:
        return [
            *grader_pairs("judge", scorer, "userValue", None, "", advisory=True, status="pending"),
            ("mcp.app.judge.name", "goalCompletion"),
            ("mcp.app.judge.status", "pending"),
            *tail,
            ("mcp.app.judge.pending_kind", "not_requested"),
        ]
    verdict = "pass" if score >= 0.7 else "partial" if score >= 0.4 else "fail"
    reason = _JUDGE_REASONS[verdict].format(intent=case.intent, subject=case.subject)
    return [
        *grader_pairs("judge", scorer, "userValue", score, reason, advisory=True, threshold=0.7),
        ("mcp.app.judge.name", "goalCompletion"),
        ("mcp.app.judge.status", "scored"),
        *tail,
        ("mcp.app.judge.verdict", verdict),
    ]


@dataclass(slots=True)
class Row:
    """One producer chain row (CONTRACT §2.1) as it travels in `mcp.app.stages.<i>.*` (§3.5)."""

    stage: str
    state: str
    reason: str
    evidence: dict[str, list[str] | list[int]] = field(default_factory=dict)


def scenario_chain(
    negative: bool,
    outcome: str,
    setup: tuple[str, str],
    calls: list[tuple[str, bool, bool]],
    reasons: dict[str, str],
) -> tuple[list[Row], str | None]:
    """The chain CONTRACT §2.7–§2.11 derives for the scenarios this generator draws.

    `calls` holds (span id, ok, unexpected) per executed call; `outcome` is `passed`,
    `wrongTool` or `toolError`. Only the decision-table rows those scenarios reach are coded.
    """
    ids = [sid for sid, _, _ in calls][:5]
    ok_ids, bad_ids = [s for s, ok, _ in calls if ok][:5], [s for s, ok, _ in calls if not ok][:5]
    rows = [
        Row("connection", "passed", "observed", {"span_ids": [setup[0]]}),  # §2.8.1 row 1
        Row("discovery", "passed", "observed", {"span_ids": [setup[1]]}),
    ]  # §2.8.2 row 5
    if outcome == "wrongTool" and not negative:  # §2.8.3 row 1: the expected call is missing
        rows.append(Row("selection", "failed", "missingToolCall", {"prompt_indexes": [0]}))
    elif outcome == "wrongTool":  # row 2: the gating toolNeverCalled row failed
        rows.append(
            Row(
                "selection",
                "failed",
                "unexpectedToolCall",
                {"predicate_reasons": [reasons["selection"]]},
            )
        )
    elif any(unexpected for _, _, unexpected in calls):  # row 3c: extras tolerated (no cap)
        rows.append(Row("selection", "passed", "observed", {"prompt_indexes": [0]}))
    else:  # row 4
        rows.append(Row("selection", "passed", "observed"))
    rows.append(
        Row("call", "passed", "observed", {"span_ids": ids} if ids else {"prompt_indexes": [0]})
    )  # §2.8.4 row 4, or row 5 (negative)
    if bad_ids:  # §2.8.5 row 1: a failed span without a code is a domain error
        rows.append(Row("response", "failed", "toolError", {"span_ids": bad_ids}))
    elif ok_ids:  # row 4
        rows.append(Row("response", "passed", "observed", {"span_ids": ok_ids}))
    else:  # row 6: a negative case that held has nothing to grade a response by
        rows.append(Row("response", "notMeasured", "noEvidenceCaptured"))
    if outcome != "passed" and not negative:  # §2.8.6 row 2: responseContains failed
        rows.append(
            Row(
                "userValue",
                "failed",
                "predicateFailed",
                {"predicate_reasons": [reasons["userValue"]]},
            )
        )
    else:  # row 3
        rows.append(Row("userValue", "passed", "observed"))
    first = next((i for i, row in enumerate(rows) if row.state == "failed"), len(rows))
    for row in rows[first + 1 :]:  # §2.7 step 8: the positional cascade
        if row.state == "notMeasured":
            row.state, row.reason, row.evidence = "notReached", "earlierStageFailed", {}
    category = {"selection": "selection", "response": "serverData", "userValue": "userValue"}
    return rows, category.get(rows[first].stage) if first < len(rows) else None  # §2.11


def chain_attributes(
    rows: list[Row], category: str | None, intervals: dict[str, tuple[int, int]]
) -> list[tuple[str, AttrValue]]:
    """The persisted chain and its `StageMeasurementsV1` (§3.5, CONTRACT §2.1 and §4)."""
    pairs: list[tuple[str, AttrValue]] = [("mcp.app.analyzer.version", 12)]
    for i, row in enumerate(rows):
        p = f"mcp.app.stages.{i}."
        pairs += [(p + "name", row.stage), (p + "state", row.state), (p + "reason", row.reason)]
        pairs += [(p + "evidence." + key, refs) for key, refs in row.evidence.items()]
    failed = next((row.stage for row in rows if row.state == "failed"), None)
    if failed:
        pairs.append(("mcp.app.stages.first_failed", failed))
    if category:
        pairs.append(("mcp.app.trial.failure_category", category))
    pairs += [("mcp.app.chain.verified", True), ("mcp.app.measurements.schema_version", 1)]
    for i, row in enumerate(rows):
        reach = _REACH[row.state]
        cited = [intervals[s] for s in row.evidence.get("span_ids", []) if s in intervals]
        if reach == "unknown" and cited:  # CONTRACT §4: own span evidence upgrades the reach
            reach = "reached"
        pairs.append((f"mcp.app.measurements.{i}.reach", reach))
        if reach == "reached" and cited and row.stage in ("selection", "call", "response"):
            pairs.append((f"mcp.app.measurements.{i}.latency_ms", float(_union_ms(cited))))
    pairs.append(("mcp.app.measurements.verified", True))
    return pairs


def _union_ms(intervals: list[tuple[int, int]]) -> int:
    """Length of the union of [start, end] intervals: CONTRACT §4 `evidence_span_union`."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total
