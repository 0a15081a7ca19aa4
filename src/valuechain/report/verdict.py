"""A run's verdict for people and for CI: terminal table, Markdown, JUnit XML (CONTRACT §6).

All three say the same things in the same order: the verdict in words and where it came
from; what was measured and in which unit (`caseVariant` counts for a v2 decision, `trial`
counts for a legacy run — a count never travels without its unit); why (validity findings
first, then the task reason); each case with its statistics (read-side only); and the page
of diagnostics with the next owner of each non-passing trial. An empty complete page says
"nothing failed"; an empty partial page says the page is not the run — we did not look.
`notEstablished` is no decision: it is never shown as a failure.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final
from xml.etree import ElementTree as ET

import polars as pl
from pydantic import MISSING
from rich.console import Console, Group, RenderableType
from rich.text import Text

from valuechain.contract.labels import (
    UNDECIDED_REASON_LABELS,
    VERDICT_DECISION_REASON_LABELS,
    VERDICT_LABELS,
)
from valuechain.contract.verdict import CaseAggregation, MeasuredTrialRate, MinEligibleTrials
from valuechain.contract.verdict_aggregate import TrialStatistics, case_passes_needed
from valuechain.contract.verdict_diagnostics import DiagnosticItem, VerifiedChain
from valuechain.contract.verdict_summary import CaseVariantCounts, DecisionSummary
from valuechain.contract.vocab import Verdict, VerdictSource
from valuechain.query.verdict import VerdictView
from valuechain.report.tables import fitted_table

NOT_MEASURED: Final = "not measured"
STYLES: Final = {
    Verdict.PASSED: "bold green",
    Verdict.FAILED: "bold red",
    Verdict.INCONCLUSIVE: "bold yellow",
    Verdict.NOT_ESTABLISHED: "bold",
}


# --- the facts every format shows -----------------------------------------------------------


def _rate(rate: object) -> str:
    if isinstance(rate, MeasuredTrialRate):
        return f"{rate.numerator}/{rate.denominator} ({rate.value:.0%})"
    return f"{NOT_MEASURED} (0 attempted)"


def headline(summary: DecisionSummary) -> str:
    """`run R: passed — …` in words."""
    words = VERDICT_LABELS[summary.verdict]
    if summary.undecided is not MISSING:
        why = UNDECIDED_REASON_LABELS[summary.undecided.reason]
        detail = "" if summary.undecided.detail is MISSING else f" ({summary.undecided.detail})"
        return f"{words}: {why}{detail}. This is no decision, not a failure."
    if summary.decision is not MISSING:
        first = summary.decision.reasons[0]
        return f"{words}: {VERDICT_DECISION_REASON_LABELS[first]}."
    return f"{words}: the run's own recorded result (legacy, no verdict policy version)."


def source_line(view: VerdictView) -> str:
    s = view.summary
    origin = {
        VerdictSource.POLICY_V2: "decided under verdict policy v2",
        VerdictSource.LEGACY: "legacy run: its stored result, copied",
        VerdictSource.NONE: "no decision exists",
    }[s.verdict_source]
    chains = f"diagnostics over {view.chains} chains at analyzer {view.analyzer}"
    extra = "; decided on read under your policy file" if view.policy_file else ""
    return f"run {s.run_id} ({s.run_status}) — {origin}{extra}; {chains}"


def measured_line(summary: DecisionSummary) -> str:
    """What was counted, always with its unit."""
    counts = summary.counts
    if counts is MISSING:
        return "measured: nothing counted (no counts without a decision or a stored summary)"
    if isinstance(counts, CaseVariantCounts):
        return (
            f"measured: {counts.total} case × variant (unit caseVariant): {counts.passed} passed, "
            f"{counts.failed} failed, {counts.inconclusive} inconclusive"
        )
    parts = [
        f"{name} {value}"
        for name, value in (
            ("total", counts.total),
            ("passed", counts.passed),
            ("failed", counts.failed),
        )
        if value is not MISSING
    ]
    return f"measured (unit trial, as the run stored it): {', '.join(parts)}"


def validity_lines(summary: DecisionSummary) -> list[str]:
    if summary.decision is MISSING:
        return []
    v = summary.decision.validity
    policy = v.policy
    coverage = (
        f"at least {policy.coverage.min_eligible_trials} eligible trials"
        if isinstance(policy.coverage, MinEligibleTrials)
        else "every configured trial attempted, at least one gradeable"
    )
    return [
        f"validity {'holds' if v.holds else 'does NOT hold'}: trials (unit trial) configured "
        f"{v.configured_trials}, attempted {v.attempted_trials}, eligible {v.eligible_trials}",
        f"coverage rule: {coverage}",
        f"completion {_rate(v.completion_rate)}, minimum {policy.min_completion_rate:.0%}; "
        f"evaluator errors {_rate(v.evaluator_error_rate)}, maximum "
        f"{policy.max_evaluator_error_rate:.0%}",
    ]


def reason_lines(summary: DecisionSummary) -> list[str]:
    """Why, validity findings first (the decision's own order, CONTRACT §1.7)."""
    if summary.decision is MISSING:
        return []
    return [f"{r.value}: {VERDICT_DECISION_REASON_LABELS[r]}" for r in summary.decision.reasons]


def case_variant(case: CaseAggregation) -> str:
    """provider/model (model alone without a provider; empty: the run did not fan out)."""
    v = case.execution_variant
    if v is MISSING:
        return ""
    return v.model if v.provider is MISSING else f"{v.provider}/{v.model}"


def case_cells(case: CaseAggregation, stats: TrialStatistics) -> list[str]:
    interval = (
        NOT_MEASURED
        if stats.pass_rate_interval is None
        else f"{stats.pass_rate_interval[0]:.2f}–{stats.pass_rate_interval[1]:.2f}"
    )
    needed = case_passes_needed(case.configured_trials, case.effective_pass_threshold)
    return [
        case.case_id,
        case_variant(case),
        case.verdict,
        f"{case.passed_trials}/{case.eligible_trials}"
        if case.eligible_trials
        else f"0/0 ({NOT_MEASURED})",
        f"{case.effective_pass_threshold:g} ({needed}/{case.configured_trials} needed)",
        interval,
        "yes" if case.mixed_verdict else "",
    ]


CASE_HEADERS: Final = (
    "case",
    "variant",
    "verdict",
    "passed/eligible",
    "threshold",
    "Wilson 95%",
    "mixed",
)


def page_line(summary: DecisionSummary) -> str:
    d = summary.diagnostics
    n = len(d.items)
    if d.complete:
        if n == 0:
            return f"diagnostics: nothing failed — all {d.scanned_iterations} trials scanned"
        return f"diagnostics: {n} non-passing of all {d.scanned_iterations} trials"
    if n == 0:
        return (
            f"diagnostics: no non-passing trial among the {d.scanned_iterations} on this page — "
            "this page is not the whole run (we did not look at the rest)"
        )
    return (
        f"diagnostics: {n} non-passing among the {d.scanned_iterations} trials on this page — "
        "one page, not the run's failures"
    )


def item_cells(item: DiagnosticItem, variants: Mapping[str, str]) -> list[str]:
    """A failing trial as the tables show it: its id (what `valuechain trial` takes — the
    summary's ``iterationId``, CONTRACT §6's word), case, variant, outcome, chain, next step."""
    chain = item.chain
    where: str = chain.status
    if isinstance(chain, VerifiedChain) and chain.first_failed_stage is not MISSING:
        where = f"stopped at {chain.first_failed_stage.value}"
    if chain.status != "absent" and chain.analyzer_version_ahead is not MISSING:
        ahead = chain.analyzer_version_ahead
        where += f" (analyzer {ahead.reported} ahead of {ahead.known})"
    title = (
        item.title
        if item.title is not MISSING
        else (item.case_id if item.case_id is not MISSING else "")
    )
    result = item.status + ("" if item.result is MISSING else f"/{item.result}")
    variant = variants.get(item.iteration_id, "")
    return [item.iteration_id, title, variant, result, where, item.next_action]


# what a suggested command becomes: the caller's own options put in (the CLI: its --store)
Suggest = Callable[[str], str]


def _as_is(text: str) -> str:
    return text


ITEM_HEADERS: Final = ("trial", "case", "variant", "status/result", "chain", "next action")


def next_page_line(view: VerdictView, suggest: Suggest = _as_is) -> str | None:
    cursor = view.summary.diagnostics.next_cursor
    if cursor is MISSING:
        return None
    return suggest(f"next page: valuechain verdict {view.summary.run_id} --page {cursor}")


def _lines(view: VerdictView) -> Iterator[str]:
    yield source_line(view)
    yield measured_line(view.summary)
    yield from validity_lines(view.summary)


# --- terminal --------------------------------------------------------------------------------


def _frame(headers: Sequence[str], rows: list[list[str]]) -> pl.DataFrame:
    """Rows of text cells as a frame, for an 80-column table that never breaks an id."""
    return pl.DataFrame(rows, schema=dict.fromkeys(headers, pl.String), orient="row")


def render_verdict(view: VerdictView, suggest: Suggest = _as_is) -> RenderableType:
    """The verdict for the terminal; ``suggest`` puts into each command it suggests what the
    command line that asked gave (its ``--store``)."""
    s = view.summary
    parts: list[RenderableType] = [
        Text(f"{s.verdict.value.upper()}  ", style=STYLES[s.verdict]) + Text(headline(s)),
        Text("\n".join(_lines(view)), style="dim"),
    ]
    reasons = reason_lines(s)
    if reasons:
        parts.append(Text("why:\n" + "\n".join(f"  {r}" for r in reasons)))
    if view.statistics:
        rows = [case_cells(case, stats) for case, stats in view.statistics]
        title = "cases (statistics describe, never decide)"
        parts.append(fitted_table(_frame(CASE_HEADERS, rows), title=title, max_rows=len(rows)))
    parts.append(Text(page_line(s)))
    if s.diagnostics.items:
        rows = [item_cells(item, view.variants) for item in s.diagnostics.items]
        parts.append(fitted_table(_frame(ITEM_HEADERS, rows), max_rows=len(rows)))
        first = s.diagnostics.items[0].iteration_id
        parts.append(
            Text(
                suggest(
                    f"one in full: valuechain trial {first}; every trial of the run and where "
                    f"it stopped: valuechain trials {s.run_id}"
                ),
                style="dim",
            )
        )
    more = next_page_line(view, suggest)
    if more:
        parts.append(Text(more))
    return Group(*parts)


def verdict_text(view: VerdictView, width: int = 100) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(render_verdict(view))
    return buffer.getvalue()


# --- Markdown (a pull-request comment) -----------------------------------------------------


def _md_row(cells: list[str] | tuple[str, ...]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def verdict_markdown(view: VerdictView, suggest: Suggest = _as_is) -> str:
    s = view.summary
    out = [f"### valuechain verdict: **{s.verdict.value}**", "", headline(s), ""]
    out += [f"- {line}" for line in _lines(view)]
    reasons = reason_lines(s)
    if reasons:
        out += ["", "**Why** (validity first):", ""] + [
            f"1. `{r.split(':', 1)[0]}`:{r.split(':', 1)[1]}" for r in reasons
        ]
    if view.statistics:
        out += ["", _md_row(CASE_HEADERS), _md_row(["---"] * len(CASE_HEADERS))]
        out += [_md_row(case_cells(case, stats)) for case, stats in view.statistics]
    out += ["", page_line(s)]
    if s.diagnostics.items:
        out += ["", _md_row(ITEM_HEADERS), _md_row(["---"] * len(ITEM_HEADERS))]
        out += [_md_row(item_cells(item, view.variants)) for item in s.diagnostics.items]
    more = next_page_line(view, suggest)
    if more:
        out += ["", f"`{more.removeprefix('next page: ')}` for the next page"]
    return "\n".join(out) + "\n"


# --- JUnit XML ------------------------------------------------------------------------------


def verdict_junit(view: VerdictView) -> str:
    """JUnit XML: one testcase per case × variant of a v2 decision (failed → `<failure>`,
    inconclusive → `<skipped>`), else one testcase for the run's verdict."""
    s = view.summary
    suite = ET.Element("testsuite", name=f"valuechain verdict {s.run_id}")
    by_case: dict[str, list[DiagnosticItem]] = {}
    for item in s.diagnostics.items:
        if item.case_id is not MISSING:
            by_case.setdefault(item.case_id, []).append(item)
    failures = skipped = 0
    # The run's own verdict first (a run can be inconclusive while every case passed), then
    # one testcase per case × variant of a v2 decision.
    cases: list[tuple[CaseAggregation | None, str]] = [(None, s.verdict.value)]
    cases += [(case, case.verdict) for case, _ in view.statistics]
    for case, verdict in cases:
        name = "run verdict" if case is None else f"{case.case_id} {case_variant(case)}".strip()
        test = ET.SubElement(
            suite, "testcase", classname=f"valuechain.{s.run_id}", name=name, time="0"
        )
        message = headline(s) if case is None else VERDICT_DECISION_REASON_LABELS[case.reason]
        if verdict == "failed":
            failures += 1
            failure = ET.SubElement(test, "failure", message=message, type="failed")
            items = s.diagnostics.items if case is None else by_case.get(case.case_id, [])
            cells = (" | ".join(item_cells(i, view.variants)) for i in items)
            failure.text = "\n".join(cells) or page_line(s)
        elif verdict != "passed":
            skipped += 1
            ET.SubElement(
                test, "skipped", message=message if case is None else f"{verdict}: {message}"
            )
        if case is not None:
            ET.SubElement(
                test, "system-out"
            ).text = f"passed {case.passed_trials}/{case.eligible_trials} eligible trials"
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suite.set("time", "0")
    ET.SubElement(suite, "system-out").text = "\n".join([headline(s), *_lines(view), page_line(s)])
    root = ET.Element(
        "testsuites",
        name="valuechain",
        tests=str(len(cases)),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time="0",
    )
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
