"""Per run: which case failed, on which model, and why — the failing-cases table and, per
failing trial, its chain with the cited evidence and its tool calls expected against made.

Every failing trial has an element id (`trial_anchor`); the funnel's failed bars and the
reason table link to it. A link's state is the derived chain's, labelled in words: a
notMeasured link reads "not measured", never a pass or a zero. A case's verdict is the word
`valuechain verdict` prints for it; a case the run's decision does not decide (no decision, a
legacy result, not established) reads "no decision", never a pass or a fail. Escaping is `el`'s.
"""

from __future__ import annotations

from typing import Any

import orjson

from valuechain.contract.labels import (
    CATEGORY_LABELS,
    REASON_LABELS,
    STAGE_LABELS,
    VERDICT_DECISION_REASON_LABELS,
)
from valuechain.contract.vocab import FailureCategory, Stage, StageReason
from valuechain.contract.vocab_rules import FALLBACK_NEXT_ACTION, NEXT_ACTIONS
from valuechain.report.html.failing_data import FailingCase, FailingTrial, RunFailures, ToolCalls
from valuechain.report.html.markup import Safe, el, join, slug


def trial_anchor(trial_id: str) -> str:
    """A failing trial's element id (trial ids are unique in a store)."""
    return f"trial-{slug(trial_id)}"


def named(name: str | None, ident: str | None, missing: str) -> Safe:
    """A name first, its id beside it as secondary text; the id alone when no name."""
    if name and ident and name != ident:
        return join([el("span", {"class": "name"}, name), " ", el("code", {"class": "id"}, ident)])
    if name or ident:
        return el("span", {"class": "name"}, name or ident)
    return el("span", {"class": "note"}, missing)


def _stage(stage: str | None) -> str:
    return "—" if stage is None else STAGE_LABELS[Stage(stage)]


def _reason(reason: str | None) -> str:
    return "—" if reason is None else REASON_LABELS[StageReason(reason)]


def _category(category: str | None) -> str:
    return "—" if category is None else CATEGORY_LABELS[FailureCategory(category)]


def _next(category: str | None) -> str:
    return FALLBACK_NEXT_ACTION if category is None else NEXT_ACTIONS[FailureCategory(category)]


def stage_links(failures: RunFailures) -> dict[str, str]:
    """Stage → the anchor of the first rendered trial with a failed link there."""
    found: dict[str, str] = {}
    for trial in failures.trials:
        for stage in trial.failed_stages:
            found.setdefault(stage, f"#{trial_anchor(trial.trial_id)}")
    return found


def reason_links(failures: RunFailures) -> dict[tuple[str, str], list[str]]:
    """(stage label, reason label) → the rendered trials failing there with that reason."""
    found: dict[tuple[str, str], list[str]] = {}
    for trial in failures.trials:
        for stage, reason in trial.failed_reasons():
            found.setdefault((_stage(stage), _reason(reason)), []).append(trial.trial_id)
    return found


def trial_links(ids: list[str] | tuple[str, ...], shown: set[str], most: int = 4) -> Safe:
    """Links to the rendered trials among ``ids`` (the others as plain ids), then "+n"."""
    parts: list[object] = []
    for i, trial_id in enumerate(ids[:most]):
        parts.append(", " if i else None)
        parts.append(
            el("a", {"href": f"#{trial_anchor(trial_id)}"}, trial_id)
            if trial_id in shown
            else el("code", None, trial_id)
        )
    if len(ids) > most:
        parts.append(f" +{len(ids) - most}")
    return join(parts)


def _statuses(case: FailingCase) -> str:
    return ", ".join(f"{status} {n}" for status, n in sorted(case.statuses.items()))


NO_DECISION = "no decision"


def _verdict(case: FailingCase) -> Safe:
    """The case × variant's verdict in the run's decision, its reason on hover."""
    decided = case.verdict
    if decided is None:
        why = "the run's decision summary decides no verdict for this case × variant"
        return el("td", {"class": "v-none", "data-verdict": "none", "title": why}, NO_DECISION)
    why = (
        f"{VERDICT_DECISION_REASON_LABELS[decided.reason]}: passed "
        f"{decided.passed_trials} of {decided.eligible_trials} eligible trials"
    )
    return el(
        "td",
        {"class": f"v-{decided.verdict}", "data-verdict": decided.verdict, "title": why},
        decided.verdict,
    )


