"""A run's coverage of its suite in the report: per link, the checks its cases author that can
decide it (or that the runner decides it, or that nothing does — unmeasured by this suite),
and how many of the run's trials were measured, not applicable, not measured, not reached."""

from __future__ import annotations

from typing import Any

from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.vocab import Stage
from valuechain.contract.words import plural
from valuechain.report.html.gather import RunReport
from valuechain.report.html.markup import Safe, el, join


def _coverage_cell(row: dict[str, Any]) -> Safe:
    if row["unmeasured_by_suite"]:
        kinds = ", ".join(row["suggested_kinds"]) or "no check kind"
        return el("td", {"class": "unmeasured-link"}, "unmeasured by this suite — would: ", kinds)
    if row["check_kinds"]:
        return el(
            "td", None, f"{plural(row['authoring_cases'], 'case')}: ", ", ".join(row["check_kinds"])
        )
    if row["runner_decided"]:
        return el("td", None, "the runner decides it from the run's set-up")
    return el("td", None, "—")


def coverage_section(prefix: str, report: RunReport) -> Safe:
    """The run's suite coverage, link by link: what can decide it, and its trials' states."""
    head = el("h3", None, "Coverage of its suite")
    if report.coverage is None or report.coverage.is_empty():
        return join(
            [head, el("p", {"class": "note"}, "no coverage: not an eval run (no suite id)")]
        )
    rows = []
    for r in report.coverage.iter_rows(named=True):
        rows.append(
            el(
                "tr",
                None,
                el("td", None, STAGE_LABELS[Stage(r["stage"])]),
                _coverage_cell(r),
                *(
                    el("td", {"class": "n"}, r[c])
                    for c in ("measured", "not_applicable", "not_measured", "not_reached")
                ),
                el("td", None, ", ".join(r["advisory"]) or "—"),
            )
        )
    heads = (
        "link",
        "what can decide it",
        "measured",
        "not applicable",
        "not measured",
        "not reached",
        "advisory (never counted)",
    )
    return join(
        [
            head,
            el(
                "table",
                {"id": f"{prefix}-coverage", "class": "coverage"},
                el("caption", None, "trials per link in this run; checks its cases author"),
                el("thead", None, el("tr", None, *(el("th", None, h) for h in heads))),
                el("tbody", None, *rows),
            ),
        ]
    )
