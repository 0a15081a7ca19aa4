"""The report's sections for one run: header, funnel, rates, failing reasons, verdict, coverage.

Each function returns `Safe` markup built with `el` (every value escaped). The run's numbers
are its analytics document's and its decision summary's, never re-derived; a run without a
document is UNMEASURED with the store's reason, never an empty funnel (CONTRACT §5.10).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from pydantic import MISSING

from valuechain.contract.documents import SliceRow, StageAnalyticsV1
from valuechain.contract.labels import (
    CATEGORY_LABELS,
    REASON_LABELS,
    STAGE_LABELS,
    VERDICT_DECISION_REASON_LABELS,
)
from valuechain.contract.rates import NotMeasuredRate
from valuechain.contract.verdict_diagnostics import Diagnostics, VerifiedChain
from valuechain.contract.vocab import Stage, StageState
from valuechain.report.html.charts import (
    MARKS,
    funnel_chart,
    rate_text,
    rates_chart,
    stage_rates,
)
from valuechain.report.html.gather import RunReport
from valuechain.report.html.markup import Safe, el, join
from valuechain.report.verdict import headline, measured_line

TOP_REASONS: Final = 5


def _day(value: object) -> str:
    return "not completed" if value is None else str(value)[:19].replace("T", " ") + " UTC"


def _meta(report: RunReport) -> Safe:
    row = report.row
    facts = [
        ("suite", row["suite_id"] or "no suite id (not an eval run)"),
        ("completed", _day(row["completed_at"])),
        ("state", row["materialization_state"] or "—"),
        ("trials in the store", _in_store(row)),
        ("analyzer", str(row["stage_analyzer_version"] or "—")),
    ]
    return el(
        "dl",
        {"class": "meta"},
        *(el("div", None, el("dt", None, k), el("dd", None, v)) for k, v in facts),
    )


def _in_store(row: dict[str, Any]) -> str:
    expected = row["trials_expected"]
    held = row["trials_in_store"]
    return f"{held} (no expected count)" if expected is None else f"{held} of {expected}"


def _verdict_badge(report: RunReport) -> Safe:
    if report.verdict is None:
        return el("span", {"class": "badge v-none"}, "no verdict")
    verdict = report.verdict.summary.verdict.value
    return el("span", {"class": f"badge v-{verdict}", "data-verdict": verdict}, verdict)


def _legend(row: SliceRow) -> Safe:
    totals = Counter[str]()
    for tally in row.stages:
        totals.update(
            {
                "passed": tally.passed,
                "failed": tally.failed,
                "notMeasured": tally.not_measured,
                "reachUnknown": tally.reach_unknown,
                "notReached": tally.not_reached,
                "notApplicable": tally.not_applicable,
            }
        )
    return el(
        "ul",
        {"class": "legend"},
        *(
            el(
                "li",
                {"data-state": state},
                el("span", {"class": f"swatch s-{state}"}),
                f"{words}" + ("" if totals[state] else " (none here)"),
            )
            for state, words in MARKS
        ),
    )


def _unmeasured(report: RunReport) -> Safe:
    why = report.row.get("document_blocker")
    return el(
        "p",
        {"class": "unmeasured", "data-state": "notMeasured"},
        el("strong", None, "UNMEASURED"),
        f": run {report.run_id} has no stage analytics for derived chains at the current "
        "analyzer" + (f" ({why})" if why else "") + ". A missing document is not an empty funnel.",
    )


def _funnel(prefix: str, document: StageAnalyticsV1) -> Safe:
    overall = next(r for r in document.slices if r.slice.dimension == "overall")
    excluded = ", ".join(f"{cls.value} {n}" for cls, n in overall.excluded_trials.counts().items())
    provisional = document.materialization_state.value == "provisional"
    return join(
        [
            el(
                "h3",
                None,
                f"Funnel — {overall.included_trials} trials included",
                f"; excluded {excluded}" if excluded else "",
            ),
            el(
                "p",
                {"class": "warn"},
                "provisional: this run may still change; it is not a comparison claim",
            )
            if provisional
            else None,
            el(
                "figure",
                None,
                funnel_chart(f"{prefix}-funnel", overall.stages, overall.included_trials),
                _legend(overall),
            ),
            el("h3", None, "Rates per stage"),
            el("figure", None, rates_chart(f"{prefix}-rates", overall.stages)),
            _categories(overall),
        ]
    )


def _categories(row: SliceRow) -> Safe | None:
    if not row.failure_categories:
        return None
    return el(
        "p",
        {"class": "note"},
        "failure categories: ",
        ", ".join(f"{CATEGORY_LABELS[c.category]} {c.count}" for c in row.failure_categories),
    )


def failing_reasons(diagnostics: Diagnostics) -> list[tuple[str, str, str, int]]:
    """(stage, reason, next action, trials) of the page's failing trials, most trials first."""
    tally = Counter[tuple[str, str, str]]()
    for item in diagnostics.items:
        chain = item.chain
        result = "not recorded" if item.result is MISSING else item.result
        stage, reason = "—", f"no stage failed; result {result} (trial {item.status})"
        if isinstance(chain, VerifiedChain) and chain.first_failed_stage is not MISSING:
            failed = chain.first_failed_stage
            row = next(r for r in chain.stages if r.stage is failed)
            stage = STAGE_LABELS[Stage(failed)]
            reason = "" if row.reason is MISSING else REASON_LABELS[row.reason]
            if row.state is not StageState.FAILED:  # pragma: no cover - the validator forbids it
                reason = row.state.value
        tally[(stage, reason, item.next_action)] += 1
    ranked = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(s, r, a, n) for (s, r, a), n in ranked]


