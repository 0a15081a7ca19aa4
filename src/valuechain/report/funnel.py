"""A run's stage funnel for the terminal (rich): counts, rates and exclusions per stage.

Renders a `StageAnalyticsV1` document as the reader should see it (CONTRACT §5, seed 001):
rates carry their arithmetic (``passed/measured``); a rate with nothing to divide is
``not measured`` — never 0 %, never 100 %; exclusions are counted beside every number
they removed; a provisional document says it may still change; a missing document is
UNMEASURED, never an empty funnel (§5.10). The tallies are never summed across stages.
"""

from __future__ import annotations

import io
from typing import Final

from pydantic import MISSING
from rich.console import Console, Group, RenderableType
from rich.text import Text

from valuechain.contract.documents import SliceRow, StageAnalyticsV1
from valuechain.contract.labels import CATEGORY_LABELS, EXCLUSION_CLASS_LABELS, STAGE_LABELS
from valuechain.contract.rates import (
    MeasuredRate,
    NotMeasuredRate,
    measured_pass_rate,
    measurement_coverage_rate,
    reach_rate,
)
from valuechain.contract.tallies import Exclusions, StageTally
from valuechain.contract.vocab import MaterializationState, StageExclusionClass
from valuechain.report.columns import Col
from valuechain.report.tables import FittedTable

NOT_MEASURED: Final = (
    "not measured"  # as the docs' legend (docs/concepts/chain.md) and every table say it
)
UNLABELLED: Final = "(unlabelled)"  # display word only; the document stores null (§5.2)


def format_rate(rate: MeasuredRate | NotMeasuredRate) -> str:
    """``3/4 (75.0%)``, or ``not measured`` when there is nothing to divide (§5.8)."""
    if isinstance(rate, NotMeasuredRate):
        return NOT_MEASURED
    return f"{rate.numerator}/{rate.denominator} ({rate.value:.1%})"


def format_exclusions(exclusions: Exclusions) -> str:
    """``notApplicable 1, reachUnknown 2`` in class order, or an empty string."""
    return ", ".join(f"{cls.value} {n}" for cls, n in exclusions.counts().items())


def slice_title(row: SliceRow) -> str:
    """How a slice is named on screen (the stored values, unlabelled shown as a word)."""
    s = row.slice
    if s.dimension == "overall":
        return "overall"
    if s.dimension == "intent":
        return f"intent: {UNLABELLED if s.intent is None else s.intent}"
    if s.dimension == "model":
        return f"model: {s.provider} / {s.model}"
    name = "" if s.host_name is MISSING else f" ({s.host_name})"
    engine = "" if s.execution_engine is MISSING else f" [{s.execution_engine}]"
    return f"host: {s.host_key}{name}{engine}"


def _latency(tally: StageTally) -> str:
    latency = tally.latency
    if latency is MISSING:
        return "—"  # no samples: no mean, never 0 (§5.7)
    return f"{latency.mean_ms:,.0f} ms (n={latency.sample_count})"


def _reasons(tally: StageTally, limit: int = 3) -> str:
    ranked = sorted(tally.reasons, key=lambda r: -r.count)
    text = ", ".join(f"{r.reason.value} {r.count}" for r in ranked[:limit])
    hidden = len(ranked) - limit
    return f"{text}, +{hidden} more (--format json)" if hidden > 0 else text


# One slice's stage table at 80 columns: counts and the pass rate in line; the other rates,
# latency, exclusions and reasons under each stage's row (all in line with --wide).
STAGE_COLUMNS: Final = (
    Col("stage"),
    Col("applicable", align="right", keep=1),
    Col("reached", align="right", keep=2),
    Col("passed", align="right", keep=1),
    Col("failed", align="right", keep=1),
    Col("pass rate", keep=1),
    Col("reach rate", keep=2),
    Col("coverage", keep=3),
    Col("not reached", align="right", keep=4),
    Col("latency (mean)", keep=4),
    Col("excluded", under=True),
    Col("reasons", under=True),
)


