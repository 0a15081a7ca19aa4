"""Which case failed, on which model, and why: the report's failing cases and trials.

The gathered data (trial ids, case titles, suite names, the cap), and the page: the anchors
resolve, names come first with their ids beside them, a notMeasured link or rate is labelled,
and a tool-call diff shows each argument mismatch side by side, escaped.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest
from report_outline import outline, report_of

import valuechain
from valuechain.contract.labels import STATE_LABELS
from valuechain.report.html.failing import failing_trials, trial_anchor, trial_block
from valuechain.report.html.failing_data import FailingTrial, ToolCalls, run_failures
from valuechain.report.html.gather import gather, report_request

DEMO_RUN = "run_7d2d741dbb"
_HREF = re.compile(r'href="#([^"]+)"')
_ID = re.compile(r'\bid="([^"]+)"')


def test_the_gathered_failures_name_trials_cases_and_the_suite(demo_store: Path) -> None:
    with valuechain.open(demo_store, read_only=True) as store:
        data = gather(store.db.con, report_request(), store=str(demo_store))
    run = next(r for r in data.runs if r.run_id == DEMO_RUN)
    assert run.suite_name == "tracker-mcp-regression"
    assert [t.trial_id for t in run.failures.trials] == ["it_9acdadc414", "it_e9b2c96bd6"]
    assert [(c.case, c.variant, c.failed, c.trials, c.stage) for c in run.failures.cases] == [
        ("Explaining closing must not close an issue", "anthropic/claude-sonnet-4-6", 1, 2,
         "selection"),
        ("File a bug about login timeouts", "openai/gpt-5.4-mini", 1, 2, "response"),
    ]  # fmt: skip
    assert all(c.case_id and c.case_id.startswith("c_") for c in run.failures.cases)
    closing = run.failures.trials[0]
    assert closing.tools is not None and closing.tools.matched
    assert [c["toolName"] for c in closing.tools.unexpected] == ["close_issue"]
    assert [c["tool"] for c in closing.tools.actual] == ["close_issue"]


def test_the_cap_says_how_many_more_and_how_to_list_them(demo_store: Path) -> None:
    with valuechain.open(demo_store, read_only=True) as store:
        capped = run_failures(store.db.con, DEMO_RUN, cap=1)
    assert (len(capped.trials), capped.not_shown, len(capped.cases)) == (1, 1, 2)
    shown = failing_trials(DEMO_RUN, capped)
    assert "Failing trials (2)" in shown and shown.count("<article") == 1
    assert "+1 more failing trials not shown" in shown
    assert f"valuechain trials {DEMO_RUN} --state failed" in shown
    html = report_of(demo_store, runs=[DEMO_RUN])
    assert "--state failed" not in html  # under the cap: nothing hidden, no command


@pytest.mark.parametrize("which", ["demo_store", "trend_store", "history_store"])
def test_every_anchor_resolves_and_every_failing_trial_is_linked(
    which: str, request: pytest.FixtureRequest
) -> None:
    html = (
        request.getfixturevalue("history_html")
        if which == "history_store"
        else report_of(request.getfixturevalue(which))
    )
    ids = _ID.findall(html)
    assert len(ids) == len(set(ids)), "element ids are unique"
    hrefs = set(_HREF.findall(html))
    assert hrefs <= set(ids), sorted(hrefs - set(ids))
    trials = [i for i in ids if re.fullmatch(r"trial-[^\s]+(?<!-chain)(?<!-diff)", i)]
    if which != "trend_store":
        assert trials, "the store has failing trials"
    for anchor in trials:  # reachable from its run's funnel or reason table
        assert f'href="#{anchor}"' in html, anchor


def test_the_funnel_bar_of_a_failed_stage_links_to_a_trial(demo_store: Path) -> None:
    html = report_of(demo_store, runs=[DEMO_RUN])
    funnel = html.split(f'id="run-1-{DEMO_RUN}-funnel"', 1)[1].split("</svg>", 1)[0]
    linked = re.findall(
        r'<a href="#(trial-[^"]+)" class="to-trial"><g class="mark s-failed"', funnel
    )
    assert linked == ["trial-it_9acdadc414", "trial-it_e9b2c96bd6", "trial-it_e9b2c96bd6"]


def test_suite_and_case_names_come_first_with_their_ids_beside(demo_store: Path) -> None:
    text = outline(report_of(demo_store, runs=[DEMO_RUN]))
    assert "| run_7d2d741dbb | tracker-mcp-regression s_kamQW9qYhV_7fkIg0oeYG |" in text
    assert "## Run run_7d2d741dbb notEstablished tracker-mcp-regression ·" in text
    assert (
        "#### it_9acdadc414 · Explaining closing must not close an issue "
        "c_22uGX9mxWsnN_1_Ti0R3w · anthropic/claude-sonnet-4-6"
    ) in text
    cases = text.split(f"table #run-1-{DEMO_RUN}-cases", 1)[1].split("###", 1)[0]
    assert "| Explaining closing must not close an issue c_22uGX9mxWsnN_1_Ti0R3w |" in cases
    assert "| 1 of 2 | completed 2 | Selection |" in cases


_CASE_ROW = re.compile(
    r'<tr><td>.*?<code class="id">([^<]+)</code></td><td>([^<]*)</td>'
    r'<td class="v-[^"]+" data-verdict="[^"]+"[^>]*>([^<]*)</td>'
)


def _verdict_cells(html: str) -> list[tuple[str, str, str]]:
    """(case id, model, verdict) of every failing-cases row, as the page prints them."""
    bodies = re.findall(r'class="cases">.*?<tbody>(.*?)</tbody>', html)
    rows = [row for body in bodies for row in body.split("</tr>") if row]
    cells = [_CASE_ROW.match(row) for row in rows]
    assert all(cells), "each row has a case id, a model and a verdict cell"
    return [(m[1], m[2], m[3]) for m in cells if m]


def test_a_failing_case_carries_the_verdict_the_verdict_command_prints(
    decided_store: Path,
) -> None:
    html = report_of(decided_store)
    with valuechain.open(decided_store, read_only=True) as store:
        (run,) = store.runs()["run_id"]
        # what `verdict --format json` prints
        document = orjson.loads(store.verdict(run).summary.to_json())
    printed = {
        (c["caseId"], f"{c['executionVariant']['provider']}/{c['executionVariant']['model']}"):
            c["verdict"]
        for c in document["decision"]["cases"]
    }  # fmt: skip
    cells = _verdict_cells(html)
    assert "<th>verdict</th>" in html
    assert cells and all(verdict == printed[(case, model)] for case, model, verdict in cells)
    # a case with a failing trial can still pass its threshold: the column is the decision's
    assert {verdict for _, _, verdict in cells} == {"failed", "passed"}
    assert "no decision" not in {verdict for _, _, verdict in cells}


def test_a_case_without_a_decision_reads_no_decision(demo_store: Path) -> None:
    html = report_of(demo_store, runs=[DEMO_RUN])
    assert "notEstablished" in outline(html)  # the run decided nothing
    cells = _verdict_cells(html)
    assert len(cells) == 2 and {verdict for _, _, verdict in cells} == {"no decision"}
    assert 'data-verdict="none"' in html and 'class="v-none"' in html


def test_not_measured_is_labelled_never_a_number(trend_store: Path, history_html: str) -> None:
    for html in (report_of(trend_store), history_html):
        cells = re.findall(r'<td class="nm" data-state="notMeasured">([^<]*)</td>', html)
        assert all(c == "not measured" for c in cells)
        assert "0/0" not in html.replace("(0/0 is not a number)", "")
    one_run = outline(report_of(trend_store, runs=["m-second", "other"]))
    assert "one run: other (2026-01-05)" in one_run


def _trial(chain_state: str, tools: ToolCalls) -> FailingTrial:
    view = SimpleNamespace(
        first_failed_stage="call",
        failure_category="arguments",
        next_action="fix the arguments <now>",
        chain=[
            {
                "stage_index": i,
                "stage": stage,
                "state": state,
                "stateLabel": STATE_LABELS[state],  # type: ignore[index]
                "reasonLabel": None,
                "reason": None,
                "evidence": {"predicateReasons": ["<b>bold</b>"]} if i == 3 else None,
            }
            for i, (stage, state) in enumerate(
                zip(
                    ("connection", "discovery", "selection", "call", "response", "userValue"),
                    ("passed", "passed", chain_state, "failed", "notReached", "notReached"),
                    strict=True,
                )
            )
        ],
    )
    return FailingTrial("it_<x>", "case <i>", "c_1", "p/m", view, tools)  # type: ignore[arg-type]


def test_a_trial_block_shows_states_in_words_and_the_diff_side_by_side() -> None:
    tools = ToolCalls(
        expected=[{"toolName": "create_issue", "arguments": {"title": "<script>"}}],
        actual=[{"tool": "create_issue", "arguments": '{"title":"other"}', "outcome": "ok"}],
        matched=True,
        missing=[{"toolName": "list_labels", "arguments": {}}],
        unexpected=[{"toolName": "create_issue"}],
        out_of_order=[],
        mismatches=[
            {"toolName": "create_issue", "expectedArgs": {"title": "<script>"},
             "actualArgs": {"title": "other"}}
        ],
    )  # fmt: skip
    html = trial_block(_trial("notMeasured", tools))
    assert f'id="{trial_anchor("it_<x>")}"' in html and "<script>" not in html
    assert "<b>bold" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert ">not measured<" in html or f">{STATE_LABELS['notMeasured']}<" in html
    rows = re.findall(r'<tr data-diff="(\w+)">(.*?)</tr>', html)
    assert [kind for kind, _ in rows] == ["missing", "extra", "arguments"]
    mismatch = re.findall(r"<code>([^<]*)</code>", rows[2][1])
    assert mismatch == ["create_issue", '{"title":"&lt;script&gt;"}', '{"title":"other"}']
    assert '{"title":"other"}' in rows[1][1]  # an extra call named only: the call as made


def test_a_long_history_collapses_and_names_each_partitions_suite(history_html: str) -> None:
    opened = re.findall(r'<div class="partition" id="(trend-\d+)"><details open>', history_html)
    assert len(opened) == 1  # six partitions: only the longest shown open
    assert re.findall(r'<section class="run" [^>]*><details open>', history_html) == []
    summaries = re.findall(r'data-suite="[^"]*"> ([^·<]+) ·', history_html)
    assert sorted(set(summaries)) == ["tracker-mcp-regression", "weather-mcp-release"]
