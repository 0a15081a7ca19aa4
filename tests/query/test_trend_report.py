"""The trend's two faces: the JSON document (golden, strict model) and the 80-column view."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pydantic
import pytest
from analytics_store import Funnels
from rich.console import Console
from trend_store import many_runs_store

from valuechain.contract.trend import BlockedRun, TrendDocument
from valuechain.query.trend import runs_outside_partitions, trend_frame, trend_request
from valuechain.report.trend import (
    NOT_MEASURED_POINT,
    drift_arrow,
    render_trend,
    sparkline,
    trend_document,
    trend_json,
)

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "trend_partitions"


def frames(funnels: Funnels, **kwargs: Any) -> tuple[Any, Any, Any]:
    request = trend_request(**kwargs)
    return (
        trend_frame(funnels.con, request),
        runs_outside_partitions(funnels.con, request),
        request,
    )


def screen(funnels: Funnels, **kwargs: Any) -> str:
    series, outside, request = frames(funnels, **kwargs)
    console = Console(file=io.StringIO(), width=80, color_system=None, highlight=False)
    console.print(render_trend(series, outside, request))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def point(rate: float | None) -> dict[str, Any]:
    return {
        "measured_pass_rate": rate,
        "measured_pass_rate_state": "notMeasured" if rate is None else "measured",
    }


@pytest.mark.parametrize(
    ("rates", "expected"),
    [
        ([0.0, 0.5, 1.0], "▁▄█"),
        ([None, 0.0], f"{NOT_MEASURED_POINT}▁"),  # not measured is never a low bar
        ([0.124, 0.125, 0.99], "▁▁▇"),
        ([0.143, 0.875, 0.999, 1.0], "▂▇▇█"),  # 87.5 % is not drawn as 100 %
        ([], ""),
    ],
)
def test_sparkline_glyphs(rates: list[float | None], expected: str) -> None:
    assert sparkline([point(r) for r in rates]) == expected


def test_sparkline_marks_an_absent_slice_blank_and_elides_the_oldest() -> None:
    assert sparkline([point(1.0), None, point(1.0)]) == "█ █"
    long = sparkline([point(0.0)] * 5 + [point(1.0)] * 50, width=40)
    assert long == "…" + "█" * 39


@pytest.mark.parametrize(
    ("rates", "arrow"),
    [
        ([0.5, 0.75], "↑"),
        ([0.75, 0.5], "↓"),
        ([0.5, 0.5], "→"),
        ([0.5, None], " "),  # the latest is not measured: no direction to claim
        ([None, 0.5], " "),
        ([0.5], " "),
    ],
)
def test_drift_arrow(rates: list[float | None], arrow: str) -> None:
    assert drift_arrow([point(r) for r in rates]) == arrow


def test_table_is_golden_and_fits_80_columns(trends: Funnels, update_golden: bool) -> None:
    text = screen(trends)
    assert all(len(line) <= 80 for line in text.splitlines())
    golden = GOLDEN / "trend.txt"
    if update_golden:
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_table_draws_not_measured_apart_from_a_low_bar(trends: Funnels) -> None:
    lines = {line.split()[0]: line for line in screen(trends).splitlines()[6:12]}
    assert "██·" in lines["userValue"] or "█·█" in lines["userValue"]  # m-second: n/m
    assert "▁" not in lines["userValue"]


def test_table_of_many_runs_stays_within_80_columns() -> None:
    with many_runs_store(150) as funnels:
        text = screen(funnels, slice="intent")
        assert all(len(line) <= 80 for line in text.splitlines())
        assert "…" in text and "intent: (unlabelled)" in text
        assert "blocked: 15 runs join" in text


def test_json_is_golden_and_valid_against_the_model(trends: Funnels, update_golden: bool) -> None:
    series, outside, _ = frames(trends)
    data = trend_json(series, outside)
    golden = GOLDEN / "trend.json"
    if update_golden:
        golden.write_bytes(data)
    assert data == golden.read_bytes()
    document = trend_document(series, outside)
    assert document == TrendDocument.model_validate_json(golden.read_bytes())


def test_json_keeps_not_measured_as_null_and_blockers_in_order(trends: Funnels) -> None:
    document = orjson.loads(trend_json(*frames(trends)[:2]))
    (partition,) = [
        p
        for p in document["partitions"]
        if p["key"]["configRevision"] == "config-1" and p["key"]["runGroupId"] == "group-1"
    ]
    assert [r["runId"] for r in partition["runs"]] == ["z-first", "m-second", "a-third"]
    second = partition["runs"][1]
    assert second["completedAt"] == "2026-01-02T00:00:00.000000Z"
    user_value = second["stages"][5]
    assert user_value["stage"] == "userValue" and user_value["slice"] == {"dimension": "overall"}
    assert user_value["measuredPassRate"] == {
        "state": "notMeasured",
        "value": None,
        "numerator": 0,
        "denominator": 0,
        "exclusions": {"reachUnknown": 2},
    }
    blocked = {b["runId"]: b["blockers"] for b in document["blocked"]}
    assert blocked["bare"] == [
        "missingRunGroup",
        "missingConfigIdentity",
        "missingCaseSetIdentity",
        "provisional",
    ]
    assert {"runId": "nosuite", "documentBlocker": "suiteIdMissing"} in document["unmeasured"]
    assert {"runId": "old"} in document["unmeasured"]


@pytest.mark.parametrize(
    "blocked",
    [
        {"runId": "r", "blockers": []},  # a blocked run always says why
        {"runId": "r", "blockers": ["tooOld"]},  # only §5.11's blockers
        {"runId": "", "blockers": ["provisional"]},
    ],
)
def test_the_model_refuses_a_blocked_run_without_a_known_blocker(blocked: dict[str, Any]) -> None:
    with pytest.raises(pydantic.ValidationError):
        BlockedRun.model_validate_json(orjson.dumps(blocked))


def test_the_model_refuses_a_not_measured_rate_with_a_number(trends: Funnels) -> None:
    document = orjson.loads(trend_json(*frames(trends)[:2]))
    rate = document["partitions"][0]["runs"][1]["stages"][5]["measuredPassRate"]
    assert rate["state"] == "notMeasured"
    rate["value"] = 0
    with pytest.raises(pydantic.ValidationError):
        TrendDocument.model_validate_json(orjson.dumps(document))
