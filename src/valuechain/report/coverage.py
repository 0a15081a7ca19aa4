"""Coverage for people and programs: the coverage documents (JSON), the lint, the terminal view.

Built from the frames of `query.coverage` (the views ``suite_coverage`` and ``coverage_lint``).
Per run, per link: how many cases author a check that can decide it and which kinds; the
trials measured there (passed or failed) against notApplicable, notMeasured and notReached —
never folded together; the advisory and observation checks filed beside it, never counted.
A link no case can decide is UNMEASURED BY THIS SUITE with the kinds that would measure it;
connection (and, without catalogue checks, discovery) is the runner's to decide — said, not
flagged. Lines fit 80 columns.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from itertools import groupby
from typing import Any, Final

import orjson
import polars as pl
from rich.console import Group
from rich.text import Text

from valuechain.contract.coverage import CoverageRule, SuiteCoverage
from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.vocab import Stage
from valuechain.contract.words import number
from valuechain.report.columns import Col
from valuechain.report.tables import FittedTable

UNMEASURED: Final = "UNMEASURED"  # by this suite: no case can decide the link
RUNNER: Final = "runner"  # the runner decides it from the run's set-up
AUTHORED: Final = "authored"  # some case authors a check that can decide it
RULE_TEXT: Final = {
    CoverageRule.USER_VALUE_UNGRADABLE: "userValue is applicable but no check or judge of the "
    "case can grade it (it stays not measured); made applicable by",
    CoverageRule.TOOL_CALLED_WITH_ROW: "a gating toolCalledWith arrived as a predicate row, not "
    "as matcher expectations: it is graded at",
    CoverageRule.GATING_OBSERVATION: "an observation kind arrived gating (it must be advisory); "
    "derivation lets it decide",
}


def _run_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["suite_id"], row["run_id"]


def _link(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "stage": row["stage"],
        "authoringCases": row["authoring_cases"],
        "checkKinds": row["check_kinds"],
        "measured": row["measured"],
        "notApplicable": row["not_applicable"],
        "notMeasured": row["not_measured"],
        "advisory": row["advisory"],
        "unmeasuredBySuite": row["unmeasured_by_suite"],
        "suggestedKinds": row["suggested_kinds"],
    }


def coverage_documents(links: pl.DataFrame) -> list[dict[str, Any]]:
    """One ``{"suiteId", "runId", "links": [...]}`` per run, links in chain order."""
    return [
        {"suiteId": suite, "runId": run, "links": [_link(r) for r in rows]}
        for (suite, run), rows in groupby(links.iter_rows(named=True), key=_run_key)
    ]


def coverage_json(links: pl.DataFrame) -> bytes:
    """The coverage documents as the CLI prints them: one JSON array, one object per run."""
    return orjson.dumps(coverage_documents(links), option=orjson.OPT_INDENT_2) + b"\n"


def validated_documents(links: pl.DataFrame) -> list[SuiteCoverage]:
    """The coverage documents, each validated by its strict model."""
    return [SuiteCoverage.model_validate(doc) for doc in coverage_documents(links)]


def lint_json(lint: pl.DataFrame) -> bytes:
    """The lint findings: one JSON array of ``{"suiteId", "runId", "caseId", "rule", "stage",
    "kinds", "trials"}``."""
    findings = [
        {
            "suiteId": r["suite_id"],
            "runId": r["run_id"],
            "caseId": r["case_id"],
            "rule": r["rule"],
            "stage": r["stage"],
            "kinds": r["kinds"],
            "trials": r["trials"],
        }
        for r in lint.iter_rows(named=True)
    ]
    return orjson.dumps(findings, option=orjson.OPT_INDENT_2) + b"\n"


# --------------------------------------------------------------------------- the terminal
def _coverage(row: dict[str, Any]) -> tuple[str, str]:
    """Who decides the link, and the style it is printed in."""
    if row["check_kinds"]:
        return AUTHORED, ""
    if row["runner_decided"]:
        return RUNNER, ""
    return UNMEASURED, "bold red"


COUNTED: Final = ("authoring_cases", "measured", "not_applicable", "not_measured", "not_reached")
RUN_COLUMNS: Final = (
    Col("link"),
    *(
        Col(name, align="right")
        for name in ("cases", "measured", "n/a", "not measured", "not reached")
    ),
    Col("coverage"),
)


def _run_table(rows: list[dict[str, Any]]) -> FittedTable:
    """The run's six links in the one plain layout every table uses."""
    cells = [
        [
            STAGE_LABELS[Stage(r["stage"])],
            *(number(r[c]) for c in COUNTED),
            _coverage(r)[0],
        ]
        for r in rows
    ]
    styles = [{"coverage": _coverage(r)[1]} for r in rows]
    return FittedTable(list(RUN_COLUMNS), cells, styles=styles)


