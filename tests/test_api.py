"""`valuechain.api.Store`'s reads on the bundled sample export plus one file with issues."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

import valuechain

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures/sample/sample-export.otlp.jsonl.gz"
SAMPLE_RUNS = ["run_2a17bb55e5", "run_7d2d741dbb"]


@pytest.fixture(scope="module")
def sample(
    tmp_path_factory: pytest.TempPathFactory, otlp: SimpleNamespace
) -> Iterator[tuple[valuechain.Store, str]]:
    """The sample (2 runs, 24 trials with producer chains) and ``odd.json``: 2 issues, no suite."""
    odd = tmp_path_factory.mktemp("api") / "odd.json"
    odd.write_bytes(otlp.dumps(otlp.request(otlp.span(1, kind=99), otlp.span(2, spanId="0x2"))))
    store = valuechain.open(":memory:")
    try:
        assert store.import_paths([SAMPLE, odd]).ok
        yield store, str(odd)
    finally:
        store.close()


def test_issues_filter_by_code_severity_and_source(sample: tuple[valuechain.Store, str]) -> None:
    store, odd = sample
    everything = store.issues()
    assert everything.columns == [
        "source",
        "severity",
        "code",
        "record_index",
        "line",
        "byte_offset",
        "json_path",
        "message",
        "value_excerpt",
        "hint",
        "occurrences",
    ]
    assert sorted(everything["code"]) == ["E_BAD_ID_ENCODING", "W_UNKNOWN_ENUM"]
    assert store.issues(code="W_UNKNOWN_ENUM")["code"].to_list() == ["W_UNKNOWN_ENUM"]
    assert store.issues(severity="error")["code"].to_list() == ["E_BAD_ID_ENCODING"]
    assert store.issues(source=odd).height == 2
    assert store.issues(source=str(SAMPLE)).height == 0  # the sample is clean
    assert store.issues(code="W_UNKNOWN_ENUM", severity="error").height == 0


def test_spans_by_role_counts_every_span_once(sample: tuple[valuechain.Store, str]) -> None:
    store, _ = sample
    roles = store.spans_by_role()
    assert roles.columns == ["role", "spans", "traces"]
    assert roles["spans"].sum() == store.sql("SELECT count(*) FROM spans").item()
    assert roles["spans"].to_list() == sorted(roles["spans"], reverse=True)
    rows = list(zip(roles["spans"], roles["role"], strict=True))
    assert rows == sorted(rows, key=lambda row: (-row[0], row[1]))  # ties by role: stable
    by_role = dict(zip(roles["role"], roles["traces"], strict=True))
    assert by_role["trial"] == 24 and "other" in by_role  # odd.json's spans have no role


def test_has_run_and_document_blocker(sample: tuple[valuechain.Store, str]) -> None:
    store, _ = sample
    runs = store.runs()["run_id"].to_list()
    assert all(store.has_run(run) for run in runs)
    assert not store.has_run("no-such-run")
    (odd_run,) = set(runs) - set(SAMPLE_RUNS)
    assert store.document_blocker(odd_run) == "suiteIdMissing"
    assert [store.document_blocker(run) for run in SAMPLE_RUNS] == [None, None]


def test_disagreements_compares_the_trials_with_a_producer_chain(
    sample: tuple[valuechain.Store, str],
) -> None:
    store, _ = sample
    everything = store.disagreements()
    assert (everything.compared, everything.trials, everything.rows.height) == (24, 0, 0)
    assert "derived_analyzer_version" in everything.rows.columns
    assert [store.disagreements(run).compared for run in SAMPLE_RUNS] == [12, 12]


def test_first_failing_trial_is_the_one_the_demo_shows(
    sample: tuple[valuechain.Store, str],
) -> None:
    store, _ = sample
    failing = store.first_failing_trial()
    assert failing == "it_9acdadc414"
    view = store.trial(failing)
    assert view.first_failed_stage is not None and view.source == "derived"
