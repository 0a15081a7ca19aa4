"""The report's charts as inline SVG, styled by the page's CSS (light and dark alike).

Hand-built rather than rendered by a charting runtime: every mark carries its state as a
class and a ``data-state``, its arithmetic in a ``<title>``, and its colours come from CSS
variables, so one SVG follows ``prefers-color-scheme`` and a test can read what each mark
means. The rule of the whole package holds on every chart (CONTRACT §5.8): a rate with
nothing to divide is a labelled gap — a dashed, hatched box saying "not measured" — never a
bar of height zero, and a notMeasured trend point breaks its line and sits in a band of its
own under the axis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.rates import (
    MeasuredRate,
    NotMeasuredRate,
    measured_pass_rate,
    measurement_coverage_rate,
    reach_rate,
)
from valuechain.contract.tallies import StageTally
from valuechain.report.html.markup import Safe, el

NOT_MEASURED: Final = "not measured"
FONT: Final = 12
LABEL_W: Final = 96

# The marks of a funnel bar, in chain order of what happened to a trial at a stage.
MARKS: Final = (
    ("passed", "passed"),
    ("failed", "failed"),
    ("notMeasured", "not measured"),
    ("reachUnknown", "not measured (reach unknown)"),
    ("notReached", "not reached"),
    ("notApplicable", "not applicable"),
)
RATE_NAMES: Final = (
    ("measuredPassRate", "pass rate", "passed / measured"),
    ("reachRate", "reach rate", "reached / (reached + notReached)"),
    ("measurementCoverageRate", "coverage", "measured / reached"),
)


def mark_counts(tally: StageTally) -> dict[str, int]:
    """The trials of one stage per mark (`MARKS`): each trial in exactly one."""
    return {
        "passed": tally.passed,
        "failed": tally.failed,
        "notMeasured": tally.not_measured,
        "reachUnknown": tally.reach_unknown,
        "notReached": tally.not_reached,
        "notApplicable": tally.not_applicable,
    }


def rate_text(rate: MeasuredRate | NotMeasuredRate) -> str:
    """``11/12 91.7%``, or ``not measured`` (0/0 is not a number)."""
    if isinstance(rate, NotMeasuredRate):
        return NOT_MEASURED
    return f"{rate.numerator}/{rate.denominator} {rate.value:.1%}"


def stage_rates(tally: StageTally) -> dict[str, MeasuredRate | NotMeasuredRate]:
    """The three rates of one stage (CONTRACT §5.8), read off its tally."""
    return {
        "measuredPassRate": measured_pass_rate(tally),
        "reachRate": reach_rate(tally),
        "measurementCoverageRate": measurement_coverage_rate(tally),
    }


def _svg(chart_id: str, title: str, width: int, height: int, *children: object) -> Safe:
    return el(
        "svg",
        {
            "id": chart_id,
            "class": "chart",
            "role": "img",
            "aria-labelledby": f"{chart_id}-title",
            "viewBox": f"0 0 {width} {height}",
            "width": width,
            "height": height,
            "xmlns": "http://www.w3.org/2000/svg",
        },
        el("title", {"id": f"{chart_id}-title"}, title),
        *children,
    )


def _label(x: float, y: float, value: str, cls: str = "lbl", anchor: str = "start") -> Safe:
    return el("text", {"x": x, "y": y, "class": cls, "text-anchor": anchor}, value)


# --------------------------------------------------------------------------- the funnel
def funnel_chart(
    chart_id: str,
    stages: Sequence[StageTally],
    included: int,
    *,
    width: int = 720,
    links: Mapping[str, str] | None = None,
) -> Safe:
    """Six stacked bars, one per stage: every trial of the slice as one of the six marks.
    ``links`` (stage → href) makes a stage's failed mark a link to a trial that failed there."""
    bar_h, gap, top = 26, 10, 6
    area = width - LABEL_W - 120
    rows: list[Safe] = []
    for i, tally in enumerate(stages):
        y = top + i * (bar_h + gap)
        counts = mark_counts(tally)
        total = sum(counts.values())
        rows.append(_label(0, y + bar_h / 2 + 4, STAGE_LABELS[tally.stage]))
        x = float(LABEL_W)
        for state, words in MARKS:
            n = counts[state]
            if n == 0:
                continue
            w = area * n / total
            mark = el(
                "g",
                {"class": f"mark s-{state}", "data-state": state, "data-count": n},
                el("title", None, f"{STAGE_LABELS[tally.stage]}: {n} {words}"),
                el("rect", {"x": x, "y": y, "width": w, "height": bar_h, "rx": 2}),
                _label(x + w / 2, y + bar_h / 2 + 4, str(n), "count", "middle")
                if w >= 18
                else None,
            )
            href = (links or {}).get(tally.stage.value) if state == "failed" else None
            rows.append(el("a", {"href": href, "class": "to-trial"}, mark) if href else mark)
            x += w
        if total == 0:  # the slice has no trial at this stage: a labelled gap, not a bar
            rows.append(_gap(LABEL_W, y, area, bar_h, "no trial"))
        rate = measured_pass_rate(tally)
        rows.append(
            _label(
                LABEL_W + area + 8,
                y + bar_h / 2 + 4,
                f"pass {rate_text(rate)}",
                "lbl nm" if isinstance(rate, NotMeasuredRate) else "lbl",
            )
        )
    height = top + len(stages) * (bar_h + gap)
    return _svg(
        chart_id,
        f"Stage funnel: {included} trials, each stage split by what happened",
        width,
        height,
        *rows,
    )


