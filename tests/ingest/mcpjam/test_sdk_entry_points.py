"""SDK results through the other entry points: ``valuechain.decode`` translates them as
``import`` does; ``import --follow`` refuses them by name (a run read in appended slices would
be split into several runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import valuechain
from valuechain.ingest.decode import DecodedSource
from valuechain.pipeline.follow import Follower
from valuechain.pipeline.imports import ImportOptions
from valuechain.store import Database

PRODUCERS = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
SIX = PRODUCERS / "repo-6d550c0"
REPORT = SIX / "captured" / "suite-model-a" / "001-api_v1_projects_default_eval-ingest_report.json"
DERIVED = SIX / "derived"
SOURCES = [REPORT, DERIVED / "eval-results.ndjson", DERIVED / "eval-result-inputs.json"]


def _hex(value: object) -> str:
    return value.hex() if isinstance(value, bytes) else str(value).lower()


def _decoded_spans(decoded: DecodedSource) -> list[tuple[str, str, str]]:
    rows = decoded.tables["spans"].select(["trace_id", "span_id", "name"]).to_pylist()
    return sorted((_hex(r["trace_id"]), _hex(r["span_id"]), r["name"]) for r in rows)


def _imported_spans(path: Path, tmp_path: Path) -> list[tuple[str, str, str]]:
    with valuechain.open(tmp_path / "i.duckdb") as store:
        assert store.import_paths([path]).ok
        rows = store.sql("SELECT trace_id, span_id, name FROM spans").to_dicts()
    return sorted((_hex(r["trace_id"]), _hex(r["span_id"]), r["name"]) for r in rows)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_decode_translates_sdk_results_as_import_does(path: Path, tmp_path: Path) -> None:
    decoded = valuechain.decode(path.read_bytes(), str(path))
    assert decoded.status == "ok", decoded.rejection
    assert decoded.encoding_flavor == "mcpjam-sdk"
    spans = _decoded_spans(decoded)
    assert spans
    if path == REPORT:  # an SDK-made run id: the same times, so the same ids, as import
        assert spans == _imported_spans(path, tmp_path)


def test_decode_reads_a_parsed_report() -> None:
    report = json.loads(REPORT.read_bytes())
    from_dict = valuechain.decode(report, str(REPORT))
    from_bytes = valuechain.decode(REPORT.read_bytes(), str(REPORT))
    assert from_dict.status == "ok"
    assert _decoded_spans(from_dict) == _decoded_spans(from_bytes)
    assert from_dict.accounting.records_ingested == 30


def test_follow_refuses_sdk_results_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    lines = (SIX / "derived" / "eval-results.ndjson").read_bytes().splitlines(keepends=True)
    live = folder / "results.ndjson"
    live.write_bytes(b"".join(lines[:6]))
    with Database(tmp_path / "s.duckdb") as db:
        follower = Follower(db, folder, ImportOptions())
        first = follower.round()
        with live.open("ab") as handle:
            handle.write(b"".join(lines[6:]))
        second = follower.round()
        trials = db.con.execute("SELECT count(*) FROM core.trials").fetchone()
    assert [s.outcome for s in first.sources] == ["rejected"]
    error = first.sources[0].error
    assert error is not None
    assert "MCPJam SDK results are not followed" in error.render()
    assert "valuechain import" in error.render()
    assert second.sources == []  # said once
    assert trials == (0,)