def cases_table(prefix: str, failures: RunFailures) -> Safe:
    """One row per case × variant with a failing trial: most failing trials first."""
    head = el("h3", None, f"Failing cases ({len(failures.cases)})")
    if not failures.cases:
        return join([head, el("p", {"class": "note"}, "no trial of this run failed a link")])
    shown = {t.trial_id for t in failures.trials}
    heads = (
        "case",
        "model",
        "verdict",
        "trials failed",
        "export status",
        "first failed link",
        "reason",
        "category",
        "next action",
        "failing trials",
    )
    rows = [
        el(
            "tr",
            None,
            el("td", None, named(c.case, c.case_id, "no case recorded")),
            el("td", None, c.variant or "not recorded"),
            _verdict(c),
            el("td", {"class": "n"}, f"{c.failed} of {c.trials}"),
            el("td", None, _statuses(c)),
            el("td", None, _stage(c.stage)),
            el("td", None, _reason(c.reason)),
            el("td", None, _category(c.category)),
            el("td", None, _next(c.category)),
            el("td", None, trial_links(c.trial_ids, shown)),
        )
        for c in failures.cases
    ]
    return join(
        [
            head,
            el(
                "div",
                {"class": "scroll"},
                el(
                    "table",
                    {"id": f"{prefix}-cases", "class": "cases"},
                    el(
                        "caption",
                        None,
                        "cases with a trial that failed a link; their verdict in the run's "
                        "decision; link, reason and category of the most common first failure",
                    ),
                    el("thead", None, el("tr", None, *(el("th", None, h) for h in heads))),
                    el("tbody", None, *rows),
                ),
            ),
        ]
    )


def _evidence(evidence: dict[str, Any] | None) -> Safe:
    if not evidence:
        return el("span", {"class": "note"}, "none cited")
    items: list[Safe] = []
    for reason in evidence.get("predicateReasons") or ():
        items.append(el("li", None, str(reason)))
    for key, label in (("spanIds", "span"), ("promptIndexes", "prompt")):
        values = evidence.get(key) or ()
        if values:
            items.append(el("li", None, f"{label}s ", *(el("code", None, f"{v} ") for v in values)))
    return el("ul", {"class": "evidence"}, *items)


def _chain(trial: FailingTrial) -> Safe:
    view = trial.view
    rows = []
    for row in view.chain:
        stopped = row["stage"] == view.first_failed_stage
        rows.append(
            el(
                "tr",
                {"class": "stopped" if stopped else None, "data-state": row["state"]},
                el("td", {"class": "n"}, row["stage_index"] + 1),
                el("td", None, _stage(row["stage"]), " ◀ stopped" if stopped else ""),
                el("td", {"class": f"state st-{row['state']}"}, row["stateLabel"]),
                el("td", None, row.get("reasonLabel") or "—"),
                el("td", None, _evidence(row.get("evidence"))),
            )
        )
    heads = ("#", "link", "state", "because", "evidence")
    return el(
        "table",
        {"class": "chain", "id": f"{trial_anchor(trial.trial_id)}-chain"},
        el("thead", None, el("tr", None, *(el("th", None, h) for h in heads))),
        el("tbody", None, *rows),
    )


