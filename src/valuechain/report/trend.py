"""Trends for people and programs: the trend document (JSON) and the terminal view.

Both are built from the same two frames (`query.trend`): the partitioned series and the runs
outside every partition. Each run keeps its own rates — nothing is summed or merged across
runs (CONTRACT §5.8). On screen, each series (partition × slice × stage) is a sparkline of the
measured pass rate, oldest run first, so a drift is seen at a glance; a notMeasured point is
its own glyph (``·``), never a low bar, and the latest rate keeps its arithmetic (or says
``not measured``). Lines fit 80 columns.
"""

from __future__ import annotations

import datetime as dt
import textwrap
from collections.abc import Iterator
from itertools import groupby
from typing import Any, Final

import orjson
import polars as pl
from rich.console import Group
from rich.text import Text

from valuechain.contract.trend import TrendDocument
from valuechain.contract.words import plural
from valuechain.query.trend import PARTITION_KEY, TREND_SLICES, TrendRequest
from valuechain.report.formats import json_value
from valuechain.report.funnel import NOT_MEASURED, UNLABELLED

BARS: Final = "▁▂▃▄▅▆▇█"
NOT_MEASURED_POINT: Final = "·"
ABSENT_POINT: Final = " "
SPARK_WIDTH: Final = 40  # points shown per series; older runs are elided with "…"
RATES: Final = (  # (column prefix in `stage_trend`, key in the document)
    ("measured_pass_rate", "measuredPassRate"),
    ("reach_rate", "reachRate"),
    ("measurement_coverage_rate", "measurementCoverageRate"),
)
_RATE_COLUMNS: Final = {
    name: (rate, f"{rate}_state", f"{rate}_numerator", f"{rate}_denominator")
    for rate, name in RATES
}
_KEY_NAMES: Final = (
    "runGroupId",
    "configRevision",
    "caseSetFingerprint",
    "stageAnalyzerVersion",
    "measurementsSchemaVersion",
)
_EXCLUSIONS: Final = (
    ("not_applicable", "notApplicable"),
    ("reach_unknown", "reachUnknown"),
    ("not_measured", "notMeasured"),
)


# --------------------------------------------------------------------------- the document
def _rates(row: dict[str, Any]) -> dict[str, Any]:
    """The three rate envelopes (§5.8) from their columns; the row's exclusion counts (zero
    counts omitted) are attached to each, as the funnel's rates attach them."""
    exclusions = {key: row[column] for column, key in _EXCLUSIONS if row[column]}
    return {
        name: {
            "state": row[state],
            "value": row[value],
            "numerator": row[numerator],
            "denominator": row[denominator],
            "exclusions": exclusions,
        }
        for name, (value, state, numerator, denominator) in _RATE_COLUMNS.items()
    }


def _slice(row: dict[str, Any]) -> dict[str, Any]:
    dimension = row["slice_dimension"]
    if dimension == "intent":
        return {"dimension": dimension, "intent": row["intent"]}
    if dimension == "model":
        return {"dimension": dimension, "provider": row["provider"], "model": row["model"]}
    if dimension == "host":
        return {"dimension": dimension, "hostKey": row["host_key"]}
    return {"dimension": dimension}


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[column] for column in PARTITION_KEY)


def _moment(moment: dt.datetime | None) -> str | None:
    return None if moment is None else json_value(moment)


def _document(series: pl.DataFrame, outside: pl.DataFrame) -> dict[str, Any]:
    """The trend document as plain JSON-ready values (the model's shape, camelCase keys)."""
    partitions = []
    for key, rows in groupby(series.iter_rows(named=True), key=_key):
        runs = [
            {
                "runId": run_id,
                "completedAt": _moment(run_rows[0]["completed_at"]),
                "stages": [{"stage": r["stage"], "slice": _slice(r)} | _rates(r) for r in run_rows],
            }
            for run_id, grouped in groupby(rows, key=lambda r: r["run_id"])
            for run_rows in [list(grouped)]
        ]
        keys = dict(zip(_KEY_NAMES, key, strict=True))
        partitions.append({"key": keys, "runs": runs})
    outside_rows = list(outside.iter_rows(named=True))
    blocked = [
        {"runId": r["run_id"], "blockers": r["blockers"]}
        | ({"hint": r["hint"]} if r.get("hint") else {})
        for r in outside_rows
        if r["blockers"] is not None
    ]
    unmeasured = [
        {"runId": r["run_id"]}
        | ({"documentBlocker": r["document_blocker"]} if r["document_blocker"] else {})
        for r in outside_rows
        if r["blockers"] is None
    ]
    return {"partitions": partitions, "blocked": blocked, "unmeasured": unmeasured}