def _reasons(prefix: str, report: RunReport) -> Safe:
    head = el("h3", None, "Top failing reasons")
    if report.verdict is None:
        return join([head, el("p", {"class": "note"}, "no diagnostics: no decision summary")])
    diagnostics = report.verdict.summary.diagnostics
    rows = failing_reasons(diagnostics)
    if not rows:
        words = (
            "nothing failed: every trial scanned passed"
            if diagnostics.complete
            else "no failing trial on the first page — the page is not the whole run"
        )
        return join([head, el("p", {"class": "note"}, words)])
    scope = (
        f"all {diagnostics.scanned_iterations} trials"
        if diagnostics.complete
        else f"the first page only: {diagnostics.scanned_iterations} trials scanned"
    )
    body = [
        el(
            "tr",
            None,
            el("td", None, s),
            el("td", None, r),
            el("td", {"class": "n"}, n),
            el("td", None, a),
        )
        for s, r, a, n in rows[:TOP_REASONS]
    ]
    return join(
        [
            head,
            el(
                "table",
                {"id": f"{prefix}-reasons", "class": "reasons"},
                el("caption", None, f"where value stopped, from {scope}"),
                el(
                    "thead",
                    None,
                    el(
                        "tr",
                        None,
                        *(el("th", None, h) for h in ("stage", "reason", "trials", "next action")),
                    ),
                ),
                el("tbody", None, *body),
            ),
        ]
    )


def _verdict(report: RunReport) -> Safe:
    head = el("h3", None, "Verdict")
    if report.verdict is None:
        return join(
            [head, el("p", {"class": "note"}, f"no decision summary: {report.verdict_missing}")]
        )
    summary = report.verdict.summary
    lines: list[Safe] = [
        el("p", {"class": f"verdict v-{summary.verdict.value}"}, headline(summary)),
        el("p", None, measured_line(summary)),
    ]
    if summary.decision is not MISSING:
        lines.append(
            el(
                "ul",
                {"class": "why"},
                *(
                    el("li", None, VERDICT_DECISION_REASON_LABELS[r])
                    for r in summary.decision.reasons
                ),
            )
        )
    return join([head, *lines])


def _coverage_cell(row: dict[str, Any]) -> Safe:
    if row["unmeasured_by_suite"]:
        kinds = ", ".join(row["suggested_kinds"]) or "no check kind"
        return el("td", {"class": "unmeasured-link"}, "unmeasured by this suite — would: ", kinds)
    if row["check_kinds"]:
        return el("td", None, f"{row['authoring_cases']} case(s): ", ", ".join(row["check_kinds"]))
    if row["runner_decided"]:
        return el("td", None, "the runner decides it from the run's set-up")
    return el("td", None, "—")


def _coverage(prefix: str, report: RunReport) -> Safe:
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


def overview(anchors: list[str], reports: tuple[RunReport, ...]) -> Safe:
    """One line per run: when, its verdict, its trials, and the last link's pass rate."""
    rows = []
    for anchor, report in zip(anchors, reports, strict=True):
        if report.document is None:
            value = el("td", {"class": "nm"}, "unmeasured (no document)")
            included = "—"
        else:
            overall = next(r for r in report.document.slices if r.slice.dimension == "overall")
            rate = stage_rates(overall.stages[-1])["measuredPassRate"]
            nm = isinstance(rate, NotMeasuredRate)
            value = el("td", {"class": "nm" if nm else None}, rate_text(rate))
            included = str(overall.included_trials)
        rows.append(
            el(
                "tr",
                None,
                el("td", None, el("a", {"href": f"#{anchor}"}, report.run_id)),
                el("td", None, report.row["suite_id"] or "—"),
                el("td", None, _day(report.row["completed_at"])),
                el("td", None, _verdict_badge(report)),
                el("td", {"class": "n"}, included),
                value,
            )
        )
    heads = ("run", "suite", "completed", "verdict", "trials included", "user value pass rate")
    return el(
        "section",
        {"class": "overview", "id": "overview"},
        el("h2", None, "Runs at a glance"),
        el(
            "table",
            {"id": "overview-runs"},
            el("thead", None, el("tr", None, *(el("th", None, h) for h in heads))),
            el("tbody", None, *rows),
        ),
    )


def run_section(prefix: str, report: RunReport) -> Safe:
    """One run's section: what it is, its funnel and rates, why it failed, verdict, coverage."""
    body: list[object] = [
        el("h2", None, "Run ", el("code", None, report.run_id), " ", _verdict_badge(report)),
        _meta(report),
    ]
    if report.document is None:
        body.append(_unmeasured(report))
    else:
        body.append(_funnel(prefix, report.document))
    body.extend([_reasons(prefix, report), _verdict(report), _coverage(prefix, report)])
    return el("section", {"class": "run", "id": prefix, "data-run": report.run_id}, *body)