def _gap(x: float, y: float, w: float, h: float, words: str = NOT_MEASURED) -> Safe:
    """A visible, labelled gap: what a notMeasured rate looks like (never a zero bar)."""
    return el(
        "g",
        {"class": "gap", "data-state": "notMeasured"},
        el("title", None, f"{words}: nothing to divide (0/0 is not a number)"),
        el("rect", {"x": x, "y": y, "width": w, "height": h, "rx": 2}),
        _label(x + w / 2, y + h / 2 + 4, words, "gap-label", "middle"),
    )


# --------------------------------------------------------------------------- the rates
def rates_chart(chart_id: str, stages: Sequence[StageTally], *, width: int = 720) -> Safe:
    """Per stage, its three rates as bars on 0–100 % tracks; notMeasured is a labelled gap."""
    row_h, top = 24, 34
    track = (width - LABEL_W - 16) / 3
    parts: list[Safe] = []
    for k, (_, name, formula) in enumerate(RATE_NAMES):
        parts.append(_label(LABEL_W + k * track + 4, 12, name, "hdr"))
        parts.append(_label(LABEL_W + k * track + 4, 26, formula, "tick"))
    for i, tally in enumerate(stages):
        y = top + i * row_h
        parts.append(_label(0, y + row_h / 2 + 3, STAGE_LABELS[tally.stage]))
        rates = stage_rates(tally)
        for k, (key, name, _) in enumerate(RATE_NAMES):
            x, w, h = LABEL_W + k * track + 4, track - 12, row_h - 6
            rate = rates[key]
            label = f"{STAGE_LABELS[tally.stage]} {name}"
            if isinstance(rate, NotMeasuredRate):
                parts.append(_gap(x, y, w, h))
                continue
            parts.append(
                el(
                    "g",
                    {
                        "class": f"rate r-{key}",
                        "data-state": "measured",
                        "data-value": repr(rate.value),
                    },
                    el("title", None, f"{label}: {rate_text(rate)}"),
                    el("rect", {"class": "track", "x": x, "y": y, "width": w, "height": h}),
                    el(
                        "rect",
                        {"class": "bar", "x": x, "y": y, "width": w * rate.value, "height": h},
                    ),
                    _label(x + 4, y + h / 2 + 4, rate_text(rate), "value"),
                )
            )
    return _svg(
        chart_id,
        "Rates per stage: pass rate, reach rate and measurement coverage",
        width,
        top + len(stages) * row_h + 4,
        *parts,
    )