def trend_json(series: pl.DataFrame, outside: pl.DataFrame) -> bytes:
    """The trend document as the CLI prints it (indented JSON). Not validated here: checking
    every run's rates with the strict model costs seconds at 10,000 runs (bench/trend.py);
    `trend_document` validates the same bytes, and the tests hold the two together."""
    return orjson.dumps(_document(series, outside), option=orjson.OPT_INDENT_2) + b"\n"


def trend_document(series: pl.DataFrame, outside: pl.DataFrame) -> TrendDocument:
    """The trend document of the two frames, validated by its strict model."""
    return TrendDocument.model_validate_json(trend_json(series, outside))


# --------------------------------------------------------------------------- the terminal
Point = dict[str, Any] | None  # one run's row of a series; None: the slice is absent there


def _glyph(point: Point) -> str:
    if point is None:
        return ABSENT_POINT
    value = point["measured_pass_rate"]
    if point["measured_pass_rate_state"] != "measured" or value is None:
        return NOT_MEASURED_POINT
    if value >= 1:  # only a full pass rate is a full bar: 87.5 % is not 100 %
        return BARS[-1]
    return BARS[min(len(BARS) - 2, int(value * (len(BARS) - 1)))]


def sparkline(points: list[Point], width: int = SPARK_WIDTH) -> str:
    """One glyph per run: a bar of seven heights for a measured pass rate below 100 % (the
    eighth, full, for 100 % only), ``·`` for notMeasured, a blank where the run has no such
    slice; the oldest elided past ``width``."""
    glyphs = [_glyph(p) for p in points]
    return "…" + "".join(glyphs[-(width - 1) :]) if len(glyphs) > width else "".join(glyphs)


def _latest(point: Point) -> str:
    """The latest run's pass rate with its arithmetic, or why there is none."""
    if point is None:
        return "no such slice"
    if point["measured_pass_rate_state"] != "measured":
        return NOT_MEASURED
    n, d = point["measured_pass_rate_numerator"], point["measured_pass_rate_denominator"]
    return f"{n}/{d} {point['measured_pass_rate']:6.1%}"


def drift_arrow(points: list[Point]) -> str:
    """The latest run against the one before it, when both are measured: ``↑ ↓ →``."""
    values = [
        None
        if p is None or p["measured_pass_rate_state"] != "measured"
        else p["measured_pass_rate"]
        for p in points[-2:]
    ]
    if len(values) < 2 or values[0] is None or values[1] is None:
        return " "
    return "↑" if values[1] > values[0] else "↓" if values[1] < values[0] else "→"


def _series_title(row: dict[str, Any]) -> str | None:
    dimension = row["slice_dimension"]
    if dimension == "overall":
        return None
    if dimension == "intent":
        return f"intent: {UNLABELLED if row['intent'] is None else row['intent']}"
    if dimension == "model":
        return f"model: {row['provider']} / {row['model']}"
    return f"host: {row['host_key']}"


def _span(rows: list[dict[str, Any]]) -> str:
    moments = [r["completed_at"] for r in rows if r["completed_at"] is not None]
    if not moments:
        return "no completion times"
    first, last = _day(min(moments)), _day(max(moments))
    return first if first == last else f"{first} → {last}"


