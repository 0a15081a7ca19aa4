"""SDK results → OTLP/JSON under the `mcp.app.*` eval convention (docs/spec/mcpjam-sdk.md §4).

Each result becomes one trace — a trial root (`trial`), a turn per prompt index, the trace's
LLM and tool spans (`trace`), one matcher grader per turn and one grader per predicate row
(`graders`) — written here as one NDJSON line, so the native decoder reads it as any OTLP
export's lines and every stage after ingest reads it without knowing where it came from. A
run's keys need all its results (`trial_jobs`, in the importing process); its trials are then
translated in jobs (`translate_job`, on a decode worker: `ingest/source/sdk_parts.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from valuechain.ingest.mcpjam import identity as ident
from valuechain.ingest.mcpjam.clock import run_start_ns
from valuechain.ingest.mcpjam.graders import Grading, Matcher
from valuechain.ingest.mcpjam.otlp import (
    PRODUCER,
    Attrs,
    Span,
    bool_attr,
    double_attr,
    int_attr,
    otlp_request,
    string_attr,
)
from valuechain.ingest.mcpjam.payloads import Quarantined, SdkRun
from valuechain.ingest.mcpjam.trace import trace_spans_of
from valuechain.ingest.mcpjam.trial import RunFacts, trial_spans

SCHEMA_VERSION = 1


def translate_runs(
    runs: list[SdkRun], matcher: Matcher, received_ns: int | None = None
) -> tuple[bytes, list[Quarantined]]:
    """NDJSON of OTLP requests, one per trial, and the results that could not be graded."""
    lines: list[bytes] = []
    problems: list[Quarantined] = []
    for job in trial_jobs(runs, 0, received_ns):
        data, refused = translate_job(job, matcher)
        lines.append(data)
        problems += refused
    return b"".join(lines), problems


@dataclass(slots=True)
class Trial:
    """One result with its keys in the run (decided from the whole run)."""

    path: str  # the result's JSON path in the source
    result: dict[str, Any]
    case: str
    content: str
    variant: tuple[str, str]
    repetition: int


@dataclass(slots=True)
class TrialJob:
    """Consecutive trials of one run: the unit a decode worker translates (`translate_job`)."""

    facts: RunFacts
    trials: list[Trial]
    size: int = 0  # of its results in the source, about


def trial_jobs(
    runs: list[SdkRun], job_bytes: int, received_ns: int | None = None, *, result_bytes: int = 1
) -> Iterator[TrialJob]:
    """Each run's trials, in order, in jobs of about ``job_bytes`` of results (0: one job a
    run), each result counted as ``result_bytes`` (the source's mean: measuring each one
    would cost as much as encoding it). A run's keys need all its results, so they are
    decided here, run by run; the run lets go of its results as its jobs are made.
    ``received_ns``: when the source was received, the start of a run with no SDK-made id
    (`clock.run_start_ns`)."""
    for run in runs:
        results = run.results
        if not results:
            continue
        facts, keys = _run_facts(run, [r for _, r in results], received_ns)
        run.results = []
        job = TrialJob(facts, [])
        seen: Counter[tuple[str, str]] = Counter()
        for (path, result), (case, content, variant) in zip(results, keys, strict=True):
            key = (case, f"{variant[0]}/{variant[1]}")
            job.trials.append(Trial(path, result, case, content, variant, seen[key]))
            seen[key] += 1
            job.size += result_bytes
            if job_bytes and job.size >= job_bytes:
                yield job
                job = TrialJob(facts, [])
        if job.trials:
            yield job


def translate_job(job: TrialJob, matcher: Matcher) -> tuple[bytes, list[Quarantined]]:
    """The job's trials as NDJSON lines, one OTLP request each, and the results that could
    not be graded."""
    requests, problems = job_spans(job, matcher)
    return ndjson(job.facts.resource, requests), problems


def ndjson(resource: Attrs, requests: list[list[Span]]) -> bytes:
    """The requests as NDJSON lines, each the trial's spans under ``resource``."""
    lines = [otlp_request(resource, spans) for spans in requests]
    return b"\n".join(lines) + (b"\n" if lines else b"")


