"""Terminal tables at 80 and 120 columns (issue 15): every line fits, ids stay whole on one
line, the columns that do not fit go under their row, ``--wide`` shows every column in line,
and a cell is bounded however large its value."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import run

import valuechain
from valuechain.cli.app import out
from valuechain.cli.sample import sample_export_path

ID = re.compile(r"\b(?:run|it)_[0-9a-f]{10}\b|\b[0-9a-f]{16}\b|\b[0-9a-f]{32}\b")


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The bundled sample (two runs, a failing trial) and the ids the tables must show whole."""
    path = tmp_path_factory.mktemp("tables") / "sample.duckdb"
    with valuechain.open(path) as store:
        assert store.import_paths([sample_export_path()], workers=0).ok
        run_id = store.runs()["run_id"][0]
        trial_id = store.first_failing_trial()
        trace_ids = store.sql("SELECT DISTINCT trace_id FROM spans")["trace_id"].to_list()
    assert trial_id is not None
    yield {"store": str(path), "run": run_id, "trial": trial_id, "trace": trace_ids[0]}


@pytest.fixture(params=[80, 120])
def width(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(out, "width", request.param)
    return int(request.param)


def _table(ids: dict[str, str], *args: str) -> list[str]:
    result = run("--store", ids["store"], *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _fits(lines: list[str], width: int) -> None:
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, too_wide


def _whole_ids(lines: list[str], *ids: str) -> None:
    text = "\n".join(lines)
    for ident in ids:
        assert ident in text, f"{ident} is broken over lines or missing"


@pytest.mark.parametrize(
    ("verb", "expected_header"),
    [
        (("runs",), ["run", "in/total", "state"]),
        (("funnel", "{run}"), ["stage", "applicable", "reached", "passed", "failed", "pass rate"]),
        (("trial", "{trial}"), ["#", "stage", "state"]),
        (("issues",), ["code", "severity"]),
        (("sql", "SELECT trace_id, span_id, name FROM spans LIMIT 3"), ["trace_id", "span_id"]),
    ],
)
def test_tables_fit_the_width_and_keep_ids_whole(
    sample_store: dict[str, str], width: int, verb: tuple[str, ...], expected_header: list[str]
) -> None:
    args = [a.format(**sample_store) for a in verb]
    lines = _table(sample_store, *args)
    _fits(lines, width)
    header = next(line for line in lines if line.split()[:1] == expected_header[:1])
    words = " ".join(expected_header).split()
    assert header.split()[: len(words)] == words
    _whole_ids(lines, *re.findall(ID, " ".join(args)))


def test_runs_never_breaks_a_run_id(sample_store: dict[str, str], width: int) -> None:
    lines = _table(sample_store, "runs")
    rows = [line for line in lines if line.startswith("run_")]
    assert len(rows) == 2 and all(re.match(r"run_[0-9a-f]{10}  ", line) for line in rows)
    assert any(line.startswith("  parity: ") for line in lines)  # the long triple under it


def test_funnel_at_80_keeps_the_rates_whole(sample_store: dict[str, str], width: int) -> None:
    lines = _table(sample_store, "funnel", sample_store["run"])
    selection = next(line for line in lines if line.startswith("Selection"))
    assert re.search(r"\d+/\d+ \(\d+\.\d%\)$|\(\d+\.\d%\)  ", selection)  # never "6/7 (85…"
    assert "…" not in "\n".join(lines)
    assert any("reasons: observed" in line for line in lines)  # under the row
    if width == 80:
        assert any(line.startswith("  coverage: ") for line in lines)
    else:
        assert "coverage" in next(line for line in lines if line.startswith("stage"))


def test_stage_labels_are_the_contracts(sample_store: dict[str, str], width: int) -> None:
    lines = _table(sample_store, "funnel", sample_store["run"])
    stages = [line.split("  ")[0] for line in lines if line[:1].isupper() and "  " in line]
    assert stages[:6] == [
        "Connection", "Discovery", "Selection", "Tool call", "Response", "User value"
    ]  # fmt: skip


def test_trial_puts_reasons_and_evidence_under_the_row(
    sample_store: dict[str, str], width: int
) -> None:
    lines = _table(sample_store, "trial", sample_store["trial"])
    header = next(line for line in lines if line.startswith("#  stage"))
    under = " ".join(line.strip() for line in lines if line.startswith("  "))
    if width == 80:
        assert "…because: " in under and "evidence: spans " in under
    else:
        assert "…because" in header and "…because" not in under
    assert any("◀ stopped" in line for line in lines)


def test_wide_shows_every_column_in_line(sample_store: dict[str, str], width: int) -> None:
    lines = _table(sample_store, "funnel", sample_store["run"], "--wide")
    header = next(line for line in lines if line.startswith("stage"))
    for column in ("coverage", "not reached", "latency (mean)", "excluded", "reasons"):
        assert column in header
    runs = _table(sample_store, "runs", "--wide")
    assert "parity" in runs[0] and not any(line.startswith("  parity") for line in runs)


def test_issues_puts_the_message_under_its_row(
    tmp_path: Path, otlp: object, write: object, width: int
) -> None:
    store = tmp_path / "i.duckdb"
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","spanId":"0102030405060708",'
        '"name":"s","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}'
    )
    assert run("--store", store, "import", bad).exit_code == 0
    lines = run("--store", store, "issues").stdout.splitlines()
    _fits(lines, width)
    assert lines[0].split() == ["code", "severity", "source", "line", "count"]
    assert lines[1].startswith("E_BAD_ID_ENCODING")
    assert any(line.startswith("  message: ") for line in lines)
    assert any(line.startswith("  at: resourceSpans[0]") for line in lines)


def test_a_ten_megabyte_cell_is_bounded_and_fast(sample_store: dict[str, str]) -> None:
    started = time.perf_counter()
    result = run("--store", sample_store["store"], "sql", "SELECT repeat('x', 10000000) AS big")
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0
    shown = "".join(line.strip() for line in result.stdout.splitlines()).removeprefix("row 1")
    assert shown == f"big:{'x' * 200}… (10,000,000 bytes)"
    assert len(result.stdout) < 1000
    as_csv = run("--store", sample_store["store"], "sql", "SELECT repeat('x', 10000000) AS big",
                 "--format", "csv")  # fmt: skip
    assert len(as_csv.stdout) == len("big\n") + 10_000_000 + 1  # csv stays whole
    del elapsed  # no timing threshold in a unit test: bounded output is the regression check
