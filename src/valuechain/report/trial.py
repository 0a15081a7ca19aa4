"""The terminal view of one trial's chain, as the seeds describe reading it.

Where value stopped, the reason on that row, the category and its next action, the advisory
observations beside it — and notMeasured, notApplicable and notReached visibly distinct from
passed: each state has its own mark and colour, and only ``passed`` is green.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from valuechain.contract.labels import CATEGORY_LABELS, STAGE_LABELS
from valuechain.contract.vocab import FailureCategory, Stage
from valuechain.query.trial import TrialView
from valuechain.report.columns import Col
from valuechain.report.tables import FittedTable

STATE_STYLE = {
    "passed": ("✔", "green"),
    "failed": ("✘", "bold red"),
    "notReached": ("↷", "magenta"),
    "notMeasured": ("?", "yellow"),
    "notApplicable": ("–", "dim"),
}


# The chain at 80 columns: the stage and its state in line, the reason and evidence under it.
CHAIN_COLUMNS = (
    Col("#", align="right"),
    Col("stage"),
    Col("state"),
    Col("…because", keep=1),
    Col("evidence", keep=2),
)
OBSERVATION_COLUMNS = (Col("check"), Col("link"), Col("result"), Col("reason", keep=1))


def render_trial(view: TrialView, *, wide: bool = False) -> Group:
    """A header, the six-row chain and the observations."""
    ident = view.identity
    no_case = "none recorded" if view.eval_trial else "none (not an eval run)"
    header = Text.assemble(
        ("trial ", "bold"),
        (str(ident["trial_id"]), "bold cyan"),
        f"  run {ident['run_id']}",
        f"  case {ident.get('case_title') or ident.get('case_id') or no_case}",
        f"  model {ident.get('model') or 'not recorded'}",
        f"  status {ident.get('status') or 'not recorded'}\n",
        (f"chain: {view.source} @ analyzer {view.analyzer_version}", "dim"),
    )
    rows: list[list[str]] = []
    styles: list[dict[str, str]] = []
    for row in view.chain:
        mark, style = STATE_STYLE.get(row["state"], ("·", ""))
        stopped = row["stage"] == view.first_failed_stage
        stage = STAGE_LABELS[Stage(row["stage"])] + ("  ◀ stopped" if stopped else "")
        evidence = row.get("evidence") or {}
        rows.append(
            [
                str(row["stage_index"] + 1),
                stage,
                f"{mark} {row['stateLabel']}",
                row.get("reasonLabel") or "",
                _evidence(evidence),
            ]
        )
        styles.append({"stage": "bold" if stopped else "", "state": style})
    table = FittedTable(list(CHAIN_COLUMNS), rows, styles=styles, joined=True, wide=wide)
    parts: list[Text | FittedTable] = [header]
    if not view.eval_trial:
        parts.append(Text(_foreign_note(view), "yellow"))
    parts.append(table)
    if view.failure_category or view.first_failed_stage:
        category = (
            CATEGORY_LABELS[FailureCategory(view.failure_category)]
            if view.failure_category
            else "none recorded"
        )
        where = view.first_failed_stage or "no stage failed"
        parts.append(
            Text.assemble(
                ("where value stopped: ", "bold"),
                where,
                ("   category: ", "bold"),
                category,
                ("\nnext: ", "bold"),
                view.next_action,
            )
        )
        later = _measured_after_stop(view)
        if later:
            parts.append(Text(LATER_LINKS.format(stage=where, links=", ".join(later)), "dim"))
    else:
        parts.append(
            Text(
                "no stage failed — read the states: not measured, not applicable and "
                "not reached are not passes",
                "dim",
            )
        )
    if view.observations:
        obs = [
            [
                o["kind"] or "unnamed",
                o["stage"] or "no link",
                {"true": "held", "false": "did not hold"}.get(
                    str(o["passed"]).lower(), o["status"] or "not recorded"
                ),
                o["reason"] or "",
            ]
            for o in view.observations
        ]
        parts.append(
            FittedTable(
                list(OBSERVATION_COLUMNS),
                obs,
                title="advisory observations (never decide a stage)",
                joined=True,
                wide=wide,
            )
        )
    return Group(*parts)


def _foreign_note(view: TrialView) -> str:
    note = (
        "not an eval run: no suite id — one plain trace read as one trial (TRACE-FORMAT §3.8): "
        "only what its spans show is measured, nothing passes unobserved"
    )
    if not view.store_has_eval_run:
        note += "\nno eval run in this store: funnels need an eval export (mcp.app.*)"
    return note


def _evidence(evidence: dict[str, object]) -> str:
    bits = []
    for key, label in (("spanIds", "spans"), ("promptIndexes", "prompts")):
        value = evidence.get(key)
        if isinstance(value, list) and value:
            bits.append(f"{label} {', '.join(map(str, value))}")
    reasons = evidence.get("predicateReasons")
    if isinstance(reasons, list) and reasons:
        bits.append("; ".join(map(str, reasons)))
    return "  ".join(bits)


# Why a link after the first failed one can still read passed (CONTRACT §1.2, reason 15): the
# chain stops counting value there, yet a later link with evidence of its own keeps what it
# measured; only a link that decided nothing is not reached. The docs (concepts/chain.md) and
# the notebook say it in these words.
LATER_LINKS = (
    "after {stage}, {links} still read as measured: a later link with evidence of its own keeps "
    "its state; only a link that decided nothing is not reached. Value stopped at {stage} all "
    "the same."
)


def _measured_after_stop(view: TrialView) -> list[str]:
    """The links after the first failed one that were measured (passed or failed)."""
    stages = [row["stage"] for row in view.chain]
    if view.first_failed_stage not in stages:
        return []
    after = view.chain[stages.index(view.first_failed_stage) + 1 :]
    return [STAGE_LABELS[Stage(r["stage"])] for r in after if r["state"] in ("passed", "failed")]