def _day(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d")


def _slice_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """A slice's identity across runs (its index differs from run to run), in §5.2 order."""
    return (
        TREND_SLICES.index(row["slice_dimension"]),
        row["intent"] is None,
        *(row[c] or "" for c in ("intent", "provider", "model", "host_key")),
    )


def _partition_lines(index: int, total: int, rows: list[dict[str, Any]]) -> Iterator[Text]:
    head = rows[0]
    runs = list(dict.fromkeys(r["run_id"] for r in rows))  # completion order, from the query
    yield Text(
        f"partition {index}/{total}: group {head['run_group_id']} · config "
        f"{head['config_revision']} · cases {head['case_set_fingerprint']}",
        style="bold",
    )
    yield Text(
        f"  analyzer {head['stage_analyzer_version']} · measurements "
        f"{head['measurements_schema_version']} · {plural(len(runs), 'run')}, "
        f"{_span(rows)}"
    )
    ordered = sorted(rows, key=lambda r: (_slice_key(r), r["stage_index"]))  # stable: by run
    for _, slice_rows in groupby(ordered, key=_slice_key):
        slice_list = list(slice_rows)
        title = _series_title(slice_list[0])
        if title is not None:
            yield Text(f"  {title}", style="italic")
        for _, stage_rows in groupby(slice_list, key=lambda r: r["stage_index"]):
            by_run = {r["run_id"]: r for r in stage_rows}
            points = [by_run.get(run) for run in runs]  # None: the slice is absent in that run
            stage = next(iter(by_run.values()))["stage"]
            yield Text(
                f"  {stage:<11}{sparkline(points):<{SPARK_WIDTH}} {_latest(points[-1]):>18} "
                f"{drift_arrow(points)}"
            )


def render_trend(series: pl.DataFrame, outside: pl.DataFrame, request: TrendRequest) -> Group:
    """Every partition's series, then the runs outside them, for an 80-column terminal."""
    lines: list[Text] = [
        Text(
            f"trend · {request.chain_source} chains @ analyzer {request.analyzer_version} · "
            f"slice {request.slice_dimension}",
            style="bold",
        ),
        Text("measured pass rate per run, oldest first · right: latest run, ↑↓→ vs previous"),
        Text(
            f"{BARS[0]}…{BARS[-2]} under 100 % · {BARS[-1]} 100 % · "
            f"{NOT_MEASURED_POINT} not measured · blank: the run has no such slice"
        ),
    ]
    rows = list(series.iter_rows(named=True))
    partitions = [list(group) for _, group in groupby(rows, key=_key)]
    if not partitions:
        lines.append(Text("no partition: no final, comparable document matches", style="yellow"))
    for index, partition in enumerate(partitions, 1):
        lines.append(Text(""))
        lines.extend(_partition_lines(index, len(partitions), partition))
    lines.extend(_outside_lines(outside, request))
    return Group(*lines)


def _outside_lines(outside: pl.DataFrame, request: TrendRequest) -> Iterator[Text]:
    blocked = outside.filter(pl.col("blockers").is_not_null())
    unmeasured = outside.filter(pl.col("blockers").is_null())
    if blocked.height:
        yield Text("")
        yield Text(
            f"blocked: {plural(blocked.height, 'run')} "
            f"{'joins' if blocked.height == 1 else 'join'} no partition (parity blockers)",
            style="bold yellow",
        )
        for row in blocked.iter_rows(named=True):
            line = f"{row['run_id']}: {', '.join(row['blockers'])}"
            yield Text(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    "))
            if row.get("hint"):
                yield Text(
                    textwrap.fill(
                        row["hint"], 80, initial_indent="    hint: ", subsequent_indent="      "
                    )
                )
    if unmeasured.height:
        yield Text("")
        yield Text(
            f"unmeasured: {plural(unmeasured.height, 'run')} without a {request.chain_source} "
            "document "
            f"at analyzer {request.analyzer_version}",
            style="bold yellow",
        )
        for row in unmeasured.iter_rows(named=True):
            why = f" ({row['document_blocker']})" if row["document_blocker"] else ""
            yield Text(f"  {row['run_id']}{why}")