def _args(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return str(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # not JSON-shaped: as text
        return str(value)


def _call(call: dict[str, Any]) -> Safe:
    name = call.get("toolName") or call.get("tool") or "unnamed"
    args = call.get("arguments")
    return el(
        "li",
        {"data-outcome": call.get("outcome")},
        el("code", None, name),
        " ",
        el("code", {"class": "args"}, _args(args)) if args is not None else None,
        el("span", {"class": "note"}, f" {call['outcome']}") if call.get("outcome") else None,
    )


def _calls(calls: list[dict[str, Any]] | None, missing: str) -> Safe:
    if calls is None:
        return el("p", {"class": "note"}, missing)
    if not calls:
        return el("p", {"class": "note"}, "none")
    return el("ol", {"class": "calls"}, *(_call(c) for c in calls))


def _args_of(call: dict[str, Any], tools: ToolCalls, kind: str) -> object:
    """A diff entry recorded by name only: the arguments of the same-named call it names —
    made (extra) or expected (missing, out of order)."""
    pool = tools.actual if kind == "extra" else tools.expected or []
    name = call.get("toolName")
    return next(
        (c.get("arguments") for c in pool if (c.get("toolName") or c.get("tool")) == name), None
    )


def _diff(anchor: str, tools: ToolCalls) -> Safe:
    if not tools.matched:
        return el("p", {"class": "note"}, "no matcher result recorded: no diff to show")
    rows: list[Safe] = []
    for kind, label, calls in (
        ("missing", "missing (expected, not made)", tools.missing),
        ("extra", "extra (made, not expected)", tools.unexpected),
        ("order", "out of order", tools.out_of_order),
    ):
        for call in calls:
            args = call.get("arguments", _args_of(call, tools, kind))
            rows.append(
                el(
                    "tr",
                    {"data-diff": kind},
                    el("td", None, label),
                    el("td", None, el("code", None, call.get("toolName") or "unnamed")),
                    el("td", None, el("code", None, _args(args)) if kind != "extra" else "—"),
                    el("td", None, el("code", None, _args(args)) if kind == "extra" else "—"),
                )
            )
    for m in tools.mismatches:
        rows.append(
            el(
                "tr",
                {"data-diff": "arguments"},
                el("td", None, "argument mismatch"),
                el("td", None, el("code", None, m.get("toolName") or "unnamed")),
                el("td", None, el("code", None, _args(m.get("expectedArgs")))),
                el("td", None, el("code", None, _args(m.get("actualArgs")))),
            )
        )
    if not rows:
        return el("p", {"class": "note"}, "the matcher found no difference in the tool calls")
    heads = ("difference", "tool", "expected arguments", "actual arguments")
    return el(
        "table",
        {"class": "diff", "id": f"{anchor}-diff"},
        el("caption", None, "tool-call differences, as the export's matcher recorded them"),
        el("thead", None, el("tr", None, *(el("th", None, h) for h in heads))),
        el("tbody", None, *rows),
    )


def _tools(anchor: str, tools: ToolCalls | None) -> Safe:
    if tools is None:
        return el("p", {"class": "note"}, "no tool calls recorded")
    return el(
        "div",
        {"class": "tools"},
        el(
            "div",
            {"class": "side"},
            el("div", None, el("h5", None, "expected"), _calls(tools.expected, "not recorded")),
            el("div", None, el("h5", None, "made"), _calls(tools.actual, "none")),
        ),
        _diff(anchor, tools),
    )


def trial_block(trial: FailingTrial) -> Safe:
    """One failing trial: case, model, its chain, where value stopped, its tool calls."""
    view = trial.view
    return el(
        "article",
        {"class": "trial", "id": trial_anchor(trial.trial_id), "data-trial": trial.trial_id},
        el(
            "h4",
            None,
            el("code", None, trial.trial_id),
            " · ",
            named(trial.case, trial.case_id, "no case recorded"),
            " · ",
            trial.variant or "model not recorded",
        ),
        _chain(trial),
        el(
            "p",
            None,
            el("b", None, "where value stopped: "),
            _stage(view.first_failed_stage),
            el("b", None, " · category: "),
            _category(view.failure_category),
            el("b", None, " · next: "),
            view.next_action,
        ),
        _tools(trial_anchor(trial.trial_id), trial.tools),
    )


def failing_trials(run_id: str, failures: RunFailures) -> Safe:
    """The failing trials' chains (at most the cap), and how to list the rest."""
    if not failures.trials:
        return join([])
    more = (
        el(
            "p",
            {"class": "note more"},
            f"+{failures.not_shown} more failing trials not shown; list them with ",
            el("code", None, f"valuechain trials {run_id} --state failed"),
        )
        if failures.not_shown
        else None
    )
    return join(
        [
            el("h3", None, f"Failing trials ({len(failures.trials) + failures.not_shown})"),
            *(trial_block(t) for t in failures.trials),
            more,
        ]
    )
