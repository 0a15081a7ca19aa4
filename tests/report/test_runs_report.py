"""The words the run listing and the funnel header use for what a store holds (report/runs.py)."""

from __future__ import annotations

import pytest

from valuechain.query.runs import RunCompleteness, StoreContents
from valuechain.report.runs import completeness_text, store_note


def _run(
    expected: int | None, in_store: int, pending: int = 0, skipped: int = 0
) -> RunCompleteness:
    missing = None if expected is None else max(expected - in_store, 0)
    return RunCompleteness("r", True, in_store, expected, missing, pending, skipped, None)


@pytest.mark.parametrize(
    ("run", "text"),
    [
        (_run(720, 16), "16 of 720 trials in the store (704 missing from the imported exports)"),
        (_run(8, 8), "8 of 8 trials in the store"),
        (
            _run(8, 6, pending=1, skipped=2),
            "6 of 8 trials in the store (2 missing from the imported exports); "
            "marked by the producer: 1 pending, 2 skipped",
        ),
        (_run(None, 3), None),  # no expected count: nothing to say
        (_run(None, 3, skipped=1), "marked by the producer: 1 skipped"),
    ],
)
def test_completeness_text(run: RunCompleteness, text: str | None) -> None:
    assert completeness_text(run) == text


@pytest.mark.parametrize(
    ("contents", "words"),
    [
        (StoreContents(0, 0, 0, 0), "this store holds no trace yet"),
        (StoreContents(2, 5, 0, 0), "no runs derived yet from its 2 traces and 5 spans"),
        (StoreContents(1, 1, 1, 0), "no eval run in this store: it holds 1 trace and 1 span of"),
        (StoreContents(9, 80, 3, 2), "1 of 3 runs are not eval runs"),
        (StoreContents(9, 80, 2, 2), None),
    ],
)
def test_store_note(contents: StoreContents, words: str | None) -> None:
    note = store_note(contents)
    assert (note is None) if words is None else (note is not None and note.startswith(words))
