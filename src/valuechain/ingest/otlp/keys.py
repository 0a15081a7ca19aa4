"""Field names of the OTLP trace messages, and the snake_case spelling readers must accept.

OTLP/JSON keys are lowerCamelCase; generic proto3 printers emit the original snake_case
(TRACE-FORMAT §1.2). ``normalise`` maps an object onto camelCase keys and says what it saw;
``is_request`` tells a trace (or other-signal) request by its top-level keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# top-level keys of metrics, logs and profiles requests: skipped with I_OTHER_SIGNAL (§5.2)
OTHER_SIGNALS = (
    "resourceMetrics",
    "resourceLogs",
    "resourceProfiles",
    "resource_metrics",
    "resource_logs",
    "resource_profiles",
)


def snake(camel: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in camel)


@dataclass(frozen=True, slots=True)
class Message:
    """The known fields of one message type."""

    camel: frozenset[str]
    from_snake: dict[str, str]

    @classmethod
    def of(cls, *fields: str) -> Message:
        return cls(frozenset(fields), {snake(f): f for f in fields if snake(f) != f})


RESOURCE_SPANS = Message.of("resource", "scopeSpans", "schemaUrl", "instrumentationLibrarySpans")
RESOURCE = Message.of("attributes", "droppedAttributesCount", "entityRefs")
SCOPE_SPANS = Message.of("scope", "spans", "schemaUrl", "instrumentationLibrary")
SCOPE = Message.of("name", "version", "attributes", "droppedAttributesCount")
SPAN = Message.of(
    "traceId",
    "spanId",
    "parentSpanId",
    "traceState",
    "flags",
    "name",
    "kind",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "attributes",
    "droppedAttributesCount",
    "events",
    "droppedEventsCount",
    "links",
    "droppedLinksCount",
    "status",
)
EVENT = Message.of("timeUnixNano", "name", "attributes", "droppedAttributesCount")
LINK = Message.of(
    "traceId", "spanId", "traceState", "attributes", "droppedAttributesCount", "flags"
)
STATUS = Message.of("message", "code")


def normalise(
    obj: dict[str, Any], message: Message
) -> tuple[dict[str, Any], bool, list[tuple[str, Any]]]:
    """Return (object with camelCase keys, whether snake_case was seen, unknown (key, value))."""
    if message.camel.issuperset(obj):
        return obj, False, []
    out: dict[str, Any] = {}
    unknown: list[tuple[str, Any]] = []
    saw_snake = False
    for key, value in obj.items():
        if key in message.camel:
            out.setdefault(key, value)
        elif key in message.from_snake:
            saw_snake = True
            out.setdefault(message.from_snake[key], value)
        else:
            unknown.append((key, value))
    return out, saw_snake, unknown


def is_request(obj: Any) -> bool:
    """Whether ``obj`` is an OTLP request of any signal, by its top-level key."""
    return isinstance(obj, dict) and any(
        k in obj for k in ("resourceSpans", "resource_spans", *OTHER_SIGNALS)
    )
