"""Two runs compared, for an 80-column terminal (fitted tables): blockers first, then the deltas.

A blocked comparison leads with its blockers and shows no delta; its cases appear only when
forced, under a banner saying they are not a comparison claim. A rate with nothing to divide
is `not measured`, and its delta is `not measured` too — never 0, never a number (CONTRACT §5.8).
"""

from __future__ import annotations

import io
import textwrap
from typing import Final

from pydantic import MISSING
from rich.console import Console, Group, RenderableType
from rich.text import Text

from valuechain.contract.compare import CaseChange, CaseComparison, RunComparison
from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.rates import MeasuredRate, NotMeasuredRate
from valuechain.report.columns import Col
from valuechain.report.tables import FittedTable

NOT_MEASURED: Final = "not measured"
CHANGE_STYLES: Final = {
    CaseChange.REGRESSED: "bold red",
    CaseChange.FIXED: "green",
    CaseChange.STILL_FAILING: "red",
    CaseChange.CHANGED: "yellow",
    CaseChange.INCONCLUSIVE: "yellow",
}
RATE_COLUMNS: Final = (
    ("pass rate", "measured_pass_rate"),
    ("reach", "reach_rate"),
    ("coverage", "measurement_coverage_rate"),
)


def _percent(rate: MeasuredRate | NotMeasuredRate) -> str:
    return NOT_MEASURED if isinstance(rate, NotMeasuredRate) else f"{rate.value:.0%}"


def _points(delta: float | None) -> str:
    """A delta in percentage points (`+12.5`, `−3.0`, `±0`), or `not measured`."""
    if delta is None:
        return NOT_MEASURED
    points = round(delta * 100, 1)
    if points == 0:
        return "±0"
    return f"{points:+.1f}".replace("-", "−")


def _header(comparison: RunComparison) -> Text:
    text = Text()
    text.append(f"A {comparison.a}\nB {comparison.b}\n", style="bold")
    if comparison.comparable:
        text.append("comparable: no parity blocker (CONTRACT §5.11)", style="green")
        return text
    text.append("NOT COMPARABLE", style="bold yellow")
    for run in comparison.unmeasured:
        text.append(f"\n  unmeasured: {run} has no analytics document", style="yellow")
    for blocker in comparison.blockers:
        text.append(f"\n  blocker: {blocker.value}", style="yellow")
    for hint in [] if comparison.hints is MISSING else comparison.hints:
        line = f"{hint.run_id} ({hint.blocker.value}): {hint.hint}"
        text.append(
            "\n" + textwrap.fill(line, 80, initial_indent="  hint: ", subsequent_indent="    ")
        )
    return text


STAGE_COLUMNS: Final = (
    Col("stage"),
    *(Col(title, align="right", keep=1) for title, _ in RATE_COLUMNS),
)
CASE_COLUMNS: Final = (
    Col("change"),
    Col("case", keep=2),
    Col("tokens Δ", align="right", keep=1),
    Col("time Δ", align="right", keep=1),
)


def stage_table(comparison: RunComparison) -> FittedTable:
    """Per stage and rate: `A → B` and, only when comparable, the delta in points."""
    rows = []
    for row in comparison.stages:
        cells = [STAGE_LABELS[row.stage]]
        for _, field in RATE_COLUMNS:
            a, b = getattr(row.a, field), getattr(row.b, field)
            cell = f"{_percent(a)} → {_percent(b)}"
            if row.delta is not None:
                cell += f" {_points(getattr(row.delta, field))}"
            cells.append(cell)
        rows.append(cells)
    return FittedTable(list(STAGE_COLUMNS), rows, title="stages (overall slice), A → B")


def _signed(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"  # a side lacks the figure: no delta, never 0
    if round(value) == 0:
        return f"±0{unit}"
    return f"{value:+,.0f}{unit}".replace("-", "−")


def case_table(cases: list[CaseComparison], *, forced: bool) -> FittedTable:
    """Per case its change and deltas; a title too long for its line goes under its row."""
    title = "cases, A → B" + (" — NOT A COMPARISON CLAIM (--force)" if forced else "")
    rows = [
        [
            case.change.value,
            case.title or case.case_id,
            _signed(case.tokens_delta),
            _signed(case.duration_ms_delta, " ms"),
        ]
        for case in cases
    ]
    styles = [{"change": CHANGE_STYLES.get(case.change, "")} for case in cases]
    return FittedTable(list(CASE_COLUMNS), rows, title=title, styles=styles)


def render_comparison(comparison: RunComparison) -> RenderableType:
    parts: list[RenderableType] = [_header(comparison)]
    if comparison.stages:
        parts.append(stage_table(comparison))
    if comparison.cases is not None:
        parts.append(case_table(comparison.cases, forced=comparison.forced))
    elif not comparison.comparable:
        parts.append(Text("cases not listed: the runs are not comparable (--force lists them)"))
    return Group(*parts)


def comparison_text(comparison: RunComparison, *, width: int = 80) -> str:
    """`render_comparison` as plain text (tests, logs)."""
    console = Console(record=True, width=width, color_system=None, file=io.StringIO())
    console.print(render_comparison(comparison))
    return console.export_text()