def _wrap(line: str) -> Text:
    return Text(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    "))


def _notes(rows: list[dict[str, Any]]) -> Iterator[Text]:
    head = rows[0]
    chained = sum(head[c] for c in ("measured", "not_applicable", "not_measured", "not_reached"))
    if chained < head["trials"]:
        yield Text(
            f"  {head['trials'] - chained} of {head['trials']} trials have no derived chain at "
            f"analyzer {STAGE_ANALYZER_VERSION}: counted on no link (valuechain recompute)",
            style="yellow",
        )
    for r in rows:
        label = STAGE_LABELS[Stage(r["stage"])]
        if r["check_kinds"]:
            yield _wrap(f"{label}: decided by {', '.join(r['check_kinds'])}")
        if r["advisory"]:
            yield _wrap(
                f"{label}: beside it, never counted: {', '.join(r['advisory'])} "
                f"({r['advisory_cases']} case{'s' * (r['advisory_cases'] != 1)})"
            )
        if r["unmeasured_by_suite"]:
            observed = (
                f" (its {r['measured']} measured trial{'s' * (r['measured'] != 1)} rest on "
                "no counted check)"
                if r["measured"]
                else ""
            )
            yield _wrap(
                f"{label}: {UNMEASURED} BY THIS SUITE: no case can decide it{observed}; "
                f"add {', '.join(r['suggested_kinds'])}"
            )
        elif r["runner_decided"] and not r["check_kinds"]:
            what = (
                f"; catalogue checks would grade it too: {', '.join(r['suggested_kinds'])}"
                if r["suggested_kinds"]
                else "; no check can be authored there"
            )
            yield _wrap(f"{label}: the runner decides it from the run's set-up{what}")


def _lint_lines(lint: list[dict[str, Any]]) -> Iterator[Text]:
    if not lint:
        return
    yield Text(f"  lint: {len(lint)} finding{'s' * (len(lint) != 1)}", style="bold yellow")
    for r in lint:
        subject = r["stage"] if r["rule"] != CoverageRule.USER_VALUE_UNGRADABLE else ""
        kinds = ", ".join(r["kinds"]) or "nothing the export names"
        what = f"{subject} ({kinds})" if subject else kinds
        yield _wrap(
            f"{r['case_id']} [{r['rule']}]: {RULE_TEXT[CoverageRule(r['rule'])]} {what}; "
            f"{r['trials']} trial{'s' * (r['trials'] != 1)}"
        )


def _lint_by_run(lint: pl.DataFrame) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    return {key: list(rows) for key, rows in groupby(lint.iter_rows(named=True), key=_run_key)}


def render_lint(lint: pl.DataFrame) -> Group:
    """The lint findings of each run, alone."""
    parts: list[Text] = []
    for (suite, run), findings in _lint_by_run(lint).items():
        parts.append(Text(f"suite {suite or '(none)'} · run {run}", style="bold"))
        parts.extend(_lint_lines(findings))
    return Group(*(parts or [Text("lint: no finding")]))


def render_coverage(links: pl.DataFrame, lint: pl.DataFrame) -> Group:
    """Per run: the six links with who decides them and the trial counts, then the notes
    (advisory checks, unmeasured links and what would measure them) and the lint."""
    parts: list[Any] = []
    lint_by_run = _lint_by_run(lint)
    if links.is_empty():
        parts.append(Text("no eval run in the store: nothing to cover", style="yellow"))
    for (suite, run), grouped in groupby(links.iter_rows(named=True), key=_run_key):
        rows = list(grouped)
        trials = rows[0]["trials"]
        if parts:
            parts.append(Text(""))
        parts.append(
            Text(
                f"suite {suite or '(none)'} · run {run} · {trials} trial{'s' * (trials != 1)} · "
                f"analyzer {STAGE_ANALYZER_VERSION}",
                style="bold",
            )
        )
        parts.append(_run_table(rows))
        parts.extend(_notes(rows))
        parts.extend(_lint_lines(lint_by_run.get((suite, run), [])))
    return Group(*parts)
