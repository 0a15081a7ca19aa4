"""SDK results → OTLP/JSON under the `mcp.app.*` eval convention (docs/mcpjam-sdk.md §4).

Each result becomes one trace — a trial root (`trial`), a turn per prompt index, the trace's
LLM and tool spans (`trace`), one matcher grader per turn and one grader per predicate row
(`graders`) — written here as one NDJSON line, so the translated source takes the same framing
and native parallel decode as any OTLP export, and every stage after ingest reads it without
knowing where it came from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec

from valuechain.ingest.mcpjam import identity as ident
from valuechain.ingest.mcpjam.graders import Matcher
from valuechain.ingest.mcpjam.otlp import (
    PRODUCER,
    Attrs,
    bool_attr,
    double_attr,
    int_attr,
    string_attr,
)
from valuechain.ingest.mcpjam.payloads import Quarantined, SdkRun
from valuechain.ingest.mcpjam.trace import trace_spans_of
from valuechain.ingest.mcpjam.trial import RunFacts, trial_spans

SCHEMA_VERSION = 1
_encode = msgspec.json.Encoder().encode


def translate(runs: list[SdkRun], matcher: Matcher) -> tuple[bytes, list[Quarantined]]:
    """NDJSON of OTLP requests, one per trial, and the results that could not be graded."""
    lines: list[bytes] = []
    problems: list[Quarantined] = []
    for run in runs:
        for line in _run_lines(run, matcher, problems):
            lines.append(line)
    return b"\n".join(lines) + (b"\n" if lines else b""), problems


def _run_lines(run: SdkRun, matcher: Matcher, problems: list[Quarantined]) -> Iterator[bytes]:
    results = [r for _, r in run.results]
    if not results:
        return
    settings = dict(run.settings)
    settings.setdefault("suiteName", run.suite_name)
    run_id = run.external_run_id or "sdkrun_" + run.digest.hexdigest()[:16]
    variants = [variant_of(r) for r in results]
    cases = [ident.case_key(r) for r in results]
    repetitions = Counter(zip(cases, (f"{p}/{m}" for p, m in variants), strict=True))
    contents = [ident.short_hash(ident.case_content(r)) for r in results]
    expected = settings.get("expectedIterations")
    facts = RunFacts(
        run_id,
        ident.opaque(run.suite_name, "s_"),
        settings,
        _run_attrs(run, settings, run_id, results, cases, contents, expected),
        repetitions,
    )
    resource = {"attributes": _resource_attrs(settings)}
    seen: Counter[tuple[str, str]] = Counter()
    for (path, result), case, content, variant in zip(
        run.results, cases, contents, variants, strict=True
    ):
        key = (case, f"{variant[0]}/{variant[1]}")
        repetition = seen[key]
        seen[key] += 1
        try:
            spans = trial_spans(facts, result, case, content, variant, repetition, matcher)
        except ValueError as exc:  # match options the matcher refuses (CONTRACT §2.4)
            problems.append(Quarantined(f"{path}.matchOptions", str(exc)))
            continue
        request = {
            "resourceSpans": [
                {
                    "resource": resource,
                    "scopeSpans": [{"scope": {"name": PRODUCER}, "spans": spans}],
                }
            ]
        }
        yield _encode(request)


def _resource_attrs(settings: dict[str, Any]) -> Attrs:
    project = settings.get("project")
    return [
        string_attr("service.name", "mcpjam-evals"),
        string_attr(
            "openinference.project.name", project if isinstance(project, str) else "default"
        ),
        int_attr("mcp.app.export.schema_version", SCHEMA_VERSION),
        string_attr("mcp.app.export.producer", f"{PRODUCER}/{_generation(settings)}"),
        string_attr("mcp.app.export.scope", "run"),
        bool_attr("mcp.app.export.include_content", True),
    ]


def _generation(settings: dict[str, Any]) -> str:
    """`results` (1.14.0's /sdk/v1 shapes) vs `results-6` (the repository SDK's): told apart
    by the 6.x-only fields a run may carry; documented, never read by a later stage."""
    six = ("evaluationConfigHash", "project", "hostConfigHash")
    return "results-6" if any(k in settings for k in six) else "results"


def _run_attrs(
    run: SdkRun,
    settings: dict[str, Any],
    run_id: str,
    results: list[dict[str, Any]],
    cases: list[str],
    contents: list[str],
    expected: Any,
) -> Attrs:
    project = settings.get("project")
    attrs = [
        string_attr(
            "mcp.app.project.id", project if isinstance(project, str) and project else "default"
        ),
        string_attr("mcp.app.suite.id", ident.opaque(run.suite_name, "s_")),
        string_attr("mcp.app.suite.name", run.suite_name),
        string_attr("mcp.app.run.id", run_id),
        string_attr("mcp.app.run.config_revision", ident.config_revision(settings, results)),
        string_attr(
            "mcp.app.run.case_set_fingerprint",
            ident.case_set_fingerprint(zip(cases, contents, strict=True)),
        ),
        string_attr("mcp.app.run.status", "completed" if run.finalized else "running"),
        string_attr("mcp.app.run.source", "sdk"),
        int_attr(
            "mcp.app.run.trials_expected",
            expected if isinstance(expected, int) and expected >= len(results) else len(results),
        ),
        string_attr("mcp.app.run.measurement_unit", "caseVariant"),
        string_attr(
            "mcp.app.run.materialization_state", "final" if run.finalized else "provisional"
        ),
        int_attr("mcp.app.run.verdict_policy_version", 2),
        double_attr("mcp.app.suite.default_pass_threshold", _pass_threshold(settings)),
    ]
    group = ident.run_group(settings)
    if group is not None:
        attrs.append(string_attr("mcp.app.run.group_id", group))
    return attrs


def _pass_threshold(settings: dict[str, Any]) -> float:
    """`passCriteria.minimumPassRate` (a percentage above 1, else a fraction) as the case
    pass threshold; 1 (every graded trial passes) without one."""
    criteria = settings.get("passCriteria")
    rate = criteria.get("minimumPassRate") if isinstance(criteria, dict) else None
    if isinstance(rate, int | float) and not isinstance(rate, bool) and 0 <= rate <= 100:
        return rate / 100 if rate > 1 else float(rate)
    return 1.0


def variant_of(result: dict[str, Any]) -> tuple[str, str]:
    """(provider, model): the result's, else the trace spans' `modelId` / `provider`
    (EvalSuite and EvalTest auto-save results set neither)."""
    provider, model = result.get("provider"), result.get("model")
    if not model or not provider:
        for span in trace_spans_of(result):
            if not model and isinstance(span.get("modelId"), str) and span["modelId"]:
                model = span["modelId"]
            if not provider and isinstance(span.get("provider"), str) and span["provider"]:
                provider = span["provider"]
    if isinstance(model, str) and "/" in model and not provider:
        provider, model = model.split("/", 1)
    return (provider or "unknown", model or "unknown")
