"""From a verdict to its trials: ``trials RUN`` and its filters, the trial ids ``verdict``
prints, and why ``trial`` shows links after the failed one as measured (issue 41.2). On the
spec example: eight trials, three of which stopped at a link."""

from __future__ import annotations

import csv
import io

import pytest
from cli_runner import EXAMPLE_RUN, error_and_hint, run

STOPPED = {  # the example's trials that stopped, where, and why (CONTRACT §2 by hand)
    "it_31b38150d8": ("call", "argumentMismatch"),
    "it_9f80c6e926": ("connection", "connectFailed"),
    "it_d04655cb71": ("selection", "unexpectedToolCall"),
}
META = "Meta question must not delete alerts"


def _rows(store: str, *args: str) -> list[dict[str, str]]:
    result = run("--store", store, "trials", EXAMPLE_RUN, *args, "--format", "csv")
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_every_trial_is_listed_with_where_it_stopped(example_store: str) -> None:
    rows = _rows(example_store)
    assert len(rows) == 8
    stopped = {r["trial_id"]: (r["first_failed_stage"], r["reason"]) for r in rows}
    assert {t: s for t, s in stopped.items() if s != ("", "")} == STOPPED
    assert {r["variant"] for r in rows} == {"anthropic/claude-sonnet-4-6", "openai/gpt-5.4-mini"}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (("--state", "failed"), set(STOPPED)),
        (("--stage", "call"), {"it_31b38150d8"}),
        (("--stage", "Tool call"), {"it_31b38150d8"}),  # the word tables print
        (("--stage", "tool-call"), {"it_31b38150d8"}),
        (("--stage", "connection", "--state", "notReached"), set()),
        (("--stage", "discovery", "--state", "notReached"), {"it_9f80c6e926"}),
        (("--stage", "response", "--state", "failed"), {"it_31b38150d8"}),
        (("--case", META, "--state", "failed"), {"it_d04655cb71"}),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else None,
)
def test_filters_keep_the_trials_they_name(
    example_store: str, filters: tuple[str, ...], expected: set[str]
) -> None:
    assert {r["trial_id"] for r in _rows(example_store, *filters)} == expected


def test_a_case_filter_takes_the_title(example_store: str) -> None:
    rows = _rows(example_store, "--case", META)
    assert len(rows) == 4 and {r["case"] for r in rows} == {META}


def test_the_state_at_the_stage_asked_about_is_a_column(example_store: str) -> None:
    rows = _rows(example_store, "--stage", "userValue", "--state", "passed")
    assert rows and {r["stage_state"] for r in rows} == {"passed"}
    assert "stage_state" not in _rows(example_store)[0]  # no stage asked: no such column


@pytest.mark.parametrize(
    ("args", "code", "names"),
    [
        ((EXAMPLE_RUN, "--state", "bogus"), 2, "notMeasured (not measured)"),
        ((EXAMPLE_RUN, "--stage", "tool"), 2, "call (Tool call)"),
        (("run_nope",), 1, "run_nope"),
    ],
)
def test_a_wrong_value_is_one_line_that_names_the_choices(
    example_store: str, args: tuple[str, ...], code: int, names: str
) -> None:
    result = run("--store", example_store, "trials", *args)
    assert result.exit_code == code
    problem, _hint = error_and_hint(result)
    assert names in problem


@pytest.mark.usefixtures("wide")
def test_the_table_ends_with_the_command_that_shows_one_trial(example_store: str) -> None:
    result = run("--store", example_store, "trials", EXAMPLE_RUN, "--state", "failed")
    assert result.exit_code == 0
    first = sorted(STOPPED, key=lambda t: (t != "it_31b38150d8", t))[0]
    assert f"valuechain trial {first}" in result.output
    none = run("--store", example_store, "trials", EXAMPLE_RUN, "--stage", "discovery")
    assert f"no trial of run {EXAMPLE_RUN} matches" in none.output


@pytest.mark.usefixtures("wide")
def test_the_verdict_names_its_failing_trials_by_the_id_trial_takes(example_store: str) -> None:
    table = run("--store", example_store, "verdict", EXAMPLE_RUN).stdout
    named = [t for t in STOPPED if t in table]
    assert named, table
    for trial in named:
        assert run("--store", example_store, "trial", trial).exit_code == 0
    # suggested on the store the command line named (issue 41.5)
    assert f"valuechain --store {example_store} trials {EXAMPLE_RUN}" in " ".join(table.split())
    markdown = run("--store", example_store, "verdict", EXAMPLE_RUN, "--format", "markdown")
    assert "| trial | case | variant |" in markdown.stdout


@pytest.mark.usefixtures("wide")
@pytest.mark.parametrize(
    ("trial", "note"),
    [
        ("it_31b38150d8", "after call, Response, User value still read as measured"),
        (
            "it_d04655cb71",
            "after selection, Tool call, Response, User value still read as measured",
        ),
        ("it_9f80c6e926", None),  # every later link notReached: nothing to explain
    ],
)
def test_trial_says_why_later_links_read_measured(
    example_store: str, trial: str, note: str | None
) -> None:
    text = " ".join(run("--store", example_store, "trial", trial).stdout.split())
    if note is None:
        assert "still read as measured" not in text
    else:
        assert note in text
        assert "only a link that decided nothing is not reached" in text