# --------------------------------------------------------------------------- the trend
@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One run's rate of one stage: ``value`` None when notMeasured (or absent: ``label``)."""

    run_id: str
    day: str
    value: float | None
    label: str


def trend_chart(
    chart_id: str,
    title: str,
    series: Sequence[tuple[str, Sequence[TrendPoint]]],
    *,
    width: int = 380,
) -> Safe:
    """Lines of one rate over a partition's runs (oldest first), one per stage.

    A notMeasured point is drawn as a hollow marker in the "not measured" band below the
    axis and breaks its stage's line: the line never dips to zero for it."""
    left, right, top, plot_h, band_h, bottom = 78, 10, 8, 110, 20, 24
    runs = [p for p in series[0][1]] if series else []
    n = max(len(runs), 1)
    step = (width - left - right) / n
    band_y = top + plot_h + 8
    height = band_y + band_h + bottom

    def x_at(i: int) -> float:
        return left + step * (i + 0.5)

    def y_at(value: float) -> float:
        return top + plot_h * (1 - value)

    parts: list[Safe] = []
    for tick in (0.0, 0.5, 1.0):
        y = y_at(tick)
        parts.append(
            el("line", {"class": "grid", "x1": left, "x2": width - right, "y1": y, "y2": y})
        )
        parts.append(_label(left - 6, y + 4, f"{tick:.0%}", "tick", "end"))
    parts.append(
        el(
            "g",
            {"class": "nm-band", "data-state": "notMeasured"},
            el("rect", {"x": left, "y": band_y, "width": width - left - right, "height": band_h}),
            _label(left - 6, band_y + band_h / 2 + 4, NOT_MEASURED, "gap-label", "end"),
        )
    )
    fits = max(1, int((width - left - right) // 84))  # a date is ~66 px at 11 px: no overlap
    every = max(1, -(-n // fits))
    shown = list(range(0, n, every))
    if shown and shown[-1] != n - 1 and (n - 1 - shown[-1]) * step >= 84:
        shown.append(n - 1)  # the newest run's date too, where it has room
    for i in shown if runs else ():
        parts.append(_label(x_at(i), height - bottom + 16, runs[i].day, "tick", "middle"))
    for k, (stage, points) in enumerate(series):
        parts.append(_series(k, stage, points, x_at, y_at, band_y + band_h / 2))
    return _svg(chart_id, title, width, height, *parts)


def _series(
    k: int,
    stage: str,
    points: Sequence[TrendPoint],
    x_at: Callable[[int], float],
    y_at: Callable[[float], float],
    band_mid: float,
) -> Safe:
    runs: list[list[tuple[float, float]]] = [[]]
    marks: list[Safe] = []
    for i, point in enumerate(points):
        tip = el("title", None, f"{stage} · {point.run_id} ({point.day}): {point.label}")
        if point.value is None:
            runs.append([])
            if point.label == NOT_MEASURED:
                marks.append(
                    el(
                        "g",
                        {"class": "pt nm", "data-state": "notMeasured"},
                        tip,
                        el("circle", {"cx": x_at(i), "cy": band_mid, "r": 4}),
                    )
                )
            continue
        xy = (x_at(i), y_at(point.value))
        runs[-1].append(xy)
        marks.append(
            el(
                "g",
                {"class": "pt", "data-state": "measured"},
                tip,
                el("circle", {"cx": xy[0], "cy": xy[1], "r": 3.5}),
            )
        )
    lines = [
        el("polyline", {"points": " ".join(f"{x:.1f},{y:.1f}" for x, y in run)})
        for run in runs
        if len(run) > 1
    ]
    return el("g", {"class": f"series c{k}", "data-stage": stage}, *lines, *marks)
