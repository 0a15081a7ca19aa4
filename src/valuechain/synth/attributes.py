"""Attribute values and the pair lists of each span kind (TRACE-FORMAT §1.5, §3.5).

`Attrs` is one span's ordered attribute list, withholding content when redacting (§3.6);
the `*_pairs` builders write the keys each span kind carries.
"""

from __future__ import annotations

from typing import Any

import orjson

from valuechain.synth.vocabulary import (
    HOST_ENGINE,
    HOST_KEY,
    HOST_NAME,
    JUDGE_MODEL,
    Case,
    Model,
    Server,
)

AttrValue = str | bool | int | float | list[str] | list[int]
Pairs = list[tuple[str, AttrValue]]

_JUDGE_REASONS = {
    "pass": "Answers the {intent} request for {subject}.",
    "partial": "Mostly answers the {intent} request but adds detail nobody asked for.",
    "fail": "Does not answer what the user asked about {subject}.",
}


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
