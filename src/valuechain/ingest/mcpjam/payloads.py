"""MCPJam SDK results, recognised by their shape and grouped into runs
(docs/spec/mcpjam-sdk.md §1–§2).

What the SDK writes (both generations: the published ``@mcpjam/sdk@1.14.0`` and the repository's
6.x, ``sdk/src/eval-reporting-types.ts``): one ``EvalResultInput``, an array of them, a
``ReportEvalResultsInput`` / ``/report`` body (``{suiteName, results, …}``), or the streaming
reporter's bodies — ``runs/start`` (``{suiteName, externalRunId, …}``), ``runs/iterations``
(``{runId, results}``) and ``runs/finalize`` (``{runId, externalRunId}``) — one per file or
concatenated as NDJSON, and NDJSON of results. A result that is not one (no ``caseTitle``, a
``passed`` that is no boolean) is quarantined with its JSON path; the others still import.
MCPJam's internal ``EvalTraceSpan`` JSON (``shared/eval-trace.ts``) standing alone carries no
case, run or verdict: it is rejected, naming the format.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

# The keys that start an SDK payload (JSON.stringify keeps the literal's key order) and the
# keys that say OTLP; sniffed in the first bytes only.
_SDK_KEYS = re.compile(
    rb'"(caseTitle|suiteName|externalRunId|externalIterationId|actualToolCalls)"'
)
_OTLP_KEYS = re.compile(rb'"(resourceSpans|resource_spans|scopeSpans|scope_spans)"')
_TRACE_SPAN_KEYS = re.compile(rb'"category"\s*:\s*"(step|llm|tool|error)"')
SNIFF_BYTES = 64 << 10
TRACE_SPAN_CATEGORIES = frozenset({"step", "llm", "tool", "error"})


def looks_like_sdk(head: bytes) -> bool:
    """Whether the first bytes of a (decompressed) source are MCPJam SDK results, or the
    internal EvalTraceSpan JSON, rather than OTLP: an SDK key and no OTLP key near the start."""
    start = head.lstrip()[:1]
    if start not in (b"{", b"["):
        return False
    if _OTLP_KEYS.search(head):
        return False
    return bool(_SDK_KEYS.search(head) or _TRACE_SPAN_KEYS.search(head))


class NotResults(Exception):  # noqa: N818 (it is a verdict on the input, not a failure)
    """The source is none of the SDK shapes (``problem`` says what it is)."""

    def __init__(self, problem: str, hint: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint


@dataclass(slots=True)
class Quarantined:
    """A value that is no SDK result or body, where it is and why."""

    path: str
    problem: str
    line: int | None = None


@dataclass(slots=True)
class SdkRun:
    """One run: a report, or one ``runs/start`` … ``runs/finalize``, or loose results."""

    suite_name: str
    settings: dict[str, Any]  # the report's / start body's fields other than ``results``
    results: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (path, result)
    finalized: bool = True
    started: bytes = b""  # its runs/start body's fields as first read, as canonical JSON
    server_run_id: str | None = None  # the backend's ``runId`` the bodies after start carry

    def digest(self) -> str:
        """Of the run's values as read — its start body, then each result — for its id when
        it has no ``externalRunId`` (computed only then)."""
        digest = hashlib.sha256(self.started)
        for _, result in self.results:
            digest.update(_canonical(result))
        return digest.hexdigest()

    @property
    def external_run_id(self) -> str | None:
        value = self.settings.get("externalRunId")
        return value if isinstance(value, str) and value else None


@dataclass(slots=True)
class Payload:
    """The runs of one source, what was quarantined, and how many values were read."""

    runs: list[SdkRun]
    quarantined: list[Quarantined]  # each one record of the accounting (TRACE-FORMAT §5.1)


def read_payload(data: bytes | bytearray, source_stem: str) -> Payload:
    """The runs of an SDK source: one JSON document, or NDJSON of documents.

    Raises:
        NotResults: the source is no SDK payload (EvalTraceSpan JSON, JSON that parses as
            neither, or not JSON at all).
    """
    values: list[tuple[str, int | None, Any]] = []  # (path, line, value)
    quarantined: list[Quarantined] = []
    try:
        values.append(("$", None, _loads(data)))
    except json.JSONDecodeError:
        text = data.decode("utf-8", "replace")
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                values.append((f"line {n}", n, _loads(line)))
            except json.JSONDecodeError as exc:
                quarantined.append(Quarantined(f"line {n}", f"not JSON ({exc.msg})", n))
        if not values:
            raise NotResults("not JSON", "export the SDK's results with JSON.stringify") from None
    del data
    grouper = _Grouper(source_stem, quarantined)
    for where, line_no, value in values:
        grouper.fold(where, line_no, value)
    return Payload(grouper.finish(), quarantined)


class _Grouper:
    """Folds values into runs, in the order the reporter sends them."""

    def __init__(self, stem: str, quarantined: list[Quarantined]) -> None:
        self.stem = stem
        self.quarantined = quarantined
        self.runs: list[SdkRun] = []
        self.loose: SdkRun | None = None
        self.open: SdkRun | None = None  # the last runs/start not yet finalized
        self.by_server_id: dict[str, SdkRun] = {}
        self.by_external: dict[str, SdkRun] = {}

    def fold(self, path: str, line: int | None, value: Any) -> None:
        if isinstance(value, list):
            if value and all(_trace_span_like(v) for v in value):
                raise _trace_span_rejection()
            for k, item in enumerate(value):
                self._result(self._loose(), f"{_at(path)}[{k}]", line, item)
            return
        if not isinstance(value, dict):
            self._quarantine(path, line, f"a JSON {type(value).__name__}, not an SDK result")
            return
        if _trace_span_like(value) or (
            "caseTitle" not in value
            and isinstance(value.get("spans"), list)
            and value["spans"]
            and all(_trace_span_like(v) for v in value["spans"])
        ):
            raise _trace_span_rejection()
        results = value.get("results")
        if "suiteName" in value:
            run = self._start(path, line, value)
            if run is not None and "results" in value:  # a report / one-shot body
                self._results(run, path, line, results)
                run.finalized = True
                self.open = None
        elif "runId" in value and "results" in value:
            self._iterations(path, line, value)
        elif "runId" in value and "externalRunId" in value:
            self._finalize(value)
        elif "caseTitle" in value or "passed" in value:
            self._result(self._loose(), _at(path), line, value)
        else:
            keys = ", ".join(sorted(value)[:6]) or "none"
            self._quarantine(path, line, f"no SDK result or reporter body (keys: {keys})")

    # ------------------------------------------------------------------ bodies
    def _start(self, path: str, line: int | None, body: dict[str, Any]) -> SdkRun | None:
        suite = body.get("suiteName")
        if not isinstance(suite, str) or not suite.strip():
            self._quarantine(f"{_at(path)}.suiteName", line, "suiteName must be a non-empty string")
            return None
        settings = {k: v for k, v in body.items() if k != "results"}
        run = SdkRun(suite.strip(), settings, finalized=False)
        run.started = _canonical(settings)
        external = run.external_run_id
        if external is not None and external in self.by_external:  # the same run started again
            old = self.by_external[external]
            old.settings.update(settings)
            self.open = old
            return old
        if external is not None:
            self.by_external[external] = run
        self.runs.append(run)
        self.open = run
        return run

    def _iterations(self, path: str, line: int | None, body: dict[str, Any]) -> None:
        server_id = body.get("runId")
        run = self.by_server_id.get(server_id) if isinstance(server_id, str) else None
        if run is None:
            run = self.open
            if run is None:
                self._quarantine(path, line, "runs/iterations body before any runs/start")
                return
            if isinstance(server_id, str) and run.server_run_id is None:
                run.server_run_id = server_id
                self.by_server_id[server_id] = run
        self._results(run, path, line, body.get("results"))

    def _finalize(self, body: dict[str, Any]) -> None:
        external, server_id = body.get("externalRunId"), body.get("runId")
        run = self.by_external.get(external) if isinstance(external, str) else None
        run = run or (self.by_server_id.get(server_id) if isinstance(server_id, str) else None)
        run = run or self.open
        if run is not None:
            run.finalized = True
            if run is self.open:
                self.open = None

    def _results(self, run: SdkRun, path: str, line: int | None, results: Any) -> None:
        if not isinstance(results, list):
            self._quarantine(f"{_at(path)}.results", line, "results must be an array")
            return
        for k, item in enumerate(results):
            self._result(run, f"{_at(path)}.results[{k}]", line, item)

    def _result(
        self,
        run: SdkRun,
        path: str,
        line: int | None,
        value: Any,
    ) -> None:
        problem = result_problem(value)
        if problem is not None:
            where, what = problem
            self._quarantine(path + where, line, what)
            return
        run.results.append((path, value))

    def _loose(self) -> SdkRun:
        if self.loose is None:
            self.loose = SdkRun(self.stem, {})
            self.runs.append(self.loose)
        return self.loose

    def _quarantine(self, path: str, line: int | None, problem: str) -> None:
        self.quarantined.append(Quarantined(path, problem, line))

    def finish(self) -> list[SdkRun]:
        return [run for run in self.runs if run.results or run.settings]


def result_problem(value: Any) -> tuple[str, str] | None:
    """Where (a JSON path suffix) and why ``value`` is no ``EvalResultInput``; None if it is.
    The checks are the type's own required fields and the shapes the mapping reads."""
    if not isinstance(value, dict):
        return "", f"a JSON {type(value).__name__}, not an EvalResultInput"
    title = value.get("caseTitle")
    if not isinstance(title, str) or not title.strip():
        return ".caseTitle", f"caseTitle must be a non-empty string, got {_excerpt(title)}"
    if not isinstance(value.get("passed"), bool):
        return ".passed", f"passed must be a boolean, got {_excerpt(value.get('passed'))}"
    for key in ("expectedToolCalls", "actualToolCalls"):
        calls = value.get(key)
        if calls is None:
            continue
        if not isinstance(calls, list):
            return f".{key}", f"{key} must be an array, got {_excerpt(calls)}"
        for k, call in enumerate(calls):
            if not isinstance(call, dict) or not isinstance(call.get("toolName"), str):
                return f".{key}[{k}]", "a tool call needs a string toolName"
    metadata = value.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        return ".metadata", f"metadata must be an object, got {_excerpt(metadata)}"
    for key in ("provider", "model", "caseId", "externalCaseId", "externalIterationId"):
        if value.get(key) is not None and not isinstance(value[key], str):
            return f".{key}", f"{key} must be a string, got {_excerpt(value[key])}"
    return None


def _trace_span_like(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("category") in TRACE_SPAN_CATEGORIES
        and "startMs" in value
        and "caseTitle" not in value
    )


def _trace_span_rejection() -> NotResults:
    return NotResults(
        "MCPJam EvalTraceSpan JSON (shared/eval-trace.ts: spans with category step/llm/tool/"
        "error and startMs/endMs offsets), not OTLP or an SDK result: it carries no case, run "
        "or verdict",
        "import the SDK result that holds these spans (EvalResultInput.trace.spans), or the "
        "run's OTLP export",
    )


def _at(path: str) -> str:
    return "$" if path.startswith("line ") else path


def _loads(data: bytes | bytearray | str) -> Any:
    """One JSON value: orjson's where it parses (it accepts no JSON the standard library
    refuses), else the standard library's reading (NaN, lone surrogates, invalid UTF-8
    replaced, huge numbers), whose error says why not."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8", "replace")
        return json.loads(text)


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _excerpt(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if value is not None else "nothing"
    return text if len(text) <= 40 else text[:39] + "…"