def stage_table(row: SliceRow, *, wide: bool = False) -> FittedTable:
    """One slice: a row per stage, in stage order (never sorted, never summed)."""
    title = f"{slice_title(row)} — {row.included_trials} included" + (
        f"; excluded {format_exclusions(row.excluded_trials)}"
        if row.excluded_trials.counts()
        else ""
    )
    cells = {
        tally.stage: {
            "stage": STAGE_LABELS[tally.stage],
            "applicable": str(tally.applicable),
            "reached": str(tally.reached),
            "passed": str(tally.passed),
            "failed": str(tally.failed),
            "pass rate": format_rate(measured_pass_rate(tally)),
            "reach rate": format_rate(reach_rate(tally)),
            "coverage": format_rate(measurement_coverage_rate(tally)),
            "not reached": str(tally.not_reached),
            "latency (mean)": _latency(tally),
            "excluded": format_exclusions(tally.excluded),
            "reasons": _reasons(tally),
        }
        for tally in row.stages
    }
    caption = (
        "failure categories: "
        + ", ".join(f"{CATEGORY_LABELS[c.category]} {c.count}" for c in row.failure_categories)
        if row.failure_categories
        else None
    )
    return FittedTable(
        list(STAGE_COLUMNS),
        [[c[col.name] for col in STAGE_COLUMNS] for c in cells.values()],
        title=title,
        wide=wide,
        caption=caption,
        joined=True,
    )


def _header(doc: StageAnalyticsV1, chains: str, completeness: str | None) -> RenderableType:
    lines = Text()
    lines.append(f"run {doc.run_id}", style="bold")
    suite = doc.suite_id or "(none recorded)"
    lines.append(f"  suite {suite}  chains {chains}  analyzer {doc.stage_analyzer_version}")
    if doc.source_stage_analyzer_versions is not MISSING:
        versions = ", ".join(str(v) for v in doc.source_stage_analyzer_versions)
        lines.append(f" (mixed: {versions} — not comparable, §5.11)", style="yellow")
    lines.append(f"\ntrials: {doc.included_trials} included of {doc.total_trials}")
    if completeness:  # TRACE-FORMAT §5.2: the store may hold only part of the run
        lines.append(f"\n{completeness}", style="yellow")
    classes = doc.excluded_trials.counts()
    if classes:
        detail = ", ".join(f"{d.value} {n}" for d, n in doc.excluded_trial_detail.counts().items())
        lines.append(f"; excluded {format_exclusions(doc.excluded_trials)} ({detail})")
        if StageExclusionClass.INTEGRITY in classes:
            lines.append(
                f"\n{EXCLUSION_CLASS_LABELS[StageExclusionClass.INTEGRITY]}", style="yellow"
            )
    if doc.materialization_state is MaterializationState.PROVISIONAL:
        lines.append("\nprovisional: a judge pass may still rewrite these counts", style="yellow")
    if doc.slice_truncation is not MISSING:
        cut = ", ".join(
            f"{t.dimension} {t.retained} of {t.distinct_values}" for t in doc.slice_truncation
        )
        lines.append(f"\nslices capped: {cut} retained (largest first)", style="yellow")
    for setup in doc.setup:
        lines.append(
            f"\nsetup {setup.phase.value}: {setup.failed_attempts}/{setup.unique_attempts} "
            f"attempt failed, server-attributed {setup.server_attributed_failures}, "
            f"{setup.impacted_trials} trials impacted"
        )
    return lines


def render_funnel(
    document: StageAnalyticsV1 | None,
    *,
    run_id: str,
    slice: str = "overall",
    chains: str = "derived",
    analyzer: int | None = None,
    completeness: str | None = None,
    wide: bool = False,
) -> RenderableType:
    """The funnel of one dimension (``overall``, ``intent``, ``model``, ``host`` or ``all``).

    ``document`` None renders UNMEASURED: the run exists and has no document for these
    chains (CONTRACT §5.10) — never zeros, never an empty funnel. ``completeness`` is how
    much of the run the store holds (``16 of 720 trials in the store …``), shown under the
    trial counts so a partial funnel never reads as a whole one.
    """
    if document is None:
        version = "" if analyzer is None else f" at analyzer {analyzer}"
        # plain, as every other table and message (issue 41.5: one style, no box)
        return Text(
            f"UNMEASURED: run {run_id} has no stage analytics for {chains} chains{version}. "
            "A missing document is not an empty funnel.",
            style="bold yellow",
        )
    rows = [r for r in document.slices if slice in ("all", r.slice.dimension)]
    parts: list[RenderableType] = [_header(document, chains, completeness)]
    parts.extend(stage_table(row, wide=wide) for row in rows)
    if not rows:
        parts.append(Text(f"no {slice} slices: no trial recorded this dimension"))
    return Group(*parts)


def funnel_text(
    document: StageAnalyticsV1 | None,
    *,
    run_id: str,
    width: int = 160,
    **options: str | int | bool | None,
) -> str:
    """`render_funnel` as plain text (tests, logs)."""
    console = Console(record=True, width=width, color_system=None, file=io.StringIO())
    console.print(render_funnel(document, run_id=run_id, **options), crop=False)  # type: ignore[arg-type]
    return console.export_text()
