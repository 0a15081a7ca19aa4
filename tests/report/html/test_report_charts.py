"""The charts' marks: a notMeasured rate is a labelled gap, never a bar of height zero."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_outline import outline

from valuechain.contract.rates import NotMeasuredRate
from valuechain.contract.tallies import Exclusions, StageTally
from valuechain.contract.vocab import Stage
from valuechain.report.html.charts import (
    NOT_MEASURED,
    TrendPoint,
    funnel_chart,
    rates_chart,
    stage_rates,
    trend_chart,
)
from valuechain.report.html.markup import el, slug

_GAP = re.compile(r'<g class="gap" data-state="notMeasured">.*?</g>')
_RATE = re.compile(r'<g class="rate r-(\w+)" data-state="measured" data-value="([\d.]+)">')


def tally(
    passed: int = 0,
    failed: int = 0,
    not_measured: int = 0,
    reach_unknown: int = 0,
    not_reached: int = 0,
    not_applicable: int = 0,
    stage: Stage = Stage.CALL,
) -> StageTally:
    """A stage tally whose arithmetic holds (CONTRACT §5.1), from what happened to trials."""
    measured = passed + failed
    reached = measured + not_measured
    return StageTally(
        stage=stage,
        applicable=reached + not_reached + reach_unknown,
        reached=reached,
        not_reached=not_reached,
        reach_unknown=reach_unknown,
        measured=measured,
        passed=passed,
        failed=failed,
        not_measured=not_measured,
        not_applicable=not_applicable,
        excluded=Exclusions(
            **{
                k: v
                for k, v in {
                    "not_applicable": not_applicable,
                    "reach_unknown": reach_unknown,
                    "not_measured": not_measured,
                }.items()
                if v
            }
        ),
        reasons=[],
    )


@pytest.mark.parametrize(
    ("counts", "gaps"),
    [
        ({"passed": 3, "failed": 1}, set()),
        (
            {"not_measured": 3},
            {"measuredPassRate"},
        ),  # reached, none measured: coverage is 0/3
        ({"reach_unknown": 2}, {"measuredPassRate", "reachRate", "measurementCoverageRate"}),
        ({"not_applicable": 4}, {"measuredPassRate", "reachRate", "measurementCoverageRate"}),
        ({"not_reached": 2}, {"measuredPassRate", "measurementCoverageRate"}),  # reach 0/2
        ({"failed": 2}, set()),  # 0/2 is a measured zero, drawn as one
    ],
)
def test_rates_without_a_denominator_are_labelled_gaps(
    counts: dict[str, int], gaps: set[str]
) -> None:
    svg = rates_chart("c", [tally(**counts)])
    measured = {m[1] for m in _RATE.finditer(svg)}
    assert measured == {"measuredPassRate", "reachRate", "measurementCoverageRate"} - gaps
    assert len(_GAP.findall(svg)) == len(gaps)
    assert all(f">{NOT_MEASURED}</text>" in g for g in _GAP.findall(svg))


def test_a_measured_zero_is_a_zero_bar_with_its_arithmetic() -> None:
    svg = rates_chart("c", [tally(failed=2)])
    assert 'data-value="0.0"' in svg and "0/2 0.0%" in svg


@given(
    st.lists(
        st.tuples(*(st.integers(0, 5) for _ in range(6))),
        min_size=1,
        max_size=6,
    )
)
def test_every_rate_is_a_bar_or_a_labelled_gap(rows: list[tuple[int, ...]]) -> None:
    tallies = [tally(*row) for row in rows]
    svg = rates_chart("c", tallies)
    rates = [r for t in tallies for r in stage_rates(t).values()]
    not_measured = sum(isinstance(r, NotMeasuredRate) for r in rates)
    assert len(_GAP.findall(svg)) == not_measured
    values = sorted(float(m[2]) for m in _RATE.finditer(svg))
    assert values == pytest.approx(
        sorted(r.value for r in rates if not isinstance(r, NotMeasuredRate))
    )


@given(st.tuples(*(st.integers(0, 5) for _ in range(6))))
def test_funnel_marks_count_every_trial_once(row: tuple[int, ...]) -> None:
    svg = funnel_chart("f", [tally(*row)], sum(row))
    counts = {m[1]: int(m[2]) for m in re.finditer(r'data-state="(\w+)" data-count="(\d+)"', svg)}
    states = ("passed", "failed", "notMeasured", "reachUnknown", "notReached", "notApplicable")
    assert counts == {s: n for s, n in zip(states, row, strict=True) if n}
    if not any(row):  # no trial at the stage: said, not drawn as an empty bar
        assert ">no trial</text>" in svg


def test_the_funnel_labels_a_not_measured_pass_rate() -> None:
    svg = funnel_chart("f", [tally(not_measured=2, stage=Stage.USER_VALUE)], 2)
    assert 'class="lbl nm"' in svg and "pass not measured" in svg
    assert "User value: 2 not measured" in outline(svg)


def test_a_not_measured_trend_point_breaks_its_line_and_sits_in_the_band() -> None:
    points = [
        TrendPoint("a", "2026-01-01", 1.0, "2/2 100.0%"),
        TrendPoint("b", "2026-01-02", 0.5, "1/2 50.0%"),
        TrendPoint("c", "2026-01-03", None, NOT_MEASURED),
        TrendPoint("d", "2026-01-04", 1.0, "2/2 100.0%"),
        TrendPoint("e", "2026-01-05", 0.0, "0/2 0.0%"),
    ]
    svg = trend_chart("t", "pass rate", [("Tool call", points)])
    lines = re.findall(r'<polyline points="([^"]+)"', svg)
    assert [len(line.split()) for line in lines] == [2, 2]  # a–b, then d–e: not through c
    nm = re.findall(r'<g class="pt nm" data-state="notMeasured">.*?cy="([\d.]+)"', svg)
    zero = re.search(
        r"e \(2026-01-05\): 0/2 0.0%</title><circle cx=\"[\d.]+\" cy=\"([\d.]+)\"", svg
    )
    assert zero is not None and len(nm) == 1
    assert float(nm[0]) > float(zero[1])  # below the 0 % line, in its own band
    assert f">{NOT_MEASURED}</text>" in svg
    assert "Tool call · c (2026-01-03): not measured" in outline(svg)


def test_markup_escapes_text_and_attributes() -> None:
    assert (
        el("p", {"title": '"><x>'}, "<b>&") == '<p title="&quot;&gt;&lt;x&gt;">&lt;b&gt;&amp;</p>'
    )
    assert slug("<run/7 ü>") == "run-7" and slug("…") == "x"
