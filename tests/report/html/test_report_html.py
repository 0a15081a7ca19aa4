"""The HTML report end to end: its golden outline for the demo store, and what each section
says for runs the trend tests know (partitions, blocked, unmeasured, a notMeasured stage)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from analytics_store import Funnels, TrialSpec
from report_outline import outline, report_of

from valuechain.errors import UsageError
from valuechain.store import Database

ODD = '<b>x</b>&"'  # a run id that would be markup if it were not escaped
GOLDEN = Path(__file__).resolve().parents[3] / "fixtures" / "golden" / "report_html"


def test_demo_report_outline_is_golden(demo_store: Path, update_golden: bool) -> None:
    text = outline(report_of(demo_store))
    golden = GOLDEN / "demo_outline.txt"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_page_is_self_contained(demo_store: Path) -> None:
    page = report_of(demo_store)
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert not re.search(r"""(?:src|href)=["'](?!#)""", page)  # only in-page anchors
    assert re.search(r"url\((?!#)", page) is None  # patterns only, never a fetched resource
    assert "default-src 'none'" in html.unescape(page)  # and the browser loads nothing
    assert "prefers-color-scheme: dark" in page


def test_each_run_has_every_section(trend_store: Path) -> None:
    text = outline(report_of(trend_store, runs=["z-first", "nosuite"]))
    sections = text.split("section #")[1:]
    assert [s.split("\n", 1)[0] for s in sections] == [
        "overview", "run-1-z-first", "run-2-nosuite", "trend"
    ]  # fmt: skip
    assert (
        "| nosuite | — | 2026-01-02 00:00:00 UTC | notEstablished | — | unmeasured (no document)"
        in text
    )
    first, unmeasured = sections[1], sections[2]
    for heading in ("Funnel", "Rates per stage", "Top failing reasons", "Verdict", "Coverage"):
        assert f"### {heading}" in first
    assert "Tool call: 1 failed" in first and "Response: 1 not reached" in first
    assert "| Tool call | the call arguments did not match what the case expects | 1 |" in first
    assert "> UNMEASURED: run nosuite has no stage analytics" in unmeasured
    assert "(suiteIdMissing)" in unmeasured
    assert "chart #" not in unmeasured  # a missing document is not an empty funnel
    assert "no coverage: not an eval run" in unmeasured


def test_a_not_measured_stage_is_labelled_in_every_chart(trend_store: Path) -> None:
    text = outline(report_of(trend_store, runs=["m-second"]))
    rates = text.split("chart #run-1-m-second-rates", 1)[1].split("###", 1)[0]
    assert rates.count("not measured: nothing to divide (0/0 is not a number)") == 3
    assert "User value pass rate" not in rates  # no bar at all for it, not a 0 % bar
    assert "User value · m-second (2026-01-02): not measured" in text  # the trend point


def test_trend_partitions_and_the_runs_beside_them(trend_store: Path) -> None:
    text = outline(report_of(trend_store))
    trend = text.split("section #trend", 1)[1]
    assert [line for line in trend.splitlines() if line.startswith("### Partition")] == [
        f"### Partition {i}/4" for i in range(1, 5)
    ]
    blocked = trend.split("aside #trend-outside", 1)[1]
    assert [line.split()[-1] for line in blocked.splitlines() if "  blocked " in line] == [
        "bare", "nogroup", "prov", "old", "nosuite"
    ]  # fmt: skip
    assert "- provisional — provisional: the run may still change" in blocked
    assert "- missingRunGroup — no run group id: nothing says which runs it repeats" in blocked


def test_a_suite_report_holds_its_runs_and_their_partitions_only(trend_store: Path) -> None:
    text = outline(report_of(trend_store, suite="suite-2"))
    assert re.findall(r"^section #run-\d+-(\S+)", text, re.M) == ["other"]
    assert "### Partition 1/1" in text and "other (2026-01-05)" in text


def test_failing_reasons_come_with_their_next_action(demo_store: Path) -> None:
    text = outline(report_of(demo_store))
    reasons = text.split("table #run-1-run_7d2d741dbb-reasons", 1)[1].split("###", 1)[0]
    assert (
        "| Selection | a tool call was made that the case did not expect | 1 | "
        "review tool selection and the tool catalog"
    ) in reasons


def test_everything_from_the_store_is_escaped(tmp_path: Path) -> None:
    path = tmp_path / "odd.duckdb"
    with Database(path) as db:
        Funnels(db).add(TrialSpec("t0", run_id=ODD, chain="P,P,F,NR,NR,NR")).materialize()
    page = report_of(path)
    assert "<b>x</b>" not in page
    assert "&lt;b&gt;x&lt;/b&gt;&amp;" in page
    assert 'data-run="&lt;b&gt;x&lt;/b&gt;&amp;&quot;"' in page


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runs": ["nope"]}, "nope: no such run in the store"),
        ({"suite": "nope"}, "--suite nope: no eval run of this suite in the store"),
        ({"runs": ["z-first"], "suite": "suite-1"}, "--runs and --suite: name one or the other"),
    ],
)
def test_bad_requests_say_what_is_wrong(
    trend_store: Path, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        report_of(trend_store, **kwargs)
