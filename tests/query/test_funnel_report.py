"""The terminal funnel (report/funnel.py): rates with their arithmetic, never 0 for 0/0."""

from __future__ import annotations

from analytics_store import Funnels

from valuechain.contract.rates import stage_rate
from valuechain.query.funnel import analytics_document
from valuechain.report.funnel import NOT_MEASURED, format_rate, funnel_text


def test_rates_carry_their_arithmetic() -> None:
    assert format_rate(stage_rate(3, 4)) == "3/4 (75.0%)"
    assert format_rate(stage_rate(0, 0)) == NOT_MEASURED == "not measured"


def test_funnel_renders_counts_rates_and_exclusions(store: Funnels) -> None:
    text = funnel_text(
        analytics_document(store.con, "run-1"), run_id="run-1", slice="all", width=240
    )
    assert "run run-1" in text and "3 included of 4" in text
    assert "excluded lifecycle 1 (cancelled 1)" in text
    assert "intent: (unlabelled)" in text and "host: h" in text
    assert "2/3 (66.7%)" in text  # call: measured pass rate
    unlabelled = text.split("intent: (unlabelled)")[1].split("model:")[0]
    response = next(line for line in unlabelled.splitlines() if "Response" in line)
    assert response.count(NOT_MEASURED) == 3 and "%" not in response  # 0/0 is never 0%
    assert "setup connection: 0/1 attempt failed" in text


def test_a_run_without_a_suite_says_so_not_none(store: Funnels) -> None:
    document = analytics_document(store.con, "run-1")
    assert document is not None
    text = funnel_text(document.model_copy(update={"suite_id": None}), run_id="run-1")
    assert "suite (none recorded)" in text and "None" not in text


def test_a_missing_document_renders_unmeasured(store: Funnels) -> None:
    text = funnel_text(analytics_document(store.con, "old"), run_id="old")
    assert "UNMEASURED" in text and "not an empty funnel" in text
    assert not set(text) & set("╭╮╰╯│─"), "plain, as every other message: no box"