def job_spans(job: TrialJob, matcher: Matcher) -> tuple[list[list[Span]], list[Quarantined]]:
    """Each trial's spans (one OTLP request each, under the run's resource), and the results
    that could not be graded."""
    facts, requests, problems = job.facts, [], []
    grading = Grading(matcher)
    for t in job.trials:
        try:
            spans = trial_spans(
                facts, t.result, t.case, t.content, t.variant, t.repetition, grading
            )
        except ValueError as exc:  # match options the matcher refuses (CONTRACT §2.4)
            problems.append(Quarantined(f"{t.path}.matchOptions", str(exc)))
            continue
        requests.append(spans)
    return requests, problems


def _run_facts(
    run: SdkRun, results: list[dict[str, Any]], received_ns: int | None
) -> tuple[RunFacts, list[tuple[str, str, tuple[str, str]]]]:
    """What every trial of the run shares, and each result's (case, content hash, variant)."""
    settings = dict(run.settings)
    settings.setdefault("suiteName", run.suite_name)
    run_id = run.external_run_id or "sdkrun_" + run.digest()[:16]
    variants = variants_of(results)
    cases = [ident.case_key(r) for r in results]
    contents = [ident.short_hash(ident.case_content(r)) for r in results]
    expected = settings.get("expectedIterations")
    facts = RunFacts(
        run_id,
        ident.opaque(run.suite_name, "s_"),
        settings,
        _run_attrs(run, settings, run_id, results, cases, contents, expected),
        Counter(zip(cases, (f"{p}/{m}" for p, m in variants), strict=True)),
        _resource_attrs(settings),
        run_start_ns(run.external_run_id, results, received_ns),
    )
    return facts, list(zip(cases, contents, variants, strict=True))


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


def variants_of(results: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each result's (provider, model) (`_variant_fields`), a missing provider taken from the run:
    the one provider its other results name with the same model, else the run's one provider
    when it names only one. The SDK sets a span's `provider` only when its step finishes
    (6d550c0 eval-trace-spans.ts:219–227); a provider call that throws ends the step in
    `finalizeFailure` (:476–499) with only the `modelId` its start set (:191–194), and the
    result mapping fills a span's missing `modelId` from the prompt but not its `provider`
    (eval-result-mapping.ts:409–415), so without this a provider-error result is a variant
    of its own.
    Two providers for the model (or the run, for a result without a model) leave it
    `unknown`."""
    found = [_variant_fields(r) for r in results]
    by_model: dict[str, set[str]] = {}
    for provider, model in found:
        if provider and model:
            by_model.setdefault(model, set()).add(provider)
    everywhere = {p for providers in by_model.values() for p in providers}
    everywhere |= {p for p, m in found if p and not m}
    out = []
    for given, model in found:
        provider = given
        if not provider:
            named = by_model.get(model, set()) if model else set()
            if len(named) == 1 or (not named and len(everywhere) == 1):
                provider = next(iter(named or everywhere))
        out.append((provider or "unknown", model or "unknown"))
    return out


def _variant_fields(result: dict[str, Any]) -> tuple[str | None, str | None]:
    """(provider, model): the result's, else the trace spans' `modelId` / `provider`
    (EvalSuite and EvalTest auto-save results set neither); None for what none names."""
    provider, model = result.get("provider"), result.get("model")
    if not model or not provider:
        for span in trace_spans_of(result):
            if not model and isinstance(span.get("modelId"), str) and span["modelId"]:
                model = span["modelId"]
            if not provider and isinstance(span.get("provider"), str) and span["provider"]:
                provider = span["provider"]
    if isinstance(model, str) and "/" in model and not provider:
        provider, model = model.split("/", 1)
    return (
        provider if isinstance(provider, str) and provider else None,
        model if isinstance(model, str) and model else None,
    )
