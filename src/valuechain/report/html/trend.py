"""The report's trend section: per partition, the three rates over time; beside them, the
runs that join no partition and why.

Partitions are the trend verb's (`query.trend`, overall slice): runs that share every parity
key, each run its own tally — never summed across runs (CONTRACT §5.8, §5.11). A run's
notMeasured rate is a point in the "not measured" band, its line broken there.
"""

from __future__ import annotations

from typing import Any, Final

import polars as pl

from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.vocab import Stage
from valuechain.query.trend import PARTITION_KEY
from valuechain.report.html.charts import NOT_MEASURED, RATE_NAMES, TrendPoint, trend_chart
from valuechain.report.html.gather import Partition
from valuechain.report.html.markup import Safe, el

# Why a run is kept out of every partition, in words (CONTRACT §5.11 self-blockers).
BLOCKER_WORDS: Final = {
    "missingRunGroup": "no run group id: nothing says which runs it repeats",
    "missingConfigIdentity": "no config revision: its configuration cannot be matched",
    "missingCaseSetIdentity": "no case-set fingerprint: its cases cannot be matched",
    "mixedSourceVersions": "its trials were derived by more than one analyzer or schema version",
    "provisional": "provisional: the run may still change",
}
_COLUMNS: Final = {
    "measuredPassRate": "measured_pass_rate",
    "reachRate": "reach_rate",
    "measurementCoverageRate": "measurement_coverage_rate",
}
_KEY_WORDS: Final = ("group", "config", "cases", "analyzer", "measurements")


def _day(value: object) -> str:
    return "—" if value is None else str(value)[:10]


def _point(row: dict[str, Any] | None, run_id: str, day: str, column: str) -> TrendPoint:
    if row is None:
        return TrendPoint(run_id, day, None, "no such stage in this run")
    if row[f"{column}_state"] != "measured":
        return TrendPoint(run_id, day, None, NOT_MEASURED)
    n, d = row[f"{column}_numerator"], row[f"{column}_denominator"]
    return TrendPoint(run_id, day, float(row[column]), f"{n}/{d} {row[column]:.1%}")


def _series(partition: Partition, key: str) -> list[tuple[str, list[TrendPoint]]]:
    column = _COLUMNS[key]
    rows = list(partition.rows.iter_rows(named=True))
    by = {(r["run_id"], r["stage"]): r for r in rows}
    days = {r["run_id"]: _day(r["completed_at"]) for r in rows}
    return [
        (
            STAGE_LABELS[stage],
            [_point(by.get((run, stage.value)), run, days[run], column) for run in partition.runs],
        )
        for stage in Stage
    ]


def _stage_legend() -> Safe:
    return el(
        "ul",
        {"class": "legend stages"},
        *(
            el("li", None, el("span", {"class": f"swatch line c{k}"}), STAGE_LABELS[stage])
            for k, stage in enumerate(Stage)
        ),
        el(
            "li",
            {"data-state": "notMeasured"},
            el("span", {"class": "swatch nm-dot"}),
            "not measured (line broken)",
        ),
    )


def partition_block(index: int, total: int, partition: Partition) -> Safe:
    """One partition: its keys, its runs, a chart per rate."""
    prefix = f"trend-{index}"
    keys = " · ".join(
        f"{word} {partition.key[column]}"
        for word, column in zip(_KEY_WORDS, PARTITION_KEY, strict=True)
    )
    runs = len(partition.runs)
    charts = [
        el(
            "figure",
            None,
            el("figcaption", None, el("b", None, name), el("span", {"class": "formula"}, formula)),
            trend_chart(
                f"{prefix}-{key}",
                f"{name} per run over time, one line per stage; partition {index}",
                _series(partition, key),
            ),
        )
        for key, name, formula in RATE_NAMES
    ]
    return el(
        "div",
        {"class": "partition", "id": prefix},
        el("h3", None, f"Partition {index}/{total}"),
        el("p", {"class": "keys"}, keys),
        el(
            "p",
            {"class": "note"},
            f"{runs} run{'s' * (runs != 1)}, oldest first: ",
            ", ".join(partition.runs),
        ),
        _stage_legend(),
        el("div", {"class": "charts"}, *charts),
    )


def _outside(outside: pl.DataFrame) -> Safe:
    blocked = outside.filter(pl.col("blockers").is_not_null())
    unmeasured = outside.filter(pl.col("blockers").is_null())
    parts: list[object] = [el("h3", None, f"Blocked runs ({blocked.height})")]
    if blocked.is_empty():
        parts.append(el("p", {"class": "note"}, "none: every final document joins a partition"))
    for row in blocked.iter_rows(named=True):
        parts.append(
            el(
                "div",
                {"class": "blocked", "data-run": row["run_id"]},
                el("code", None, row["run_id"]),
                el("span", {"class": "note"}, f" {_day(row['completed_at'])}"),
                el(
                    "ul",
                    None,
                    *(
                        el("li", None, el("code", None, b), " — ", BLOCKER_WORDS.get(b, b))
                        for b in row["blockers"]
                    ),
                ),
            )
        )
    if unmeasured.height:
        parts.append(el("h3", None, f"Unmeasured runs ({unmeasured.height})"))
        for row in unmeasured.iter_rows(named=True):
            why = row["document_blocker"] or "no derived document at the current analyzer"
            parts.append(
                el(
                    "div",
                    {"class": "blocked", "data-run": row["run_id"]},
                    el("code", None, row["run_id"]),
                    f" — {why}",
                )
            )
    return el("aside", {"class": "outside", "id": "trend-outside"}, *parts)


def trend_section(partitions: tuple[Partition, ...], outside: pl.DataFrame) -> Safe:
    """Every partition's charts, and beside them the runs outside every partition."""
    blocks: list[object] = [
        partition_block(i, len(partitions), p) for i, p in enumerate(partitions, 1)
    ]
    if not blocks:
        blocks.append(el("p", {"class": "note"}, "no partition: no final, comparable document"))
    return el(
        "section",
        {"class": "trend", "id": "trend"},
        el("h2", None, "Trend — derived chains at the current analyzer, overall slice"),
        el(
            "div",
            {"class": "trend-grid"},
            el("div", {"class": "partitions"}, *blocks),
            _outside(outside),
        ),
    )
