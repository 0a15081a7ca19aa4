"""The report's sections: the runs at a glance, and per run its funnel, rates, failing reasons,
verdict and coverage.

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
from valuechain.contract.vocab import Stage, StageReason, StageState
from valuechain.contract.vocab_rules import NEXT_ACTIONS, REASON_STATES
from valuechain.report.html.charts import (
    MARKS,
    funnel_chart,
    mark_counts,
    rate_text,
    rates_chart,
    stage_rates,
)
from valuechain.report.html.coverage import coverage_section
from valuechain.report.html.failing import (
    cases_table,
    failing_trials,
    named,
    reason_links,
    stage_links,
    trial_links,
)
from valuechain.report.html.gather import RunReport
from valuechain.report.html.markup import Safe, el, join
from valuechain.report.verdict import headline, measured_line

TOP_REASONS: Final = 5


def _overall(document: StageAnalyticsV1) -> SliceRow:
    return next(r for r in document.slices if r.slice.dimension == "overall")


def _day(value: object) -> str:
    return "not completed" if value is None else str(value)[:19].replace("T", " ") + " UTC"


def _meta(report: RunReport) -> Safe:
    row = report.row
    facts = [
        ("suite", named(report.suite_name, row["suite_id"], "no suite id (not an eval run)")),
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
        totals.update(mark_counts(tally))
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


def _funnel(prefix: str, report: RunReport, document: StageAnalyticsV1) -> Safe:
    overall = _overall(document)
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
                funnel_chart(
                    f"{prefix}-funnel",
                    overall.stages,
                    overall.included_trials,
                    links=stage_links(report.failures),
                ),
                _legend(overall),
            ),
            el("h3", None, "Rates per stage"),
            el("figure", None, rates_chart(f"{prefix}-rates", overall.stages)),
        ]
    )


def _categories(row: SliceRow) -> Safe | None:
    """Why trials had no good outcome (failure categories, CONTRACT §1.4), each with its next
    action — from the document, every trial of the slice."""
    if not row.failure_categories:
        return None
    return el(
        "ul",
        {"class": "categories"},
        *(
            el(
                "li",
                None,
                el("b", None, f"{CATEGORY_LABELS[c.category]} {c.count}"),
                " — ",
                NEXT_ACTIONS[c.category],
            )
            for c in row.failure_categories
        ),
    )


def _next_actions(diagnostics: Diagnostics | None) -> dict[tuple[Stage, StageReason], str]:
    """The next action the diagnostics page gives each (stage, failing reason) it saw."""
    found: dict[tuple[Stage, StageReason], str] = {}
    for item in () if diagnostics is None else diagnostics.items:
        chain = item.chain
        if isinstance(chain, VerifiedChain) and chain.first_failed_stage is not MISSING:
            row = next(r for r in chain.stages if r.stage == chain.first_failed_stage)
            if row.reason is not MISSING:
                found.setdefault((Stage(row.stage), row.reason), item.next_action)
    return found


def failing_reasons(
    row: SliceRow, diagnostics: Diagnostics | None
) -> list[tuple[str, str, int, str]]:
    """(stage, reason, trials, next action) of every failing reason the funnel counts, most
    trials first (stage order among equals); the next action is the diagnostics page's for
    trials whose value stopped there (a later failure of the same trial has none)."""
    actions = _next_actions(diagnostics)
    missing = "— (no trial whose value stopped here is on the diagnostics page)"
    found = [
        (-count.count, index, tally.stage, count.reason, count.count)
        for index, tally in enumerate(row.stages)
        for count in tally.reasons
        if REASON_STATES[count.reason] is StageState.FAILED
    ]
    return [
        (STAGE_LABELS[stage], REASON_LABELS[reason], n, actions.get((stage, reason), missing))
        for _, _, stage, reason, n in sorted(found, key=lambda f: (f[0], f[1], f[3].value))
    ]


def _reasons(prefix: str, report: RunReport, row: SliceRow) -> Safe:
    head = el("h3", None, "Top failing reasons")
    diagnostics = None if report.verdict is None else report.verdict.summary.diagnostics
    rows = failing_reasons(row, diagnostics)
    linked = reason_links(report.failures)
    shown = {t.trial_id for t in report.failures.trials}
    if not rows:
        return join(
            [head, el("p", {"class": "note"}, "no stage failed in this run"), _categories(row)]
        )
    body = [
        el(
            "tr",
            None,
            el("td", None, s),
            el("td", None, r),
            el("td", {"class": "n"}, n),
            el("td", None, a),
            el("td", None, trial_links(linked.get((s, r), []), shown) or "—"),
        )
        for s, r, n, a in rows[:TOP_REASONS]
    ]
    hidden = len(rows) - TOP_REASONS
    return join(
        [
            head,
            el(
                "table",
                {"id": f"{prefix}-reasons", "class": "reasons"},
                el(
                    "caption",
                    None,
                    "failing reasons per stage, from the funnel; next action "
                    "where value stopped there",
                ),
                el(
                    "thead",
                    None,
                    el(
                        "tr",
                        None,
                        *(
                            el("th", None, h)
                            for h in ("stage", "reason", "trials", "next action", "see")
                        ),
                    ),
                ),
                el("tbody", None, *body),
            ),
            el("p", {"class": "note"}, f"+{hidden} more reasons") if hidden > 0 else None,
            _categories(row),
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


def overview(anchors: list[str], reports: tuple[RunReport, ...]) -> Safe:
    """One line per run: when, its verdict, its trials, and the last link's pass rate."""
    rows = []
    for anchor, report in zip(anchors, reports, strict=True):
        if report.document is None:
            value = el("td", {"class": "nm"}, "unmeasured (no document)")
            included = "—"
        else:
            overall = _overall(report.document)
            rate = stage_rates(overall.stages[-1])["measuredPassRate"]
            nm = isinstance(rate, NotMeasuredRate)
            value = el("td", {"class": "nm" if nm else None}, rate_text(rate))
            included = str(overall.included_trials)
        rows.append(
            el(
                "tr",
                None,
                el("td", None, el("a", {"href": f"#{anchor}"}, report.run_id)),
                el("td", None, named(report.suite_name, report.row["suite_id"], "—")),
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


def _failing(report: RunReport) -> str:
    if report.document is None:
        return "unmeasured"
    n = len(report.failures.trials) + report.failures.not_shown
    return f"{n} failing trial{'s' * (n != 1)}" if n else "no failing trial"


def run_section(prefix: str, report: RunReport, *, open_: bool = True) -> Safe:
    """One run's section: what it is, its funnel and rates, why it failed (cases and trials),
    verdict, coverage — collapsible (``open_``: shown open)."""
    suite = report.suite_name or report.row["suite_id"]
    title = el(
        "h2",
        None,
        "Run ",
        el("code", None, report.run_id),
        " ",
        _verdict_badge(report),
        el(
            "span",
            {"class": "note"},
            f" {suite or 'no suite'} · {_day(report.row['completed_at'])} · {_failing(report)}",
        ),
    )
    body: list[object] = [_meta(report)]
    if report.document is None:
        body.append(_unmeasured(report))
    else:
        body.append(_funnel(prefix, report, report.document))
        body.append(_reasons(prefix, report, _overall(report.document)))
        body.append(cases_table(prefix, report.failures))
    body.extend([_verdict(report), coverage_section(prefix, report)])
    body.append(failing_trials(report.run_id, report.failures))
    return el(
        "section",
        {"class": "run", "id": prefix, "data-run": report.run_id},
        el("details", {"open": open_}, el("summary", None, title), *body),
    )
