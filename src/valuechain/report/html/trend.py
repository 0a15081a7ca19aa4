"""The report's trend section: per partition, the three rates over time; beside them, the
runs that join no partition and why.

Partitions are the trend verb's (`query.trend`, overall slice): runs that share every parity
key, each run its own tally — never summed across runs (CONTRACT §5.8, §5.11). A run's
notMeasured rate is a point in the "not measured" band, its line broken there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.vocab import Stage
from valuechain.query.trend import PARTITION_KEY
from valuechain.report.html.charts import NOT_MEASURED, RATE_NAMES, TrendPoint, trend_chart
from valuechain.report.html.gather import Partition
from valuechain.report.html.markup import Safe, el, join

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
# Partitions shown open when there are at most this many; beyond, the longest one only.
OPEN_PARTITIONS: Final = 4


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


def _one_run(prefix: str, partition: Partition) -> Safe:
    """A partition of one run: its rates per stage as values — a point, not a line."""
    run = partition.runs[0]
    rows = []
    for stage in Stage:
        cells = []
        for key, _name, _formula in RATE_NAMES:
            [(_, points)] = [s for s in _series(partition, key) if s[0] == STAGE_LABELS[stage]]
            point = points[0]
            nm = point.value is None
            cells.append(
                el(
                    "td",
                    {"class": "nm" if nm else "n", "data-state": "notMeasured" if nm else None},
                    point.label,
                )
            )
        rows.append(el("tr", None, el("td", None, STAGE_LABELS[stage]), *cells))
    return el(
        "table",
        {"id": f"{prefix}-one-run", "class": "one-run"},
        el(
            "caption",
            None,
            f"one run: {run} ({_day(partition.rows['completed_at'].max())}) — its rates per "
            "stage; no line to draw",
        ),
        el(
            "thead",
            None,
            el("tr", None, el("th", None, "stage"), *(el("th", None, n) for _, n, _ in RATE_NAMES)),
        ),
        el("tbody", None, *rows),
    )


def partition_block(
    index: int,
    total: int,
    partition: Partition,
    *,
    open_: bool = True,
    suite_names: Mapping[str, str] | None = None,
) -> Safe:
    """One partition: its keys, its runs, a chart per rate (a table for a single run);
    collapsible (``open_``: shown open)."""
    prefix = f"trend-{index}"
    keys = " · ".join(
        f"{word} {partition.key[column]}"
        for word, column in zip(_KEY_WORDS, PARTITION_KEY, strict=True)
    )
    runs = len(partition.runs)
    suites = [str(x) for x in partition.rows["suite_id"].unique(maintain_order=True).drop_nulls()]
    suite = ", ".join((suite_names or {}).get(x) or x for x in suites) or "no suite"
    first, last = (
        _day(partition.rows["completed_at"].min()),
        _day(partition.rows["completed_at"].max()),
    )
    body: object
    if runs == 1:
        body = _one_run(prefix, partition)
    else:
        body = join(
            [
                _stage_legend(),
                el(
                    "div",
                    {"class": "charts"},
                    *(
                        el(
                            "figure",
                            None,
                            el(
                                "figcaption",
                                None,
                                el("b", None, name),
                                el("span", {"class": "formula"}, formula),
                            ),
                            trend_chart(
                                f"{prefix}-{key}",
                                f"{name} per run over time, one line per stage; partition {index}",
                                _series(partition, key),
                            ),
                        )
                        for key, name, formula in RATE_NAMES
                    ),
                ),
            ]
        )
    return el(
        "div",
        {"class": "partition", "id": prefix},
        el(
            "details",
            {"open": open_},
            el(
                "summary",
                None,
                el("h3", None, f"Partition {index}/{total}"),
                el(
                    "span",
                    {"class": "note", "data-suite": ",".join(suites)},
                    f" {suite} · {runs} run{'s' * (runs != 1)}, {first}"
                    + (f" to {last}" if runs > 1 else ""),
                ),
            ),
            el("p", {"class": "keys"}, keys),
            el(
                "p",
                {"class": "note"},
                f"{runs} run{'s' * (runs != 1)}, oldest first: ",
                ", ".join(partition.runs),
            ),
            body,
        ),
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


def trend_section(
    partitions: tuple[Partition, ...],
    outside: pl.DataFrame,
    suite_names: Mapping[str, str] | None = None,
) -> Safe:
    """Every partition's charts (``suite_names``: suite id → name, for their headings), and
    beside them the runs outside every partition."""
    longest = max(range(len(partitions)), key=lambda i: len(partitions[i].runs), default=0)
    blocks: list[object] = [
        partition_block(
            i,
            len(partitions),
            p,
            open_=len(partitions) <= OPEN_PARTITIONS or i - 1 == longest,
            suite_names=suite_names,
        )
        for i, p in enumerate(partitions, 1)
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
